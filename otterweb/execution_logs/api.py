"""The log of an execution in the API, under /api/executions/<id>/: its entries after a seq
(``logs/``), and for the log viewer its index, lines by seq, search and download (``log/...``).
Each answers only a user who may see the execution (as the executions app says: hooks)."""

from __future__ import annotations

import json

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import renderers, serializers
from rest_framework.exceptions import NotFound
from rest_framework.permissions import BasePermission
from rest_framework.response import Response
from rest_framework.views import APIView

from otterweb.api.queries import number_parameter, whole_number
from otterweb.execution_logs import hooks, selectors
from otterweb.execution_logs.events import LEVEL_NAMES
from otterweb.execution_logs.hooks import ExecutionState
from otterweb.execution_logs.models import LogEntry
from otterweb.execution_logs.views import download_response


class MayViewExecutions(BasePermission):
    """Whoever may see executions (somewhere); the execution itself is checked as it is read."""

    def has_permission(self, request, view) -> bool:
        return hooks.may_view(request.user)


class ExecutionLogView(APIView):
    """The log of the execution the path names: 404 when there is none the user may see."""

    permission_classes = [MayViewExecutions]

    def execution(self) -> ExecutionState:
        execution = hooks.find(self.kwargs["pk"], self.request.user)
        if execution is None:
            raise NotFound("No execution matches the given query.")
        return execution


class LogEntrySerializer(serializers.ModelSerializer):
    level = serializers.SerializerMethodField()

    class Meta:
        model = LogEntry
        fields = ["seq", "scope_id", "level", "message", "line", "time"]

    def get_level(self, entry: LogEntry) -> str:
        return LEVEL_NAMES.get(entry.level, str(entry.level))


class PlainTextRenderer(renderers.BaseRenderer):
    """?format=text of a log download (the log itself is streamed; this renders its errors)."""

    media_type = "text/plain"
    format = "text"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return json.dumps(data)


class JsonLinesRenderer(PlainTextRenderer):
    media_type = "application/jsonl"
    format = "jsonl"


def _flag(params, name: str) -> bool:
    value = params.get(name, "0").lower()
    if value not in ("0", "1", "true", "false", ""):
        raise serializers.ValidationError({name: [f"0 or 1, not {value[:40]!r}"]})
    return value in ("1", "true")


SEQ = "a whole number (a seq)"
LOG_INDEX_HELP = (
    "The log's skeleton for a viewer: the execution's state and counts, every scope (with "
    "after_seq and its own counts) and the runs: [scope_id or 0, first_seq, last_seq, count] "
    "for each stretch of lines of one scope, in seq order."
)


class LogEntriesView(ExecutionLogView):
    @extend_schema(
        parameters=[number_parameter("after", "Only entries after this seq.")],
        responses=LogEntrySerializer(many=True),
    )
    def get(self, request, pk: int):
        """The stored log entries after ?after=<seq>, in order (at most 1,000 at a time)."""
        execution = self.execution()
        after = (
            whole_number(
                request.query_params, "after", what="a whole number (the last seq you have)"
            )
            or 0
        )
        # a plain list (at most 1,000 entries, then ask again ?after=), never a page
        entries = selectors.log_entries_after(execution_id=execution.pk, seq=after)
        return Response(LogEntrySerializer(entries, many=True).data)


class LogIndexView(ExecutionLogView):
    @extend_schema(description=LOG_INDEX_HELP, responses=OpenApiTypes.OBJECT)
    def get(self, request, pk: int):
        """The log's index: scopes, counts and runs of lines (no line itself)."""
        return Response(selectors.log_index(execution=self.execution()))


class LogLinesView(ExecutionLogView):
    @extend_schema(
        parameters=[
            number_parameter("after", "Lines after this seq (default 0)."),
            number_parameter("until", "Lines up to this seq, included."),
            number_parameter(
                "limit",
                "At most (default 1,000, up to 10,000).",
                minimum=1,
                maximum=selectors.LINES_MAX,
            ),
        ],
        responses=OpenApiTypes.OBJECT,
    )
    def get(self, request, pk: int):
        """{"entries": [...], "next": seq or null}: lines in seq order, their messages whole."""
        execution = self.execution()
        params = request.query_params
        return Response(
            selectors.log_lines(
                execution_id=execution.pk,
                after=whole_number(params, "after", what=SEQ) or 0,
                until=whole_number(params, "until", what=SEQ),
                limit=whole_number(params, "limit", what="a whole number of lines"),
            )
        )


class LogSearchView(ExecutionLogView):
    @extend_schema(
        parameters=[
            OpenApiParameter("q", str, description="The text, or a regular expression."),
            OpenApiParameter("regex", bool, description="q is a regular expression (0 or 1)."),
            OpenApiParameter("case", bool, description="Case-sensitive (0 or 1)."),
            OpenApiParameter(
                "levels", str, description="Only these levels: debug,info,warning,error."
            ),
            number_parameter("scope", "Only in this scope and those inside.", minimum=1),
            number_parameter("after", "Matches after this seq (default 0)."),
            number_parameter(
                "limit",
                "At most (default 500, up to 5,000).",
                minimum=1,
                maximum=selectors.SEARCH_MAX,
            ),
        ],
        responses=OpenApiTypes.OBJECT,
    )
    def get(self, request, pk: int):
        """{"total": N, "seqs": [...], "next": seq or null}: the matching lines' seqs, in order,
        and how many match in the whole log."""
        execution = self.execution()
        params = request.query_params
        search = selectors.Search(
            text=params.get("q", ""),
            regex=_flag(params, "regex"),
            case=_flag(params, "case"),
            levels=selectors.parse_levels(params.get("levels")),
            scope=whole_number(params, "scope", what="a scope's id", minimum=1),
        )
        return Response(
            selectors.search_log(
                execution=execution,
                search=search,
                after=whole_number(params, "after", what=SEQ) or 0,
                limit=whole_number(params, "limit", what="a whole number of matches"),
            )
        )


class LogDownloadView(ExecutionLogView):
    renderer_classes = [renderers.JSONRenderer, PlainTextRenderer, JsonLinesRenderer]

    def perform_content_negotiation(self, request, force=False):
        # ?format= names the log's format: an unknown one is a 400 that says so (LogDownload),
        # not DRF's 404 for a format it has no renderer for
        return super().perform_content_negotiation(request, force=True)

    @extend_schema(
        parameters=[OpenApiParameter("format", str, enum=["text", "jsonl"], default="text")],
        responses={200: OpenApiResponse(OpenApiTypes.STR, description="The whole log, streamed.")},
    )
    def get(self, request, pk: int):
        """The whole log as text or JSON lines (an attachment), streamed from the database."""
        execution = self.execution()
        download = selectors.LogDownload(
            execution_id=execution.pk, format=request.query_params.get("format") or "text"
        )
        return download_response(download, request._request)
