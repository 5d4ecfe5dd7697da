"""Script endpoints for the editor: check, format, blocks, unblocks, the reference of
operations and functions, and the names a raft's scripts can use. A script that does not parse
gets 400 with its diagnostics; a script larger than ``OTTERWEB_MAX_SCRIPT_BYTES``, or JSON that
is not what an endpoint takes, 400 with a message."""

from __future__ import annotations

import codecs
import json
import re

from django.conf import settings
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import ParseError
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from engine import OtterSyntaxError, check, format_script, from_blocks, parse, to_blocks
from engine.blocks import BlocksError
from otterweb.editor.names import script_names
from otterweb.editor.reference import reference
from otterweb.rafts.models import Raft

# A request's JSON may be this many times the script limit: a workspace says in many words what
# the text says in few, and JSON escapes take room.
BODY_FACTOR = 4
# How deep the JSON of a workspace may nest (each statement in a row is two levels, each nested
# body three): 3,000 statements in a row. Python's JSON reader and writer recurse; the
# application raises their limit above this (otterweb.apps.RECURSION_LIMIT).
MAX_JSON_DEPTH = 6_000
SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def script_limit() -> int:
    return settings.OTTERWEB_MAX_SCRIPT_BYTES


def too_large(size: int, what: str) -> str:
    limit = script_limit()
    return (
        f"{what} is {size:,} bytes; the server takes at most {limit:,} bytes "
        "(OTTERWEB_MAX_SCRIPT_BYTES)"
    )


class ScriptJSONParser(JSONParser):
    """JSON with a size limit, and 400 (not 500) for JSON nested too deep to read."""

    def parse(self, stream, media_type=None, parser_context=None):
        limit = BODY_FACTOR * script_limit()
        raw = stream.read(limit + 1)
        if len(raw) > limit:
            raise serializers.ValidationError(
                {
                    "non_field_errors": [
                        f"the request is over {limit:,} bytes, {BODY_FACTOR} times the script "
                        f"limit of {script_limit():,} bytes (OTTERWEB_MAX_SCRIPT_BYTES)"
                    ]
                }
            )
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            data = json.loads(codecs.decode(raw, encoding))
            if SURROGATE_ESCAPE.search(raw):  # a pair is one character, one alone is not text
                json.dumps(data, ensure_ascii=False).encode("utf-8")
        except RecursionError:
            raise ParseError("JSON parse error - nested too deep") from None
        except UnicodeEncodeError:
            raise ParseError(
                "JSON parse error - text holds a lone surrogate (\\uD800-\\uDFFF)"
            ) from None
        except ValueError as error:
            raise ParseError(f"JSON parse error - {error}") from None
        return data


def json_depth(value) -> int:
    """How deep JSON nests (a scalar is 0), counted without recursion."""
    deepest = 0
    pending = [(value, 1)]
    while pending:
        value, depth = pending.pop()
        children = value.values() if isinstance(value, dict) else value
        if isinstance(value, dict | list):
            deepest = max(deepest, depth)
            pending.extend((child, depth + 1) for child in children)
    return deepest


class ScriptView(APIView):
    permission_classes = [IsAuthenticated]
    parser_classes = [ScriptJSONParser, FormParser, MultiPartParser]

    def handle_exception(self, exc):
        if isinstance(exc, RecursionError):  # the engine's visitors recurse on nested blocks
            exc = serializers.ValidationError(
                {"script": ["the script nests its blocks too deeply for the server to read"]}
            )
        return super().handle_exception(exc)


ScriptInput = inline_serializer(
    "ScriptInput", {"script": serializers.CharField(allow_blank=True, trim_whitespace=False)}
)
WorkspaceInput = inline_serializer("WorkspaceInput", {"workspace": serializers.DictField()})


def _script(request) -> str:
    text = request.data.get("script") if isinstance(request.data, dict) else None
    if not isinstance(text, str):
        raise serializers.ValidationError({"script": ["the OtterScript text, as a string"]})
    size = len(text.encode("utf-8"))
    if size > script_limit():
        raise serializers.ValidationError({"script": [too_large(size, "the script")]})
    return text


class CheckView(ScriptView):
    @extend_schema(request=ScriptInput, responses={200: dict})
    def post(self, request):
        """Every diagnostic of a script (warnings included); 400 when it does not parse."""
        return Response({"diagnostics": [d.to_dict() for d in check(parse(_script(request)))]})


class FormatView(ScriptView):
    @extend_schema(request=ScriptInput, responses={200: dict})
    def post(self, request):
        """The canonical text of a script."""
        return Response({"script": format_script(parse(_script(request)))})


class BlocksView(ScriptView):
    @extend_schema(request=ScriptInput, responses={200: dict})
    def post(self, request):
        """The Blockly workspace of a script; 400 when it has too many statements in a row or
        nested to send as blocks (edit it as text)."""
        workspace = to_blocks(parse(_script(request)))
        if json_depth(workspace) > MAX_JSON_DEPTH - 2:  # and {"workspace": ...}
            raise serializers.ValidationError(
                {
                    "script": [
                        "the script has too many statements in a row, or nested, to show as "
                        f"blocks (their JSON would nest more than {MAX_JSON_DEPTH} deep); "
                        "edit it as text"
                    ]
                }
            )
        return Response({"workspace": workspace})


class UnblocksView(ScriptView):
    @extend_schema(request=WorkspaceInput, responses={200: dict})
    def post(self, request):
        """The text of a Blockly workspace. 400 with a message for JSON that is not a workspace
        of OtterScript blocks (a block of an unknown type is kept as its TEXT field when it has
        one), with diagnostics for a field that does not parse."""
        workspace = request.data.get("workspace") if isinstance(request.data, dict) else None
        if not isinstance(workspace, dict):
            raise serializers.ValidationError({"workspace": ["a Blockly workspace (JSON object)"]})
        try:
            text = format_script(from_blocks(workspace))
        except BlocksError as error:
            raise serializers.ValidationError({"workspace": [str(error)]}) from None
        size = len(text.encode("utf-8"))
        if size > script_limit():
            raise serializers.ValidationError({"workspace": [too_large(size, "its script")]})
        try:  # a name or a raw block's text can make text that reads otherwise
            parse(text)
        except OtterSyntaxError as error:
            first = error.diagnostics[0]
            raise serializers.ValidationError(
                {
                    "workspace": [
                        "the blocks make text that does not parse: line "
                        f"{first.line}, column {first.column}: {first.explained}"
                    ]
                }
            ) from None
        return Response({"script": text})


class ReferenceView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: dict})
    def get(self, request):
        """Every operation (namespace, name, aliases, kind, description, parameters) and every
        function (name, aliases, the sigils it is called with, parameters, description)."""
        return Response(reference(), headers={"Cache-Control": "private, max-age=300"})


class NamesQuery(serializers.Serializer):
    raft = serializers.SlugRelatedField(
        queryset=Raft.objects.all(),
        slug_field="name",
        error_messages={"does_not_exist": "there is no raft named '{value}'"},
    )


class ItemNameSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="As a script in the raft asked about writes it.")
    raft = serializers.CharField()
    kind = serializers.CharField()


class VariableNameSerializer(serializers.Serializer):
    name = serializers.CharField()
    sigil = serializers.ChoiceField(
        choices=["$", "@", "%"], help_text="Its value's kind ($ when sensitive)."
    )
    scopes = serializers.ListField(
        child=serializers.CharField(), help_text="server, environment, role, global"
    )


class ScriptNamesSerializer(serializers.Serializer):
    variables = VariableNameSerializer(many=True)
    modules = ItemNameSerializer(many=True)
    templates = ItemNameSerializer(many=True)


class NamesView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[OpenApiParameter("raft", str, required=True, description="A raft's name.")],
        responses={200: ScriptNamesSerializer},
    )
    def get(self, request):
        """The names a script in a raft can use: the inventory's variables (name, sigil, the kinds
        of scope that set them; never a value), and the raft items it can call as modules and
        apply as templates. Each part only for a user who may read it."""
        query = NamesQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        user = request.user
        names = script_names(
            raft=query.validated_data["raft"],
            variables=user.has_perm("inventory.view_variable"),
            items=user.has_perm("rafts.view_raftitem"),
        )
        return Response(ScriptNamesSerializer(names).data)
