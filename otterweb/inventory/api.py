"""Inventory API: servers, roles, environments, variables, credentials (secrets write-only)."""

from __future__ import annotations

from django.db.models import Model
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.fields import empty
from rest_framework.response import Response

from engine import MASK, fingerprint
from otterweb.api.permissions import WritesWithinPrivileges, holding, view_and
from otterweb.inventory import checks, selectors, services
from otterweb.inventory.forms import PackageSearchForm
from otterweb.inventory.models import (
    SERVER_CHECK_FIELDS,
    Credential,
    Environment,
    InstalledPackage,
    Role,
    Server,
    Variable,
)
from otterweb.inventory.selectors import resolve_variables
from otterweb.names import NAME_PATTERN
from otterweb.privileges.checks import visible
from otterweb.rafts.models import RaftItem


def kept(instance: Model, data: dict, names: list[str]) -> dict:
    """The fields ``names`` of ``data``, those it leaves out (a partial update) as ``instance``
    has them stored: what a service that saves every field is given."""
    fields = {}
    for name in names:
        if name in data:
            fields[name] = data[name]
        elif instance._meta.get_field(name).many_to_many:
            fields[name] = list(getattr(instance, name).all())
        else:
            fields[name] = getattr(instance, name)
    return fields


class OptionalName(serializers.SlugRelatedField):
    """An object by its name, or null for none. An empty text is refused: DRF would take it for
    null, and the schema (a name has one character at least) says it is no name."""

    def run_validation(self, data=empty):
        if data == "":
            raise serializers.ValidationError("A name, or null for none (not an empty text).")
        return super().run_validation(data)


class EnvironmentSerializer(serializers.ModelSerializer):
    # a declared field leaves the class (SerializerMetaclass): it hides no Field.parent
    parent = OptionalName(  # type: ignore[assignment]
        slug_field="name", queryset=Environment.objects.all(), allow_null=True, required=False
    )

    class Meta:
        model = Environment
        fields = ["id", "name", "description", "parent", "created", "updated"]
        read_only_fields = ["created", "updated"]

    def create(self, data):
        return services.save_environment(**data)

    def update(self, instance, data):
        return services.save_environment(
            environment=instance, **kept(instance, data, ["name", "description", "parent"])
        )


class RoleSerializer(serializers.ModelSerializer):
    dependencies = serializers.SlugRelatedField(
        slug_field="name", many=True, queryset=Role.objects.all(), required=False
    )

    configuration = serializers.PrimaryKeyRelatedField(
        queryset=RaftItem.objects.all(),
        allow_null=True,
        required=False,
        help_text="The raft item (an OtterScript script) of the role's desired state.",
    )
    configuration_name = serializers.SerializerMethodField()

    class Meta:
        model = Role
        fields = [
            "id",
            "name",
            "description",
            "dependencies",
            "configuration",
            "configuration_name",
            "remediation",
            "created",
            "updated",
        ]
        read_only_fields = ["created", "updated"]

    def get_configuration_name(self, role) -> str | None:
        return str(role.configuration) if role.configuration_id else None

    def create(self, data):
        return services.save_role(**data)

    def update(self, instance, data):
        fields = ["name", "description", "dependencies", "configuration", "remediation"]
        return services.save_role(role=instance, **kept(instance, data, fields))


SERVER_FIELDS = [
    "name",
    "host",
    "port",
    "agent_type",
    "roles",
    "environments",
    "active",
    "credential",
    "user",
    "sudo",
    "host_keys",
    "remediation",
    "description",
]


class ServerSerializer(serializers.ModelSerializer):
    roles = serializers.SlugRelatedField(
        slug_field="name", many=True, queryset=Role.objects.all(), required=False
    )
    environments = serializers.SlugRelatedField(
        slug_field="name", many=True, queryset=Environment.objects.all(), required=False
    )
    credential = OptionalName(
        slug_field="name", queryset=Credential.objects.all(), allow_null=True, required=False
    )

    host_keys = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="Trusted SSH host keys, one a line: 'ssh-ed25519 AAAA...'.",
    )
    host_key_fingerprints = serializers.SerializerMethodField()
    pending_host_key = serializers.CharField(read_only=True)
    pending_host_key_fingerprint = serializers.SerializerMethodField()

    class Meta:
        model = Server
        fields = [
            "id",
            *SERVER_FIELDS,
            "host_key_fingerprints",
            "pending_host_key",
            "pending_host_key_fingerprint",
            *SERVER_CHECK_FIELDS,
            "created",
            "updated",
        ]
        read_only_fields = [*SERVER_CHECK_FIELDS, "created", "updated"]

    def get_host_key_fingerprints(self, server) -> list[str]:
        return [fingerprint(key) for key in server.trusted_host_keys()]

    def get_pending_host_key_fingerprint(self, server) -> str | None:
        return fingerprint(server.pending_host_key) if server.pending_host_key else None

    def create(self, data):
        return services.save_server(**data)

    def update(self, instance, data):
        return services.save_server(server=instance, **kept(instance, data, SERVER_FIELDS))


class VariableSerializer(serializers.ModelSerializer):
    server = OptionalName(
        slug_field="name", queryset=Server.objects.all(), allow_null=True, required=False
    )
    environment = OptionalName(
        slug_field="name", queryset=Environment.objects.all(), allow_null=True, required=False
    )
    role = OptionalName(
        slug_field="name", queryset=Role.objects.all(), allow_null=True, required=False
    )

    class Meta:
        model = Variable
        fields = [
            "id",
            "name",
            "value",
            "sensitive",
            "server",
            "environment",
            "role",
            "created",
            "updated",
        ]
        read_only_fields = ["created", "updated"]
        validators: list = []  # one name per scope: checked by the model's constraints in full_clean

    def create(self, data):
        if "value" not in data:
            raise serializers.ValidationError({"value": ["A new variable needs a value."]})
        return services.set_variable(**data)

    def update(self, instance, data):
        scope = None
        if any(key in data for key in ("server", "environment", "role")):
            scope = services.VariableScope(
                server=data.get("server", instance.server),
                environment=data.get("environment", instance.environment),
                role=data.get("role", instance.role),
            )
        return services.change_variable(
            variable=instance,
            name=data.get("name", instance.name),
            value=data.get("value"),  # None keeps it: a sensitive value is write-only
            sensitive=data.get("sensitive", instance.sensitive),
            scope=scope,
        )

    def to_representation(self, instance):
        data = super().to_representation(instance)
        if instance.sensitive:
            data["value"] = MASK
        return data

    def validate_value(self, value: str) -> str:
        services.validate_literal(value)
        return value

    def validate(self, data):
        scopes = [data.get(k) for k in ("server", "environment", "role")]
        if sum(s is not None for s in scopes) > 1:
            raise serializers.ValidationError(
                "a variable belongs to one scope: a server, an environment, a role, or none (global)"
            )
        return data


class CredentialSerializer(serializers.ModelSerializer):
    secret = serializers.CharField(
        write_only=True,
        required=False,
        allow_blank=False,
        style={"input_type": "password"},
        help_text="Write-only. Leave out to keep the stored secret.",
    )
    environments = serializers.SlugRelatedField(
        slug_field="name", many=True, queryset=Environment.objects.all(), required=False
    )
    passphrase = serializers.CharField(
        write_only=True,
        required=False,
        allow_blank=True,
        style={"input_type": "password"},
        help_text="Write-only: a private key's passphrase. Leave out to keep it; empty removes it.",
    )
    has_secret = serializers.BooleanField(read_only=True)
    has_passphrase = serializers.BooleanField(read_only=True)

    class Meta:
        model = Credential
        fields = [
            "id",
            "name",
            "kind",
            "username",
            "secret",
            "has_secret",
            "passphrase",
            "has_passphrase",
            "environments",
            "description",
            "created",
            "updated",
        ]
        read_only_fields = ["created", "updated"]

    def create(self, data):
        return services.save_credential(**data)

    def update(self, instance, data):
        """A secret or environments left out are kept (the service keeps them when None)."""
        return services.save_credential(
            credential=instance,
            secret=data.get("secret"),
            passphrase=data.get("passphrase"),
            environments=data.get("environments"),
            **kept(instance, data, ["name", "kind", "username", "description"]),
        )


class TrustHostKeySerializer(serializers.Serializer):
    fingerprint = serializers.CharField(
        max_length=100, help_text="The pending key's fingerprint, as checked on the server."
    )


CHANGE_SERVERS = view_and("inventory.change_server", "You may not change servers.")


class ServerSshActions(generics.GenericAPIView):
    """The server check and host key trust, for ServerViewSet: they need 'change server'."""

    @extend_schema(request=None, responses={200: ServerSerializer})
    @action(detail=True, methods=["post"], permission_classes=[CHANGE_SERVERS])
    def check(self, request, name=None):
        """Contact the server now: reachability, latency, host key, OS and kernel."""
        server = checks.check_server(self.get_object())
        return Response(ServerSerializer(server).data)

    @extend_schema(request=TrustHostKeySerializer, responses={200: ServerSerializer})
    @action(
        detail=True,
        methods=["post"],
        url_path="trust-host-key",
        permission_classes=[CHANGE_SERVERS],
    )
    def trust_host_key(self, request, name=None):
        """Trust the host key the server offered, given its fingerprint as checked."""
        server = self.get_object()
        body = TrustHostKeySerializer(data=request.data)
        body.is_valid(raise_exception=True)
        server = checks.trust_host_key(
            server=server, fingerprint_seen=body.validated_data["fingerprint"]
        )
        return Response(ServerSerializer(server).data)

    @extend_schema(request=None, responses={200: ServerSerializer})
    @action(
        detail=True,
        methods=["post"],
        url_path="forget-host-keys",
        permission_classes=[CHANGE_SERVERS],
    )
    def forget_host_keys(self, request, name=None):
        """Trust no key of the server any more (it was reinstalled)."""
        server = checks.forget_host_keys(server=self.get_object())
        return Response(ServerSerializer(server).data)


class EnvironmentViewSet(WritesWithinPrivileges, viewsets.ModelViewSet):
    queryset = Environment.objects.select_related("parent")
    serializer_class = EnvironmentSerializer
    lookup_field = "name"
    lookup_value_regex = NAME_PATTERN  # DRF's own refuses "." (web.01)

    def perform_destroy(self, instance):
        services.delete_environment(environment=instance)


class RoleViewSet(WritesWithinPrivileges, viewsets.ModelViewSet):
    queryset = Role.objects.prefetch_related("dependencies")
    serializer_class = RoleSerializer
    lookup_field = "name"
    lookup_value_regex = NAME_PATTERN  # DRF's own refuses "." (web.01)

    def perform_destroy(self, instance):
        services.delete_role(role=instance)


class ResolvedVariableSerializer(serializers.Serializer):
    """A variable as a server sees it (GET /api/servers/<name>/variables/)."""

    name = serializers.CharField()
    value = serializers.CharField(help_text="Masked when sensitive.")
    sensitive = serializers.BooleanField()
    scope = serializers.CharField(help_text='Where it comes from: "server web1", "global" ...')
    shadowed = serializers.ListField(
        child=serializers.CharField(), help_text="The scopes whose value this one hides."
    )


class InstalledPackageSerializer(serializers.ModelSerializer):
    class Meta:
        model = InstalledPackage
        fields = ["manager", "name", "version", "architecture"]


class FoundPackageSerializer(InstalledPackageSerializer):
    server = serializers.CharField(source="server.name")
    operating_system = serializers.CharField(source="server.os_name")
    system = serializers.CharField(source="server.system", help_text="debian-12")
    collected = serializers.DateTimeField(source="server.packages_collected")

    class Meta(InstalledPackageSerializer.Meta):
        fields = [
            "server",
            "operating_system",
            "system",
            *InstalledPackageSerializer.Meta.fields,
            "collected",
        ]


class ServerViewSet(WritesWithinPrivileges, ServerSshActions, viewsets.ModelViewSet):
    queryset = Server.objects.prefetch_related("roles", "environments").select_related("credential")
    serializer_class = ServerSerializer
    lookup_field = "name"
    lookup_value_regex = NAME_PATTERN  # DRF's own refuses "." (web.01)

    @extend_schema(responses={200: InstalledPackageSerializer(many=True)})
    @action(detail=True, methods=["get"])
    def packages(self, request, name=None):
        """The packages installed on this server as last collected; ``q``: a part of the name."""
        packages = self.get_object().packages.all()
        contains = request.query_params.get("q", "").strip()
        if contains:
            packages = packages.filter(name__icontains=contains)
        page = self.paginate_queryset(packages)
        return self.get_paginated_response(InstalledPackageSerializer(page, many=True).data)

    def perform_destroy(self, instance):
        services.delete_server(server=instance)

    @extend_schema(responses={200: ResolvedVariableSerializer(many=True)})
    # a plain list of every variable the server sees, never a page
    @action(detail=True, methods=["get"], pagination_class=None)
    def variables(self, request, name=None):
        """Each variable this server sees: its value (sensitive ones masked) and the scope that supplied it."""
        server = self.get_object()
        if not request.user.has_perm("inventory.view_variable", server):
            self.permission_denied(request, message="You may not view variables.")
        return Response(
            [
                {
                    "name": v.name,
                    "value": MASK if v.sensitive else v.value,
                    "sensitive": v.sensitive,
                    "scope": v.scope,
                    "shadowed": list(v.shadowed),
                }
                for v in sorted(
                    resolve_variables(server=server).values(), key=lambda v: v.name.casefold()
                )
            ]
        )


@extend_schema(
    parameters=[
        OpenApiParameter("name", str, description="The package's exact name."),
        OpenApiParameter(
            "test",
            str,
            enum=selectors.VersionTest.values,
            description="How its version compares with ``version`` (older by default).",
        ),
        OpenApiParameter(
            "version", str, description="A version as the package's manager writes it."
        ),
        OpenApiParameter("system", str, description="An operating system: debian-12."),
    ]
)
class PackageViewSet(viewsets.GenericViewSet):
    """The packages installed on the servers you may see, by server: optionally only those
    called ``name`` (exact, any case), whose version passes ``test`` (older, at-least, exactly)
    against ``version``, on the operating system ``system`` (debian-12)."""

    permission_classes = [holding("inventory.view_server", "You may not view servers.")]
    serializer_class = FoundPackageSerializer
    filter_backends: list = []

    def get_queryset(self):
        """Every package of the servers the user may see (what the browsable API lists)."""
        return selectors.find_packages(servers=visible(self.request.user, Server.objects.all()))

    def list(self, request):
        servers = visible(request.user, Server.objects.all())
        form = PackageSearchForm(
            request.query_params, systems=selectors.operating_systems(servers=servers)
        )
        if not form.is_valid():
            raise serializers.ValidationError(
                {field: [str(error) for error in errors] for field, errors in form.errors.items()}
            )
        page = self.paginate_queryset(form.packages(servers))
        return self.get_paginated_response(self.get_serializer(page, many=True).data)


class VariableViewSet(WritesWithinPrivileges, viewsets.ModelViewSet):
    queryset = Variable.objects.select_related("server", "environment", "role")
    serializer_class = VariableSerializer
    filterset_fields = None

    def perform_destroy(self, instance):
        services.delete_variable(variable=instance)


class CredentialViewSet(WritesWithinPrivileges, viewsets.ModelViewSet):
    queryset = Credential.objects.prefetch_related("environments")
    serializer_class = CredentialSerializer
    lookup_field = "name"
    lookup_value_regex = NAME_PATTERN  # DRF's own refuses "." (web.01)

    def perform_destroy(self, instance):
        services.delete_credential(credential=instance)
