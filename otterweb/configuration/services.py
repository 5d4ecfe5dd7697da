"""Configuration management, the writes: checking servers against their roles' desired state,
recording what the checks found, and remediation plans (made, approved and run, or discarded).

A server's plan is its roles' configurations in dependency order (selectors.server_plan).
Servers whose plans are the same run in one execution: a check of a hundred web servers is one
collect run over a hundred servers, as an ad hoc job over them would be."""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.dispatch import receiver
from django.utils import timezone

from engine import Mode, Script, parse, remediation_outline
from otterweb.audit import services as audit
from otterweb.configuration import selectors
from otterweb.configuration.models import (
    Check,
    ConfigurationRun,
    DriftItem,
    PlannedServer,
    RemediationPlan,
    ServerState,
    State,
)
from otterweb.executions import selectors as execution_selectors
from otterweb.executions.models import Execution
from otterweb.executions.services import check_may_run, create_job
from otterweb.executions.signals import execution_finished
from otterweb.inventory.models import Environment, Remediation, Server
from otterweb.schedules.models import Schedule

logger = logging.getLogger(__name__)

# what checking and remediating ask of whoever starts them, on every server they touch
CHECK = "configuration.check_configuration"
REMEDIATE = "configuration.remediate_server"


@dataclass(frozen=True)
class Started:
    """What a check or a remediation started: its executions, and the servers it could not
    include, each with why (no configuration, a plan that does not parse, roles in a circle)."""

    executions: list[Execution]
    skipped: dict[str, str]


# ---- checks --------------------------------------------------------------------------------------


def check_servers(
    *,
    servers: list[Server],
    requested_by=None,
    routine: bool = False,
    after: RemediationPlan | None = None,
) -> Started:
    """Check ``servers`` against their desired state now: their plans in collect mode, one
    execution per distinct plan. A server whose plan cannot be made is recorded as unknown,
    with why. A check ``after`` a remediation never remediates automatically again (drift a
    remediation could not fix would loop)."""
    executions: list[Execution] = []
    skipped: dict[str, str] = {}
    groups = selectors.plan_groups(servers=servers, skipped=skipped)
    _record_unplanned(skipped, servers)
    for group in groups:
        try:
            execution = _start_run(
                group,
                purpose=ConfigurationRun.Purpose.CHECK,
                requested_by=requested_by,
                routine=routine,
                plan=after,
            )
        except ValidationError as error:  # e.g. the local server, for someone who may not:
            # nothing ran there, so the servers' states stay as they were
            skipped.update(dict.fromkeys((s.name for s in group.servers), " ".join(error.messages)))
            continue
        executions.append(execution)
    logger.info(
        "routine=%s servers=%d executions=%d skipped=%d message='configuration check started'",
        routine,
        len(servers),
        len(executions),
        len(skipped),
    )
    return Started(executions, skipped)


def start_routine_check(*, environment: Environment | None = None) -> list[Execution]:
    """The routine check a schedule makes: the active servers of ``environment`` (and the
    environments in it), or, without one, those that no environment's own check covers."""
    servers = selectors.routine_servers(environment=environment)
    if not servers:
        return []
    return check_servers(servers=servers, routine=True).executions


def start_scheduled_check(schedule: Schedule) -> Execution | None:
    """What a configuration schedule starts when it fires: the routine check of its
    environment; of its executions (one per group of servers checked alike) the first, which
    the schedule links."""
    executions = start_routine_check(environment=schedule.environment)
    return executions[0] if executions else None


@transaction.atomic
def _start_run(
    group: selectors.PlanGroup,
    *,
    purpose: str,
    requested_by=None,
    routine: bool = False,
    plan: RemediationPlan | None = None,
) -> Execution:
    check = purpose == ConfigurationRun.Purpose.CHECK
    roles = ", ".join(part.role_name for part in group.parts) or "no roles"
    execution = create_job(
        requested_by=requested_by,
        script=group.plan.text,
        name=f"Configuration {'check' if check else 'remediation'}: {roles}",
        servers=[server.name for server in group.servers],
        mode=Mode.COLLECT if check else Mode.COLLECT_EXECUTE,
        permission=CHECK if check else REMEDIATE,
    )
    run = ConfigurationRun.objects.create(
        execution=execution,
        purpose=purpose,
        routine=routine,
        plan=plan,
        origins={str(line): origin for line, origin in group.origins().items()},
        parts=[part.as_json() for part in group.parts],
    )
    if check:
        Check.objects.bulk_create(Check(server=server, run=run) for server in group.servers)
    return execution


@receiver(execution_finished)
def record_finished_run(sender, execution: Execution, **kwargs) -> None:
    """Record what a configuration run found, once its execution has ended (whichever way)."""
    run = ConfigurationRun.objects.filter(execution=execution).first()
    if run is None:
        return
    try:
        with transaction.atomic():
            if run.purpose == ConfigurationRun.Purpose.CHECK:
                _record_check(run, execution)
            else:
                _after_remediation(run, execution)
    except Exception:  # the execution has ended all the same; its checks stay unfinished
        logger.exception(
            "execution=%s purpose=%s message='could not record the configuration run'",
            execution.pk,
            run.purpose,
        )


def _record_check(run: ConfigurationRun, execution: Execution) -> None:
    """Each server's check from the run's outcome there, its drift items, and the servers'
    states: a fixed number of queries however many servers the run checked (but for the
    first error of each server that failed)."""
    now = execution.ended or timezone.now()
    statuses = execution_selectors.server_statuses(execution=execution)
    drift_by_server: dict[str, list[dict]] = defaultdict(list)
    for drift in execution.drift or []:
        drift_by_server[drift.get("server") or ""].append(drift)
    checks = list(
        run.checks.filter(finished=False).select_related("server").prefetch_related("server__roles")
    )
    items: list[DriftItem] = []
    for check in checks:
        server = check.server
        found = drift_by_server.get(server.name, [])
        status = statuses.get(server.name)
        if execution.status == Execution.Status.CANCELLED or status is None:
            state, error = State.UNKNOWN, execution.error or "The check did not reach this server."
        elif status == Execution.Status.ERROR:
            state, error = State.ERROR, selectors.server_error(execution=execution, server=server)
        else:
            state, error = (State.DRIFTED if found else State.CURRENT), ""
        items += _drift_items(check, run, found)
        check.state, check.error, check.checked = state, error, now
        check.finished, check.drift_count = True, len(found)
    DriftItem.objects.bulk_create(items)
    _set_states(checks, checked=now)
    Check.objects.bulk_update(
        checks, ["state", "error", "checked", "finished", "drift_count", "changed"]
    )
    for check in checks:
        logger.info(
            "execution=%s server=%s state=%s drift=%d message='configuration checked'",
            execution.pk,
            check.server.name,
            check.state,
            check.drift_count,
        )
    automatic = [
        check.server.pk
        for check in checks
        if check.state == State.DRIFTED
        and check.server.remediation_policy() == Remediation.AUTOMATIC
    ]
    if automatic and run.plan_id is None and not execution.simulate:
        transaction.on_commit(lambda: _remediate_automatically(automatic))


def _drift_items(check: Check, run: ConfigurationRun, found: list[dict]) -> list[DriftItem]:
    items = []
    for drift in found:
        origin = run.origins.get(str(drift.get("line")))
        role, item, line = origin if origin else (None, None, None)
        items.append(
            DriftItem(
                server_check=check,
                key=str(drift.get("operation", ""))[:500],
                role_id=role,
                raft_item_id=item,
                line=line,
                plan_line=drift.get("line"),
                differences=drift.get("differences", []),
            )
        )
    return items


def _set_states(checks: list[Check], *, checked) -> None:
    """Make each check's state its server's, and mark the checks that changed it."""
    servers = [check.server_id for check in checks]
    states = {
        state.server_id: state
        for state in ServerState.objects.select_for_update().filter(server__in=servers)
    }
    new = [ServerState(server_id=pk) for pk in servers if pk not in states]
    for state in ServerState.objects.bulk_create(new):
        states[state.server_id] = state
    for check in checks:
        current = states[check.server_id]
        check.changed = current.state != check.state or current.state_since is None
        if check.changed:
            current.state_since = checked
        current.state, current.last_check, current.checked = check.state, check, checked
        current.drift_count = check.drift_count
    ServerState.objects.bulk_update(
        list(states.values()), ["state", "state_since", "last_check", "checked", "drift_count"]
    )


def _record_unplanned(skipped: dict[str, str], servers: list[Server]) -> None:
    """Servers that could not be checked: unknown, with why (unless they have no
    configuration at all, which is no failure)."""
    now = timezone.now()
    unplanned = [
        server.pk
        for server in servers
        if skipped.get(server.name, selectors.NO_CONFIGURATION) != selectors.NO_CONFIGURATION
    ]
    states = {s.server_id: s for s in ServerState.objects.filter(server__in=unplanned)}
    for pk in unplanned:
        state = states.get(pk) or ServerState(server_id=pk)
        if state.state != State.UNKNOWN or state.state_since is None:
            state.state_since = now
        state.state, state.last_check, state.checked, state.drift_count = (
            State.UNKNOWN,
            None,
            now,
            0,
        )
        state.save()


def _remediate_automatically(server_ids: list[int]) -> None:
    servers = list(Server.objects.filter(pk__in=server_ids, active=True))
    try:
        plan = make_plan(servers=servers, scope="automatic remediation", automatic=True)
        if plan.servers.exists():
            approve_plan(plan=plan, user=None, confirm_count=plan.servers.count())
    except ValidationError as error:
        logger.warning(
            "servers=%s message='automatic remediation not started: %s'",
            ",".join(s.name for s in servers),
            "; ".join(error.messages),
        )


def _after_remediation(run: ConfigurationRun, execution: Execution) -> None:
    """A remediation has ended: check its servers again, so their states say what it did."""
    names = execution.job.targets
    servers = list(Server.objects.filter(name__in=names, active=True))
    logger.info(
        "execution=%s status=%s servers=%d message='remediation ended: checking its servers'",
        execution.pk,
        execution.status,
        len(servers),
    )
    if servers:
        transaction.on_commit(lambda: check_servers(servers=servers, after=run.plan))


# ---- remediation plans ---------------------------------------------------------------------------


@transaction.atomic
def make_plan(
    *, servers: list[Server], scope: str, requested_by=None, automatic: bool = False
) -> RemediationPlan:
    """A plan to remediate the drifted servers among ``servers``, from their last checks:
    what each would change, what runs with it, and what cannot be known before it runs.
    Servers that are not drifted, or whose policy is to report only, are left out, with why."""
    check_may_run(user=requested_by, servers=servers, permission=REMEDIATE)
    plan = RemediationPlan.objects.create(scope=scope, created_by=requested_by, automatic=automatic)
    states = {
        state.server_id: state
        for state in ServerState.objects.filter(server__in=servers)
        .select_related("last_check__run__execution__job")
        .prefetch_related("last_check__drift_items")
    }
    scripts: dict[int, Script] = {}  # by run: servers checked together share its script
    left_out, planned = [], []
    for server in servers:
        state = states.get(server.pk)
        policy = server.remediation_policy()
        if state is None or state.state != State.DRIFTED or state.last_check is None:
            shown = State(state.state).label.lower() if state else "never checked"
            left_out.append({"server": server.name, "reason": f"not drifted ({shown})"})
        elif policy == Remediation.REPORT:
            left_out.append({"server": server.name, "reason": "its policy is to report only"})
        else:
            planned.append(_planned(plan, server, state.last_check, scripts))
    PlannedServer.objects.bulk_create(planned)
    plan.left_out = left_out
    plan.digest = selectors.plan_digest(servers=[p.server for p in planned])
    plan.save(update_fields=["left_out", "digest"])
    return plan


def _planned(
    plan: RemediationPlan, server: Server, check: Check, scripts: dict[int, Script]
) -> PlannedServer:
    run = check.run
    if run.pk not in scripts:
        scripts[run.pk] = parse(run.execution.job.script, name="configuration plan")
    items = list(check.drift_items.all())
    outline = remediation_outline(
        scripts[run.pk], [item.plan_line for item in items if item.plan_line]
    )

    def where(line: int | None) -> dict:
        role, item, item_line = run.origins.get(str(line)) or (None, None, None)
        return {"role": selectors.role_name(run, role), "item": item, "line": item_line}

    changes = [
        {
            "key": item.key,
            **where(item.plan_line),
            "differences": item.differences,
            "unresolvable": item.plan_line in outline.unresolvable,
        }
        for item in items
    ]
    also = [{"operation": r.operation, **where(r.line)} for r in outline.also_runs]
    return PlannedServer(plan=plan, server=server, based_on=check, changes=changes, also_runs=also)


def stale_servers(*, plan: RemediationPlan) -> list[str]:
    """The plan's servers checked again since it was made: what it shows is no longer so."""
    return [
        planned.server.name
        for planned in plan.servers.select_related("server__configuration_state")
        if getattr(planned.server, "configuration_state", None) is None
        or planned.server.configuration_state.last_check_id != planned.based_on_id
    ]


@transaction.atomic
def approve_plan(
    *, plan: RemediationPlan, user, confirm_count: int | None = None
) -> list[Execution]:
    """Run ``plan``: collect, then execute what drifted, on its servers only. Refused when it
    is not proposed, is stale, or remediates more servers than the blast-radius guard allows
    without ``confirm_count`` equal to their number."""
    plan = RemediationPlan.objects.select_for_update().get(pk=plan.pk)
    if plan.status != RemediationPlan.Status.PROPOSED:
        raise ValidationError(f"The plan is {plan.get_status_display().lower()} already.")
    stale = stale_servers(plan=plan)
    if stale:
        raise ValidationError(
            f"The plan is stale: {', '.join(stale)} {'was' if len(stale) == 1 else 'were'} "
            "checked again since it was made. Make a new plan.",
            code="stale",
        )
    servers = [planned.server for planned in plan.servers.select_related("server")]
    if not servers:
        raise ValidationError("The plan has no server to remediate.")
    if not plan.digest or plan.digest != selectors.plan_digest(servers=servers):
        raise ValidationError(
            "The plan is stale: what it would run (a role's script, a module it calls, a "
            "variable, or a server's target settings) changed since it was made. Make a new plan.",
            code="stale",
        )
    guard = settings.OTTERWEB_REMEDIATION_CONFIRM_OVER
    if len(servers) > guard and confirm_count != len(servers):
        raise ValidationError(
            f"The plan remediates {len(servers)} servers, more than {guard}: type their number "
            "to confirm.",
            code="confirm_count",
        )
    skipped: dict[str, str] = {}
    executions = [
        _start_run(
            group,
            purpose=ConfigurationRun.Purpose.REMEDIATION,
            requested_by=user,
            plan=plan,
        )
        for group in selectors.plan_groups(servers=servers, skipped=skipped)
    ]
    if skipped:
        raise ValidationError(
            "; ".join(f"{name}: {reason}" for name, reason in sorted(skipped.items()))
        )
    plan.status, plan.approved, plan.approved_by = (
        RemediationPlan.Status.APPROVED,
        timezone.now(),
        user,
    )
    plan.save(update_fields=["status", "approved", "approved_by"])
    audit.plan_approved(plan=plan, user=user, executions=executions)
    logger.info(
        "plan=%s servers=%d automatic=%s executions=%s message='remediation started'",
        plan.pk,
        len(servers),
        plan.automatic,
        ",".join(str(e.pk) for e in executions),
    )
    return executions


def discard_plan(*, plan: RemediationPlan) -> None:
    if plan.status == RemediationPlan.Status.PROPOSED:
        plan.status = RemediationPlan.Status.DISCARDED
        plan.save(update_fields=["status"])
