"""Jobs and executions API: start an execution, follow it, cancel it (its log:
otterweb.execution_logs.api)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

import engine
from otterweb.api.permissions import ViewPermissions, WritesWithinPrivileges, view_and
from otterweb.executions import services
from otterweb.executions.models import Execution, Job, JobTemplate, JobTemplatePrompt, Mode
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
    requested_by: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
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
    mode = serializers.ChoiceField(choices=Mode.choices, default=engine.Mode.EXECUTE)
    simulate = serializers.BooleanField(default=False)
    variables = serializers.DictField(required=False, default=dict)

    def validate(self, data):
        if ("script" in data) == ("raft_item" in data):
            raise serializers.ValidationError("give either script or raft_item")
        return data


class RunAgainSerializer(serializers.Serializer):
    version = serializers.ChoiceField(
        choices=[("same", "the version it ran"), ("latest", "its raft item's latest version")],
        default="same",
        help_text="Which script: the one the execution ran, or its raft item's latest version.",
    )
    servers = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="The servers to run on; those the execution ran on unless given.",
    )
    failed_only = serializers.BooleanField(
        default=False, help_text="Run on the servers the execution failed on (not with servers)."
    )
    variables = serializers.DictField(
        required=False,
        help_text="The variables (a template's prompts); the execution's unless given.",
    )


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

    @extend_schema(request=RunAgainSerializer, responses={201: ExecutionSerializer})
    @action(
        detail=True, methods=["post"], url_path="run-again", permission_classes=[ViewPermissions]
    )
    def run_again(self, request, pk=None):
        """Run the execution's job again as a new one: the same script (or its raft item's latest
        version), servers (or others, or those it failed on), mode and variables."""
        execution = self.get_object()
        form = RunAgainSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        again = services.run_again(
            execution=execution,
            requested_by=request.user,
            latest=data["version"] == "latest",
            servers=data.get("servers"),
            failed_only=data["failed_only"],
            variables=data.get("variables"),
        )
        return Response(ExecutionSerializer(again).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={202: ExecutionSerializer})
    @action(detail=True, methods=["post"], permission_classes=[CANCEL_EXECUTIONS])
    def cancel(self, request, pk=None):
        """Stop the execution on whichever worker runs it."""
        execution = self.get_object()
        services.request_cancel(execution=execution)
        execution.refresh_from_db()
        return Response(ExecutionSerializer(execution).data, status=status.HTTP_202_ACCEPTED)
