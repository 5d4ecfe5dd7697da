"""Scalars: implicit text, quoted and swim strings, variables and escapes, as AST parts.

A quoted or swim string's body is read by the regular expressions below when it holds only
text, variables and escapes (most do); anything else is parsed again with the grammar's
``text_body`` rule, its spans moved to the body's place in the script.
"""

from __future__ import annotations

import re
from typing import Any

from lark import Token

from engine import ast
from engine.parser.context import cover, current, token_span
from engine.spans import Span, span_at

# Text terminals of implicit strings, by the place they stand in (see the grammar).
IMPLICIT_TEXT = {"A0", "A", "L0", "L", "P0", "P", "Q0", "Q", "C0", "C", "M0", "M", "I0", "I"}
ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}

# The expansions of a string body that need no function call: what most strings hold.
_BODY_SPECIAL = re.compile(r"[$`]")
_BODY_EXPANSION = re.compile(
    r"\$(?P<var>[A-Za-z][A-Za-z0-9_]*)(?![A-Za-z0-9_(])|\$\{(?P<braced>[^}\n]*)\}|(?P<lone>\$)(?![A-Za-z{(])|`(?P<escape>[^\n])"
)

SWIM_LEADING_NEWLINE = re.compile(r"\A[ \t]*\r?\n")
SWIM_TRAILING_NEWLINE = re.compile(r"\r?\n[ \t]*\Z")


def escaped(char: str, span: Span) -> str:
    """The character an escape stands for, warning on a letter that is no escape."""
    if char in ESCAPES:
        return ESCAPES[char]
    if char.isalnum():
        current().report(
            span,
            f"unknown escape '`{char}'; the escapes are `$ `@ `% `n `t `r and ``, so this is the letter '{char}'",
            severity="warning",
            code="escape",
        )
    return char


def _string_body(token: Token, body: str, skip: int) -> tuple[ast.ScalarPart, ...]:
    """Parts of a quoted or swim string's body, which starts ``skip`` characters into the token."""
    if "$" not in body and "`" not in body:
        return (ast.Text(value=body, span=token_span(token)),) if body else ()
    ctx = current()
    start = token_span(token)
    prefix = token.value[:skip]
    line = start.line + prefix.count("\n")
    column = start.column + skip if "\n" not in prefix else skip - prefix.rfind("\n")
    base = (start.start + skip, line, column)
    saved = ctx.base
    ctx.base = base
    try:
        parts = _simple_body(body, base)
        if parts is None:
            parts = ctx.parse_body(body)
    finally:
        ctx.base = saved
    return tuple(parts)


def _simple_body(body: str, base: tuple[int, int, int]) -> list[ast.ScalarPart] | None:
    """The parts of a body made of text, variables and escapes, as the grammar's ``text_body``
    reads them; None when the body holds anything else (a call, ``$(...)``, a bad escape), which
    the grammar then reads and reports on. ``base`` is where the body starts in the script."""
    parts: list[ast.ScalarPart] = []
    position = 0
    while True:
        special = _BODY_SPECIAL.search(body, position)
        end = special.start() if special else len(body)
        if end > position:
            span = span_at(body, position, end - position).shifted(*base)
            parts.append(ast.Text(value=body[position:end], span=span))
        if special is None:
            return list(merge_text(parts))
        match = _BODY_EXPANSION.match(body, end)
        if match is None:
            return None
        span = span_at(body, end, match.end() - end).shifted(*base)
        kind = match.lastgroup
        if kind == "var" or kind == "braced":
            parts.append(ast.VariableRef(sigil="$", name=match.group(kind), span=span))
        elif kind == "lone":
            parts.append(ast.Text(value="$", span=span))
        else:
            value = escaped(match.group("escape"), span)
            parts.append(ast.Text(value=value, escaped=match.group(0), span=span))
        position = match.end()


def _swim_parts(token: Token) -> tuple[ast.ScalarPart, ...]:
    raw = token.value
    sentinel = raw[: raw.index(">", 1) + 1]  # >>, or >name> with a name of up to five characters
    body = raw[len(sentinel) : -len(sentinel)]
    skip = len(sentinel)
    leading = SWIM_LEADING_NEWLINE.match(body)
    if leading:
        body = body[leading.end() :]
        skip += leading.end()
    trailing = SWIM_TRAILING_NEWLINE.search(body)
    if trailing:
        body = body[: trailing.start()]
    return _string_body(token, body, skip)


def merge_text(parts: list[ast.ScalarPart]) -> tuple[ast.ScalarPart, ...]:
    """The parts with empty texts dropped and neighbouring texts joined."""
    merged: list[ast.ScalarPart] = []
    for part in parts:
        if isinstance(part, ast.Text):
            if not part.value:
                continue
            if merged and isinstance(merged[-1], ast.Text):
                previous = merged[-1]
                span = previous.span.merge(part.span) if previous.span else part.span
                escapes = previous.escaped is not None or part.escaped is not None
                merged[-1] = ast.Text(
                    value=previous.value + part.value,
                    escaped=previous.written + part.written if escapes else None,
                    span=span,
                )
                continue
        merged.append(part)
    return tuple(merged)


def scalar_parts(
    children: list[Any], parts: list[ast.ScalarPart] | None = None
) -> tuple[list[ast.ScalarPart], ast.QuoteStyle]:
    """Turn the pieces of a scalar into parts; returns the parts and the quoting style."""
    ctx = current()
    parts = parts if parts is not None else []
    style: ast.QuoteStyle = "implicit"
    previous_kind = None
    trim_end = False
    for index, child in enumerate(children):
        if not isinstance(child, Token):
            parts.append(child)
            previous_kind = None
            trim_end = False
            continue
        kind = child.type
        span = token_span(child)
        trim_end = kind in IMPLICIT_TEXT
        if kind in IMPLICIT_TEXT or kind == "BODY_TEXT":
            text = child.value
            if not parts and kind in IMPLICIT_TEXT and text[:1].isspace():
                stripped = text.lstrip()
                span = span.trimmed(lead=len(text) - len(stripped))
                text = stripped
            parts.append(ast.Text(value=text, span=span))
            if previous_kind in ("QUOTED", "SWIM") and text.strip():
                ctx.report(
                    span,
                    "text after a closing quote is joined to the quoted text without the quotes; quote the whole value",
                    severity="warning",
                    code="quote",
                )
        elif kind == "QUOTED":
            parts.extend(_string_body(child, child.value[1:-1], 1))
            if index == 0:
                style = "double" if child.value[0] == '"' else "single"
        elif kind == "SWIM":
            parts.extend(_swim_parts(child))
            if index == 0:
                style = "swim"
        elif kind == "VAR":
            parts.append(ast.VariableRef(sigil="$", name=child.value[1:], span=span))
        elif kind == "BRACED_VAR":
            parts.append(ast.VariableRef(sigil="$", name=child.value[2:-1], span=span))
        elif kind == "ESCAPE":
            value = escaped(child.value[1], span)
            parts.append(ast.Text(value=value, escaped=child.value, span=span))
        elif kind == "LONE_DOLLAR":
            parts.append(ast.Text(value="$", span=span))
        previous_kind = kind
    if trim_end and parts and isinstance(parts[-1], ast.Text):
        last = parts[-1]
        stripped = last.value.rstrip()
        if stripped != last.value:
            trail = len(last.value) - len(stripped)
            trimmed = None if last.span is None else last.span.trimmed(trail=trail)
            parts[-1] = ast.Text(value=stripped, span=trimmed)
    if style != "implicit" and any(
        not (isinstance(child, Token) and child.type in IMPLICIT_TEXT and not child.value.strip())
        for child in children[1:]
    ):
        style = "implicit"
    return parts, style


def scalar(children: list[Any]) -> ast.Scalar:
    if len(children) == 1 and children[0].__class__ is Token and children[0].type in IMPLICIT_TEXT:
        # the common case: one run of plain text
        token = children[0]
        text = token.value
        stripped = text.strip()
        span = token_span(token)
        if stripped != text:
            span = span.trimmed(len(text) - len(text.lstrip()), len(text) - len(text.rstrip()))
        return ast.Scalar(parts=(ast.Text(value=stripped, span=span),), span=span)
    parts, style = scalar_parts(children)
    return ast.Scalar(parts=merge_text(parts), style=style, span=cover(children[0], children[-1]))
