"""Request and response bodies of the API.

Every JSON body is read by ``JSONParser``: at most four times ``OTTERWEB_MAX_SCRIPT_BYTES`` (a
workspace says in many words what a script says in few, and JSON escapes take room), nested at most ``MAX_JSON_DEPTH`` deep, its text real text (no
lone surrogate) and its numbers in range (integers within 64 bits). Anything else is a 400
with a message, before a view sees it. Workspaces of Blockly blocks nest two levels for each
statement in a row: the endpoints that take and give them read and write JSON without Python's
recursion (``engine.json_text``), as deep as the size limit allows.
"""

from __future__ import annotations

import codecs

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
            return json_loads(text, max_depth=self.depth(), surrogates=False, integer_bits=64)
        except ValueError as error:
            raise ParseError(f"JSON parse error - {error}") from None


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
