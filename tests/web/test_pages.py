"""Server-rendered pages: executions list and detail, a raft item's editor with save and run."""

from __future__ import annotations

import pytest
from django.urls import reverse

from otterweb.executions.models import Execution
from otterweb.executions.services import create_job
from otterweb.inventory.models import Server
from otterweb.rafts import services
from otterweb.rafts.models import Raft

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("here")]


@pytest.fixture
def item():
    raft = Raft.objects.create(name="main")
    return services.save_item(raft=raft, name="deploy", content="Log-Information hi;\n")


def test_pages_require_login(client, item) -> None:
    for url in (
        reverse("execution-list"),
        reverse("raft-list"),
        reverse("raft-item", args=["main", "deploy"]),
        reverse("template-list"),
    ):
        assert client.get(url).status_code == 302


def test_pages_refuse_users_without_permission(client_with, item) -> None:
    client = client_with()
    assert client.get(reverse("execution-list")).status_code == 403
    assert client.get(reverse("raft-item", args=["main", "deploy"])).status_code == 403


def test_execution_list_and_detail(admin_client) -> None:
    execution = create_job(script="Log-Information x;", name="nightly", servers=["here"])
    page = admin_client.get(reverse("execution-list")).content.decode()
    assert "nightly" in page and reverse("execution-detail", args=[execution.pk]) in page
    detail = admin_client.get(reverse("execution-detail", args=[execution.pk])).content.decode()
    # the live log: the page's bundle draws it from the websocket of data-execution
    assert f'data-execution="{execution.pk}"' in detail and 'type="module"' in detail


def test_raft_item_save_makes_a_version_and_shows_errors(admin_client, item) -> None:
    url = reverse("raft-item", args=["main", "deploy"])
    assert (
        admin_client.post(
            url, {"save": "1", "content": "Log-Information two;\n", "message": "second"}
        ).status_code
        == 302
    )
    item.refresh_from_db()
    assert item.content == "Log-Information two;\n" and item.versions.first().message == "second"
    broken = admin_client.post(url, {"save": "1", "content": "set $x 1;", "message": ""})
    assert broken.status_code == 200 and "1:8: error" in broken.content.decode()


def test_raft_item_run_starts_an_execution_and_opens_it(admin_client, item) -> None:
    Server.objects.create(name="web1")
    response = admin_client.post(
        reverse("raft-item-run", args=["main", "deploy"]),
        {"run": "1", "servers": ["web1"], "mode": "collect"},
    )
    execution = Execution.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse(
        "execution-detail", args=[execution.pk]
    )
    assert (execution.mode, execution.job.targets, execution.job.script_version.number) == (
        "collect",
        ["web1"],
        1,
    )


def test_admin_runs_job_templates_and_says_which_need_values(admin_client, item, here) -> None:
    from otterweb.executions.models import JobTemplate

    ready = JobTemplate.objects.create(name="Ready", raft_item=item, targeting="servers")
    ready.servers.add(here)
    ready.prompt_fields.create(name="A", default="1")
    asking = JobTemplate.objects.create(name="Asking", raft_item=item)
    asking.prompt_fields.create(name="Version", required=True)
    response = admin_client.post(
        reverse("admin:executions_jobtemplate_changelist"),
        {"action": "launch", "_selected_action": [ready.pk, asking.pk]},
        follow=True,
    )
    text = response.content.decode()
    execution = Execution.objects.get()
    assert execution.job.template == ready and execution.job.variables == {"A": "1"}
    assert f"Ready: execution {execution.pk} started." in text
    assert "Asking: the template Asking needs a value for Version" in text


def test_execution_list_filters_by_state_status_and_name(admin_client) -> None:
    create_job(script="Log-Information x;", name="nightly backup", servers=["here"])
    deploy = create_job(script="Log-Information x;", name="deploy web", servers=["here"])
    deploy.start(worker="w")
    deploy.finish(status=Execution.Status.ERROR, drift=[])
    url = reverse("execution-list")

    def listed(**query) -> set[str]:
        page = admin_client.get(url, query).content.decode()
        return {name for name in ("nightly backup", "deploy web") if name in page}

    assert listed() == {"nightly backup", "deploy web"}
    assert listed(run_state="pending") == {"nightly backup"}
    assert listed(status="error") == {"deploy web"}
    assert listed(q="NIGHT") == {"nightly backup"}
    assert "No execution matches." in admin_client.get(url, {"q": "nothing"}).content.decode()


def test_execution_page_cancels_and_shows_drift(admin_client) -> None:
    execution = create_job(script="Log-Information x;", name="nightly", servers=["here"])
    detail = reverse("execution-detail", args=[execution.pk])
    cancel = reverse("execution-cancel", args=[execution.pk])
    assert f'id="cancel" href="{cancel}"' in admin_client.get(detail).content.decode()
    asked = admin_client.get(cancel).content.decode()  # Cancel asks first: nothing stops yet
    assert f"Cancel execution {execution.pk}: nightly?" in asked and "Keep it running" in asked
    execution.refresh_from_db()
    assert execution.run_state == "pending"
    response = admin_client.post(cancel, follow=True)
    execution.refresh_from_db()
    assert (execution.run_state, execution.status) == ("completed", "cancelled")
    page = response.content.decode()
    assert "Asked the worker to stop the execution." in page and 'id="cancel"' not in page
    assert admin_client.get(cancel)["Location"] == detail  # ended: nothing to ask
    checked = create_job(
        script="Log-Information x;", name="check", mode="collect", servers=["here"]
    )
    checked.start(worker="w")
    drift = [
        {
            "server": "web1",
            "operation": "Ensure-File",
            "line": 3,
            "differences": [{"property": "Text", "expected": "port=80", "actual": "port=8080"}],
        }
    ]
    checked.finish(status=Execution.Status.NORMAL, drift=drift)
    page = admin_client.get(reverse("execution-detail", args=[checked.pk])).content.decode()
    assert "<h2>Drift</h2>" in page and "port=8080" in page and "Ensure-File" in page


def test_execution_cancel_page_needs_the_cancel_permission(client_with) -> None:
    execution = create_job(script="Log-Information x;", servers=["here"])
    client = client_with("executions.view_execution")
    assert (
        'id="cancel"'
        not in client.get(reverse("execution-detail", args=[execution.pk])).content.decode()
    )
    assert client.post(reverse("execution-cancel", args=[execution.pk])).status_code == 403
    execution.refresh_from_db()
    assert execution.run_state == "pending"


@pytest.fixture
def deploy_template(item):
    from otterweb.executions.models import JobTemplate

    server = Server.objects.create(name="web1")
    template = JobTemplate.objects.create(
        name="Deploy", raft_item=item, targeting="servers", mode="collect"
    )
    template.prompt_fields.create(name="Version", required=True, description="the build")
    template.prompt_fields.create(name="Channel", default="stable", position=1)
    template.servers.add(server)
    return template


def test_template_pages_list_and_run_with_prompts(admin_client, deploy_template) -> None:
    listing = admin_client.get(reverse("template-list")).content.decode()
    assert "Deploy" in listing and "web1" in listing and "Version, Channel" in listing
    url = reverse("template-launch", args=[deploy_template.pk])
    form = admin_client.get(url).content.decode()
    assert 'value="stable"' in form and "the build" in form
    missing = admin_client.post(url, {"prompt_0": "", "prompt_1": "stable", "mode": "collect"})
    assert missing.status_code == 200 and "This field is required." in missing.content.decode()
    response = admin_client.post(
        url, {"prompt_0": "1.4", "prompt_1": "beta", "mode": "execute", "simulate": "on"}
    )
    execution = Execution.objects.get()
    assert response.url == reverse("execution-detail", args=[execution.pk])
    job = execution.job
    assert (job.template, job.targets, job.variables) == (
        deploy_template,
        ["web1"],
        {"Version": "1.4", "Channel": "beta"},
    )
    assert (execution.mode, execution.simulate) == ("execute", True)


def test_template_run_needs_the_run_permission(client_with, deploy_template) -> None:
    client = client_with("executions.view_jobtemplate")
    url = reverse("template-launch", args=[deploy_template.pk])
    assert "You may not run job templates." in client.get(url).content.decode()
    assert client.post(url, {"prompt_0": "1", "mode": "execute"}).status_code == 403
    assert not Execution.objects.exists()


def test_admin_shows_records_inline_read_only(admin_client, item) -> None:
    from django.utils import timezone

    from otterweb.execution_logs.models import LogEntry

    execution = create_job(script="Log-Information x;", name="nightly", servers=["here"])
    LogEntry.objects.create(
        execution_id=execution.pk, seq=1, level=10, message="hello", time=timezone.now()
    )
    pages = {
        ("executions", "status"): reverse("admin:executions_job_change", args=[execution.job.pk]),
        ("versions", "message"): reverse("admin:rafts_raftitem_change", args=[item.pk]),
    }
    for (inline, field), url in pages.items():
        text = admin_client.get(url).content.decode()
        assert f'name="{inline}-0-id"' in text  # a row is shown
        assert f'name="{inline}-0-{field}"' not in text  # as text, not as an input
        assert f'name="{inline}-0-DELETE"' not in text
        assert f'name="{inline}-INITIAL_FORMS" value="1"' in text.replace(
            f'id="id_{inline}-INITIAL_FORMS" ', ""
        )
