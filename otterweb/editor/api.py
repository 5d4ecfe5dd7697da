"""Script endpoints for the editor: check, format, blocks, unblocks, the reference of
operations and functions, and the names a raft's scripts can use. A script that does not parse
gets 400 with its diagnostics; a script larger than ``OTTERWEB_MAX_SCRIPT_BYTES``, or JSON that
is not what an endpoint takes, 400 with a message."""

from __future__ import annotations

from django.conf import settings
from django.utils.crypto import salted_hmac
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import Throttled
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from engine import (
    BlocksError,
    OtterSyntaxError,
    check,
    format_script,
    from_blocks,
    parse,
    text_of_blocks,
    to_blocks,
)
from otterweb.api.bodies import DeepJSONRenderer, WorkspaceJSONParser
from otterweb.api.permissions import EditScripts
from otterweb.api.throttles import ScriptsThrottle, throttled_message
from otterweb.editor.names import script_names
from otterweb.editor.reference import reference
from otterweb.parse_errors import parse_failure
from otterweb.rafts.models import Raft


def script_limit() -> int:
    return settings.OTTERWEB_MAX_SCRIPT_BYTES


def too_large(size: int, what: str) -> str:
    limit = script_limit()
    return (
        f"{what} is {size:,} bytes; the server takes at most {limit:,} bytes "
        "(OTTERWEB_MAX_SCRIPT_BYTES)"
    )


class ScriptView(APIView):
    """For the editor: people who may change raft items, at OTTERWEB_SCRIPTS_THROTTLE_RATE."""

    permission_classes = [EditScripts]
    throttle_classes = [ScriptsThrottle]

    def throttled(self, request, wait):
        raise Throttled(wait, detail=throttled_message(wait))

    def handle_exception(self, exc):
        if isinstance(exc, RecursionError):  # never expected: the engine bounds nesting
            exc = serializers.ValidationError(
                {"script": ["the script nests its blocks too deeply for the server to read"]}
            )
        return super().handle_exception(exc)


ScriptInput = inline_serializer(
    "ScriptInput", {"script": serializers.CharField(allow_blank=True, trim_whitespace=False)}
)
WorkspaceInput = inline_serializer("WorkspaceInput", {"workspace": serializers.DictField()})


def blocks_key() -> bytes:
    """The key that seals the text blocks keep (engine.blocks): text kept by blocks that come
    back from a browser is written back only when this server cut it."""
    return salted_hmac("otterweb.editor.blocks", "the text blocks keep").digest()


def _script(request) -> str:
    text = request.data.get("script") if isinstance(request.data, dict) else None
    if not isinstance(text, str):
        raise serializers.ValidationError({"script": ["the OtterScript text, as a string"]})
    size = len(text.encode("utf-8"))
    if size > script_limit():
        raise serializers.ValidationError({"script": [too_large(size, "the script")]})
    return text


class DiagnosticsView(ScriptView):
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
    renderer_classes = [DeepJSONRenderer]

    @extend_schema(request=ScriptInput, responses={200: dict})
    def post(self, request):
        """The Blockly workspace of a script (its JSON nests two levels for each statement in a
        row, as deep as the script is long)."""
        text = _script(request)
        # each block keeps the text it came from, so that writing the blocks back changes only
        # the statements edited (engine.blocks), with the text's own line breaks
        return Response({"workspace": to_blocks(parse(text), source=text, key=blocks_key())})


class UnblocksView(ScriptView):
    parser_classes = [WorkspaceJSONParser, FormParser, MultiPartParser]

    @extend_schema(request=WorkspaceInput, responses={200: dict})
    def post(self, request):
        """The text of a Blockly workspace. 400 with a message for JSON that is not a workspace
        of OtterScript blocks (a block of an unknown type is kept as its TEXT field when it has
        one), with diagnostics for a field that does not parse."""
        workspace = request.data.get("workspace") if isinstance(request.data, dict) else None
        if not isinstance(workspace, dict):
            raise serializers.ValidationError({"workspace": ["a Blockly workspace (JSON object)"]})
        try:
            script = from_blocks(workspace, key=blocks_key())
        except BlocksError as error:
            raise serializers.ValidationError({"workspace": [str(error)]}) from None
        try:
            # a name, or the text of a block of another editor's making, can make text that
            # does not parse
            text = text_of_blocks(script)
        except OtterSyntaxError as error:
            raise parse_failure(error, name="the text of the blocks", field="workspace") from None
        size = len(text.encode("utf-8"))
        if size > script_limit():
            raise serializers.ValidationError({"workspace": [too_large(size, "its script")]})
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
        raft = Raft.objects.filter(name=query.validated_data["raft"]).first()
        names = script_names(
            raft=query.validated_data["raft"],
            variables=user.has_perm("inventory.view_variable"),
            items=raft is not None and user.has_perm("rafts.view_raftitem", raft),
            user=user,
        )
        return Response(ScriptNamesSerializer(names).data)
