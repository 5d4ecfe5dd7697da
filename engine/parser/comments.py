"""Comments: collected by a lexer callback while the script is read, and given to statements
when their enclosing block is reduced (descriptions, trailing comments, or Comment nodes of
their own). Also marks the statements that follow a blank line."""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import replace

from lark import Token

from engine import ast
from engine.parser.context import Comment, current, token_span
from engine.spans import Span


def collect_comment(token: Token) -> Token:
    """lark's lexer callback for COMMENT tokens (those of a string's body are not comments)."""
    context = current()
    if context.base is None:
        text = token.value if token.value.startswith("/*") else token.value.rstrip()
        span = token_span(token)
        context.comments.append(Comment(span.start, span.end, span.line, span.end_line, text))
        context.comment_starts.append(span.start)
    return token


def _comments_between(start: int, end: int) -> list[Comment]:
    ctx = current()
    comments = ctx.comments
    first = bisect_left(ctx.comment_starts, start)
    found = []
    for comment in comments[first:]:
        if comment.start >= end:
            break
        if not comment.claimed:
            found.append(comment)
    return found


def attach_argument_comments(
    arguments: list[ast.CallArgument], start: int, end: int
) -> tuple[ast.CallArgument, ...]:
    """Comments inside an argument list (from ``start`` to ``end``) go to the argument they
    precede or follow on its line."""
    arguments = list(arguments)
    comments = _comments_between(start, end)
    if not comments or not arguments:
        return tuple(arguments)
    leading: dict[int, list[str]] = {}
    trailing: dict[int, list[str]] = {}
    for comment in comments:
        for index, argument in enumerate(arguments):
            span = argument.span
            if span is None:
                continue
            if span.start <= comment.start < span.end:
                break  # inside a value: left for the statement's description
            if comment.start >= span.end and comment.line == span.end_line:
                trailing.setdefault(index, []).append(comment.text)
                comment.claimed = True
                break
            if comment.end <= span.start:
                leading.setdefault(index, []).append(comment.text)
                comment.claimed = True
                break
    for index, argument in enumerate(arguments):
        if index in leading or index in trailing:
            arguments[index] = replace(
                argument,
                comments=tuple(leading.get(index, ())),
                trailing_comment=" ".join(trailing[index]) if index in trailing else None,
            )
    return tuple(arguments)


def attach_comments(
    body: tuple[ast.Statement, ...], start: int, end: int
) -> tuple[ast.Statement, ...]:
    """Give the unclaimed comments between ``start`` and ``end`` to the statements of ``body``:
    comments directly above a statement become its description, a comment on the line where a
    statement ends becomes its trailing comment, comments inside a statement join its
    description, and the rest stand alone as Comment nodes. Also marks the statements that
    follow a blank line."""
    ctx = current()
    comments = _comments_between(start, end)
    if not comments:
        return _mark_blank_lines([(s, s.span.start if s.span else 0) for s in body], ctx.text)
    statements = list(body)
    inner: dict[int, list[str]] = {}
    trailing: dict[int, list[str]] = {}
    before: dict[int, list[Comment]] = {}
    starts = [s.span.start if s.span else 0 for s in statements]
    for comment in comments:
        comment.claimed = True
        position = bisect_left(starts, comment.start)
        if position > 0:
            span = statements[position - 1].span
            if span is not None and comment.start < span.end:
                inner.setdefault(position - 1, []).append(comment.text)
                continue
            if span is not None and comment.line == span.end_line:
                trailing.setdefault(position - 1, []).append(comment.text)
                continue
        before.setdefault(position, []).append(comment)
    items: list[tuple[ast.Statement, int]] = []
    for index in range(len(statements) + 1):
        statement = statements[index] if index < len(statements) else None
        if index not in before and index not in inner and index not in trailing:
            if statement is not None:
                items.append((statement, statement.span.start if statement.span else 0))
            continue
        groups = _comment_groups(before.get(index, []))
        description: tuple[str, ...] = ()
        visual_start = statement.span.start if statement is not None and statement.span else 0
        if groups and statement is not None and statement.span is not None:
            last = groups[-1]
            if statement.span.line <= last[-1].end_line + 1:
                description = tuple(c.text for c in last)
                visual_start = last[0].start
                groups = groups[:-1]
        for group in groups:
            span = Span(group[0].start, group[-1].end, group[0].line, 1, group[-1].end_line, 1)
            items.append(
                (ast.Comment(lines=tuple(c.text for c in group), span=span), group[0].start)
            )
        if statement is None:
            break
        extra = tuple(inner.get(index, ()))
        if description or extra or index in trailing:
            statement = replace(
                statement,
                description=description + statement.description + extra,
                trailing_comment=" ".join(trailing[index])
                if index in trailing
                else statement.trailing_comment,
            )
        items.append((statement, visual_start))
    return _mark_blank_lines(items, ctx.text)


def _comment_groups(comments: list[Comment]) -> list[list[Comment]]:
    """Split comments into runs without a blank line between them."""
    groups: list[list[Comment]] = []
    for comment in comments:
        if groups and comment.line <= groups[-1][-1].end_line + 1:
            groups[-1].append(comment)
        else:
            groups.append([comment])
    return groups


def _mark_blank_lines(
    items: list[tuple[ast.Statement, int]], text: str
) -> tuple[ast.Statement, ...]:
    """Set the blank_line_before hint where the source has an empty line above an item."""
    if current().base is not None:
        return tuple(item for item, _start in items)
    result: list[ast.Statement] = []
    previous_end = None
    for item, visual_start in items:
        if (
            previous_end is not None
            and text.count("\n", previous_end, visual_start) >= 2
            and _blank_between(text, previous_end, visual_start)
        ):
            item = replace(item, blank_line_before=True)
        result.append(item)
        previous_end = item.span.end if item.span else previous_end
        if item.trailing_comment is not None and item.span is not None:
            line_end = text.find("\n", item.span.end)
            previous_end = len(text) if line_end < 0 else line_end
    return tuple(result)


def _blank_between(text: str, start: int, end: int) -> bool:
    """Whether some line between the two offsets holds only white space."""
    lines = text[start:end].split("\n")
    return any(not line.strip() for line in lines[1:-1])
