"""Script endpoints for the editor: check, format, blocks, unblocks, and the reference of
operations and functions. A script that does not parse gets 400 with its diagnostics."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from engine import check, format_script, from_blocks, parse, to_blocks
from engine.blocks import BlocksError
from otterweb.editor.reference import reference

ScriptInput = inline_serializer(
    "ScriptInput", {"script": serializers.CharField(allow_blank=True, trim_whitespace=False)}
)
WorkspaceInput = inline_serializer("WorkspaceInput", {"workspace": serializers.DictField()})


def _script(request) -> str:
    text = request.data.get("script") if isinstance(request.data, dict) else None
    if not isinstance(text, str):
        raise serializers.ValidationError({"script": ["the OtterScript text, as a string"]})
    return text


class CheckView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=ScriptInput, responses={200: dict})
    def post(self, request):
        """Every diagnostic of a script (warnings included); 400 when it does not parse."""
        return Response({"diagnostics": [d.to_dict() for d in check(parse(_script(request)))]})


class FormatView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=ScriptInput, responses={200: dict})
    def post(self, request):
        """The canonical text of a script."""
        return Response({"script": format_script(parse(_script(request)))})


class BlocksView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=ScriptInput, responses={200: dict})
    def post(self, request):
        """The Blockly workspace of a script."""
        return Response({"workspace": to_blocks(parse(_script(request)))})


class UnblocksView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=WorkspaceInput, responses={200: dict})
    def post(self, request):
        """The text of a Blockly workspace."""
        workspace = request.data.get("workspace") if isinstance(request.data, dict) else None
        if not isinstance(workspace, dict):
            raise serializers.ValidationError({"workspace": ["a Blockly workspace (JSON object)"]})
        try:
            return Response({"script": format_script(from_blocks(workspace))})
        except BlocksError as error:
            raise serializers.ValidationError({"workspace": [str(error)]}) from None


class ReferenceView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: dict})
    def get(self, request):
        """Every operation (namespace, name, aliases, kind, description, parameters) and every
        function (name, aliases, the sigils it is called with, parameters, description)."""
        return Response(reference(), headers={"Cache-Control": "private, max-age=300"})
