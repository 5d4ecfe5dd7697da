"""Text kept from the source: a script from blocks that carries the layout of the text it came
from is written with only its added and changed statements formatted (the formatter's second
half; see engine/formatter/__init__.py)."""

from __future__ import annotations

import re

from engine import ast
from engine.formatter.canonical import Writer, signature

# ---- text kept from the source ----------------------------------------------------------------

BLANKS = re.compile(r"[^ \t]")


class KeptWriter(Writer):
    """Writes a script whose statements may keep the text they were parsed from (``ast.Kept``,
    carried through blocks): each one that still has its signature and stands as deep as it
    did is written as it was, with the white space before it; a statement with bodies whose
    head changed, or that is new, is written canonically around its bodies, whose statements
    keep their text all the same; the others are written canonically, indented like the
    statements beside them (or one level, of the script's indentation, further in than their
    parent), and separated from them as the formatter would.

    Output is kept in ``lines`` as ever, joined by line breaks: kept text goes on at the end of
    the last line (``raw``), canonical lines after the white space written before them
    (``glue``). When every line break of the text kept is ``\r\n``, so are those written anew;
    otherwise they are ``\n`` (a kept ``\r`` stays at the end of its line either way)."""

    def __init__(self, kept: ast.KeptScript) -> None:
        super().__init__(unit=kept.indent)
        self.kept = kept
        self.lines = [""]
        # While a statement is written canonically: how deep it stands, what it kept (the white
        # space in its bodies, when its head changed), and which of its bodies comes next.
        self.depth = 0
        self.frame: ast.Kept | None = None
        self.next_body = 0
        self.crlf = False  # every line break kept is \r\n (see script)
        # The statements written anew (not inside another written anew): where each starts and
        # ends, as (line, column) in ``lines``.
        self.written_anew: list[tuple[ast.Statement, tuple[int, int], tuple[int, int]]] = []
        self.inside_anew = 0

    def text(self) -> str:
        if not self.crlf:
            return "\n".join(self.lines)
        ended = [line if line.endswith("\r") else line + "\r" for line in self.lines[:-1]]
        return "\n".join([*ended, self.lines[-1]])

    def anew(self) -> list[tuple[str, ast.Statement]]:
        """Each statement written anew (see ``written_anew``) with its text, after as many line
        breaks and spaces as there are lines and characters before it in the text, so that a
        position in it is one in the text."""
        found = []
        lines = self.lines
        for statement, (first, column), (last, end) in self.written_anew:
            if first == last:
                text = lines[first][column:end]
            else:
                text = "\n".join(
                    [lines[first][column:], *lines[first + 1 : last], lines[last][:end]]
                )
            found.append(("\n" * first + " " * column + text, statement))
        return found

    def raw(self, text: str) -> None:
        """Write ``text`` as it is, from the end of the last line."""
        if "\n" not in text:
            self.lines[-1] += text
            return
        first, *rest = text.split("\n")
        self.lines[-1] += first
        self.lines.extend(rest)

    def script(self, script: ast.Script) -> str:
        kept = self.kept
        self.crlf = _all_crlf(script, kept)
        if not script.headers and not script.body and kept.lead is not None:
            return ""  # every statement gone: no white space left either
        lead = kept.lead
        if script.headers == kept.headers:
            self.raw(kept.head)
        else:
            self.raw("\n".join(script.headers))
            if bool(script.headers) != bool(kept.headers):
                lead = None  # the white space after headers, or at the top: laid out anew
        self.kept_body(script.body, 0, "", lead, kept.tail, kept.lead is None)
        return self.text()

    def kept_body(
        self,
        body: ast.Body,
        depth: int,
        outer: str,
        lead: str | None,
        tail: str | None,
        empty: bool,
    ) -> None:
        """The statements of a body standing ``depth`` deep, in a statement indented ``outer``
        (at the top: depth 0, no statement), with the white space its text had before its first
        statement (``lead``) and after its last (``tail``; all of it when it was ``empty``);
        None when there is none to keep."""
        if not body:
            if tail is None:
                tail = "\n" + outer
            elif lead is not None and not empty:  # emptied: what ended the line of its '{'
                tail = lead[: max(lead.find("\n"), 0)] + tail
            self.raw(tail)
            return
        inner = self.indentation(body, depth, lead, outer)
        previous: ast.Statement | None = None
        for position, statement in enumerate(body):
            kept = statement.kept
            if kept is not None and kept.depth != depth:
                kept = None  # moved in or out: its lines change anyway
            usable = kept if kept is not None and _usable(statement, kept) else None
            if position > 0 and kept is not None and kept.before is not None:
                gap = kept.before
            else:
                gap = self.gap(body, position, depth, lead, inner, kept is not None)
                # the line breaks of the place it stands in, its own indentation
                start = depth == 0 and not self.kept.head  # white space that starts the text
                own = None
                if kept is not None:
                    before = kept.before
                    own = _indentation(lead if before is None else before, before is None and start)
                place = _indentation(gap, start and position == 0)
                if own is not None and place is not None:
                    gap = gap[: len(gap) - len(place)] + own
            if previous is not None:
                gap = _separated(previous, statement, usable, gap, inner)
            self.raw(gap)
            self.kept_statement(statement, usable, kept, depth, inner)
            previous = statement
        if tail is None or (empty and "\n" not in tail):
            tail = "\n" + outer
        elif depth and "\n" not in tail and _line_comment_ends(previous):
            tail = "\n" + outer + tail.lstrip(" \t")  # the '}' after it
        self.raw(tail)

    def gap(
        self, body: ast.Body, position: int, depth: int, lead: str | None, inner: str, kept: bool
    ) -> str:
        """The white space before a statement that brings none of its own to where it stands:
        its body's lead for the first; for the statement that was first, now after one moved
        to the front, what that one had before it; else a line break, after a blank line when
        the statement had one (or at the top of a script, after headers)."""
        if position == 0:
            if lead is not None:
                return lead
            if depth == 0:
                return "\n\n" if self.lines != [""] else ""
            return "\n" + inner
        moved = _before(body[0], depth)
        if kept and moved is not None:
            return moved
        return ("\n\n" if body[position].blank_line_before else "\n") + inner

    def indentation(self, body: ast.Body, depth: int, lead: str | None, outer: str) -> str:
        """The indentation of a body's statements: that of its first line in the text, or of
        another statement kept in it, or one level further in than ``outer`` (at the top: none)."""
        if lead is not None and "\n" in lead:
            return _last_line(lead)
        for statement in body:
            kept = statement.kept
            if kept is not None and kept.depth == depth and kept.before and "\n" in kept.before:
                return _last_line(kept.before)
        return outer + self.unit if depth else outer

    def kept_statement(
        self,
        statement: ast.Statement,
        usable: ast.Kept | None,
        kept: ast.Kept | None,
        depth: int,
        inner: str,
    ) -> None:
        """One statement, ``depth`` deep and indented ``inner``: as it was when its text is
        ``usable``, else canonically (around what its bodies keep)."""
        if usable is not None:
            if usable.text is not None:
                self.raw(usable.text)
                return
            self.raw(usable.frame[0])
            for number, body in enumerate(ast.bodies(statement)):
                lead, tail = usable.bodies[number]
                self.kept_body(body, depth + 1, inner, lead, tail, lead is None)
                self.raw(usable.frame[number + 1])
            return
        saved = self.prefix, self.depth, self.frame, self.next_body
        self.prefix, self.depth, self.frame, self.next_body = inner, depth, kept, 0
        self.glue = True
        start = len(self.lines) - 1, len(self.lines[-1])
        self.inside_anew += 1
        self.statement(statement, 0)
        self.inside_anew -= 1
        if not self.inside_anew:
            self.written_anew.append((statement, start, (len(self.lines) - 1, len(self.lines[-1]))))
        self.prefix, self.depth, self.frame, self.next_body = saved

    def block(self, body: ast.Body, indent: int) -> None:
        """A body of a statement written canonically: its braces on lines of their own, its
        statements as they were where they can be."""
        self.line(indent, "{")
        lead = tail = None
        frame, number = self.frame, self.next_body
        self.next_body += 1
        if frame is not None and number < len(frame.bodies):
            lead, tail = frame.bodies[number]
            if lead is None or "\n" not in tail:
                lead = tail = None  # none to keep, or not on lines of their own
        saved = self.prefix, self.depth, self.frame, self.next_body
        self.kept_body(body, self.depth + 1, self.pad(indent), lead, tail, lead is None)
        self.prefix, self.depth, self.frame, self.next_body = saved
        self.raw("}")


def _all_crlf(script: ast.Script, kept: ast.KeptScript) -> bool:
    """Whether the text kept has line breaks and every one of them is ``\r\n``."""
    pieces = [kept.head, kept.lead or "", kept.tail]
    waiting = list(script.body)
    while waiting:
        statement = waiting.pop()
        if statement.kept is not None:
            own = statement.kept
            pieces += [own.before or "", own.text or "", *own.frame]
            pieces += [part or "" for pair in own.bodies for part in pair]
        for body in ast.bodies(statement):
            waiting.extend(body)
    text = "".join(pieces)
    return "\r\n" in text and "\n" not in text.replace("\r\n", "")


def _before(statement: ast.Statement, depth: int) -> str | None:
    """The white space a statement kept from before it, standing ``depth`` deep."""
    kept = statement.kept
    return kept.before if kept is not None and kept.depth == depth else None


def _usable(statement: ast.Statement, kept: ast.Kept) -> bool:
    """Whether a statement's kept text still stands for it: it has its signature, and what it
    kept fits its shape (text, or a frame around each of its bodies)."""
    count = len(ast.bodies(statement))
    if count == 0:
        if kept.text is None:
            return False
    elif len(kept.frame) != count + 1 or len(kept.bodies) != count:
        return False
    return signature(statement) == kept.signature


def _separated(
    previous: ast.Statement,
    statement: ast.Statement,
    usable: ast.Kept | None,
    gap: str,
    inner: str,
) -> str:
    """The white space between two statements, as ``gap`` has it unless it would join them
    otherwise: a standalone comment followed without a blank line (it would describe the next
    statement, or join the next comment), a comment to the end of the line followed on that
    line, a statement that opens with a comment following on the line where the statement
    before it ends (the comment would be that statement's trailing comment)."""
    breaks = gap.count("\n")
    if isinstance(previous, ast.Comment):
        if breaks == 0:
            return "\n\n" + inner
        return "\n" + gap if breaks == 1 else gap
    if breaks == 0 and (_line_comment_ends(previous) or _opens_with_comment(statement, usable)):
        return "\n" + inner
    return gap


def _line_comment_ends(statement: ast.Statement | None) -> bool:
    """Whether a statement's text ends with a comment that runs to the end of the line."""
    if statement is None:
        return False
    if isinstance(statement, ast.Comment):
        comment = statement.lines[-1] if statement.lines else ""
    else:
        comment = statement.trailing_comment or ""
    return comment.startswith(("#", "//"))


def _opens_with_comment(statement: ast.Statement, usable: ast.Kept | None) -> bool:
    if usable is not None:
        first = usable.text if usable.text is not None else usable.frame[0]
        return first.startswith(("#", "/"))
    return bool(statement.description) or isinstance(statement, ast.Comment)


def _indentation(gap: str | None, start: bool) -> str | None:
    """The indentation white space before a statement ends with: the blanks after its last line
    break, or all of it at the start of the text; None when it has none (it follows another
    statement on its line)."""
    if gap is None:
        return None
    if "\n" in gap:
        return gap[gap.rfind("\n") + 1 :]
    return gap if start else None


def _last_line(gap: str) -> str:
    """The indentation white space ends with: its last line, spaces and tabs only."""
    return BLANKS.sub("", gap[gap.rfind("\n") + 1 :])
