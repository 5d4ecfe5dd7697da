"""Source positions: 0-based offsets (for editors) and 1-based lines and columns (for people)."""

from __future__ import annotations

from typing import NamedTuple


class Span(NamedTuple):
    """A range of source text. ``end`` and ``end_column`` are exclusive. (A named tuple: the
    parser makes one for nearly every token, and a tuple is the cheapest immutable record.)"""

    start: int
    end: int
    line: int
    column: int
    end_line: int
    end_column: int

    def merge(self, other: Span | None) -> Span:
        """The smallest span covering this span and ``other``."""
        if other is None:
            return self
        first = self if self.start <= other.start else other
        last = self if self.end >= other.end else other
        return Span(first.start, last.end, first.line, first.column, last.end_line, last.end_column)

    def shifted(self, offset: int, line: int, column: int) -> Span:
        """This span, measured in a text that stands at ``offset``, ``line``, ``column`` of a
        larger one (a string's body in its script), moved to its place in the larger text."""
        return Span(
            offset + self.start,
            offset + self.end,
            line + self.line - 1,
            self.column + column - 1 if self.line == 1 else self.column,
            line + self.end_line - 1,
            self.end_column + column - 1 if self.end_line == 1 else self.end_column,
        )

    def trimmed(self, lead: int = 0, trail: int = 0) -> Span:
        """This span less ``lead`` characters at its start and ``trail`` at its end, on the
        lines where it starts and ends."""
        return Span(
            self.start + lead,
            self.end - trail,
            self.line,
            self.column + lead,
            self.end_line,
            self.end_column - trail,
        )

    def to_dict(self) -> dict[str, int]:
        return self._asdict()


def span_at(text: str, offset: int, length: int = 1) -> Span:
    """The span of ``length`` characters of ``text`` starting at ``offset``."""
    offset = max(0, min(offset, len(text)))
    end = max(offset, min(offset + length, len(text)))
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    end_line = line + text.count("\n", offset, end)
    end_column = end - (text.rfind("\n", 0, end) + 1) + 1
    return Span(offset, end, line, column, end_line, end_column)
