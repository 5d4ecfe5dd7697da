"""What blocks keep of the text their statements were parsed from, so that writing text from
blocks changes only the statements that were added or changed (``ast.Kept``; the formatter
writes it).

``cut`` cuts a parsed script's text into pieces that tile it: the script's head (its headers),
then for each statement the white space before it and its own text, or for a statement with
bodies the text around its bodies (up to its first ``{``, between a ``}`` and the next ``{``, from
its last ``}``) and, in each body, the white space before its first statement and after its last.
Each piece lands in the block of the statement it belongs to (``extraState.source``), so no
text is held twice, and the script's in the workspace (``otterscript.source``):

    {"sign": "3f…", "seal": "c1…", "depth": 1, "before": "\\n    ",
     "text": "Log-Information done;  # ok"}
    {"sign": "9a…", "seal": "07…", "depth": 0, "before": "\\n\\n", "frame": ["# Deploy\\nif $a {", "}"],
     "bodies": [["\\n    ", "\\n"]]}
    {"head": "##AH:UseTextMode", "lead": "\\n\\n", "tail": "\\n", "indent": "    "}

``before`` is absent for the first statement of a body (its body's ``lead``), ``lead`` is null
for a body that had no statement (its ``tail`` is then all of its inside). ``read_kept`` and
``read_kept_script`` read them back, refusing what is not white space where only white space
can be (a gap, a lead, a tail) and a head that is not headers.

The blocks go to a browser and come back, so what a piece says of its statement's text can be
changed on the way. Given a key, ``cut`` seals each piece (``seal``: a digest, keyed, of its
signature and its text) and ``read_kept`` keeps only a piece whose seal is right: text kept is
then text that was parsed into a statement of that signature, and reads as it. The statements
written anew are all a server has to parse again (``engine.blocks.text_of_blocks``).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from collections import Counter
from typing import Any

from engine import ast
from engine.blocks.workspace import BlocksError, as_list, as_object, json_kind, shown
from engine.formatter import INDENT, signature

WHITE = " \t\f\r\n"  # what the lexer skips between tokens
INDENTATION = re.compile(r"[ \t]+")

Piece = dict[str, Any]  # what a block keeps, as JSON


class Mismatch(Exception):
    """The text does not lay out as the script's spans say (it is not the text the script was
    parsed from, or the script was changed since)."""


def cut(
    script: ast.Script, text: str, key: bytes | None = None
) -> tuple[Piece, dict[int, Piece]] | None:
    """The workspace's piece and each statement's (by ``id``) of a script parsed from ``text``,
    sealed with ``key`` when there is one; None when its statements' spans do not lay out the
    text (a tree changed since)."""
    if (script.span.end if script.span else 0) != len(text):
        raise ValueError("the source is not the text the script was parsed from")
    try:
        head_end = _headers_end(script.headers, text)
        cutter = _Cutter(text, key)
        lead, tail = cutter.body(script.body, head_end, len(text), 0, "")
    except Mismatch:
        return None
    workspace: Piece = {"head": text[:head_end], "tail": tail, "indent": cutter.unit()}
    if lead is not None:
        workspace["lead"] = lead
    return workspace, cutter.pieces


def _headers_end(headers: tuple[str, ...], text: str) -> int:
    """Where the last header ends: headers stand alone at the top, white space between them."""
    position = 0
    for header in headers:
        start = _skip_white(text, position)
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        if text[start:end].rstrip() != header:
            raise Mismatch
        position = end
    return position


def _skip_white(text: str, position: int) -> int:
    length = len(text)
    while position < length and text[position] in WHITE:
        position += 1
    return position


def seal(key: bytes, sign: str, text: str | None, frame: tuple[str, ...] | list[str]) -> str:
    """The seal of a piece: its signature and its text (or frame), digested with ``key``."""
    content = "\0".join([sign, "text" if text is not None else "frame", text or "", *frame])
    digest = hashlib.blake2b(content.encode("utf-8", "surrogatepass"), key=key, digest_size=12)
    return base64.urlsafe_b64encode(digest.digest()).decode()


class _Cutter:
    def __init__(self, text: str, key: bytes | None) -> None:
        self.text = text
        self.key = key
        self.pieces: dict[int, Piece] = {}
        # How much further in the statements of a body stand than their parent, counted.
        self.steps: Counter[str] = Counter()

    def unit(self) -> str:
        """The text's unit of indentation: the step seen most, else a tab when lines start
        with one, else four spaces."""
        if self.steps:
            return self.steps.most_common(1)[0][0]
        return "\t" if "\n\t" in self.text else INDENT

    def body(
        self, body: ast.Body, start: int, close: int, depth: int, outer: str
    ) -> tuple[str | None, str]:
        """The pieces of the statements of a body whose inside runs from ``start`` to
        ``close``, ``depth`` deep in a statement indented ``outer``; its lead and tail."""
        text = self.text
        position = start
        lead: str | None = None
        for number, statement in enumerate(body):
            span = statement.span
            if span is None:
                raise Mismatch
            begin = _skip_white(text, position)
            if begin > span.start:
                raise Mismatch
            gap = text[position:begin]
            end = self.end(statement, span.end)
            piece: Piece = {"sign": signature(statement), "depth": depth}
            if number == 0:
                lead = gap
            else:
                piece["before"] = gap
            indentation = outer
            if "\n" in gap:
                indentation = gap[gap.rfind("\n") + 1 :]
                step = indentation[len(outer) :]
                if depth and indentation.startswith(outer) and INDENTATION.fullmatch(step):
                    self.steps[step] += 1
            bodies = ast.bodies(statement)
            if bodies:
                self.frame(statement, piece, bodies, begin, end, depth, indentation)
            else:
                piece["text"] = text[begin:end]
            if self.key is not None:
                piece["seal"] = seal(
                    self.key, piece["sign"], piece.get("text"), piece.get("frame", ())
                )
            self.pieces[id(statement)] = piece
            position = end
        tail = text[position:close]
        if tail.strip(WHITE):
            raise Mismatch
        return lead, tail

    def frame(
        self,
        statement: ast.Statement,
        piece: Piece,
        bodies: tuple[ast.Body, ...],
        begin: int,
        end: int,
        depth: int,
        indentation: str,
    ) -> None:
        """The text around a statement's bodies, and their pieces."""
        text = self.text
        braces = statement.braces
        if len(braces) != 2 * len(bodies):
            raise Mismatch
        frame: list[str] = []
        kept: list[list[str | None]] = []
        cursor = begin
        for number, body in enumerate(bodies):
            opening, closing = braces[2 * number], braces[2 * number + 1]
            if opening < cursor or text[opening] != "{" or text[closing] != "}":
                raise Mismatch
            frame.append(text[cursor : opening + 1])
            kept.append(list(self.body(body, opening + 1, closing, depth + 1, indentation)))
            cursor = closing
        if end < cursor + 1:
            raise Mismatch
        frame.append(text[cursor:end])
        piece["frame"] = frame
        piece["bodies"] = kept

    def end(self, statement: ast.Statement, end: int) -> int:
        """Where a statement's text ends: after its trailing comments, if it has any (the
        comments that start on the line where it ends), and the blanks that end that line."""
        text = self.text
        if statement.trailing_comment is not None:
            end = self.trailing_end(statement.trailing_comment, end)
        stop = end
        while stop < len(text) and text[stop] in " \t":
            stop += 1
        return stop if stop == len(text) or text[stop] in "\r\n" else end

    def trailing_end(self, trailing: str, end: int) -> int:
        """Where the trailing comments after a statement's end end."""
        text = self.text
        found: list[str] = []
        while True:
            start = end
            while start < len(text) and text[start] in " \t\f\r":
                start += 1
            if text.startswith(("#", "//"), start):
                stop = text.find("\n", start)
                end = len(text) if stop < 0 else stop
                found.append(text[start:end].rstrip())
                break
            if not text.startswith("/*", start):
                break
            stop = text.find("*/", start + 2)
            if stop < 0:
                raise Mismatch
            end = stop + 2
            found.append(text[start:end])
            if "\n" in text[start:end]:
                break
        if " ".join(found) != trailing:
            raise Mismatch
        return end


# ---- reading them back --------------------------------------------------------------------------


def read_kept(value: Any, what: str, key: bytes | None = None) -> ast.Kept | None:
    """A block's ``extraState.source``: None when it has none, or, given a key, when its seal
    is not that of its text (it was not cut with that key, or was changed since)."""
    if value is None:
        return None
    where = f"the source of {what}"
    piece = as_object(value, where)
    sign = piece.get("sign")
    depth = piece.get("depth")
    if not isinstance(sign, str):
        raise BlocksError(f"{where} needs its 'sign' (text), not {shown(sign)}")
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 0:
        raise BlocksError(f"{where} needs its 'depth' (a whole number), not {shown(depth)}")
    text = piece.get("text")
    if text is not None and not isinstance(text, str):
        raise BlocksError(f"the text of {where} must be text, not {json_kind(text)}")
    frame = tuple(
        _text(item, f"the frame of {where}") for item in as_list(piece.get("frame"), where)
    )
    bodies = []
    for item in as_list(piece.get("bodies"), f"the bodies of {where}"):
        pair = as_list(item, f"a body of {where}")
        if len(pair) != 2:
            raise BlocksError(f"a body of {where} is [lead, tail], not {len(pair)} items")
        lead = None if pair[0] is None else _white(pair[0], f"the lead of a body of {where}")
        bodies.append((lead, _white(pair[1], f"the tail of a body of {where}")))
    if key is not None and not hmac.compare_digest(
        str(piece.get("seal")), seal(key, sign, text, frame)
    ):
        return None
    before = piece.get("before")
    return ast.Kept(
        signature=sign,
        depth=depth,
        before=None if before is None else _white(before, f"'before' of {where}"),
        text=text,
        frame=frame,
        bodies=tuple(bodies),
    )


def read_kept_script(value: Any, what: str) -> ast.KeptScript | None:
    """The workspace's ``otterscript.source`` (None when it has none)."""
    if value is None:
        return None
    piece = as_object(value, what)
    head = _text(piece.get("head", ""), f"the head of {what}")
    headers = []
    for line in head.split("\n"):
        header = line.strip(WHITE)
        if header and not header.startswith("##AH:"):
            raise BlocksError(f"the head of {what} must be headers (##AH:...), not {shown(line)}")
        if header:
            headers.append(header)
    indent = _text(piece.get("indent", INDENT), f"the indent of {what}")
    if not INDENTATION.fullmatch(indent):
        raise BlocksError(f"the indent of {what} must be spaces or tabs, not {shown(indent)}")
    lead = piece.get("lead")
    return ast.KeptScript(
        head=head,
        headers=tuple(headers),
        lead=None if lead is None else _white(lead, f"the lead of {what}"),
        tail=_white(piece.get("tail", ""), f"the tail of {what}"),
        indent=indent,
    )


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise BlocksError(f"{what} must be text, not {json_kind(value)}")
    return value


def _white(value: Any, what: str) -> str:
    text = _text(value, what)
    if text.strip(WHITE):
        raise BlocksError(f"{what} must be white space, not {shown(text)}")
    return text
