"""Checks and remediation by real runs on the local agent: drift found and recorded with its
role, raft item and line; states rolled up; a plan made, approved and run; states cleared;
a stale plan refused; the automatic policy; roles in a circle."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from otterweb.configuration import selectors, services
from otterweb.configuration.models import ConfigurationRun, RemediationPlan, ServerState, State
from otterweb.executions.models import Execution
from otterweb.executions.runner import reap_lost_executions
from otterweb.executions.signals import execution_finished
from otterweb.inventory.models import Role, Server
from otterweb.rafts.models import RaftItem
from otterweb.schedules import scheduler
from otterweb.schedules.models import Schedule


def check(desired, *servers, **options):
    started = services.check_servers(servers=list(servers), **options)
    return desired.run(started.executions), started


def test_check_records_drift_with_its_role_item_and_line(desired) -> None:
    base = desired.role(
        "base", "Log-Information checking;\nEnsure-Directory " + str(desired.folder) + "/base;\n"
    )
    web = desired.file_role("web", needs=[base])
    server = desired.server("web1", web)
    (desired.folder / "base").mkdir()
    (execution,), started = check(desired, server)
    assert started.skipped == {}
    assert execution.mode == "collect" and execution.job.targets == ["web1"]
    # the plan: base first (web needs it), each role a block of its own
    assert execution.job.script.index("# Role base") < execution.job.script.index("# Role web")
    state = server.configuration_state
    assert (state.state, state.drift_count) == (State.DRIFTED, 1)  # the directory exists
    (item,) = state.last_check.drift_items.all()
    assert item.key == f"Ensure-File {desired.folder}/web1-web.txt"
    assert (item.role, item.raft_item, item.line) == (web, web.configuration, 1)
    assert {d["property"] for d in item.differences} >= {"Exists"}
    assert not desired.path("web1", "web").exists()  # collect changes nothing


def test_check_of_a_server_as_desired_is_current(desired) -> None:
    server = desired.server("web1", desired.file_role("web"))
    desired.path("web1", "web").write_text("hello")
    check(desired, server)
    server.refresh_from_db()
    assert server.configuration_state.state == State.CURRENT
    assert server.configuration_state.last_check.drift_items.count() == 0


def test_check_groups_servers_with_the_same_plan_in_one_execution(desired) -> None:
    web, db = desired.file_role("web"), desired.file_role("db")
    servers = [desired.server(f"web{n}", web) for n in range(3)] + [desired.server("db1", db)]
    executions, _ = check(desired, *servers)
    assert sorted(len(e.job.targets) for e in executions) == [1, 3]
    assert {s.name: s.configuration_state.state for s in servers} == dict.fromkeys(
        ["web0", "web1", "web2", "db1"], State.DRIFTED
    )


def test_check_of_a_failing_server_is_error_and_the_others_go_on(desired) -> None:
    role = desired.role(
        "web",
        "if $ServerName == bad { Fail; }\nEnsure-File "
        + str(desired.folder)
        + "/$ServerName.txt (Text: x);\n",
    )
    good, bad = desired.server("good", role), desired.server("bad", role)
    check(desired, good, bad)
    good.refresh_from_db(), bad.refresh_from_db()
    assert good.configuration_state.state == State.DRIFTED
    assert bad.configuration_state.state == State.ERROR
    error = bad.configuration_state.last_check.error
    assert error and error != "The check failed on this server."  # the error logged there


def test_check_without_configuration_or_with_a_broken_one_says_why(desired) -> None:
    bare = desired.server("bare", Role.objects.create(name="bare"))
    broken = desired.server("broken", desired.role("broken", "Log-Information ok;"))
    # the rafts refuse such a script; one saved before a stricter parser still reads so
    RaftItem.objects.filter(name="broken-config").update(content="Ensure-File (;")
    executions, started = check(desired, bare, broken)
    assert executions == []
    assert started.skipped["bare"] == selectors.NO_CONFIGURATION
    assert "config::broken-config:1:14" in started.skipped["broken"]
    broken.refresh_from_db()
    assert broken.configuration_state.state == State.UNKNOWN


def test_role_cycle_is_refused_with_its_path(desired) -> None:
    a = desired.file_role("a")
    b = desired.file_role("b", needs=[a])
    c = desired.file_role("c", needs=[b])
    with pytest.raises(ValidationError, match="a → c → b → a"):
        from otterweb.inventory import services as inventory

        inventory.save_role(role=a, name="a", dependencies=[c], configuration=a.configuration)
    # a circle made behind the services' back is refused when planned, with its path
    a.dependencies.add(c)
    executions, started = check(desired, desired.server("s", c))
    assert executions == [] and "c → b → a → c" in started.skipped["s"]


def test_remediation_plan_approved_fixes_drift_and_the_check_after_clears_it(desired) -> None:
    web = desired.file_role("web", remediation="on-demand")
    one, two = desired.server("web1", web), desired.server("web2", web)
    desired.path("web2", "web").write_text("hello")
    check(desired, one, two)
    plan = services.make_plan(servers=[one, two], scope="role web")
    (planned,) = plan.servers.all()
    assert planned.server == one
    assert (
        planned.changes[0]["key"].startswith("Ensure-File") and planned.changes[0]["role"] == "web"
    )
    assert plan.left_out == [{"server": "web2", "reason": "not drifted (current)"}]
    (remediation,) = services.approve_plan(plan=plan, user=None)
    assert remediation.mode == "collect-execute" and remediation.job.targets == ["web1"]
    desired.run([remediation])
    assert desired.path("web1", "web").read_text() == "hello"
    # the remediation's end checks its servers again: the state says what it did
    (after,) = desired.run(desired.pending_runs())
    assert after.configuration_run.purpose == ConfigurationRun.Purpose.CHECK
    one.refresh_from_db()
    assert one.configuration_state.state == State.CURRENT
    plan.refresh_from_db()
    assert plan.status == RemediationPlan.Status.APPROVED


def test_remediation_plan_is_stale_once_a_server_is_checked_again(desired) -> None:
    server = desired.server("web1", desired.file_role("web", remediation="on-demand"))
    check(desired, server)
    plan = services.make_plan(servers=[server], scope="server web1")
    check(desired, server)
    with pytest.raises(ValidationError, match="stale: web1 was checked again"):
        services.approve_plan(plan=plan, user=None)
    assert not desired.path("web1", "web").exists()


def test_remediation_plan_leaves_out_servers_that_only_report(desired) -> None:
    server = desired.server("web1", desired.file_role("web"))  # the default: report
    check(desired, server)
    plan = services.make_plan(servers=[server], scope="server web1")
    assert plan.servers.count() == 0
    assert plan.left_out == [{"server": "web1", "reason": "its policy is to report only"}]
    with pytest.raises(ValidationError, match="no server"):
        services.approve_plan(plan=plan, user=None)


def test_remediation_over_the_guard_needs_the_count_typed(desired, settings) -> None:
    settings.OTTERWEB_REMEDIATION_CONFIRM_OVER = 2
    web = desired.file_role("web", remediation="on-demand")
    servers = [desired.server(f"web{n}", web) for n in range(3)]
    check(desired, *servers)
    plan = services.make_plan(servers=servers, scope="role web")
    for wrong in (None, 2, 4):
        with pytest.raises(ValidationError, match="type their number"):
            services.approve_plan(plan=plan, user=None, confirm_count=wrong)
    assert len(services.approve_plan(plan=plan, user=None, confirm_count=3)) == 1


def test_automatic_policy_remediates_after_a_check_finds_drift(desired) -> None:
    server = desired.server("web1", desired.file_role("web", remediation="automatic"))
    check(desired, server)
    (remediation,) = desired.pending_runs()
    assert remediation.configuration_run.purpose == ConfigurationRun.Purpose.REMEDIATION
    assert remediation.configuration_run.plan.automatic
    desired.run([remediation])
    assert desired.path("web1", "web").read_text() == "hello"
    desired.run(desired.pending_runs())  # the check after it: current, nothing more to run
    server.refresh_from_db()
    assert server.configuration_state.state == State.CURRENT
    assert desired.pending_runs() == []


def test_server_policy_overrides_its_roles(desired) -> None:
    web = desired.file_role("web", remediation="automatic")
    db = desired.file_role("db", remediation="on-demand")
    assert desired.server("a", web, db).remediation_policy() == "on-demand"
    assert desired.server("b", web, db, remediation="report").remediation_policy() == "report"
    assert desired.server("c", web).remediation_policy() == "automatic"


def test_rollups_count_states_by_role_and_environment(desired) -> None:
    production = desired.environment("production")
    eu = desired.environment("production-eu", parent=production)
    web, db = desired.file_role("web"), desired.file_role("db")
    servers = [
        desired.server("web1", web, environments=[eu]),
        desired.server("web2", web, environments=[production]),
        desired.server("db1", db, environments=[production]),
    ]
    desired.path("web2", "web").write_text("hello")
    desired.path("db1", "db").write_text("hello")
    check(desired, *servers)
    desired.server("new", web)  # never checked
    found = selectors.matrix()
    by_role = {r.name: r.as_json() for r in found.by_role}
    assert by_role["web"] | {} == {
        "name": "web",
        "state": "drifted",
        "servers": 3,
        "current": 1,
        "drifted": 1,
        "unknown": 1,
        "error": 0,
    }
    assert by_role["db"]["state"] == "current"
    by_env = {r.name: r.as_json() for r in found.by_environment}
    # a parent counts the servers of the environments inside it, as a job on it targets them
    assert by_env["production"] == {
        "name": "production",
        "state": "drifted",
        "servers": 3,
        "current": 2,
        "drifted": 1,
        "unknown": 0,
        "error": 0,
    }
    assert (by_env["production-eu"]["state"], by_env["production-eu"]["servers"]) == ("drifted", 1)
    assert found.overall.counts == {"drifted": 1, "current": 2, "unknown": 1}
    # filters: an environment covers the ones in it
    assert [r["name"] for r in selectors.matrix(environment="production").servers] == [
        "db1",
        "web1",
        "web2",
    ]
    assert [r["name"] for r in selectors.matrix(state="drifted").servers] == ["web1"]
    row = selectors.matrix(search="web1").servers[0]
    assert row["roles"] == {"web": {"state": "drifted", "drift": 1}}


def test_check_whose_worker_was_lost_leaves_its_servers_unknown(desired) -> None:
    server = desired.server("web1", desired.file_role("web"))
    desired.path("web1", "web").write_text("hello")
    check(desired, server)  # current
    (execution,) = services.check_servers(servers=[server]).executions
    execution.start(worker="gone:1")
    Execution.objects.filter(pk=execution.pk).update(heartbeat=timezone.now() - timedelta(hours=1))
    assert reap_lost_executions() == [execution.pk]
    server.refresh_from_db()
    state = server.configuration_state
    assert state.state == State.UNKNOWN and "stopped responding" in state.last_check.error
    assert state.last_check.run.execution_id == execution.pk and state.last_check.changed
    assert Execution.objects.filter(run_state="executing").count() == 0


def recording_queries(desired, servers) -> int:
    """The queries recording a finished check of ``servers`` takes."""
    execution_finished.disconnect(services.record_finished_run)
    try:
        (execution,) = check(desired, *servers)[0]
    finally:
        execution_finished.connect(services.record_finished_run)
    with CaptureQueriesContext(connection) as queries:
        services.record_finished_run(sender=Execution, execution=execution)
    assert {
        s.configuration_state.state for s in Server.objects.filter(pk__in=[s.pk for s in servers])
    } == {"drifted"}
    return len(queries)


def test_check_recording_takes_the_same_queries_for_2_or_12_servers(desired) -> None:
    web = desired.file_role("web", remediation="on-demand")  # the policy is read too
    few = recording_queries(desired, [desired.server(f"a{n}", web) for n in range(2)])
    many = recording_queries(desired, [desired.server(f"b{n}", web) for n in range(12)])
    assert few == many


def test_matrix_takes_the_same_queries_for_any_number_of_servers(
    desired, django_assert_max_num_queries
) -> None:
    web, db = desired.file_role("web"), desired.file_role("db")
    production = desired.environment("production")
    for n in range(3):
        desired.server(f"s{n}", web, db, environments=[production])
    check(desired, *Server.objects.all())
    with CaptureQueriesContext(connection) as few:
        selectors.matrix()
    for n in range(3, 30):
        desired.server(f"s{n}", web, environments=[production])
    check(desired, *Server.objects.all())
    with django_assert_max_num_queries(len(few)):
        assert selectors.matrix().total_servers == 30


def test_routine_checks_fire_from_the_scheduler_each_on_its_servers(desired) -> None:
    web = desired.file_role("web")
    production = desired.environment("production")
    eu = desired.environment("production-eu", parent=production)
    desired.server("eu1", web, environments=[eu])
    desired.server("lab1", web)
    past = timezone.now() - timedelta(minutes=1)
    Schedule.objects.filter(kind=Schedule.Kind.CONFIGURATION).delete()  # the migration's
    everywhere = Schedule.objects.create(
        name="everywhere", kind=Schedule.Kind.CONFIGURATION, cron="0 * * * *", next_run=past
    )
    own = Schedule.objects.create(
        name="production",
        kind=Schedule.Kind.CONFIGURATION,
        cron="*/5 * * * *",
        environment=production,
        next_run=past,
    )
    assert sorted(scheduler.fire_due()) == sorted([everywhere.pk, own.pk])
    runs = {run.execution.job.targets[0]: run for run in desired.runs("check")}
    assert set(runs) == {"eu1", "lab1"} and all(run.routine for run in runs.values())
    everywhere.refresh_from_db(), own.refresh_from_db()
    assert everywhere.last_execution == runs["lab1"].execution  # not eu1: its environment's
    assert own.last_execution == runs["eu1"].execution
    desired.run(desired.pending_runs())
    assert set(ServerState.objects.values_list("state", flat=True)) == {State.DRIFTED}


def test_check_and_remediation_pages_say_a_drift_s_line_in_the_role_s_script(
    desired, admin_client
) -> None:
    """The check page and the remediation run say the same line of the role's script (the
    combined plan's line differs: base's block comes first)."""
    base = desired.role("base", "Log-Information one;\nLog-Information two;\n")
    web = desired.file_role("web", needs=[base], remediation="on-demand")
    server = desired.server("web1", web)
    (checked,), _ = check(desired, server)
    (item,) = server.configuration_state.last_check.drift_items.all()
    assert (item.line, item.plan_line != item.line) == (1, True)
    link = f'<a href="{reverse("raft-item", args=["config", "web-config"])}">config::web-config</a>'
    said = f"role web, {link} line 1"
    plan = services.make_plan(servers=[server], scope="role web")
    (remediation,) = services.approve_plan(plan=plan, user=None)
    desired.run([remediation])
    for execution in (checked, remediation):
        page = admin_client.get(reverse("execution-detail", args=[execution.pk])).content.decode()
        assert f"<td>{said}</td>" in page, execution.configuration_run.purpose
