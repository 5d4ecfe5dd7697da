"""Schedules and triggers: making, changing and deleting them, and a trigger's call that runs
its template. Firing schedules is otterweb.schedules.scheduler's."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from engine import json_loads
from otterweb.audit.context import origin
from otterweb.executions.local_runs import may_run_locally
from otterweb.executions.models import Execution, JobTemplate
from otterweb.executions.services import launch_template, prompt_answers
from otterweb.inventory.models import Environment
from otterweb.schedules import owners, signing
from otterweb.schedules.cron import next_time, normalized
from otterweb.schedules.models import Schedule, Trigger, TriggerDelivery
from otterweb.secrets import decrypt, encrypt

logger = logging.getLogger(__name__)

# A webhook call's timestamp may be this far from the server's clock, either way.
TIMESTAMP_TOLERANCE = timedelta(minutes=5)
# Deliveries are remembered (and a second one refused) this long.
DELIVERY_MEMORY = timedelta(days=1)
MAX_DELIVERY_ID = 200


# ---- schedules

# What a schedule is made of: the fields check_schedule and save_schedule take, the form's.
FIELDS = (
    "name",
    "description",
    "kind",
    "template",
    "variables",
    "environment",
    "cron",
    "time_zone",
    "enabled",
)


@transaction.atomic
def save_schedule(*, schedule: Schedule | None = None, now: datetime | None = None, **fields):
    """Make a schedule, or change ``schedule``, with ``fields`` as check_schedule takes them.
    Its next run is worked out again when its timing (cron, time zone, enabled) changes."""
    timing = (schedule.cron, schedule.time_zone, schedule.enabled) if schedule else None
    schedule = check_schedule(schedule=schedule, **fields)
    changed = timing != (schedule.cron, schedule.time_zone, schedule.enabled)
    if changed or (schedule.enabled and schedule.next_run is None):
        schedule.next_run = _next_run(schedule, now=now)
    schedule.save()
    logger.info(
        "schedule=%s kind=%s cron=%r time_zone=%s enabled=%s next_run=%s message='%s'",
        schedule.pk,
        schedule.kind,
        schedule.cron,
        schedule.time_zone,
        schedule.enabled,
        schedule.next_run.isoformat() if schedule.next_run else "none",
        "saved" if timing else "made",
    )
    return schedule


def check_schedule(
    *,
    schedule: Schedule | None = None,
    name: str,
    kind: str = Schedule.Kind.JOB,
    cron: str,
    time_zone: str = "UTC",
    enabled: bool = True,
    description: str = "",
    template: JobTemplate | None = None,
    variables: dict | None = None,
    environment: Environment | None = None,
    user=None,
) -> Schedule:
    """``schedule`` (or a new one) with these fields, checked, not saved. A job schedule runs
    ``template`` with ``variables`` (values for its prompts, checked as a run checks them); a
    configuration schedule checks ``environment``'s servers (None: the global one). ``user``:
    who makes or changes it, who must be allowed to run the template's targets, and who
    becomes its owner (its runs start on their behalf). Raises ValidationError, by field."""
    schedule = schedule or Schedule(created_by=user)
    if user is not None:
        schedule.owner = user
    schedule.name, schedule.description, schedule.kind = name, description, kind
    schedule.cron, schedule.time_zone, schedule.enabled = normalized(cron), time_zone, enabled
    if kind == Schedule.Kind.JOB:
        schedule.template, schedule.environment = template, None
        schedule.variables = dict(variables or {})
    else:
        schedule.template, schedule.environment, schedule.variables = None, environment, {}
    errors: dict[str, list] = {}
    try:
        schedule.full_clean()
    except ValidationError as error:
        errors.update(error.message_dict)
    if kind == Schedule.Kind.JOB:
        if template is None:
            errors.setdefault("template", []).append("Choose the job template it runs.")
        else:
            try:
                schedule.variables = checked_variables(template=template, variables=variables)
            except ValidationError as error:
                errors.setdefault("variables", []).extend(error.messages)
            try:
                check_may_run(user=user, template=template)
            except ValidationError as error:
                errors.setdefault("template", []).extend(error.messages)
    if errors:
        others = errors.pop("__all__", [])
        if others and kind == Schedule.Kind.CONFIGURATION:  # one per environment: beside it
            errors.setdefault("environment", []).extend(others)
        elif others and "template" not in errors:  # a missing template is said beside it
            errors["__all__"] = others
        raise ValidationError(errors)
    return schedule


def set_enabled(*, schedule: Schedule, enabled: bool, now: datetime | None = None) -> Schedule:
    """Enable a schedule (its next run counted from now: what it missed while disabled does not
    run) or disable it."""
    schedule.enabled = enabled
    schedule.next_run = _next_run(schedule, now=now)
    schedule.save(update_fields=["enabled", "next_run", "updated"])
    logger.info(
        "schedule=%s enabled=%s message='%s'",
        schedule.pk,
        enabled,
        "enabled" if enabled else "disabled",
    )
    return schedule


def delete_schedule(*, schedule: Schedule) -> None:
    """Delete a schedule; the executions it started stay."""
    logger.info("schedule=%s message='deleted'", schedule.pk)
    schedule.delete()


def _next_run(schedule: Schedule, *, now: datetime | None) -> datetime | None:
    if not schedule.enabled:
        return None
    return next_time(schedule.cron, schedule.time_zone, after=now or timezone.now())


def checked_variables(*, template: JobTemplate, variables: dict | None) -> dict:
    """``variables`` for ``template``'s prompts, each named as the prompt is, after the checks of
    a run (executions.services.launch_template): no value for a prompt it lacks, each value of
    its prompt's type, a value for each required prompt (given, or its default)."""
    if variables is None:
        return {}
    if not isinstance(variables, dict):
        raise ValidationError("Variables are a map of prompt names to values.")
    found = prompt_answers(template=template, variables=variables)
    if found.unknown:
        asks = ", ".join(answer.prompt.name for answer in found.answers) or "nothing"
        raise ValidationError(
            f"The template {template.name} does not ask for {', '.join(found.unknown)}; "
            f"it asks for {asks}."
        )
    problems = [
        f"{answer.prompt.name}: {answer.problem or 'the template needs a value.'}"
        for answer in found.answers
        if answer.problem or answer.missing
    ]
    if problems:
        raise ValidationError(problems)
    return found.given


def check_may_run(*, user, template: JobTemplate) -> None:
    """A schedule or trigger runs on its owner's behalf: whoever makes one for a template that
    runs on the local server (OtterWeb's machine) needs the permission to run there. (The
    owner's rights are checked again at every firing: owners.check_owner.)"""
    if user is not None and not user.has_perm(owners.RUN_TEMPLATES, template):
        raise ValidationError(
            f"You may not run the job template {template.name} (in the environments it "
            "targets): a schedule or trigger that runs it needs that."
        )
    if user is None or may_run_locally(user):
        return
    local = owners.local_targets(template=template)
    if local:
        raise ValidationError(
            f"The template runs on {', '.join(local)}, OtterWeb's own machine: that needs the "
            "permission 'Can run scripts on the local server'."
        )


# ---- triggers


def create_trigger(
    *,
    template: JobTemplate,
    name: str,
    kind: str = Trigger.Kind.TOKEN,
    allow_variables: bool = False,
    created_by=None,
) -> tuple[Trigger, str]:
    """A new trigger of ``template`` and its secret (the token, or the webhook's key): shown
    this once, never stored as it is."""
    secret = signing.new_token() if kind == Trigger.Kind.TOKEN else signing.new_key()
    trigger = Trigger(
        template=template,
        name=name,
        kind=kind,
        allow_variables=allow_variables,
        created_by=created_by,
        owner=created_by,
    )
    if kind == Trigger.Kind.TOKEN:
        trigger.token_digest = signing.digest(secret)
    else:
        trigger.encrypted_secret = encrypt(secret)
    trigger.full_clean(exclude=["token_digest", "encrypted_secret"])
    check_may_run(user=created_by, template=template)
    trigger.save()
    logger.info(
        "trigger=%s template=%s kind=%s allow_variables=%s message='made'",
        trigger.pk,
        template.pk,
        kind,
        allow_variables,
    )
    return trigger, secret


def delete_trigger(*, trigger: Trigger) -> None:
    logger.info("trigger=%s template=%s message='deleted'", trigger.pk, trigger.template_id)
    trigger.delete()


class NotAccepted(Exception):
    """The call's token or signature is not accepted (which part is never said to the caller)."""


class Replayed(Exception):
    """The call came before: the same delivery id, or the same signed message."""


def pull_trigger(
    *,
    trigger_id,
    body: bytes,
    token: str | None = None,
    signature: str | None = None,
    timestamp: str | None = None,
    delivery_id: str | None = None,
    now: datetime | None = None,
) -> Execution:
    """Run the trigger's template for a call: authenticated by its token (kind token) or by the
    body's signature and a timestamp within TIMESTAMP_TOLERANCE (kind webhook); with the values
    for the template's prompts the body gives as {"variables": {...}}, only if the trigger
    allows them. A delivery id (and a webhook's signature) is remembered: a second call with it
    is refused. Raises NotAccepted, Replayed, or ValidationError (bad variables); then nothing
    runs."""
    now = now or timezone.now()
    trigger = Trigger.objects.select_related("template", "owner").filter(pk=trigger_id).first()
    if trigger is None:
        reason = "unknown"
    else:
        reason = _refusal(
            trigger, token=token, signature=signature, timestamp=timestamp, body=body, now=now
        )
    if trigger is None or reason:
        logger.warning("trigger=%s reason=%s message='call not accepted'", trigger_id, reason)
        raise NotAccepted("not accepted")
    variables = _variables(trigger, body)
    delivery_id = (delivery_id or "").strip()
    if len(delivery_id) > MAX_DELIVERY_ID:
        raise ValidationError(f"X-OtterWeb-Delivery is at most {MAX_DELIVERY_ID} characters.")
    TriggerDelivery.objects.filter(trigger=trigger, received__lt=now - DELIVERY_MEMORY).delete()
    try:
        with transaction.atomic():
            if delivery_id or trigger.kind == Trigger.Kind.WEBHOOK:
                delivery = _remember(trigger, delivery_id=delivery_id, signature=signature, now=now)
            else:
                delivery = None
            # on the owner's behalf, with the owner's rights as they are now, against the
            # template's targets and script as they are now
            owners.check_owner(
                owner=trigger.owner, template=trigger.template, what=f"The trigger {trigger.name}"
            )
            with origin(f"trigger {trigger.name}"):
                execution = launch_template(
                    template=trigger.template, requested_by=trigger.owner, variables=variables
                )
            if delivery is not None:
                delivery.execution = execution
                delivery.save(update_fields=["execution"])
            Trigger.objects.filter(pk=trigger.pk).update(
                last_used=now, last_execution=execution, last_error=""
            )
    except ValidationError as error:
        reason = " ".join(error.messages)
        logger.warning(
            "trigger=%s template=%s message='refused: %s'",
            trigger.pk,
            trigger.template_id,
            reason[:500],
        )
        Trigger.objects.filter(pk=trigger.pk).update(last_used=now, last_error=reason)
        raise
    logger.info(
        "trigger=%s template=%s execution=%s delivery=%r message='started'",
        trigger.pk,
        trigger.template_id,
        execution.pk,
        delivery_id,
    )
    return execution


def _refusal(
    trigger: Trigger,
    *,
    token: str | None,
    signature: str | None,
    timestamp: str | None,
    body: bytes,
    now: datetime,
) -> str:
    """Why the call is not accepted, for the log ("" when it is)."""
    if not trigger.enabled:
        return "disabled"
    if trigger.kind == Trigger.Kind.TOKEN:
        return "" if signing.token_matches(token, trigger.token_digest) else "token"
    if not timestamp:
        return "timestamp"
    try:
        sent = datetime.fromtimestamp(int(timestamp), tz=now.tzinfo)
    except (ValueError, OverflowError, OSError):
        return "timestamp"
    if abs(now - sent) > TIMESTAMP_TOLERANCE:
        return "stale-timestamp"
    if not signing.signature_matches(signature, decrypt(trigger.encrypted_secret), timestamp, body):
        return "signature"
    return ""


def _variables(trigger: Trigger, body: bytes) -> dict | None:
    """The values the call gives for the template's prompts: {"variables": {...}} in a JSON
    body. A token call's body is that or nothing; a webhook's may be any payload (a JSON one
    without "variables" gives none)."""
    if not body.strip():
        return None
    try:
        data = json_loads(body.decode("utf-8"), max_depth=16, surrogates=False, integer_bits=64)
    except (UnicodeDecodeError, ValueError):
        if trigger.kind == Trigger.Kind.WEBHOOK:
            return None
        raise ValidationError(
            'The body is JSON: {"variables": {"Name": "value"}}, or nothing.'
        ) from None
    if not isinstance(data, dict):
        if trigger.kind == Trigger.Kind.WEBHOOK:
            return None
        raise ValidationError('The body is a JSON object: {"variables": {"Name": "value"}}.')
    if trigger.kind == Trigger.Kind.TOKEN and set(data) - {"variables"}:
        unknown = ", ".join(sorted(set(data) - {"variables"}))
        raise ValidationError(f'The body has only "variables", not {unknown}.')
    variables = data.get("variables")
    if variables is None:
        return None
    if not isinstance(variables, dict):
        raise ValidationError('"variables" is a map of prompt names to values.')
    if variables and not trigger.allow_variables:
        raise ValidationError(
            "This trigger takes no variables: the template runs with its defaults."
        )
    for name, value in variables.items():
        if _holds_nul(name) or _holds_nul(value):
            raise ValidationError(
                f"The variable {name!r} holds a NUL character (U+0000), which no value may hold."
            )
    return variables


def _holds_nul(value) -> bool:
    """Whether a text in ``value`` (JSON: text, lists, maps) holds U+0000, which PostgreSQL
    cannot store."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str) and "\x00" in item:
            return True
        if isinstance(item, dict):
            pending.extend(item)
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False


def _remember(trigger: Trigger, *, delivery_id: str, signature, now: datetime) -> TriggerDelivery:
    """Record the delivery; Replayed when its id or its signed message came before."""
    signed = ""
    if trigger.kind == Trigger.Kind.WEBHOOK and signature:
        signed = signature[len(signing.SIGNATURE_PREFIX) :].strip().lower()
    try:
        with transaction.atomic():
            return TriggerDelivery.objects.create(
                trigger=trigger, delivery_id=delivery_id, signature=signed, received=now
            )
    except IntegrityError:
        logger.warning(
            "trigger=%s delivery=%r message='refused: the delivery came before'",
            trigger.pk,
            delivery_id,
        )
        raise Replayed("this delivery was received before") from None
