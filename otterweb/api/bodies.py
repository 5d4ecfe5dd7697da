"""Request and response bodies of the API.

Every JSON body is read by ``JSONParser``: at most four times ``OTTERWEB_MAX_SCRIPT_BYTES`` (a
workspace says in many words what a script says in few, and JSON escapes take room), nested at most ``MAX_JSON_DEPTH`` deep, its text real text (no
lone surrogate) and its numbers in range (integers within 64 bits). Anything else is a 400
with a message, before a view sees it. No text in it, key or value, holds a NUL character
(U+0000), which PostgreSQL's text and jsonb cannot store: a 400 names the first one's place
(``variables.Token``), under the top-level field it is in. Workspaces of Blockly blocks nest two levels for each
statement in a row: the endpoints that take and give them read and write JSON without Python's
recursion (``engine.json_text``), as deep as the size limit allows.
"""

from __future__ import annotations

import codecs
import json

from django.conf import settings
from rest_framework import parsers, renderers, serializers
from rest_framework.exceptions import ParseError

from engine import json_dumps, json_loads

# A request's JSON may be this many times the script limit.
BODY_FACTOR = 4
# The API's own bodies nest a few levels; a variable's value (a map of lists ...) a few more.
MAX_JSON_DEPTH = 64
# Each level of a workspace's JSON takes at least this many bytes ({"block":{ ... }).
WORKSPACE_BYTES_PER_LEVEL = 8
# JSON spells NUL only as this escape (a raw control character is not JSON): a body without it
# is not walked
NUL_ESCAPE = "\\u0000"
PLACE_MAX = 200  # characters of a place in a body a message shows


def request_limit() -> int:
    return BODY_FACTOR * settings.OTTERWEB_MAX_SCRIPT_BYTES


class JSONParser(parsers.JSONParser):
    max_depth: int | None = MAX_JSON_DEPTH

    def depth(self) -> int | None:
        return self.max_depth

    def parse(self, stream, media_type=None, parser_context=None):
        limit = request_limit()
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise serializers.ValidationError(
                {
                    "non_field_errors": [
                        f"the request is over {limit:,} bytes, {BODY_FACTOR} times the script "
                        f"limit of {settings.OTTERWEB_MAX_SCRIPT_BYTES:,} bytes "
                        "(OTTERWEB_MAX_SCRIPT_BYTES)"
                    ]
                }
            )
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            text = codecs.decode(raw, encoding)
        except (UnicodeDecodeError, LookupError) as error:
            raise ParseError(f"JSON parse error - the body is not {encoding}: {error}") from None
        try:
            value = json_loads(text, max_depth=self.depth(), surrogates=False, integer_bits=64)
        except ValueError as error:
            raise ParseError(f"JSON parse error - {error}") from None
        if NUL_ESCAPE in text:
            refuse_nul(value)
        return value


class FormParser(parsers.FormParser):
    """Form bodies, refused (400) when a field or value holds a NUL, as JSON bodies are."""

    def parse(self, stream, media_type=None, parser_context=None):
        data = super().parse(stream, media_type, parser_context)
        refuse_nul({key: data.getlist(key) for key in data})
        return data


class MultiPartParser(parsers.MultiPartParser):
    """Multipart bodies, refused (400) when a field or value holds a NUL, as JSON bodies are."""

    def parse(self, stream, media_type=None, parser_context=None):
        parsed = super().parse(stream, media_type, parser_context)
        refuse_nul({key: parsed.data.getlist(key) for key in parsed.data})
        return parsed


def refuse_nul(value) -> None:
    """A 400 (ValidationError) naming the place of the first text of ``value`` (a key or a
    value) that holds a NUL character, under its top-level field; nothing when none does.
    Walked without recursion, each value's place a link to its container's (a workspace nests
    thousands deep)."""
    # a place: (the container's place, the key or index), or () at the top
    pending: list[tuple[object, tuple]] = [(value, ())]
    while pending:
        item, place = pending.pop()
        if isinstance(item, str):
            if "\x00" in item:
                _nul_at(_steps(place), "holds")
        elif isinstance(item, dict):
            for key in item:
                if "\x00" in key:
                    _nul_at(_steps((place, key)), "is named with")
            pending.extend((inner, (place, key)) for key, inner in reversed(item.items()))
        elif isinstance(item, list):
            pending.extend((item[i], (place, i)) for i in range(len(item) - 1, -1, -1))


def _steps(place: tuple) -> list:
    steps = []
    while place:
        place, step = place
        steps.append(step)
    return steps[::-1]


def _nul_at(path: list, what: str) -> None:
    place = _place(path)
    field = path[0] if path and isinstance(path[0], str) else "non_field_errors"
    message = (
        f"{place} {what} a NUL character (U+0000, \\u0000 in JSON), which text here cannot "
        "hold: leave it out"
    )
    raise serializers.ValidationError({field: [message]})


def _place(path: list) -> str:
    """``variables.Token``, ``servers[2]``, ``variables["a b"]``: where a value is in a body
    (its middle left out past PLACE_MAX characters)."""
    written = "the body" if not path or isinstance(path[0], int) else ""
    for step in path:
        if isinstance(step, int):
            written += f"[{step}]"
        elif step.isidentifier():
            written += f".{step}" if written else step
        else:
            written += f"[{json.dumps(step.replace(chr(0), '␀'), ensure_ascii=False)}]"
    if len(written) > PLACE_MAX:
        written = f"{written[: PLACE_MAX // 3]}…{written[-PLACE_MAX * 2 // 3 :]}"
    return written


class WorkspaceJSONParser(JSONParser):
    """JSON as deep as a workspace within the size limit nests."""

    def depth(self) -> int | None:
        return request_limit() // WORKSPACE_BYTES_PER_LEVEL


class DeepJSONRenderer(renderers.JSONRenderer):
    """DRF's JSON renderer, for data of any depth (a workspace)."""

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if data is None:
            return b""
        try:
            return json_dumps(data, ensure_ascii=self.ensure_ascii).encode("utf-8")
        except TypeError:  # a type only DRF's encoder knows (a date, a lazy text ...)
            return super().render(data, accepted_media_type, renderer_context)
