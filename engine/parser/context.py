"""The state of one parse, kept per thread, and the spans of lark's tokens in the script.

A quoted or swim string's body is parsed again on its own; while it is, ``Context.base`` holds
where the body starts in the script, and every span is moved there.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, overload

from lark import Token

from engine import ast
from engine.errors import Diagnostic, Severity
from engine.spans import Span


@dataclass(slots=True)
class Comment:
    start: int
    end: int
    line: int
    end_line: int
    text: str
    claimed: bool = False


@dataclass(slots=True)
class Context:
    text: str
    # Parses a string's body (while ``base`` says where it stands) into its parts.
    parse_body: Callable[[str], list[ast.ScalarPart]]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    comments: list[Comment] = field(default_factory=list)
    comment_starts: list[int] = field(default_factory=list)
    # Where a nested parse (a quoted or swim string's body) starts in the script.
    base: tuple[int, int, int] | None = None
    last_error_line: int = -1
    error_count: int = 0
    recoveries: int = 0
    inserted: set[int] = field(default_factory=set)
    rewound: set[int] = field(default_factory=set)

    def report(
        self,
        span: Span,
        message: str,
        *,
        severity: Severity = "error",
        code: str = "syntax",
        hint: str = "",
    ) -> None:
        self.diagnostics.append(
            Diagnostic.at(span, message, severity=severity, code=code, hint=hint)
        )


_local = threading.local()


def current() -> Context:
    """The context of the parse running on this thread."""
    return _local.context


@contextmanager
def parsing(text: str, parse_body: Callable[[str], list[ast.ScalarPart]]) -> Iterator[Context]:
    """A fresh context for parsing ``text``; the one before it comes back afterwards."""
    previous = getattr(_local, "context", None)
    context = Context(text=text, parse_body=parse_body)
    _local.context = context
    try:
        yield context
    finally:
        _local.context = previous


# Spans are made straight from their six numbers, the cheapest way to make a named tuple.
_new_span = tuple.__new__


def token_span(token: Token) -> Span:
    span = _new_span(
        Span,
        (
            token.start_pos,
            token.end_pos,
            token.line,
            token.column,
            token.end_line,
            token.end_column,
        ),
    )
    base = _local.context.base
    return span if base is None else span.shifted(*base)


def placed(span: Span) -> Span:
    """A span measured in the text being parsed, moved to its place in the script."""
    base = _local.context.base
    return span if base is None else span.shifted(*base)


@overload
def cover(first: Token, last: Token) -> Span: ...
@overload
def cover(first: Any, last: Any) -> Span | None: ...
def cover(first: Any, last: Any) -> Span | None:
    """The span from the start of ``first`` to the end of ``last`` (tokens or nodes, in order)."""
    if _local.context.base is None:
        # the script itself, not a string's body (nearly every call): a token's positions are
        # read as they are, without making the token's span first
        if type(first) is Token:
            if type(last) is Token:
                return _new_span(
                    Span,
                    (
                        first.start_pos,
                        last.end_pos,
                        first.line,
                        first.column,
                        last.end_line,
                        last.end_column,
                    ),
                )
            until = last.span
            if until is not None:
                return _new_span(
                    Span,
                    (first.start_pos, until[1], first.line, first.column, until[4], until[5]),
                )
        elif type(last) is Token:
            since = first.span
            if since is not None:
                return _new_span(
                    Span,
                    (since[0], last.end_pos, since[2], since[3], last.end_line, last.end_column),
                )
    start = token_span(first) if type(first) is Token else first.span
    end = token_span(last) if type(last) is Token else last.span
    if start is None or end is None:
        return start or end
    return Span(start[0], end[1], start[2], start[3], end[4], end[5])
