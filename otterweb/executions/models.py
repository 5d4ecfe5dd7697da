"""Job templates, jobs and executions (their logs: otterweb.execution_logs)."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import connection, models, transaction
from django.db.models.functions import Lower
from django.utils import timezone

import engine
from otterweb.execution_logs.sink import without_nul, without_nuls
from otterweb.executions.signals import execution_finished
from otterweb.fields import TextField, text_choices
from otterweb.inventory.models import Environment, Role, Server
from otterweb.rafts.models import Raft, RaftItem, RaftItemVersion

# the engine's modes, labelled for people; the labels' order is the choices' order
Mode = text_choices(
    engine.Mode,
    {
        engine.Mode.EXECUTE: "Execute",
        engine.Mode.COLLECT: "Collect only (drift check)",
        engine.Mode.COLLECT_EXECUTE: "Collect, then execute what drifted",
    },
    module=__name__,
)


def validate_prompts(prompts) -> None:
    """The JSON shape prompts had before they became JobTemplatePrompt rows (migration 0003
    refers to it): [{"name": "Version", "default": "1.0", "description": "..."}]."""
    if not isinstance(prompts, list) or not all(isinstance(p, dict) for p in prompts):
        raise ValidationError('Prompts are a list of {"name": ..., "default": ...} objects.')
    names = [str(p.get("name", "")).casefold() for p in prompts]
    if not all(names) or len(set(names)) != len(names):
        raise ValidationError("Every prompt has a name, and no name is used twice.")
    unknown = sorted({key for p in prompts for key in p} - {"name", "default", "description"})
    if unknown:
        raise ValidationError(
            f"Prompts have no {', '.join(unknown)}: only name, default, description."
        )


class JobTemplate(models.Model):
    class Targeting(models.TextChoices):
        NONE = "none", "None here: the script chooses its servers"
        SERVERS = "servers", "Chosen servers"
        ROLES = "roles", "Servers with the roles, in the environments"

    name = models.CharField(max_length=200, unique=True)
    description = TextField(blank=True)
    raft_item = models.ForeignKey(RaftItem, on_delete=models.PROTECT, related_name="job_templates")
    targeting = models.CharField(max_length=10, choices=Targeting.choices, default=Targeting.NONE)
    servers = models.ManyToManyField(Server, blank=True, related_name="job_templates")
    roles = models.ManyToManyField(Role, blank=True, related_name="job_templates")
    environments = models.ManyToManyField(Environment, blank=True, related_name="job_templates")
    mode = models.CharField(max_length=20, choices=Mode.choices, default=engine.Mode.EXECUTE.value)
    simulate = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        permissions = [("run_jobtemplate", "Can run job templates")]

    def __str__(self) -> str:
        return self.name


validate_variable_name = RegexValidator(
    r"^[^\s$@%{}][^{}\r\n]*$",
    "A variable name without its $, and no braces or line breaks (like Version).",
)

MAX_DIGITS = 100  # of a number prompt's value, before or after the point
TRUE_WORDS = frozenset({"true", "yes", "on", "1"})
FALSE_WORDS = frozenset({"false", "no", "off", "0", ""})


class JobTemplatePrompt(models.Model):
    """A variable a job template asks for when it is run: typed, so the run page shows the
    right control and a wrong value is refused before the script sees it. Every value reaches
    the script as text (OtterScript variables are text)."""

    class Type(models.TextChoices):
        TEXT = "text", "Text"
        NUMBER = "number", "Number"
        BOOLEAN = "boolean", "Yes or no"
        CHOICE = "choice", "Choice"

    template = models.ForeignKey(
        JobTemplate, on_delete=models.CASCADE, related_name="prompt_fields"
    )
    position = models.PositiveIntegerField(default=0, help_text="Where it is asked: lowest first.")
    name = models.CharField(
        max_length=100,
        validators=[validate_variable_name],
        help_text="The variable the script reads, without its $.",
    )
    type = models.CharField(max_length=10, choices=Type.choices, default=Type.TEXT)
    default = TextField(
        blank=True,
        help_text="Filled in when run. A yes-or-no prompt: true or false (blank: false).",
    )
    required = models.BooleanField(default=False, help_text="The run is refused without a value.")
    choices = models.JSONField(
        default=list, blank=True, help_text="The values a choice prompt offers, in order."
    )
    description = TextField(blank=True, help_text="Shown beside the field when run.")

    class Meta:
        ordering = ["template", "position", "pk"]
        constraints = [
            models.UniqueConstraint(
                Lower("name"),
                "template",
                name="job_template_prompt_name_unique",
                violation_error_message="The template already asks for a prompt of that name.",
            )
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        errors: dict[str, str] = {}
        choices = self.choices if isinstance(self.choices, list) else None
        if self.type == self.Type.CHOICE:
            if not choices or not all(isinstance(c, str) and c.strip() for c in choices):
                errors["choices"] = "A choice prompt offers at least one choice, each some text."
            elif len(set(choices)) != len(choices):
                errors["choices"] = "Each choice is offered once."
        elif choices != []:
            errors["choices"] = "Only a choice prompt has choices."
        if self.type == self.Type.BOOLEAN and self.required:
            errors["required"] = (
                "A yes-or-no prompt always has a value (unticked is false): it is never required."
            )
        if self.default and "choices" not in errors:
            try:
                self.to_text(self.default)
            except ValidationError as error:
                errors["default"] = error.messages[0]
        if errors:
            raise ValidationError(errors)

    def to_text(self, value) -> str:
        """``value`` given for the prompt, as the text the script gets: a number written out
        in decimal, a yes-or-no as true or false, a choice one of the choices. Blank is blank
        (except a yes-or-no, which is false). Raises ValidationError for a value that does not
        fit the type."""
        if self.type == self.Type.BOOLEAN:
            if isinstance(value, bool):
                return "true" if value else "false"
            word = str(value).strip().casefold() if isinstance(value, str | int) else None
            if word in TRUE_WORDS:
                return "true"
            if word in FALSE_WORDS:
                return "false"
            raise ValidationError(
                f"Expected yes or no (true or false), found {value!r}.", code="boolean"
            )
        if value is None or value == "":
            return ""
        if isinstance(value, bool) or not isinstance(value, str | int | float | Decimal):
            raise ValidationError(f"Expected {self._expected()}, found {value!r}.", code="type")
        if self.type == self.Type.NUMBER:
            try:
                number = Decimal(str(value).strip())
            except InvalidOperation:
                number = None
            if number is None or not number.is_finite():
                raise ValidationError(f"Expected a number, found {value!r}.", code="number")
            if abs(number.adjusted()) > MAX_DIGITS:  # 1e999999999 written out is a gigabyte
                raise ValidationError(
                    f"Expected a number of at most {MAX_DIGITS} digits, found {value!r}.",
                    code="number",
                )
            return format(number, "f")
        text = str(value)
        if self.type == self.Type.CHOICE and text not in self.choices:
            raise ValidationError(f"Expected {self._expected()}, found {text!r}.", code="choice")
        return text

    def _expected(self) -> str:
        if self.type == self.Type.CHOICE:
            return "one of " + ", ".join(map(str, self.choices))
        expected: dict[str, str] = {self.Type.NUMBER: "a number", self.Type.TEXT: "text"}
        return expected.get(self.type, "a value")

    @property
    def default_text(self) -> str:
        """The default as the script would get it (blank if it has none)."""
        try:
            return self.to_text(self.default)
        except ValidationError:  # saved before its type changed without a clean
            return ""


class Job(models.Model):
    """One request to run a script, as it was when it was made: targets, script and variables."""

    template = models.ForeignKey(
        JobTemplate, null=True, blank=True, on_delete=models.SET_NULL, related_name="jobs"
    )
    name = models.CharField(max_length=200)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="jobs",
    )
    origin = models.CharField(
        max_length=300,
        blank=True,
        help_text="What started it on requested_by's behalf (a schedule, a trigger); blank: "
        "requested_by did, or OtterWeb itself when none.",
    )
    script = TextField(help_text="The script's text when the job was made.")
    script_version = models.ForeignKey(
        RaftItemVersion, null=True, blank=True, on_delete=models.SET_NULL, related_name="jobs"
    )
    targets = models.JSONField(
        default=list, blank=True, help_text="The server names, resolved when the job was made."
    )
    variables = models.JSONField(default=dict, blank=True)
    # where it is, for privileges (otterweb.privileges.places): the environments of the servers
    # it targeted when it was made, and the raft of its script
    environments = models.ManyToManyField(Environment, blank=True, related_name="jobs")
    raft = models.ForeignKey(
        Raft, null=True, blank=True, on_delete=models.SET_NULL, related_name="jobs"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return self.name


class Execution(models.Model):
    RunState = text_choices(engine.RunState, module=__name__, qualname="Execution.RunState")

    class Status(models.TextChoices):
        NORMAL = "normal", "Normal"
        WARNING = "warning", "Warning"
        ERROR = "error", "Error"
        CANCELLED = "cancelled", "Cancelled"

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="executions")
    run_state = models.CharField(
        max_length=10,
        choices=RunState.choices,
        default=engine.RunState.PENDING.value,
        db_index=True,
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.NORMAL)
    mode = models.CharField(max_length=20, choices=Mode.choices, default=engine.Mode.EXECUTE.value)
    simulate = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    ended = models.DateTimeField(null=True, blank=True)
    worker = models.CharField(max_length=200, blank=True, help_text="The worker running it.")
    heartbeat = models.DateTimeField(null=True, blank=True, db_index=True)
    cancel_requested = models.BooleanField(default=False)
    drift = models.JSONField(default=list, blank=True)
    error = models.TextField(blank=True)
    last_seq = models.PositiveIntegerField(
        default=0, help_text="The seq of the last stored log entry."
    )
    # counted by the log sink with each batch it stores, so lists and the log's index never
    # count rows (a log may hold millions)
    log_lines = models.PositiveIntegerField(default=0, help_text="Log entries stored.")
    log_warnings = models.PositiveIntegerField(default=0, help_text="Of them, warnings.")
    log_errors = models.PositiveIntegerField(default=0, help_text="Of them, errors.")

    class Meta:
        ordering = ["-created"]
        permissions = [
            ("cancel_execution", "Can cancel executions"),
            ("run_on_local_server", "Can run scripts on the local server (OtterWeb's machine)"),
        ]

    def __str__(self) -> str:
        return f"Execution {self.pk} of {self.job}"

    def save(self, *args, **kwargs) -> None:
        """Saved with its error and drift as a database can store them: a run's own values (from
        finish, or the reaper's) may hold a NUL, which PostgreSQL's text and jsonb cannot."""
        update_fields = kwargs.get("update_fields")
        if update_fields is None or "error" in update_fields:
            self.error = without_nul(self.error or "")
        if update_fields is None or "drift" in update_fields:
            self.drift = without_nuls(self.drift)
        super().save(*args, **kwargs)

    # ---- lifecycle

    @classmethod
    def claim(cls, pk: int, *, worker: str) -> tuple[Execution | None, bool]:
        """Start the execution ``pk`` for ``worker`` if it is still pending: one conditional
        UPDATE, so of workers that race for it exactly one gets True. Then the execution with
        its job, the user who asked for it and the job's script version read in one query
        (None if there is no such execution)."""
        claimed = cls.objects.filter(pk=pk, run_state=engine.RunState.PENDING).update(
            **cls._started(worker)
        )
        execution = (
            cls.objects.select_related("job__requested_by", "job__script_version__item__raft")
            .filter(pk=pk)
            .first()
        )
        if claimed and execution is not None:
            execution._count_start()
        return execution, bool(claimed)

    def start(self, *, worker: str) -> None:
        """Start this execution for ``worker``, whatever its state (``claim`` is the workers'
        way, which starts only a pending one)."""
        started = self._started(worker)
        for name, value in started.items():
            setattr(self, name, value)
        self.save(update_fields=list(started))
        self._count_start()

    def _count_start(self) -> None:
        from otterweb import metrics  # here: a process that starts nothing writes no metrics

        if self.started is not None:
            metrics.QUEUE_WAIT.observe(max(0.0, (self.started - self.created).total_seconds()))

    @classmethod
    def _started(cls, worker: str) -> dict:
        """The fields of an execution that ``worker`` starts now."""
        now = timezone.now()
        return {
            "run_state": engine.RunState.EXECUTING,
            "started": now,
            "heartbeat": now,
            "worker": worker,
        }

    def finish(self, *, status: str, drift: list, error: str = "") -> None:
        self.run_state, self.status, self.drift, self.error = (
            engine.RunState.COMPLETED,
            status,
            drift,
            error,
        )
        self.ended = timezone.now()
        # One transaction: whoever sees the execution completed sees what its end recorded
        # (a configuration check's states, through execution_finished) too.
        with transaction.atomic():
            self.save(update_fields=["run_state", "status", "drift", "error", "ended"])
            # A finished execution holds no global lock (its blocks give theirs back; this is
            # for a run that ended inside one). Looked for first: a delete is a write, even of
            # nothing.
            if GlobalLock.objects.filter(execution_id=self.pk).exists():
                GlobalLock.objects.filter(execution_id=self.pk).delete()
            execution_finished.send(sender=Execution, execution=self)
        from otterweb import metrics  # here: a process that ends nothing writes no metrics

        metrics.EXECUTIONS_ENDED.labels(mode=self.mode, status=status).inc()
        if self.started is not None:
            metrics.EXECUTION_DURATION.labels(mode=self.mode).observe(
                max(0.0, (self.ended - self.started).total_seconds())
            )

    @classmethod
    def count_log(
        cls, execution_id: int, *, last_seq: int, lines: int, warnings: int, errors: int
    ) -> None:
        """Add a batch the log sink stored to the execution's counts (in the sink's transaction,
        on its thread): so lists and the log's index never count rows. Plain SQL, as the sink's
        own: the ORM's compiling took longer than the statement (bench/logs.py)."""
        table = connection.ops.quote_name(cls._meta.db_table)
        with connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {table} SET last_seq = %s, log_lines = log_lines + %s,"
                " log_warnings = log_warnings + %s, log_errors = log_errors + %s WHERE id = %s",
                [last_seq, lines, warnings, errors, execution_id],
            )

    @property
    def outcome(self) -> str:
        """What happened, in one word for lists and badges: the run state until it ends, then
        "drifted" for a collect that found drift, else the status."""
        if self.run_state != engine.RunState.COMPLETED:
            return self.run_state
        if self.mode == engine.Mode.COLLECT and self.drift and self.status != self.Status.CANCELLED:
            return "drifted"
        return self.status

    @property
    def outcome_label(self) -> str:
        if self.outcome == "drifted":
            count = len(self.drift)
            return f"Drifted ({count} {'operation' if count == 1 else 'operations'})"
        if self.run_state != engine.RunState.COMPLETED:
            return self.get_run_state_display()
        return self.get_status_display()

    @property
    def duration(self) -> float | None:
        if self.started is None:
            return None
        return ((self.ended or timezone.now()) - self.started).total_seconds()


class GlobalLock(models.Model):
    """A global lock (`lock=!token`) held by a block of a running execution: the row is the lock,
    so it holds across worker threads and processes. Used without Redis; with Redis, locks
    live there (see otterweb.executions.locks)."""

    token = models.CharField(max_length=200, unique=True, help_text="Case-folded.")
    execution = models.ForeignKey(Execution, on_delete=models.CASCADE, related_name="locks")
    acquired = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"!{self.token} (execution {self.execution_id})"
