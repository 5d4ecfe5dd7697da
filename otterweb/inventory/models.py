"""Servers, roles, environments, variables and credentials."""

from __future__ import annotations

import unicodedata

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from engine import Value, literal_value
from otterweb import secrets
from otterweb.fields import TextField
from otterweb.names import NAME_HELP, validate_name


def check_login_name(value: str, *, field: str) -> None:
    """Refuse a user name that SSH (SASLprep) or an HTTP header cannot carry: one holding a
    control, format (such as U+202E, which turns text around), private-use or unassigned
    character, or a line or paragraph separator. Spaces are kept."""
    for character in value:
        if unicodedata.category(character) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            name = unicodedata.name(character, "a control character")
            raise ValidationError(
                {
                    field: f"A user name holds no control or invisible character; this one holds "
                    f"U+{ord(character):04X} ({name})."
                }
            )


class TimeStamped(models.Model):
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True


class Environment(TimeStamped):
    name = models.CharField(
        max_length=100, unique=True, help_text=NAME_HELP, validators=[validate_name]
    )
    description = TextField(blank=True)
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="children"
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def lineage(self) -> list[Environment]:
        """This environment, then its parent, its parent's parent ... (a cycle stops the walk)."""
        chain: list[Environment] = []
        current: Environment | None = self
        while current is not None and current not in chain:
            chain.append(current)
            current = current.parent
        return chain


class Remediation(models.TextChoices):
    """What is done about drift a configuration check finds (otterweb.configuration)."""

    REPORT = "report", "Report only"
    ON_DEMAND = "on-demand", "Remediate on demand"
    AUTOMATIC = "automatic", "Remediate automatically"

    @classmethod
    def least_eager(cls, policies) -> Remediation:
        """Of ``policies``, the one that does least on its own (report before on demand before
        automatic); report when there are none."""
        order = [cls.REPORT, cls.ON_DEMAND, cls.AUTOMATIC]
        return min((cls(policy) for policy in policies), key=order.index, default=cls.REPORT)


class Role(TimeStamped):
    name = models.CharField(
        max_length=100, unique=True, help_text=NAME_HELP, validators=[validate_name]
    )
    description = TextField(blank=True)
    dependencies = models.ManyToManyField(
        "self",
        symmetrical=False,
        blank=True,
        related_name="dependents",
        help_text="Roles a server with this role needs too.",
    )
    configuration = models.ForeignKey(
        "rafts.RaftItem",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="configured_roles",
        help_text="The OtterScript that describes the desired state of this role's servers.",
    )
    remediation = models.CharField(
        max_length=20,
        choices=Remediation.choices,
        default=Remediation.REPORT,
        help_text="What is done when a check finds a server of this role drifted.",
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Credential(TimeStamped):
    class Kind(models.TextChoices):
        PASSWORD = "password", "User name and password"
        PRIVATE_KEY = "private_key", "Private key"
        TOKEN = "token", "Token"

    name = models.CharField(
        max_length=100, unique=True, help_text=NAME_HELP, validators=[validate_name]
    )
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.PASSWORD)
    username = models.CharField(max_length=200, blank=True)
    encrypted_secret = models.TextField(blank=True, editable=False)
    # a private key's passphrase, encrypted as the secret is
    encrypted_passphrase = models.TextField(blank=True, editable=False)
    environments = models.ManyToManyField(
        Environment,
        blank=True,
        related_name="credentials",
        help_text="Only executions in these environments may use it (any, when empty).",
    )
    description = TextField(blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def has_secret(self) -> bool:
        return bool(self.encrypted_secret)

    def set_secret(self, secret: str) -> None:
        self.encrypted_secret = secrets.encrypt(secret) if secret else ""

    def secret(self) -> str:
        return secrets.decrypt(self.encrypted_secret) if self.encrypted_secret else ""

    @property
    def has_passphrase(self) -> bool:
        return bool(self.encrypted_passphrase)

    def set_passphrase(self, passphrase: str) -> None:
        self.encrypted_passphrase = secrets.encrypt(passphrase) if passphrase else ""

    def passphrase(self) -> str:
        return secrets.decrypt(self.encrypted_passphrase) if self.encrypted_passphrase else ""

    def clean(self) -> None:
        check_login_name(self.username, field="username")

    def usable_in(self, environments: list[Environment]) -> bool:
        allowed = set(self.environments.all())
        if not allowed:
            return True
        return any(set(environment.lineage()) & allowed for environment in environments)


# what the server check finds (inventory.checks): shown everywhere, never written by hand
SERVER_CHECK_FIELDS = (
    "reachable",
    "latency_ms",
    "os_name",
    "kernel",
    "last_checked",
    "last_seen",
    "check_error",
    "facts",
    "system",
    "facts_collected",
    "packages_collected",
)


class Server(TimeStamped):
    class AgentType(models.TextChoices):
        LOCAL = "local", "Local (this machine)"
        SSH = "ssh", "SSH"

    name = models.CharField(
        max_length=100, unique=True, help_text=NAME_HELP, validators=[validate_name]
    )
    host = models.CharField(
        max_length=255, blank=True, help_text="Host name or address; the name when empty."
    )
    port = models.PositiveIntegerField(default=22)
    agent_type = models.CharField(max_length=10, choices=AgentType.choices, default=AgentType.LOCAL)
    roles = models.ManyToManyField(Role, blank=True, related_name="servers")
    environments = models.ManyToManyField(Environment, blank=True, related_name="servers")
    active = models.BooleanField(default=True, help_text="Inactive servers are left out of jobs.")
    credential = models.ForeignKey(
        Credential, null=True, blank=True, on_delete=models.PROTECT, related_name="servers"
    )
    user = models.CharField(
        max_length=100,
        blank=True,
        help_text="The user an SSH agent logs in as; the credential's user name when empty.",
    )
    sudo = models.BooleanField(
        default=False,
        help_text="Run commands through 'sudo -n' (the user needs sudo without a password). "
        "Files are still read and written as the user.",
    )
    host_keys = TextField(
        blank=True,
        help_text="The SSH host keys trusted for this server, one a line as in known_hosts: "
        "'ssh-ed25519 AAAA...'. A server offering another key is refused.",
    )
    # the key the server offered when no key was trusted, until an admin trusts it
    pending_host_key = models.TextField(blank=True, editable=False)
    # the server check's findings (otterweb/inventory/checks.py)
    reachable = models.BooleanField(null=True, editable=False)
    latency_ms = models.FloatField(null=True, editable=False)
    os_name = models.CharField(max_length=200, blank=True, editable=False)
    kernel = models.CharField(max_length=200, blank=True, editable=False)
    last_checked = models.DateTimeField(null=True, editable=False)
    last_seen = models.DateTimeField(null=True, editable=False)
    check_error = models.TextField(blank=True, editable=False)
    # what the check found the server to be (engine.inventory.Inventory.facts: OS id and version,
    # architecture, CPUs, memory, addresses, disks), and when; when its packages were collected
    facts = models.JSONField(default=dict, blank=True, editable=False)
    system = models.CharField(max_length=100, blank=True, editable=False)  # debian-12, from facts
    facts_collected = models.DateTimeField(null=True, editable=False)
    packages_collected = models.DateTimeField(null=True, editable=False)
    remediation = models.CharField(
        max_length=20,
        choices=Remediation.choices,
        blank=True,
        help_text="What is done when a check finds this server drifted; when blank, what its "
        "roles say (the least eager of them).",
    )
    description = TextField(blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        check_login_name(self.user, field="user")

    def remediation_policy(self) -> Remediation:
        """Its own policy, or else the least eager of its roles' (report with no roles)."""
        if self.remediation:
            return Remediation(self.remediation)
        return Remediation.least_eager(role.remediation for role in self.roles.all())

    @property
    def address(self) -> str:
        return self.host or self.name

    @property
    def is_ssh(self) -> bool:
        return self.agent_type == self.AgentType.SSH

    def trusted_host_keys(self) -> tuple[str, ...]:
        return tuple(line.strip() for line in self.host_keys.splitlines() if line.strip())


class InstalledPackage(models.Model):
    """A package installed on a server, as the server check or a run's Collect-DebianPackages
    last found it."""

    class Manager(models.TextChoices):
        DEBIAN = "deb", "Debian"
        RPM = "rpm", "RPM"

    server = models.ForeignKey(Server, on_delete=models.CASCADE, related_name="packages")
    manager = models.CharField(max_length=10, choices=Manager.choices)
    name = models.CharField(max_length=200)
    version = models.CharField(max_length=200)
    architecture = models.CharField(max_length=50, blank=True)

    class Meta:
        ordering = ["name", "architecture"]
        constraints = [
            models.UniqueConstraint(
                fields=["server", "manager", "name", "architecture"], name="one_package_per_server"
            )
        ]
        indexes = [models.Index(fields=["name"])]

    def __str__(self) -> str:
        return f"{self.name} {self.version} ({self.server})"


class Variable(TimeStamped):
    """A configuration variable at one scope: a server, an environment, a role, or global.

    An ordinary variable's literal is in ``value``; a sensitive one's is encrypted, like a
    credential's secret, in ``encrypted_value`` (and ``value`` is empty). Read it with
    ``literal()``, write it with ``set_literal()``."""

    name = models.CharField(
        max_length=100, help_text="Without its sigil: the value decides ($, @ or %)."
    )
    value = TextField(
        blank=True, help_text="An OtterScript literal: text, @(a, b) or %(key: value)."
    )
    encrypted_value = models.TextField(blank=True, editable=False)
    sensitive = models.BooleanField(
        default=False, help_text="Masked in logs and never shown again after saving."
    )
    server = models.ForeignKey(
        Server, null=True, blank=True, on_delete=models.CASCADE, related_name="variables"
    )
    environment = models.ForeignKey(
        Environment, null=True, blank=True, on_delete=models.CASCADE, related_name="variables"
    )
    role = models.ForeignKey(
        Role, null=True, blank=True, on_delete=models.CASCADE, related_name="variables"
    )

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                name="variable_has_one_scope",
                condition=(
                    Q(server__isnull=True, environment__isnull=True, role__isnull=True)
                    | Q(server__isnull=False, environment__isnull=True, role__isnull=True)
                    | Q(server__isnull=True, environment__isnull=False, role__isnull=True)
                    | Q(server__isnull=True, environment__isnull=True, role__isnull=False)
                ),
                violation_error_message=(
                    "A variable belongs to one place: a server, an environment, a role, or none "
                    "(global). Choose at most one."
                ),
            ),
            *(
                models.UniqueConstraint(
                    fields=["name", scope],
                    condition=Q(**{f"{scope}__isnull": False}),
                    name=f"variable_unique_per_{scope}",
                    violation_error_message=f"This {scope} already has a variable of that name.",
                )
                for scope in ("server", "environment", "role")
            ),
            models.UniqueConstraint(
                fields=["name"],
                condition=Q(server__isnull=True, environment__isnull=True, role__isnull=True),
                name="variable_unique_global",
                violation_error_message="There is already a global variable of that name.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.scope_label})"

    def save(self, *args, **kwargs) -> None:
        # whatever path set them: a sensitive value is never stored in clear, an ordinary one
        # never encrypted
        if (self.sensitive and self.value) or (not self.sensitive and self.encrypted_value):
            self.set_literal(self.value or self.literal())
            if kwargs.get("update_fields") is not None:
                kwargs["update_fields"] = {*kwargs["update_fields"], "value", "encrypted_value"}
        super().save(*args, **kwargs)

    @property
    def scope_label(self) -> str:
        if self.server_id:
            return f"server {self.server}"
        if self.environment_id:
            return f"environment {self.environment}"
        if self.role_id:
            return f"role {self.role}"
        return "global"

    def literal(self) -> str:
        """The OtterScript literal, decrypted when the variable is sensitive."""
        if self.encrypted_value:
            return secrets.decrypt(self.encrypted_value)
        return self.value

    def set_literal(self, literal: str) -> None:
        """Keep ``literal`` as the variable's value: encrypted when it is sensitive (set
        ``sensitive`` first)."""
        if self.sensitive:
            self.value, self.encrypted_value = "", secrets.encrypt(literal)
        else:
            self.value, self.encrypted_value = literal, ""

    def runtime_value(self) -> Value:
        """The value as the engine sees it: text, a list or a map."""
        return literal_value(self.literal())
