"""Jobs and executions API: start an execution, follow it, read its log, cancel it."""

from __future__ import annotations

import json

from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import mixins, renderers, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from otterweb.api.permissions import WritesWithinPrivileges, view_and
from otterweb.api.queries import number_parameter, whole_number
from otterweb.executions import log_queries, selectors, services
from otterweb.executions.events import LEVEL_NAMES
from otterweb.executions.models import (
    Execution,
    Job,
    JobTemplate,
    JobTemplatePrompt,
    LogEntry,
    Mode,
)
from otterweb.executions.views import download_response
from otterweb.inventory.models import Environment, Role, Server
from otterweb.rafts.models import RaftItem

RUN_TEMPLATES = view_and("executions.run_jobtemplate", "You may not run job templates.")
CANCEL_EXECUTIONS = view_and("executions.cancel_execution", "You may not cancel executions.")


class JobTemplatePromptSerializer(serializers.ModelSerializer):
    choices = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="For a choice prompt."
    )

    class Meta:
        model = JobTemplatePrompt
        fields = ["name", "type", "default", "required", "choices", "description"]

    def to_internal_value(self, data):
        unknown = sorted(set(data) - set(self.fields)) if isinstance(data, dict) else []
        if unknown:
            only = ", ".join(self.fields)
            raise serializers.ValidationError(
                {key: [f"A prompt has no {key}: only {only}."] for key in unknown}
            )
        return super().to_internal_value(data)

    def validate(self, data):
        """The prompt's own rules (the model's clean): a default that fits its type, choices
        only for a choice prompt."""
        try:
            JobTemplatePrompt(**data).full_clean(exclude=["template"], validate_constraints=False)
        except DjangoValidationError as error:
            raise serializers.ValidationError(error.message_dict) from None
        return data


class JobTemplateSerializer(serializers.ModelSerializer):
    servers = serializers.SlugRelatedField(
        slug_field="name", many=True, queryset=Server.objects.all(), required=False
    )
    roles = serializers.SlugRelatedField(
        slug_field="name", many=True, queryset=Role.objects.all(), required=False
    )
    environments = serializers.SlugRelatedField(
        slug_field="name", many=True, queryset=Environment.objects.all(), required=False
    )
    prompts = JobTemplatePromptSerializer(
        many=True,
        source="prompt_fields",
        required=False,
        help_text="The variables it asks for when run, in order.",
    )

    class Meta:
        model = JobTemplate
        fields = [
            "id",
            "name",
            "description",
            "raft_item",
            "targeting",
            "servers",
            "roles",
            "environments",
            "mode",
            "simulate",
            "prompts",
            "created",
            "updated",
        ]
        read_only_fields = ["created", "updated"]

    def validate_prompts(self, prompts: list[dict]) -> list[dict]:
        names = [prompt["name"].casefold() for prompt in prompts]
        if len(set(names)) != len(names):
            raise serializers.ValidationError("Every prompt has a name, and no name is used twice.")
        return prompts

    def create(self, data) -> JobTemplate:
        user = self.context["request"].user
        return services.save_job_template(user=user, **self._arguments(data, JobTemplate()))

    def update(self, template, data) -> JobTemplate:
        user = self.context["request"].user
        return services.save_job_template(
            template=template, user=user, **self._arguments(data, template)
        )

    def _arguments(self, data: dict, template: JobTemplate) -> dict:
        """Everything save_job_template takes: what was sent, the rest as the template has it
        (a partial update keeps the prompts unless it sends them)."""
        fields = ["name", "description", "raft_item", "targeting", "mode", "simulate"]
        arguments = {field: data.get(field, getattr(template, field, None)) for field in fields}
        for field in ("servers", "roles", "environments"):
            given = data.get(field)
            arguments[field] = (
                given
                if given is not None
                else (list(getattr(template, field).all()) if template.pk else [])
            )
        arguments["prompts"] = data.get("prompt_fields")
        if arguments["prompts"] is None and not template.pk:
            arguments["prompts"] = []
        return arguments


class JobSerializer(serializers.ModelSerializer):
    requested_by = serializers.SlugRelatedField(
        slug_field="username",
        read_only=True,
        allow_null=True,
        help_text="Who started it (null: OtterWeb itself).",
    )

    class Meta:
        model = Job
        fields = [
            "id",
            "template",
            "name",
            "requested_by",
            "script",
            "script_version",
            "targets",
            "variables",
            "created",
        ]
        read_only_fields = fields


class ExecutionSerializer(serializers.ModelSerializer):
    job = JobSerializer(read_only=True)
    duration = serializers.FloatField(read_only=True, allow_null=True)
    outcome = serializers.CharField(
        read_only=True,
        help_text="What happened: pending, executing, normal, warning, error, cancelled, or "
        "drifted (a collect that found drift).",
    )
    outcome_label = serializers.CharField(
        read_only=True, help_text='For people: "Cancelled", "Drifted (3 operations)" ...'
    )

    class Meta:
        model = Execution
        fields = [
            "id",
            "job",
            "run_state",
            "status",
            "outcome",
            "outcome_label",
            "mode",
            "simulate",
            "created",
            "started",
            "ended",
            "duration",
            "worker",
            "drift",
            "error",
            "last_seq",
            "cancel_requested",
        ]
        read_only_fields = fields


class StartExecutionSerializer(serializers.Serializer):
    script = serializers.CharField(
        required=False, allow_blank=False, help_text="OtterScript text to run."
    )
    raft_item = serializers.PrimaryKeyRelatedField(
        queryset=RaftItem.objects.all(), required=False, help_text="Or a raft item's id."
    )
    name = serializers.CharField(
        required=False,
        default="",
        max_length=200,
        help_text="What the lists call the job (the raft item's name, or 'ad hoc script').",
    )
    servers = serializers.ListField(child=serializers.CharField(), required=False, default=list)
    roles = serializers.ListField(child=serializers.CharField(), required=False, default=list)
    environments = serializers.ListField(
        child=serializers.CharField(), required=False, default=list
    )
    mode = serializers.ChoiceField(choices=Mode.choices, default=Mode.EXECUTE)
    simulate = serializers.BooleanField(default=False)
    variables = serializers.DictField(required=False, default=dict)

    def validate(self, data):
        if ("script" in data) == ("raft_item" in data):
            raise serializers.ValidationError("give either script or raft_item")
        return data


class LogEntrySerializer(serializers.ModelSerializer):
    level = serializers.SerializerMethodField()

    class Meta:
        model = LogEntry
        fields = ["seq", "scope_id", "level", "message", "line", "time"]

    def get_level(self, entry: LogEntry) -> str:
        return LEVEL_NAMES.get(entry.level, str(entry.level))


class LaunchSerializer(serializers.Serializer):
    variables = serializers.DictField(
        required=False, default=dict, help_text="Values for the template's prompts."
    )
    mode = serializers.ChoiceField(
        choices=Mode.choices, required=False, help_text="The template's mode unless given."
    )
    simulate = serializers.BooleanField(
        required=False, default=None, allow_null=True, help_text="The template's unless given."
    )


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


class JobTemplateViewSet(WritesWithinPrivileges, viewsets.ModelViewSet):
    queryset = JobTemplate.objects.prefetch_related("servers", "roles", "environments")
    serializer_class = JobTemplateSerializer

    @extend_schema(request=LaunchSerializer, responses={201: ExecutionSerializer})
    @action(detail=True, methods=["post"], permission_classes=[RUN_TEMPLATES])
    def launch(self, request, pk=None):
        """Run the template: its raft item on its targets, with values for its prompts."""
        template = self.get_object()
        form = LaunchSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        execution = services.launch_template(
            template=template, requested_by=request.user, **form.validated_data
        )
        return Response(ExecutionSerializer(execution).data, status=status.HTTP_201_CREATED)


class JobViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    queryset = Job.objects.select_related("requested_by")
    serializer_class = JobSerializer


class ExecutionViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    viewsets.GenericViewSet,
):
    queryset = Execution.objects.select_related("job__requested_by")
    serializer_class = ExecutionSerializer

    @extend_schema(request=StartExecutionSerializer, responses={201: ExecutionSerializer})
    def create(self, request):
        """Start an execution of a script or raft item, on servers, roles and environments or on none."""
        form = StartExecutionSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        execution = services.create_job(
            requested_by=request.user,
            script=data.get("script"),
            raft_item=data.get("raft_item"),
            name=data["name"],
            servers=data["servers"],
            roles=data["roles"],
            environments=data["environments"],
            mode=data["mode"],
            simulate=data["simulate"],
            variables=dict(data["variables"]),
        )
        return Response(ExecutionSerializer(execution).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        parameters=[number_parameter("after", "Only entries after this seq.")],
        responses=LogEntrySerializer(many=True),
    )
    # a plain list (at most 1,000 entries, then ask again ?after=), never a page
    @action(detail=True, methods=["get"], pagination_class=None)
    def logs(self, request, pk=None):
        """The stored log entries after ?after=<seq>, in order (at most 1,000 at a time)."""
        execution = self.get_object()
        after = (
            whole_number(
                request.query_params, "after", what="a whole number (the last seq you have)"
            )
            or 0
        )
        entries = selectors.log_entries_after(execution_id=execution.pk, seq=after)
        return Response(LogEntrySerializer(entries, many=True).data)

    def perform_content_negotiation(self, request, force=False):
        # a download's ?format= names the log's format: an unknown one is a 400 that says so
        # (log_download), not DRF's 404 for a format it has no renderer for
        return super().perform_content_negotiation(
            request, force=force or self.action == "log_download"
        )

    @extend_schema(description=LOG_INDEX_HELP, responses=OpenApiTypes.OBJECT)
    @action(detail=True, methods=["get"], url_path="log/index")
    def log_index(self, request, pk=None):
        """The log's index: scopes, counts and runs of lines (no line itself)."""
        execution = self.get_object()
        return Response(log_queries.log_index(execution_id=execution.pk))

    @extend_schema(
        parameters=[
            number_parameter("after", "Lines after this seq (default 0)."),
            number_parameter("until", "Lines up to this seq, included."),
            number_parameter(
                "limit",
                "At most (default 1,000, up to 10,000).",
                minimum=1,
                maximum=log_queries.LINES_MAX,
            ),
        ],
        responses=OpenApiTypes.OBJECT,
    )
    @action(detail=True, methods=["get"], url_path="log/lines")
    def log_lines(self, request, pk=None):
        """{"entries": [...], "next": seq or null}: lines in seq order, their messages whole."""
        execution = self.get_object()
        params = request.query_params
        return Response(
            log_queries.log_lines(
                execution_id=execution.pk,
                after=whole_number(params, "after", what=SEQ) or 0,
                until=whole_number(params, "until", what=SEQ),
                limit=whole_number(params, "limit", what="a whole number of lines"),
            )
        )

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
                maximum=log_queries.SEARCH_MAX,
            ),
        ],
        responses=OpenApiTypes.OBJECT,
    )
    @action(detail=True, methods=["get"], url_path="log/search")
    def log_search(self, request, pk=None):
        """{"total": N, "seqs": [...], "next": seq or null}: the matching lines' seqs, in order,
        and how many match in the whole log."""
        execution = self.get_object()
        params = request.query_params
        search = log_queries.Search(
            text=params.get("q", ""),
            regex=_flag(params, "regex"),
            case=_flag(params, "case"),
            levels=log_queries.parse_levels(params.get("levels")),
            scope=whole_number(params, "scope", what="a scope's id", minimum=1),
        )
        return Response(
            log_queries.search_log(
                execution_id=execution.pk,
                search=search,
                after=whole_number(params, "after", what=SEQ) or 0,
                limit=whole_number(params, "limit", what="a whole number of matches"),
            )
        )

    @extend_schema(
        parameters=[OpenApiParameter("format", str, enum=["text", "jsonl"], default="text")],
        responses={200: OpenApiResponse(OpenApiTypes.STR, description="The whole log, streamed.")},
    )
    @action(
        detail=True,
        methods=["get"],
        url_path="log/download",
        renderer_classes=[renderers.JSONRenderer, PlainTextRenderer, JsonLinesRenderer],
    )
    def log_download(self, request, pk=None):
        """The whole log as text or JSON lines (an attachment), streamed from the database."""
        execution = self.get_object()
        download = log_queries.LogDownload(
            execution_id=execution.pk, format=request.query_params.get("format") or "text"
        )
        return download_response(download, request._request)

    @extend_schema(request=None, responses={202: ExecutionSerializer})
    @action(detail=True, methods=["post"], permission_classes=[CANCEL_EXECUTIONS])
    def cancel(self, request, pk=None):
        """Stop the execution on whichever worker runs it."""
        execution = self.get_object()
        services.request_cancel(execution=execution)
        execution.refresh_from_db()
        return Response(ExecutionSerializer(execution).data, status=status.HTTP_202_ACCEPTED)
