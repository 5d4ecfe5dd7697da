"""Jobs and executions: making them (dispatched once their transaction commits; the editor's Run
saves what it shows, then runs it), job templates, and cancelling. Running them is
otterweb.executions.runner's."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from functools import partial

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import prefetch_related_objects
from django.urls import reverse

import engine
from engine import OtterSyntaxError, Value, from_json_value, parse, targets_servers
from otterweb.audit import services as audit
from otterweb.audit.context import current_origin
from otterweb.executions import dispatch, selectors
from otterweb.executions.local_runs import may_run_locally
from otterweb.executions.models import Execution, Job, JobTemplate, JobTemplatePrompt, Mode
from otterweb.executions.runner import close_execution
from otterweb.inventory.models import Server
from otterweb.inventory.selectors import servers_for
from otterweb.parse_errors import parse_failure
from otterweb.privileges.checks import RUN, may
from otterweb.rafts import services as rafts
from otterweb.rafts.models import RaftItem, RaftItemVersion

NO_TARGETS = (
    "Choose servers or roles to run on, or target servers in the script with a "
    "“for server …” or “for role …” block."
)

# what must hold before a job template changes, from the apps that run templates (schedules:
# the rights their runs need); each takes template and user and raises ValidationError
TEMPLATE_CHANGE_CHECKS: list[Callable[..., None]] = []


def check_template_change(*, template: JobTemplate, user) -> None:
    """Raise ValidationError when ``user`` may not save ``template`` as it is now."""
    for check in TEMPLATE_CHANGE_CHECKS:
        check(template=template, user=user)


@transaction.atomic
def create_job(
    *,
    requested_by=None,
    script: str | None = None,
    raft_item: RaftItem | None = None,
    name: str = "",
    servers: Collection[str] = (),
    roles: Collection[str] = (),
    environments: Collection[str] = (),
    mode: str = engine.Mode.EXECUTE,
    simulate: bool = False,
    variables: dict | None = None,
    template=None,
    permission: str = RUN,
    version: RaftItemVersion | None = None,
) -> Execution:
    """Make a job and its pending execution; it is dispatched once the transaction commits.
    The script is ``script``'s text, ``raft_item``'s latest version, or ``version``.

    A job runs on the servers named, and those with the roles in the environments; with none,
    only a script that targets servers itself (``for server``/``for role``) is accepted, never
    an implicit local run. ``requested_by`` (None: OtterWeb itself) must hold ``permission`` on
    every server it targets, and the one to run on the local server for a local one."""
    if [script, raft_item, version].count(None) != 2:
        raise ValidationError("give either a script or a raft item")
    if version is not None:
        text, raft_item = version.content, version.item
    elif raft_item is not None:
        text, version = raft_item.content, raft_item.versions.first()
    else:
        text = str(script)
    try:
        parsed = parse(text, name=name or "script")
    except OtterSyntaxError as error:
        raise parse_failure(error, name=name or "script") from None
    if mode not in Mode.values:
        raise ValidationError(f"mode is one of {', '.join(Mode.values)}, not {mode!r}")
    variables = script_variables(variables)
    targets = servers_for(servers=list(servers), roles=list(roles), environments=list(environments))
    prefetch_related_objects(targets, "environments")
    missing = sorted(set(servers) - {s.name for s in targets})
    if missing:
        raise ValidationError(f"no active server named {', '.join(missing)}")
    if (roles or environments) and not targets:
        raise ValidationError("no active server has those roles in those environments")
    if not targets and not targets_servers(parsed):
        raise ValidationError(NO_TARGETS, code="no_targets")
    check_may_run(user=requested_by, servers=targets, permission=permission)
    local = [s for s in targets if s.agent_type == Server.AgentType.LOCAL]
    if local and not all(may_run_locally(requested_by, server) for server in local):
        names = [s.name for s in local]
        raise ValidationError(
            f"{', '.join(names)} {'is' if len(names) == 1 else 'are'} OtterWeb's own machine: "
            "running scripts there needs the permission 'Can run scripts on the local server'",
            code="local_server",
        )
    job = Job.objects.create(
        template=template,
        name=name or (str(raft_item) if raft_item else "ad hoc script"),
        requested_by=requested_by,
        origin=current_origin(),
        script=text,
        script_version=version,
        targets=[s.name for s in targets],
        variables=variables,
        raft_id=raft_item.raft_id if raft_item is not None else None,
    )
    job.environments.set({e.pk for server in targets for e in server.environments.all()})
    execution = Execution.objects.create(job=job, mode=mode, simulate=simulate)
    audit.run_started(execution=execution)
    transaction.on_commit(partial(dispatch.current().dispatch, execution.pk))
    return execution


ACTIONS = {
    RUN: "run scripts",
    "executions.run_jobtemplate": "run job templates",
    "configuration.check_configuration": "check configuration",
    "configuration.remediate_server": "remediate",
}


@transaction.atomic
def save_and_run(
    *,
    item: RaftItem,
    content: str,
    message: str = "",
    author=None,
    servers: Collection[str] = (),
    roles: Collection[str] = (),
    environments: Collection[str] = (),
    mode: str,
    simulate: bool = False,
) -> Execution:
    """Run what the user sees: save ``content`` as the item's next version (none when it is
    the latest one), then start a job of it. All or nothing: text that does not parse, or a
    job that is refused, leaves the item as it was and runs nothing."""
    saved = rafts.save_content(item=item, content=content, author=author, message=message)
    return create_job(
        requested_by=author,
        raft_item=saved,
        name=str(saved),
        servers=servers,
        roles=roles,
        environments=environments,
        mode=mode,
        simulate=simulate,
    )


def run_answer(*, execution: Execution, user, saved: bool) -> dict:
    """What the item page's script needs to follow a run it started: the execution (its page,
    its state, where to cancel it when the user may), the version that ran (``saved``: made by
    this run) and a sentence saying so."""
    job = execution.job
    version = job.script_version
    assert version is not None  # save_and_run ran a version it saved, or the latest
    number = version.number
    may_cancel = user.has_perms(
        ["executions.view_execution", "executions.cancel_execution"], execution
    )
    return {
        "execution": {
            "id": execution.pk,
            "name": job.name,
            "url": reverse("execution-detail", args=[execution.pk]),
            "run_state": execution.run_state,
            "outcome": execution.outcome,
            "outcome_label": execution.outcome_label,
            "mode": execution.mode,
            "mode_label": execution.get_mode_display(),
            "simulate": execution.simulate,
            "cancel_url": reverse("api:execution-cancel", args=[execution.pk])
            if may_cancel
            else None,
        },
        "version": number,
        "saved": saved,
        "message": f"Saved {job.name} as version {number} and ran it."
        if saved
        else f"Ran version {number} of {job.name}.",
    }


def check_may_run(*, user, servers, permission: str = RUN) -> None:
    """Refuse (PermissionDenied, naming them) the servers ``user`` may not ``permission``."""
    refused = sorted(server.name for server in servers if not may(user, permission, server))
    if refused:
        raise PermissionDenied(
            f"You may not run on {', '.join(refused)}: that needs the privilege to "
            f"{ACTIONS.get(permission, permission)} in "
            f"{'its' if len(refused) == 1 else 'their'} environments."
        )


def script_variables(variables: dict | None) -> dict[str, Value]:
    """A job's variables as a script gets them: numbers and booleans as their text (``true``,
    ``false``), null as empty text, lists and maps of those, as Otter takes them."""
    if variables is None:
        return {}
    if not isinstance(variables, dict):
        raise ValidationError("variables are a map of names to values")
    blank = sorted(repr(name) for name in variables if not str(name).strip())
    if blank:
        raise ValidationError(f"a variable needs a name, not {', '.join(blank)}")
    return {str(name): from_json_value(value) for name, value in variables.items()}


def launch_template(
    *,
    template: JobTemplate,
    requested_by=None,
    variables: dict | None = None,
    mode: str | None = None,
    simulate: bool | None = None,
) -> Execution:
    """Run a job template: its raft item on its targets (resolved now), with its mode and
    simulation unless overridden, and a value for every variable it prompts for (given, or the
    prompt's default), checked against the prompt's type and passed to the script as text."""
    values = checked_answers(template=template, variables=variables)
    if not may(requested_by, "executions.run_jobtemplate", template):
        raise PermissionDenied(
            f"You may not run the template {template.name}: that needs the privilege to run job "
            "templates in the environments it targets."
        )
    targets = template_targets(template=template)
    servers, roles, environments = targets["servers"], targets["roles"], targets["environments"]
    if template.targeting != JobTemplate.Targeting.NONE and not (servers or roles):
        # never run on the local server instead of the targets someone forgot to choose
        raise ValidationError(
            f"the template {template.name} targets {template.targeting} but names none"
        )
    return create_job(
        requested_by=requested_by,
        raft_item=template.raft_item,
        name=template.name,
        template=template,
        servers=servers,
        roles=roles,
        environments=environments,
        mode=mode or template.mode,
        simulate=template.simulate if simulate is None else simulate,
        variables=values,
        permission="executions.run_jobtemplate",
    )


def checked_answers(*, template: JobTemplate, variables: dict | None) -> dict[str, str]:
    """A value for each prompt of ``template`` (given in ``variables``, or its default), as text
    of the prompt's type; a ValidationError naming each that is unknown, wrong or missing."""
    found = prompt_answers(template=template, variables=dict(variables or {}))
    if found.unknown:
        asks = [answer.prompt.name for answer in found.answers]
        raise ValidationError(
            f"the template {template.name} does not ask for {', '.join(found.unknown)}"
            + (f"; it asks for {', '.join(asks)}" if asks else "")
        )
    wrong = [
        f"{answer.prompt.name}: {message[:1].lower()}{message[1:]}"
        for answer in found.answers
        if answer.problem
        for message in [answer.problem.rstrip(".")]
    ]
    if wrong:
        raise ValidationError(f"the template {template.name} refused {'; '.join(wrong)}")
    missing = [answer.prompt.name for answer in found.answers if answer.missing]
    if missing:
        raise ValidationError(
            f"the template {template.name} needs a value for {', '.join(missing)}"
        )
    return {answer.prompt.name: answer.text for answer in found.answers}


def run_permission(execution: Execution) -> str:
    """What running ``execution``'s job again needs on each server: for a template's job, the
    privilege to run templates; for another, to run scripts."""
    return "executions.run_jobtemplate" if execution.job.template_id else RUN


def run_again(
    *,
    execution: Execution,
    requested_by,
    latest: bool = False,
    servers: Collection[str] | None = None,
    failed_only: bool = False,
    variables: dict | None = None,
) -> Execution:
    """Run ``execution``'s job again, as a new job: the script it ran (with ``latest``, its raft
    item's latest version), on the servers it ran on (or ``servers``; with ``failed_only``, those
    it failed on), with its mode, simulation and variables (or ``variables``, checked against
    the template's prompts when it came from a template, whose privilege it then needs)."""
    job = execution.job
    if failed_only:
        if servers is not None:
            raise ValidationError("give the servers, or ask for the failed ones: not both")
        servers = selectors.failed_servers(execution=execution)
        if not servers:
            raise ValidationError(
                f"execution {execution.pk} failed on no server: there is none to run it again on",
                code="no_failed_servers",
            )
    item = job.script_version.item if job.script_version is not None else None
    if latest:
        if item is None:
            raise ValidationError(
                "this execution ran a script of no raft item: there is no later version of it",
                code="no_raft_item",
            )
        source: dict = {"version": item.versions.first()}
    elif job.script_version is not None and job.script_version.content == job.script:
        source = {"version": job.script_version}
    else:
        source = {"script": job.script}
    values = job.variables if variables is None else variables
    permission = run_permission(execution)
    if job.template is None and requested_by is not None and not requested_by.has_perm(RUN):
        raise PermissionDenied("You may not run scripts.")
    if job.template is not None:
        values = checked_answers(template=job.template, variables=values)
        if not may(requested_by, permission, job.template):
            raise PermissionDenied(
                f"You may not run the template {job.template.name} again: that needs the "
                "privilege to run job templates in the environments it targets."
            )
    return create_job(
        requested_by=requested_by,
        name=job.name,
        template=job.template,
        servers=job.targets if servers is None else servers,
        mode=execution.mode,
        simulate=execution.simulate,
        variables=values,
        permission=permission,
        **source,
    )


@dataclass(frozen=True)
class PromptAnswer:
    """A prompt, and the value a run would give the script for it: the one given, or else its
    default, as text of the prompt's type; or why that value does not fit (``problem``)."""

    prompt: JobTemplatePrompt
    text: str = ""
    problem: str = ""

    @property
    def missing(self) -> bool:
        return not self.problem and self.text == "" and self.prompt.required


@dataclass(frozen=True)
class PromptAnswers:
    unknown: list[str]  # names given that no prompt has
    given: dict  # the values given, each under its prompt's own name
    answers: list[PromptAnswer]  # every prompt's, in order


def prompt_answers(*, template: JobTemplate, variables: dict) -> PromptAnswers:
    """``variables`` (prompt names in any case) checked against ``template``'s prompts, as a
    run checks them; the callers word what they refuse."""
    prompts = list(template.prompt_fields.all())
    asked = {prompt.name.casefold(): prompt for prompt in prompts}
    unknown = sorted(str(name) for name in variables if str(name).casefold() not in asked)
    given = {
        asked[str(name).casefold()].name: value
        for name, value in variables.items()
        if str(name).casefold() in asked
    }
    answers = []
    for prompt in prompts:
        try:
            answers.append(
                PromptAnswer(prompt, prompt.to_text(given.get(prompt.name, prompt.default)))
            )
        except ValidationError as error:
            answers.append(PromptAnswer(prompt, problem=error.messages[0]))
    return PromptAnswers(unknown, given, answers)


def template_targets(*, template: JobTemplate) -> dict[str, list[str]]:
    """The names a template targets by its targeting: servers, or roles and environments (the
    arguments of create_job and inventory.selectors.servers_for)."""
    targets: dict[str, list[str]] = {"servers": [], "roles": [], "environments": []}
    if template.targeting == JobTemplate.Targeting.SERVERS:
        targets["servers"] = [server.name for server in template.servers.all()]
    elif template.targeting == JobTemplate.Targeting.ROLES:
        targets["roles"] = [role.name for role in template.roles.all()]
        targets["environments"] = [env.name for env in template.environments.all()]
    return targets


PROMPT_FIELDS = ("name", "type", "default", "required", "choices", "description")


@transaction.atomic
def save_job_template(
    *,
    template: JobTemplate | None = None,
    name: str,
    raft_item: RaftItem,
    description: str = "",
    targeting: str = JobTemplate.Targeting.NONE,
    servers=(),
    roles=(),
    environments=(),
    mode: str = engine.Mode.EXECUTE,
    simulate: bool = False,
    prompts: list[dict] | None = None,
    user=None,
) -> JobTemplate:
    """Make a job template, or change ``template``: its fields, its targets (only those its
    targeting uses are kept) and, if given, its prompts in order, replacing the ones it had
    (each a dict of name, type, default, required, choices, description). Raises
    ValidationError, by field, for anything that does not fit, before anything is saved.
    ``user``: who changes it, who needs the rights the runs of its schedules and triggers need
    (None: OtterWeb itself)."""
    action = "executions.change_jobtemplate" if template else "executions.add_jobtemplate"
    template = template or JobTemplate()
    template.name, template.description, template.raft_item = name, description, raft_item
    template.targeting, template.mode, template.simulate = targeting, mode, simulate
    errors: dict[str, list] = {}
    try:
        template.full_clean()
    except ValidationError as error:
        errors.update(error.message_dict)
    if raft_item is not None and not raft_item.is_otterscript:
        errors.setdefault("raft_item", []).append(
            f"{raft_item} is a {raft_item.get_kind_display().lower()}: a template runs a script."
        )
    servers, roles, environments = list(servers), list(roles), list(environments)
    if targeting != JobTemplate.Targeting.SERVERS:
        servers = []
    if targeting != JobTemplate.Targeting.ROLES:
        roles = environments = []
    if targeting == JobTemplate.Targeting.SERVERS and not servers:
        errors.setdefault("servers", []).append("Choose the servers the template runs on.")
    if targeting == JobTemplate.Targeting.ROLES and not roles:
        errors.setdefault("roles", []).append("Choose the roles whose servers it runs on.")
    if (
        targeting == JobTemplate.Targeting.NONE
        and raft_item is not None
        and not _chooses_servers(raft_item)
    ):
        errors.setdefault("targeting", []).append(
            f"{raft_item} does not choose its servers (no “for server” or “for role” block): "
            "choose servers or roles for the template."
        )
    rows = None
    if prompts is not None:
        rows, problems = _prompt_rows(prompts)
        if problems:
            errors.setdefault("prompts", []).extend(problems)
    if errors:
        raise ValidationError(errors)
    template.save()
    template.servers.set(servers)
    template.roles.set(roles)
    template.environments.set(environments)
    if not may(user, action, template):
        raise PermissionDenied(
            f"You may not save the template {template.name} so: its script's raft or the "
            "environments it targets are outside your privileges."
        )
    check_template_change(template=template, user=user)
    if rows is not None:
        template.prompt_fields.all().delete()
        for row in rows:
            row.template = template
        JobTemplatePrompt.objects.bulk_create(rows)
        audit.record_created(rows)
    return template


def _chooses_servers(item: RaftItem) -> bool:
    """Whether the item's script targets servers itself; one that does not parse is left to
    the checks of the run."""
    try:
        return targets_servers(parse(item.content, name=str(item)))
    except OtterSyntaxError:
        return True


def _prompt_rows(prompts: list[dict]) -> tuple[list[JobTemplatePrompt], list[str]]:
    """Unsaved prompts, positioned in order, and what is wrong with them (by prompt name)."""
    rows, problems, seen = [], [], set()
    for position, fields in enumerate(prompts):
        unknown = sorted(set(fields) - set(PROMPT_FIELDS))
        if unknown:
            problems.append(
                f"A prompt has no {', '.join(unknown)}: only {', '.join(PROMPT_FIELDS)}."
            )
            continue
        row = JobTemplatePrompt(position=position, **fields)
        label = row.name or f"prompt {position + 1}"
        try:
            row.full_clean(exclude=["template"], validate_constraints=False)
        except ValidationError as error:
            problems.extend(
                f"{label}: {message}" if field == "__all__" else f"{label}, {field}: {message}"
                for field, messages in error.message_dict.items()
                for message in messages
            )
        if row.name.casefold() in seen:
            problems.append(f"{row.name}: the template already asks for a prompt of that name.")
        seen.add(row.name.casefold())
        rows.append(row)
    return rows, problems


def delete_job_template(*, template: JobTemplate) -> None:
    """Delete a job template and its prompts; the jobs it made stay, without their template."""
    template.delete()


def request_cancel(*, execution: Execution) -> None:
    """Ask the worker running ``execution`` to stop it; a pending one is cancelled at once."""
    with transaction.atomic():
        execution = Execution.objects.select_for_update().get(pk=execution.pk)
        if execution.run_state == engine.RunState.COMPLETED:
            return
        execution.cancel_requested = True
        execution.save(update_fields=["cancel_requested"])
        audit.run_cancelled(execution=execution)
        if execution.run_state == engine.RunState.PENDING:
            close_execution(
                execution,
                "The execution was cancelled before it started.",
                status=Execution.Status.CANCELLED,
            )
