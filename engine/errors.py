"""Diagnostics and the OtterScript error family."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine.spans import Span

Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem found in a script, with its position (1-based; end exclusive)."""

    line: int
    column: int
    end_line: int
    end_column: int
    severity: Severity
    message: str
    code: str = "syntax"
    hint: str = ""  # the likely mistake and its fix, when the parser can name it

    @classmethod
    def at(
        cls,
        span: Span,
        message: str,
        *,
        severity: Severity = "error",
        code: str = "syntax",
        hint: str = "",
    ) -> Diagnostic:
        return cls(
            span.line, span.column, span.end_line, span.end_column, severity, message, code, hint
        )

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def to_dict(self) -> dict[str, object]:
        return {
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "severity": self.severity,
            "message": self.message,
            "code": self.code,
            "hint": self.hint,
        }

    @property
    def explained(self) -> str:
        """The message, and its hint after a colon."""
        return f"{self.message}: {self.hint}" if self.hint else self.message

    def format(self, name: str = "<script>", text: str | None = None) -> str:
        """``name:line:col: severity: message``, plus the line and a caret when text is given."""
        head = f"{name}:{self.line}:{self.column}: {self.severity}: {self.explained}"
        if text is None:
            return head
        lines = text.splitlines()
        if not 0 < self.line <= len(lines):
            return head
        source = lines[self.line - 1]
        width = (
            self.end_column - self.column
            if self.end_line == self.line
            else len(source) - self.column + 1
        )
        caret = " " * (self.column - 1) + "^" * max(1, width)
        return f"{head}\n    {source}\n    {caret}"


def sort_key(diagnostic: Diagnostic) -> tuple[int, int, int]:
    return (diagnostic.line, diagnostic.column, 0 if diagnostic.is_error else 1)


class OtterError(Exception):
    """Base of every error the engine raises on purpose."""


class OtterSyntaxError(OtterError):
    """A script that does not parse. ``diagnostics`` holds every problem found, errors first."""

    def __init__(
        self, diagnostics: list[Diagnostic], name: str = "<script>", text: str | None = None
    ):
        self.diagnostics = sorted(diagnostics, key=sort_key)
        self.name = name
        self.text = text
        first = next((d for d in self.diagnostics if d.is_error), self.diagnostics[0])
        count = sum(d.is_error for d in self.diagnostics)
        more = f" (and {count - 1} more)" if count > 1 else ""
        super().__init__(first.format(name) + more)

    def __str__(self) -> str:
        return "\n".join(d.format(self.name, self.text) for d in self.diagnostics)
