"""Schedules and triggers API: schedules (the next run read-only), a job template's triggers
(the token or key answered once, when made), and the trigger's own URL, which runs the
template for whoever holds its secret."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.exceptions import APIException
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

from otterweb.api.permissions import WritesWithinPrivileges
from otterweb.executions.models import JobTemplate
from otterweb.inventory.models import Environment
from otterweb.privileges.pages import get_visible_or_404
from otterweb.schedules import selectors, services
from otterweb.schedules.models import Schedule, Trigger

RUN = "executions.run_jobtemplate"


def may_run_templates(user, template=None) -> None:
    """A job schedule or a trigger runs its template: making or changing one needs the
    permission to run job templates (``template``, when known)."""
    if not user.has_perm(RUN, template):
        raise DjangoPermissionDenied(
            "You may not run job templates: a schedule or trigger that runs one needs that."
        )


# ---- schedules


class ScheduleSerializer(serializers.ModelSerializer):
    environment = serializers.SlugRelatedField(
        slug_field="name",
        queryset=Environment.objects.all(),
        required=False,
        allow_null=True,
        help_text="A configuration schedule's environment (null: the global one).",
    )
    variables = serializers.DictField(
        required=False, default=dict, help_text="A job schedule's values for the prompts."
    )
    time_zone = serializers.CharField(
        default="UTC", help_text="A zoneinfo name: UTC, Europe/Berlin, America/New_York ..."
    )
    cron_words = serializers.CharField(
        read_only=True, help_text='The expression in words, when it is a common one ("" else).'
    )
    runs = serializers.CharField(read_only=True, help_text="What it runs, in words.")
    owner: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username",
        read_only=True,
        allow_null=True,
        help_text="Whose behalf its runs start on: who last saved it (null: OtterWeb itself).",
    )

    class Meta:
        model = Schedule
        read_only_fields = [
            "owner",
            "next_run",
            "last_fired",
            "last_execution",
            "last_error",
            "created",
            "updated",
        ]
        fields = ["id", *services.FIELDS, "runs", "cron_words", *read_only_fields]
        # the service checks the fields together (and says so by field)
        validators: list = []
        extra_kwargs: dict[str, dict[str, Any]] = {"cron": {"validators": []}}

    def create(self, data) -> Schedule:
        return self._save(Schedule(), data)

    def update(self, schedule, data) -> Schedule:
        return self._save(schedule, data)

    def _save(self, schedule: Schedule, data: dict) -> Schedule:
        arguments = {
            field: data.get(field, getattr(schedule, field, None)) for field in services.FIELDS
        }
        if arguments["kind"] is None:
            arguments["kind"] = Schedule.Kind.JOB
        arguments["time_zone"] = arguments["time_zone"] or "UTC"
        user = self.context["request"].user
        if arguments["kind"] == Schedule.Kind.JOB:
            may_run_templates(user, arguments.get("template"))
        return services.save_schedule(
            schedule=schedule if schedule.pk else None, user=user, **arguments
        )


class ScheduleViewSet(WritesWithinPrivileges, viewsets.ModelViewSet):
    queryset = selectors.schedules()
    serializer_class = ScheduleSerializer

    def perform_destroy(self, schedule: Schedule) -> None:
        services.delete_schedule(schedule=schedule)


# ---- triggers


class TriggerSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField(help_text="Where to POST to run the template.")
    created_by: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    owner: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username",
        read_only=True,
        allow_null=True,
        help_text="Whose behalf its runs start on (null: OtterWeb itself).",
    )

    class Meta:
        model = Trigger
        fields = [
            "id",
            "template",
            "name",
            "kind",
            "allow_variables",
            "enabled",
            "url",
            "created_by",
            "owner",
            "created",
            "last_used",
            "last_execution",
            "last_error",
        ]
        read_only_fields = [
            "template",
            "enabled",
            "created",
            "last_used",
            "last_execution",
            "last_error",
        ]
        validators: list = []

    def get_url(self, trigger: Trigger) -> str:
        return self.context["request"].build_absolute_uri(
            reverse("api:trigger-pull", args=[trigger.pk])
        )


class NewTriggerSerializer(TriggerSerializer):
    token = serializers.CharField(
        read_only=True,
        allow_null=True,
        help_text="A token trigger's token, shown only now: send it as ?token= (or in the "
        "X-OtterWeb-Token header).",
    )
    secret = serializers.CharField(
        read_only=True,
        allow_null=True,
        help_text="A webhook's HMAC-SHA256 key, shown only now: sign "
        '"<timestamp>.<body>" with it.',
    )

    class Meta(TriggerSerializer.Meta):
        fields = [*TriggerSerializer.Meta.fields, "token", "secret"]


class TriggerViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """A job template's triggers: /api/job-templates/<template>/triggers/."""

    serializer_class = TriggerSerializer
    queryset = Trigger.objects.all()

    def initial(self, request, *args, **kwargs) -> None:
        """The permissions first (403 for who may not see triggers), then the template (404
        for one the user may not see)."""
        super().initial(request, *args, **kwargs)
        if "template_pk" in self.kwargs:
            self.template()

    def get_queryset(self):
        return Trigger.objects.filter(template_id=self.kwargs.get("template_pk")).select_related(
            "created_by", "last_execution"
        )

    def template(self) -> JobTemplate:
        if not hasattr(self, "_template"):
            self._template = get_visible_or_404(
                self.request.user, JobTemplate, pk=self.kwargs["template_pk"]
            )
        return self._template

    @extend_schema(request=TriggerSerializer, responses={201: NewTriggerSerializer})
    def create(self, request, template_pk=None):
        """Make a trigger; its token (or webhook key) is in this answer only."""
        may_run_templates(request.user, self.template())
        form = TriggerSerializer(data=request.data, context=self.get_serializer_context())
        form.is_valid(raise_exception=True)
        trigger, secret = services.create_trigger(
            template=self.template(),
            name=form.validated_data["name"],
            kind=form.validated_data.get("kind", Trigger.Kind.TOKEN),
            allow_variables=form.validated_data.get("allow_variables", False),
            created_by=request.user,
        )
        trigger.token = secret if trigger.kind == Trigger.Kind.TOKEN else None
        trigger.secret = secret if trigger.kind == Trigger.Kind.WEBHOOK else None
        answer = NewTriggerSerializer(trigger, context=self.get_serializer_context())
        return Response(answer.data, status=status.HTTP_201_CREATED)

    def perform_destroy(self, trigger: Trigger) -> None:
        services.delete_trigger(trigger=trigger)


# ---- a trigger's own URL


def trigger_rate() -> str | None:
    """Calls one trigger takes, as DRF writes rates ("30/minute"): the setting
    OTTERWEB_TRIGGER_THROTTLE_RATE; empty: no limit. Counted in the cache: Redis, shared by
    every web server, in the distributed mode; each process's memory in the embedded one."""
    return settings.OTTERWEB_TRIGGER_THROTTLE_RATE or None


class TriggerThrottle(SimpleRateThrottle):
    """Counted per trigger, whoever calls: a flood of calls (good or bad) gets 429s."""

    scope = "trigger"

    def get_rate(self) -> str | None:
        return trigger_rate()

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": self.scope, "ident": view.kwargs["pk"]}


class NotAccepted(APIException):
    status_code = status.HTTP_403_FORBIDDEN
    default_detail = "not accepted"
    default_code = "not_accepted"


class Replayed(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "this delivery was received before: it is not run again"
    default_code = "replayed"


class TriggerStartedSerializer(serializers.Serializer):
    execution = serializers.IntegerField(help_text="The execution started.")
    url = serializers.URLField(help_text="Its page.")
    api_url = serializers.URLField(help_text="It in the API.")


class TriggerPullView(APIView):
    """POST /api/triggers/<id>/: the secret is the authentication (no login, no CSRF token)."""

    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes = [TriggerThrottle]

    @extend_schema(
        summary="Run a trigger's job template",
        description="Kind token: ?token=<token> (or the X-OtterWeb-Token header). Kind webhook: "
        "X-OtterWeb-Timestamp (Unix seconds, within 5 minutes) and X-OtterWeb-Signature: "
        'sha256=<hex of HMAC-SHA256(key, "<timestamp>.<body>")>. Either may send '
        "X-OtterWeb-Delivery, an id a second call may not use again. A body of "
        '{"variables": {...}} gives values for the template\'s prompts, if the trigger allows.',
        request=OpenApiTypes.OBJECT,
        parameters=[OpenApiParameter("token", str, description="A token trigger's token.")],
        responses={
            202: TriggerStartedSerializer,
            400: OpenApiResponse(
                description="Variables the template or trigger does not take; or the "
                "trigger's owner may not run the template now (the reason is its last_error)."
            ),
            403: OpenApiResponse(description="Not accepted: the token or signature."),
            409: OpenApiResponse(description="A delivery received before."),
            429: OpenApiResponse(description="Too many calls of this trigger."),
        },
    )
    def post(self, request, pk):
        headers = request.headers
        try:
            execution = services.pull_trigger(
                trigger_id=pk,
                body=request.body,
                token=request.query_params.get("token") or headers.get("X-OtterWeb-Token"),
                signature=headers.get("X-OtterWeb-Signature"),
                timestamp=headers.get("X-OtterWeb-Timestamp"),
                delivery_id=headers.get("X-OtterWeb-Delivery"),
            )
        except services.NotAccepted:
            raise NotAccepted() from None
        except services.Replayed:
            raise Replayed() from None
        page = reverse("execution-detail", args=[execution.pk])
        api = reverse("api:execution-detail", args=[execution.pk])
        body = {
            "execution": execution.pk,
            "url": request.build_absolute_uri(page),
            "api_url": request.build_absolute_uri(api),
        }
        return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": body["url"]})
