"""The configuration API: rollups and the servers-by-roles matrix, a server's plan and checks,
"check now", and remediation plans (made, read, approved, discarded)."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from otterweb.api.permissions import holding
from otterweb.configuration import selectors, services
from otterweb.configuration.models import Check, RemediationPlan, State
from otterweb.inventory.models import Environment, Role, Server
from otterweb.privileges.pages import get_visible_or_404

VIEW = holding(
    "inventory.view_server", "Seeing configuration needs the permission to view servers."
)
REMEDIATE_PERMISSION = "configuration.remediate_server"
CHECK = holding(
    "configuration.check_configuration",
    "You may not check configuration: it needs 'Can check servers' configuration now'.",
)
REMEDIATE = holding(
    "configuration.remediate_server",
    "You may not remediate: it needs 'Can remediate configuration drift'.",
)


class Stale(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "stale"


class ScopeSerializer(serializers.Serializer):
    """What a check or a remediation covers: a server, a role (in an environment, optionally)
    or an environment (and the environments in it)."""

    server = serializers.SlugRelatedField(
        slug_field="name", queryset=Server.objects.all(), required=False
    )
    role = serializers.SlugRelatedField(
        slug_field="name", queryset=Role.objects.all(), required=False
    )
    environment = serializers.SlugRelatedField(
        slug_field="name", queryset=Environment.objects.all(), required=False
    )

    def validate(self, data):
        if not data:
            raise ValidationError("Name a server, a role or an environment.")
        if "server" in data and len(data) > 1:
            raise ValidationError("A server is named alone, without a role or an environment.")
        return data

    def scope(self) -> dict[str, str | None]:
        data = self.validated_data
        return {
            key: (data[key].name if key in data else None)
            for key in ("server", "role", "environment")
        }

    def servers(self, user) -> list[Server]:
        """The scope's servers that ``user`` may see (the services refuse those it may not
        check or remediate)."""
        servers = [
            server
            for server in selectors.servers_in_scope(**self.scope())
            if user.has_perm("inventory.view_server", server)
        ]
        if not servers:
            raise ValidationError(f"No active server in {selectors.scope_label(**self.scope())}.")
        return servers


class ApproveSerializer(serializers.Serializer):
    confirm_count = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="The number of servers, typed to confirm a remediation over the guard.",
    )


def execution_refs(request, executions) -> list[dict]:
    return [
        {"id": e.pk, "url": request.build_absolute_uri(f"/api/executions/{e.pk}/")}
        for e in executions
    ]


def plan_json(plan: RemediationPlan) -> dict:
    return {
        "id": plan.pk,
        "scope": plan.scope,
        "status": plan.status,
        "automatic": plan.automatic,
        "created": plan.created,
        "stale": services.stale_servers(plan=plan),
        "servers": [
            {
                "server": planned.server.name,
                "check": planned.based_on_id,
                "checked": planned.based_on.checked,
                "changes": planned.changes,
                "also_runs": planned.also_runs,
            }
            for planned in plan.servers.select_related("server", "based_on")
        ],
        "left_out": plan.left_out,
        "executions": [run.execution_id for run in plan.runs.all()],
    }


def check_json(check: Check) -> dict:
    return {
        "id": check.pk,
        "state": check.state,
        "checked": check.checked,
        "changed": check.changed,
        "execution": check.run.execution_id,
        "error": check.error,
        "drift": [
            {
                "key": item.key,
                "role": item.role.name if item.role else None,
                "raft_item": str(item.raft_item) if item.raft_item else None,
                "line": item.line,
                "differences": item.differences,
            }
            for item in check.drift_items.all()
        ],
    }


class OverviewView(APIView):
    """GET /api/configuration/: the rollups (overall, by role, by environment) and a page of
    the servers-by-roles matrix."""

    permission_classes = [IsAuthenticated, VIEW]

    @extend_schema(
        parameters=[
            OpenApiParameter("role", str),
            OpenApiParameter("environment", str),
            OpenApiParameter("state", str, enum=State.values),
            OpenApiParameter("search", str),
            OpenApiParameter("offset", int),
            OpenApiParameter("limit", int),
        ],
        responses={200: dict},
    )
    def get(self, request):
        query = request.query_params
        state = query.get("state") or None
        if state and state not in State.values:
            raise ValidationError({"state": f"One of {', '.join(State.values)}."})
        try:
            offset = max(0, int(query.get("offset", 0)))
            limit = min(1000, max(1, int(query.get("limit", 100))))
        except ValueError:
            raise ValidationError({"offset": "offset and limit are whole numbers."}) from None
        found = selectors.matrix(
            role=query.get("role") or None,
            environment=query.get("environment") or None,
            state=state,
            search=query.get("search", ""),
            offset=offset,
            limit=limit,
            user=request.user,
        )
        return Response(
            {
                "overall": found.overall.as_json(),
                "roles": [rollup.as_json() for rollup in found.by_role],
                "environments": [rollup.as_json() for rollup in found.by_environment],
                "count": found.total_servers,
                "servers": found.servers,
            }
        )


class ServerConfigurationView(APIView):
    """GET /api/configuration/servers/<name>/: the server's state, its plan (the text, and
    each role's lines in it) and its last checks with their drift."""

    permission_classes = [IsAuthenticated, VIEW]

    @extend_schema(responses={200: dict})
    def get(self, request, name: str):
        server = get_visible_or_404(request.user, Server, name=name)
        plan = selectors.server_plan(server=server)
        state = getattr(server, "configuration_state", None)
        return Response(
            {
                "server": server.name,
                "state": state.state if state else State.UNKNOWN,
                "checked": state.checked if state else None,
                "state_since": state.state_since if state else None,
                "remediation": server.remediation_policy(),
                "roles": [role.name for role in plan.roles],
                "plan": plan.plan.text if plan.plan else None,
                "parts": [
                    {
                        "role": part.role_name,
                        "raft_item": part.item_name,
                        "first_line": first,
                        "last_line": last,
                    }
                    for part, (first, last) in zip(
                        plan.parts, plan.plan.part_lines if plan.plan else (), strict=False
                    )
                ],
                "problem": plan.problem,
                "checks": [check_json(check) for check in selectors.server_history(server=server)],
            }
        )


class DriftCheckNowView(APIView):
    """POST /api/configuration/check/ {"server"|"role"|"environment": name}: check now."""

    permission_classes = [IsAuthenticated, VIEW, CHECK]

    @extend_schema(request=ScopeSerializer, responses={202: dict})
    def post(self, request):
        body = ScopeSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        started = services.check_servers(
            servers=body.servers(request.user), requested_by=request.user
        )
        return Response(
            {"executions": execution_refs(request, started.executions), "skipped": started.skipped},
            status=status.HTTP_202_ACCEPTED,
        )


class PlansView(APIView):
    """POST /api/configuration/plans/ {"server"|"role"|"environment": name}: a remediation
    plan from the last checks, to read before approving it."""

    permission_classes = [IsAuthenticated, VIEW, REMEDIATE]

    @extend_schema(request=ScopeSerializer, responses={201: dict})
    def post(self, request):
        body = ScopeSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        plan = services.make_plan(
            servers=body.servers(request.user),
            scope=selectors.scope_label(**body.scope()),
            requested_by=request.user,
        )
        return Response(plan_json(plan), status=status.HTTP_201_CREATED)


class PlanView(APIView):
    permission_classes = [IsAuthenticated, VIEW]

    @extend_schema(responses={200: dict})
    def get(self, request, pk: int):
        return Response(plan_json(get_visible_or_404(request.user, RemediationPlan, pk=pk)))


class ApprovePlanView(APIView):
    """POST /api/configuration/plans/<id>/approve/ {"confirm_count": n}: run the plan. 409 when
    it is stale; 400 over the blast-radius guard without the count."""

    permission_classes = [IsAuthenticated, VIEW, REMEDIATE]

    @extend_schema(request=ApproveSerializer, responses={202: dict})
    def post(self, request, pk: int):
        plan = get_visible_or_404(request.user, RemediationPlan, REMEDIATE_PERMISSION, pk=pk)
        body = ApproveSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            executions = services.approve_plan(
                plan=plan, user=request.user, confirm_count=body.validated_data.get("confirm_count")
            )
        except DjangoValidationError as error:
            if error.code == "stale":
                raise Stale(error.messages[0]) from None
            raise
        return Response(
            {"executions": execution_refs(request, executions)}, status=status.HTTP_202_ACCEPTED
        )


class DiscardPlanView(APIView):
    permission_classes = [IsAuthenticated, VIEW, REMEDIATE]

    @extend_schema(request=None, responses={200: dict})
    def post(self, request, pk: int):
        plan = get_visible_or_404(request.user, RemediationPlan, REMEDIATE_PERMISSION, pk=pk)
        services.discard_plan(plan=plan)
        return Response(plan_json(plan))
