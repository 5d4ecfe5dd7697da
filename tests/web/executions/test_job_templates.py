"""Job templates with typed prompts: the pages that make, change, delete and run them, the admin
inline, the API's nested prompts, and the migration of the JSON prompts they had."""

from __future__ import annotations

import importlib

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.urls import reverse
from rest_framework.test import APIClient

from otterweb.executions import services
from otterweb.executions.models import Execution, JobTemplate, JobTemplatePrompt
from otterweb.inventory.models import Environment, Role, Server
from otterweb.rafts.models import Raft
from otterweb.rafts.services import save_item

pytestmark = pytest.mark.django_db

PROMPTS = [
    {
        "name": "Version",
        "type": "text",
        "default": "",
        "required": True,
        "choices": [],
        "description": "the build",
    },
    {
        "name": "Port",
        "type": "number",
        "default": "8080",
        "required": False,
        "choices": [],
        "description": "",
    },
    {
        "name": "Verbose",
        "type": "boolean",
        "default": "false",
        "required": False,
        "choices": [],
        "description": "log every step",
    },
    {
        "name": "Channel",
        "type": "choice",
        "default": "stable",
        "required": True,
        "choices": ["stable", "beta"],
        "description": "",
    },
]


@pytest.fixture
def item():
    raft = Raft.objects.create(name="main")
    return save_item(
        raft=raft, name="deploy", content="for server web1\n{\n    Log-Information $Version;\n}\n"
    )


@pytest.fixture
def web1():
    return Server.objects.create(name="web1")


@pytest.fixture
def deploy(item, web1) -> JobTemplate:
    return services.save_job_template(
        name="Deploy", raft_item=item, targeting="servers", servers=[web1], prompts=PROMPTS
    )


def form_data(item, prompts: list[dict], **fields) -> dict:
    """What the template form posts: its fields and the prompts formset."""
    data = {
        "name": "Deploy",
        "description": "",
        "raft_item": item.pk,
        "targeting": "none",
        "mode": "execute",
        "prompts-TOTAL_FORMS": len(prompts),
        "prompts-INITIAL_FORMS": 0,
        "prompts-MIN_NUM_FORMS": 0,
        "prompts-MAX_NUM_FORMS": 1000,
        **fields,
    }
    for index, prompt in enumerate(prompts):
        for key, value in prompt.items():
            if key == "choices":
                value = "\n".join(value)
            if key == "required" and not value:
                continue
            data[f"prompts-{index}-{key}"] = "on" if value is True else value
    return data


# ---- the model's rules


def test_prompt_to_text_gives_the_script_text_of_each_type() -> None:
    def prompt(type, **fields):
        return JobTemplatePrompt(name="P", type=type, **fields)

    assert prompt("number").to_text(" 8080 ") == "8080"
    assert prompt("number").to_text("1e3") == "1000"
    assert prompt("number").to_text(2.5) == "2.5"
    assert prompt("boolean").to_text(True) == "true"
    assert prompt("boolean").to_text("Yes") == "true"
    assert prompt("boolean").to_text("") == "false"
    assert prompt("choice", choices=["a", "b"]).to_text("b") == "b"
    assert prompt("text").to_text("") == ""
    for bad, value in (
        (prompt("number"), "abc"),
        (prompt("number"), "nan"),
        (prompt("number"), True),
        (prompt("boolean"), "maybe"),
        (prompt("choice", choices=["a", "b"]), "c"),
        (prompt("text"), ["a"]),
    ):
        with pytest.raises(ValidationError):
            bad.to_text(value)


def test_prompt_clean_refuses_defaults_and_choices_that_do_not_fit() -> None:
    cases = [
        ({"type": "number", "default": "abc"}, "default", "Expected a number, found 'abc'."),
        ({"type": "choice", "choices": ["a"], "default": "b"}, "default", "Expected one of a"),
        ({"type": "choice", "choices": []}, "choices", "at least one choice"),
        ({"type": "choice", "choices": ["a", "a"]}, "choices", "once"),
        ({"type": "text", "choices": ["a"]}, "choices", "Only a choice prompt"),
        ({"type": "boolean", "required": True}, "required", "never required"),
        ({"type": "text", "name": "$Version"}, "name", "without its $"),
    ]
    for fields, field, message in cases:
        prompt = JobTemplatePrompt(**{"name": "P", **fields})
        with pytest.raises(ValidationError) as raised:
            prompt.full_clean(exclude=["template"])
        assert message in " ".join(raised.value.message_dict[field]), fields


# ---- the pages


def test_template_create_page_saves_the_template_and_prompts_of_each_type(
    admin_client, item, web1
) -> None:
    page = admin_client.get(reverse("template-create")).content.decode()
    assert 'name="prompts-TOTAL_FORMS"' in page and "__prefix__" in page  # a row to add
    data = form_data(item, PROMPTS, targeting="servers", servers=["web1"], simulate="on")
    response = admin_client.post(reverse("template-create"), data)
    assert response.status_code == 302 and response.url == reverse("template-list")
    template = JobTemplate.objects.get()
    assert (template.targeting, template.simulate) == ("servers", True)
    assert list(template.servers.values_list("name", flat=True)) == ["web1"]
    saved = [
        {field: getattr(p, field) for field in PROMPTS[0]} for p in template.prompt_fields.all()
    ]
    assert saved == PROMPTS
    assert [p.position for p in template.prompt_fields.all()] == [0, 1, 2, 3]


def test_template_edit_page_changes_it_and_removes_a_prompt(admin_client, deploy) -> None:
    url = reverse("template-edit", args=[deploy.pk])
    page = admin_client.get(url).content.decode()
    assert 'value="Deploy"' in page and 'value="8080"' in page and "stable\nbeta" in page
    assert "Runs on 1 server now: web1" in page and "data-target-preview-output" in page
    kept = [dict(PROMPTS[1], default="9090"), PROMPTS[0]]  # reordered, two removed
    response = admin_client.post(url, form_data(deploy.raft_item, kept, name="Deploy web"))
    assert response.status_code == 302
    deploy.refresh_from_db()
    assert deploy.name == "Deploy web" and deploy.targeting == "none"
    assert not deploy.servers.exists()  # targeting none keeps no servers
    assert [(p.name, p.default) for p in deploy.prompt_fields.all()] == [
        ("Port", "9090"),
        ("Version", ""),
    ]


def test_template_edit_page_removes_a_prompt_ticked_for_removal(admin_client, deploy) -> None:
    url = reverse("template-edit", args=[deploy.pk])
    data = form_data(deploy.raft_item, PROMPTS, targeting="servers", servers=["web1"])
    data["prompts-INITIAL_FORMS"] = 4
    for index, prompt in enumerate(deploy.prompt_fields.all()):
        data[f"prompts-{index}-id"] = prompt.pk
    data["prompts-2-DELETE"] = "on"
    assert admin_client.post(url, data).status_code == 302
    assert [p.name for p in deploy.prompt_fields.all()] == ["Version", "Port", "Channel"]


def test_template_form_refuses_a_default_that_does_not_fit_beside_the_field(
    admin_client, item
) -> None:
    prompts = [
        dict(PROMPTS[1], default="abc"),
        dict(PROMPTS[3], default="nightly"),
        dict(PROMPTS[0], name="version"),
        dict(PROMPTS[0]),
    ]
    response = admin_client.post(reverse("template-create"), form_data(item, prompts))
    page = response.content.decode()
    assert response.status_code == 200 and not JobTemplate.objects.exists()
    assert "Expected a number, found &#x27;abc&#x27;." in page
    assert 'value="abc"' in page  # what was typed is kept
    assert 'aria-invalid="true"' in page
    assert "Expected one of stable, beta, found &#x27;nightly&#x27;." in page
    assert "Another prompt has this name." in page


def test_template_form_needs_targets_for_its_targeting(admin_client, item) -> None:
    response = admin_client.post(reverse("template-create"), form_data(item, [], targeting="roles"))
    assert "Choose the roles whose servers it runs on." in response.content.decode()
    assert not JobTemplate.objects.exists()


def test_template_form_offers_scripts_only(admin_client, item) -> None:
    save_item(raft=item.raft, name="helpers", kind="module", content="")
    page = admin_client.get(reverse("template-create")).content.decode()
    assert "main::deploy" in page and "main::helpers" not in page


def test_template_delete_asks_then_deletes(admin_client, deploy) -> None:
    url = reverse("template-delete", args=[deploy.pk])
    page = admin_client.get(url).content.decode()
    assert "Delete Deploy?" in page and "4 prompts" in page
    assert JobTemplate.objects.exists()
    response = admin_client.post(url)
    assert response.url == reverse("template-list")
    assert not JobTemplate.objects.exists() and not JobTemplatePrompt.objects.exists()


def test_template_list_shows_item_targets_mode_prompts_and_buttons(admin_client, deploy) -> None:
    page = admin_client.get(reverse("template-list")).content.decode()
    assert "main::deploy" in page and "1 server: web1" in page and "Execute" in page
    assert "4 <small>(Version, Port, Verbose, Channel)</small>" in page
    assert reverse("template-edit", args=[deploy.pk]) in page
    assert reverse("template-create") in page


def test_template_pages_show_and_allow_changes_only_with_permissions(client_with, deploy) -> None:
    client = client_with("executions.view_jobtemplate")
    listing = client.get(reverse("template-list")).content.decode()
    assert "Deploy" in listing
    for url in (reverse("template-create"), reverse("template-edit", args=[deploy.pk])):
        assert url not in listing
    launch = client.get(reverse("template-launch", args=[deploy.pk])).content.decode()
    assert reverse("template-delete", args=[deploy.pk]) not in launch
    assert client.get(reverse("template-create")).status_code == 403
    assert client.post(reverse("template-edit", args=[deploy.pk]), {}).status_code == 403
    assert client.post(reverse("template-delete", args=[deploy.pk])).status_code == 403
    assert JobTemplate.objects.filter(name="Deploy").exists()

    client = client_with("executions.view_jobtemplate", "executions.change_jobtemplate")
    listing = client.get(reverse("template-list")).content.decode()
    assert reverse("template-edit", args=[deploy.pk]) in listing
    assert reverse("template-create") not in listing
    assert client.get(reverse("template-edit", args=[deploy.pk])).status_code == 200


# ---- running


def test_launch_page_renders_an_input_per_prompt_type(admin_client, deploy) -> None:
    page = admin_client.get(reverse("template-launch", args=[deploy.pk])).content.decode()
    assert '<input type="text" name="prompt_0"' in page and "the build" in page
    assert '<input type="number" name="prompt_1" value="8080" step="any"' in page
    assert '<input type="checkbox" name="prompt_2"' in page
    assert '<select name="prompt_3"' in page
    assert '<option value="stable" selected>stable</option>' in page
    version = page[page.index('name="prompt_0"') :].split(">")[0]
    port = page[page.index('name="prompt_1"') :].split(">")[0]
    assert "required" in version and "required" not in port
    assert "Runs on 1 server now: web1" in page  # without JavaScript too


def test_launch_page_refuses_a_number_prompt_given_text(admin_client, deploy) -> None:
    url = reverse("template-launch", args=[deploy.pk])
    data = {"prompt_0": "1.4", "prompt_1": "abc", "prompt_3": "beta", "mode": "execute"}
    response = admin_client.post(url, data)
    page = response.content.decode()
    assert response.status_code == 200 and not Execution.objects.exists()
    assert "Expected a number, found &#x27;abc&#x27;." in page and 'value="abc"' in page


def test_launch_page_passes_the_values_as_text(admin_client, deploy) -> None:
    url = reverse("template-launch", args=[deploy.pk])
    data = {
        "prompt_0": "1.4",
        "prompt_1": "9090",
        "prompt_2": "on",
        "prompt_3": "beta",
        "mode": "execute",
    }
    response = admin_client.post(url, data)
    execution = Execution.objects.get()
    assert response.url == reverse("execution-detail", args=[execution.pk])
    assert execution.job.variables == {
        "Version": "1.4",
        "Port": "9090",
        "Verbose": "true",
        "Channel": "beta",
    }
    assert execution.job.targets == ["web1"]


def test_launch_template_fills_defaults_and_checks_types(deploy) -> None:
    execution = services.launch_template(template=deploy, variables={"version": "2"})
    assert execution.job.variables == {
        "Version": "2",
        "Port": "8080",
        "Verbose": "false",
        "Channel": "stable",
    }
    with pytest.raises(ValidationError, match="Port: expected a number, found 'abc'"):
        services.launch_template(template=deploy, variables={"Version": "2", "Port": "abc"})
    with pytest.raises(ValidationError, match="needs a value for Version"):
        services.launch_template(template=deploy, variables={"Version": ""})


# ---- the admin


def test_admin_template_change_page_shows_the_prompt_inline_and_saves_it(
    admin_client, deploy
) -> None:
    url = reverse("admin:executions_jobtemplate_change", args=[deploy.pk])
    page = admin_client.get(url).content.decode()
    assert 'name="prompt_fields-0-name"' in page and 'value="Version"' in page
    prompts = list(deploy.prompt_fields.all())
    data = {
        "name": "Deploy",
        "description": "",
        "raft_item": deploy.raft_item_id,
        "targeting": "servers",
        "servers": [deploy.servers.get().pk],
        "mode": "execute",
        "prompt_fields-TOTAL_FORMS": 5,
        "prompt_fields-INITIAL_FORMS": 4,
        "prompt_fields-MIN_NUM_FORMS": 0,
        "prompt_fields-MAX_NUM_FORMS": 1000,
    }
    rows = [
        *PROMPTS,
        {
            "name": "Region",
            "type": "choice",
            "choices": ["eu", "us"],
            "default": "eu",
            "description": "",
        },
    ]
    for index, prompt in enumerate(rows):
        data[f"prompt_fields-{index}-position"] = index
        data[f"prompt_fields-{index}-template"] = deploy.pk
        if index < len(prompts):
            data[f"prompt_fields-{index}-id"] = prompts[index].pk
        for key, value in prompt.items():
            if key == "required":
                if value:
                    data[f"prompt_fields-{index}-{key}"] = "on"
                continue
            data[f"prompt_fields-{index}-{key}"] = "\n".join(value) if key == "choices" else value
    response = admin_client.post(url, data)
    assert response.status_code == 302, response.context["inline_admin_formsets"][0].formset.errors
    region = deploy.prompt_fields.get(name="Region")
    assert (region.type, region.choices, region.default, region.position) == (
        "choice",
        ["eu", "us"],
        "eu",
        4,
    )
    data["prompt_fields-4-default"] = "asia"
    data["prompt_fields-4-name"] = "Zone"
    refused = admin_client.post(url, data)
    assert refused.status_code == 200 and "Expected one of eu, us" in refused.content.decode()


# ---- the API


@pytest.fixture
def api():
    client = APIClient()
    client.force_authenticate(get_user_model().objects.create_superuser("root"))
    return client


def test_api_creates_a_template_with_nested_prompts(api, item, web1) -> None:
    body = {
        "name": "Deploy",
        "raft_item": item.pk,
        "targeting": "servers",
        "servers": ["web1"],
        "prompts": [
            {"name": "Port", "type": "number", "default": "80"},
            {"name": "Channel", "type": "choice", "choices": ["a", "b"], "required": True},
        ],
    }
    response = api.post("/api/job-templates/", body, format="json")
    assert response.status_code == 201, response.json()
    assert [p["name"] for p in response.json()["prompts"]] == ["Port", "Channel"]
    assert response.json()["prompts"][1] == {
        "name": "Channel",
        "type": "choice",
        "default": "",
        "required": True,
        "choices": ["a", "b"],
        "description": "",
    }
    template = JobTemplate.objects.get()
    assert [p.name for p in template.prompt_fields.all()] == ["Port", "Channel"]
    renamed = api.patch(f"/api/job-templates/{template.pk}/", {"name": "Ship"}, format="json")
    assert renamed.status_code == 200 and len(renamed.json()["prompts"]) == 2  # kept
    assert list(template.servers.values_list("name", flat=True)) == ["web1"]


def test_api_refuses_a_bad_prompt_with_400(api, deploy) -> None:
    url = f"/api/job-templates/{deploy.pk}/"
    cases = [
        ([{"name": "Port", "type": "number", "default": "abc"}], "Expected a number"),
        ([{"name": "C", "type": "choice", "choices": ["a"], "default": "b"}], "Expected one of a"),
        ([{"name": "T", "type": "colour"}], "is not a valid choice"),
        ([{"name": "A"}, {"name": "a"}], "no name is used twice"),
        ([{"name": "A", "colour": 1}], "A prompt has no colour"),
    ]
    for prompts, message in cases:
        response = api.patch(url, {"prompts": prompts}, format="json")
        assert response.status_code == 400, prompts
        assert message in str(response.json()["errors"]), response.json()
    assert deploy.prompt_fields.count() == 4


# ---- the migration of JSON prompts


def test_migration_prompt_rows_converts_old_json_prompts() -> None:
    migration = importlib.import_module("otterweb.executions.migrations.0006_prompts_from_json")
    rows = migration.prompt_rows(
        [
            {"name": "Version", "description": "the build"},
            {"name": "Channel", "default": "stable"},
            {"name": "Retries", "default": 3},
            {"name": "channel", "default": "again"},  # the same name: left out
            {"description": "no name"},
        ]
    )
    assert rows == [
        {
            "position": 0,
            "name": "Version",
            "type": "text",
            "default": "",
            "required": True,
            "choices": [],
            "description": "the build",
        },
        {
            "position": 1,
            "name": "Channel",
            "type": "text",
            "default": "stable",
            "required": False,
            "choices": [],
            "description": "",
        },
        {
            "position": 2,
            "name": "Retries",
            "type": "text",
            "default": "3",
            "required": False,
            "choices": [],
            "description": "",
        },
    ]
    back = migration.json_prompts([JobTemplatePrompt(**row) for row in rows[:2]])
    assert back == [
        {"name": "Version", "description": "the build"},
        {"name": "Channel", "default": "stable"},
    ]


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_migration_moves_json_prompts_into_rows_and_back() -> None:
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before = [("executions", "0005_job_template_prompt")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    apps = executor.loader.project_state(before).apps
    raft = apps.get_model("rafts", "Raft").objects.create(name="old")
    item = apps.get_model("rafts", "RaftItem").objects.create(raft=raft, name="deploy")
    OldTemplate = apps.get_model("executions", "JobTemplate")
    OldTemplate.objects.create(
        name="Old",
        raft_item=item,
        prompts=[{"name": "Version"}, {"name": "Channel", "default": "stable"}],
    )
    OldTemplate.objects.create(name="Plain", raft_item_id=item.pk)
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    old = JobTemplate.objects.get(name="Old")
    assert [(p.name, p.type, p.default, p.required) for p in old.prompt_fields.all()] == [
        ("Version", "text", "", True),
        ("Channel", "text", "stable", False),
    ]
    assert not JobTemplate.objects.get(name="Plain").prompt_fields.exists()
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    apps = executor.loader.project_state(before).apps
    restored = apps.get_model("executions", "JobTemplate").objects.get(name="Old")
    assert restored.prompts == [{"name": "Version"}, {"name": "Channel", "default": "stable"}]
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())


def test_roles_targeting_resolves_servers_in_environments(admin_client, item) -> None:
    web, production = Role.objects.create(name="web"), Environment.objects.create(name="prod")
    for name in ("web1", "web2"):
        server = Server.objects.create(name=name)
        server.roles.add(web)
        server.environments.add(production)
    Server.objects.create(name="web3").roles.add(web)
    data = form_data(item, [], targeting="roles", roles=["web"], environments=["prod"])
    assert admin_client.post(reverse("template-create"), data).status_code == 302
    template = JobTemplate.objects.get()
    page = admin_client.get(reverse("template-launch", args=[template.pk])).content.decode()
    assert "servers with the role web in prod" in page
    assert "Runs on 2 servers now: web1, web2" in page


def test_template_form_refuses_no_targets_when_the_script_chooses_no_servers(
    admin_client, item
) -> None:
    plain = save_item(raft=item.raft, name="plain", content="Log-Information hi;\n")
    response = admin_client.post(reverse("template-create"), form_data(plain, []))
    assert "main::plain does not choose its servers" in response.content.decode()
    assert not JobTemplate.objects.exists()


def test_launch_page_escapes_prompt_descriptions(admin_client, item, web1) -> None:
    payload = '<img src=x onerror="alert(1)"><script>alert(2)</script>'
    prompts = [
        {**PROMPTS[0], "description": payload},
        {**PROMPTS[2], "description": payload},  # a checkbox: its own row template
    ]
    template = services.save_job_template(
        name="Evil", raft_item=item, targeting="servers", servers=[web1], prompts=prompts
    )
    page = admin_client.get(reverse("template-launch", args=[template.pk])).content.decode()
    assert "<img src=x" not in page and "<script>alert(2)" not in page
    escaped = "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;"
    assert page.count(escaped) == 2  # shown once for each prompt, as text, escaped once
