"""The rafts pages: rafts and items made, renamed, moved and deleted; versions read, compared and
restored; Run runs the text on screen; the admin shows a script's problems instead of failing."""

from __future__ import annotations

import pytest
from django.urls import NoReverseMatch, reverse

from otterweb.executions.models import Execution, JobTemplate
from otterweb.inventory.models import Role, Server
from otterweb.rafts import services
from otterweb.rafts.models import Raft, RaftItem

pytestmark = pytest.mark.django_db


@pytest.fixture
def raft():
    return Raft.objects.create(name="main")


@pytest.fixture
def item(raft):
    services.save_item(raft=raft, name="deploy", content="Log-Information one;\n", message="first")
    return services.save_item(
        raft=raft, name="deploy", content="Log-Information two;\n", message="second"
    )


def page(response) -> str:
    return response.content.decode()


def item_url(item: RaftItem, view: str = "raft-item", *args) -> str:
    return reverse(view, args=[item.raft.name, item.name, *args])


# rafts


def test_raft_create_makes_a_raft_and_opens_it(admin_client) -> None:
    response = admin_client.post(
        reverse("raft-create"), {"name": "ops", "description": "Operations"}
    )
    assert response.status_code == 302 and response.url == reverse("raft-detail", args=["ops"])
    assert Raft.objects.get(name="ops").description == "Operations"
    assert "Created the raft ops." in page(admin_client.get(response.url))


def test_raft_create_shows_the_error_beside_the_name_when_it_is_taken(admin_client, raft) -> None:
    response = admin_client.post(reverse("raft-create"), {"name": "main", "description": "kept"})
    text = page(response)
    assert response.status_code == 200 and "already exists" in text and "kept" in text
    assert Raft.objects.count() == 1


def test_raft_rename_keeps_its_items(admin_client, item) -> None:
    response = admin_client.post(
        reverse("raft-edit", args=["main"]), {"name": "ops", "description": ""}
    )
    assert response.url == reverse("raft-detail", args=["ops"])
    item.refresh_from_db()
    assert item.raft.name == "ops" and not Raft.objects.filter(name="main").exists()


def test_raft_page_lists_its_items_with_kind_and_versions(admin_client, item) -> None:
    text = page(admin_client.get(reverse("raft-detail", args=["main"])))
    assert item_url(item) in text and "OtterScript script" in text
    assert '<td data-label="Versions" class="num">2</td>' in text


def test_raft_delete_confirms_with_the_item_count_then_deletes(admin_client, item) -> None:
    url = reverse("raft-delete", args=["main"])
    assert "Delete main and 1 item" in page(admin_client.get(url))
    assert Raft.objects.exists()  # asking deleted nothing
    response = admin_client.post(url, follow=True)
    assert "Deleted the raft main and its 1 item." in page(response)
    assert not Raft.objects.exists() and not RaftItem.objects.exists()


def test_raft_delete_is_refused_when_job_templates_run_its_items(admin_client, item) -> None:
    JobTemplate.objects.create(name="Nightly", raft_item=item)
    url = reverse("raft-delete", args=["main"])
    assert "job templates run its items: Nightly" in page(admin_client.get(url))
    response = admin_client.post(url)
    assert response.status_code == 200
    assert "the job templates Nightly run its items" in page(response)
    assert RaftItem.objects.filter(pk=item.pk).exists()


# items


@pytest.mark.parametrize("kind", RaftItem.Kind.values)
def test_item_create_makes_an_item_of_each_kind_with_a_first_version(
    admin_client, raft, kind
) -> None:
    content = "module Build { }\n" if kind == "module" else "Log-Information new;\n"
    response = admin_client.post(
        reverse("raft-item-create", args=["main"]),
        {"name": "tools/new", "kind": kind, "content": content},
    )
    created = RaftItem.objects.get(name="tools/new")
    assert response.url == item_url(created)
    assert (created.kind, created.content, created.versions.get().number) == (kind, content, 1)


def test_item_create_refuses_a_taken_name_and_a_script_that_does_not_parse(
    admin_client, item
) -> None:
    url = reverse("raft-item-create", args=["main"])
    taken = admin_client.post(url, {"name": "deploy", "kind": "asset", "content": ""})
    assert "The raft already has an item of that name." in page(taken)
    broken = admin_client.post(url, {"name": "bad", "kind": "script", "content": "set $x 1;"})
    assert broken.status_code == 200 and "main::bad:1:8: error" in page(broken)
    assert "set $x 1;</textarea>" in page(broken)
    assert not RaftItem.objects.filter(name="bad").exists()


def test_item_create_stores_a_shell_script_posted_with_crlf_with_lf(admin_client, raft) -> None:
    admin_client.post(
        reverse("raft-item-create", args=["main"]),
        {"name": "run.sh", "kind": "shell_script", "content": "#!/bin/sh\r\necho hi\r\n"},
    )
    item = RaftItem.objects.get(name="run.sh")
    assert item.content == item.versions.get().content == "#!/bin/sh\necho hi\n"
    admin_client.post(item_url(item), {"save": "1", "content": "#!/bin/sh\r\necho bye\r\n"})
    item.refresh_from_db()
    assert item.content == item.versions.first().content == "#!/bin/sh\necho bye\n"


def test_item_rename_keeps_its_versions(admin_client, item) -> None:
    response = admin_client.post(
        item_url(item, "raft-item-edit"), {"name": "deploy/web", "raft": "main"}
    )
    item.refresh_from_db()
    assert item.name == "deploy/web" and response.url == item_url(item)
    assert item.versions.count() == 2
    assert admin_client.get(response.url).status_code == 200


def test_item_move_to_another_raft(admin_client, item) -> None:
    Raft.objects.create(name="ops")
    admin_client.post(item_url(item, "raft-item-edit"), {"name": "deploy", "raft": "ops"})
    item.refresh_from_db()
    assert str(item) == "ops::deploy"


def test_item_rename_refuses_a_reserved_name_segment(admin_client, item) -> None:
    response = admin_client.post(
        item_url(item, "raft-item-edit"), {"name": "deploy/-/x", "raft": "main"}
    )
    assert response.status_code == 200 and "may be “-” alone" in page(response)


def test_item_delete_deletes_an_item_of_any_kind(admin_client, raft) -> None:
    for kind in RaftItem.Kind.values:
        item = services.create_item(raft=raft, name=f"x-{kind}", kind=kind)
        assert "Delete x-" in page(admin_client.get(item_url(item, "raft-item-delete")))
        response = admin_client.post(item_url(item, "raft-item-delete"))
        assert response.url == reverse("raft-detail", args=["main"])
    assert not RaftItem.objects.exists()


def test_item_delete_is_refused_when_a_job_template_runs_it(admin_client, item) -> None:
    JobTemplate.objects.create(name="Nightly", raft_item=item)
    response = admin_client.post(item_url(item, "raft-item-delete"))
    assert response.status_code == 200 and "the job templates Nightly run it" in page(response)
    assert RaftItem.objects.filter(pk=item.pk).exists()


# versions


def test_item_page_lists_every_version_with_a_link(admin_client, item) -> None:
    text = page(admin_client.get(item_url(item)))
    for number in (1, 2):
        assert item_url(item, "raft-item-version", number) in text
    assert 'for="id_content"' in text and 'spellcheck="false"' in text


def test_version_page_shows_that_versions_text(admin_client, item) -> None:
    text = page(admin_client.get(item_url(item, "raft-item-version", 1)))
    assert "Log-Information one;" in text and "Log-Information two;" not in text
    assert "first" in text and "Restore this version" in text
    assert admin_client.get(item_url(item, "raft-item-version", 9)).status_code == 404


def test_diff_between_two_chosen_versions_shows_added_and_removed_lines(admin_client, item) -> None:
    services.save_item(raft=item.raft, name="deploy", content="Log-Information three;\n")
    text = page(admin_client.get(item_url(item, "raft-item-diff"), {"old": 1, "new": 3}))
    assert '<span class="line removed">-Log-Information one;</span>' in text
    assert '<span class="line added">+Log-Information three;</span>' in text
    assert '<span class="line hunk">@@' in text
    unknown = admin_client.get(item_url(item, "raft-item-diff"), {"old": 1, "new": 7})
    assert "Choose two versions" in page(unknown)


def test_restore_makes_a_new_version_with_the_old_text(admin_client, item) -> None:
    response = admin_client.post(item_url(item, "raft-item-restore", 1), follow=True)
    item.refresh_from_db()
    latest = item.versions.first()
    assert (latest.number, latest.content, latest.message) == (
        3,
        "Log-Information one;\n",
        "Restored version 1",
    )
    assert item.content == latest.content
    assert "Restored version 1 as version 3." in page(response)


# run


def test_run_saves_the_text_on_screen_and_runs_it(admin_client, item) -> None:
    Server.objects.create(name="web1")
    text = "Log-Information edited;\n"
    assert "Saves your changes as version 3, then runs it" in page(admin_client.get(item_url(item)))
    response = admin_client.post(
        item_url(item, "raft-item-run"),
        {"run": "1", "content": text, "message": "try", "servers": ["web1"], "mode": "execute"},
    )
    execution = Execution.objects.get()
    assert response.url == reverse("execution-detail", args=[execution.pk])
    item.refresh_from_db()
    latest = item.versions.first()
    assert (latest.number, latest.content, latest.message) == (3, text, "try")
    assert execution.job.script == text and execution.job.script_version == latest
    assert execution.job.targets == ["web1"]


def test_run_makes_no_version_when_the_text_is_the_latest(admin_client, item) -> None:
    Server.objects.create(name="web1")
    admin_client.post(
        item_url(item, "raft-item-run"),
        {"run": "1", "content": item.content, "servers": ["web1"], "mode": "execute"},
    )
    assert item.versions.count() == 2
    assert Execution.objects.get().job.script_version.number == 2


def test_run_with_unparsable_text_runs_nothing_and_shows_diagnostics(admin_client, item) -> None:
    Server.objects.create(name="web1")
    response = admin_client.post(
        item_url(item, "raft-item-run"),
        {"run": "1", "content": "set $x 1;", "servers": ["web1"], "mode": "execute"},
    )
    text = page(response)
    assert response.status_code == 200 and "main::deploy:1:8: error" in text
    assert "set $x 1;</textarea>" in text
    assert not Execution.objects.exists() and item.versions.count() == 2


def test_run_refused_shows_why_beside_the_form_and_saves_nothing(admin_client, item) -> None:
    Role.objects.create(name="db")  # no server has it
    response = admin_client.post(
        item_url(item, "raft-item-run"),
        {"run": "1", "content": "Log-Information x;", "roles": ["db"], "mode": "execute"},
    )
    text = page(response)
    assert response.status_code == 200 and "Log-Information x;</textarea>" in text
    run_fieldset = text[text.index("<legend>Run</legend>") :]
    assert "no active server has those roles" in run_fieldset
    assert not Execution.objects.exists() and item.versions.count() == 2


JSON = {"HTTP_ACCEPT": "application/json"}


def test_run_answers_json_for_the_page_script_without_leaving_the_page(admin_client, item) -> None:
    Server.objects.create(name="web1")
    text = "Log-Information edited;\n"
    response = admin_client.post(
        item_url(item, "raft-item-run"),
        {"run": "1", "content": text, "message": "try", "servers": ["web1"], "mode": "execute"},
        **JSON,
    )
    execution = Execution.objects.get()
    assert response.status_code == 201 and response["Content-Type"] == "application/json"
    answer = response.json()
    assert answer["execution"] == {
        "id": execution.pk,
        "name": "main::deploy",
        "url": reverse("execution-detail", args=[execution.pk]),
        "run_state": "pending",
        "outcome": "pending",
        "outcome_label": "Pending",
        "mode": "execute",
        "mode_label": "Execute",
        "simulate": False,
        "cancel_url": reverse("api:execution-cancel", args=[execution.pk]),
    }
    assert answer | {"execution": None} == {
        "execution": None,
        "version": 3,
        "saved": True,
        "message": "Saved main::deploy as version 3 and ran it.",
    }
    assert execution.job.script == text and item.versions.first().message == "try"
    # the same text again: no version made, and no message kept for the next page
    again = admin_client.post(
        item_url(item, "raft-item-run"), {"run": "1", "content": text, "servers": ["web1"]}, **JSON
    ).json()
    assert (again["version"], again["saved"]) == (3, False)
    assert again["message"] == "Ran version 3 of main::deploy."
    assert "and ran it" not in page(admin_client.get(item_url(item)))


def test_run_in_json_refused_without_targets_says_why_and_saves_nothing(admin_client, item) -> None:
    response = admin_client.post(
        item_url(item, "raft-item-run"),
        {"run": "1", "content": "Log-Information x;", "mode": "execute"},
        **JSON,
    )
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid" and body["detail"].startswith("Choose servers or roles")
    assert list(body["errors"]) == ["non_field_errors"]
    assert not Execution.objects.exists() and item.versions.count() == 2


def test_run_in_json_of_unparsable_text_has_the_diagnostics(admin_client, item) -> None:
    Server.objects.create(name="web1")
    response = admin_client.post(
        item_url(item, "raft-item-run"),
        {"run": "1", "content": "set $x 1;", "servers": ["web1"]},
        **JSON,
    )
    body = response.json()
    assert response.status_code == 400 and body["code"] == "script"
    assert body["errors"]["content"][0].startswith("main::deploy:1:8: error")
    assert body["detail"].startswith("the script does not parse: line 1, column 8")
    first = body["diagnostics"][0]
    assert (first["line"], first["column"], first["severity"]) == (1, 8, "error")
    unknown = admin_client.post(
        item_url(item, "raft-item-run"),
        {"run": "1", "content": "Log-Information x;", "servers": ["nope"]},
        **JSON,
    ).json()
    assert "nope" in unknown["errors"]["servers"][0] and "diagnostics" not in unknown
    assert not Execution.objects.exists()


def test_run_in_json_without_permission_is_a_json_403(client_with, item) -> None:
    client = client_with("rafts.view_raftitem")
    response = client.post(
        item_url(item, "raft-item-run"), {"run": "1", "content": item.content}, **JSON
    )
    assert response.status_code == 403 and response.json()["code"] == "permission_denied"


def test_item_page_posts_run_to_its_run_address_and_save_to_itself(
    admin_client, client_with, item
) -> None:
    """The page's script starts a run at the form's address; a form post runs there too."""
    text = page(admin_client.get(item_url(item)))
    assert f'<form method="post" class="form" action="{item_url(item, "raft-item-run")}"' in text
    assert f'name="save" class="primary" formaction="{item_url(item)}"' in text
    editor = client_with("rafts.view_raftitem", "rafts.change_raftitem")
    assert '<form method="post" class="form">' in page(editor.get(item_url(item)))
    run_page = admin_client.get(item_url(item, "raft-item-run"))
    assert run_page.status_code == 302 and run_page.url == item_url(item)


def test_item_page_has_the_target_preview_hooks(admin_client, item) -> None:
    text = page(admin_client.get(item_url(item)))
    assert "data-target-preview" in text and "data-target-preview-output" in text
    assert 'name="servers"' in text and 'name="roles"' in text and 'name="environments"' in text
    try:
        preview_url = reverse("target-preview")
    except NoReverseMatch:  # the preview is not installed: the page works without it
        assert 'data-target-preview=""' in text  # the item entry leaves such a form alone
    else:
        assert f'data-target-preview="{preview_url}"' in text and "frontend/assets/item-" in text


# permissions


@pytest.fixture
def viewer(client_with):
    return client_with("rafts.view_raft", "rafts.view_raftitem")


def test_view_only_user_sees_no_edit_buttons(viewer, item) -> None:
    raft_page = page(viewer.get(reverse("raft-detail", args=["main"])))
    assert "New item" not in raft_page and "Rename" not in raft_page
    item_page = page(viewer.get(item_url(item)))
    for control in ('name="save"', 'name="run"', "Rename or move", "Restore version", "Delete"):
        assert control not in item_page
    assert "readonly" in item_page
    assert "New raft" not in page(viewer.get(reverse("raft-list")))


def test_view_only_user_gets_403_on_every_post(viewer, item) -> None:
    posts = {
        reverse("raft-create"): {"name": "x"},
        reverse("raft-edit", args=["main"]): {"name": "x"},
        reverse("raft-delete", args=["main"]): {},
        reverse("raft-item-create", args=["main"]): {"name": "x", "kind": "asset"},
        item_url(item): {"save": "1", "content": "Log-Information x;"},
        item_url(item, "raft-item-edit"): {"name": "x", "raft": "main"},
        item_url(item, "raft-item-delete"): {},
        item_url(item, "raft-item-restore", 1): {},
    }
    for url, data in posts.items():
        assert viewer.post(url, data).status_code == 403, url
    run = {"run": "1", "content": "Log-Information x;", "mode": "execute"}
    assert viewer.post(item_url(item, "raft-item-run"), run).status_code == 403
    item.refresh_from_db()
    assert item.versions.count() == 2 and Raft.objects.get().name == "main"


def test_runner_without_change_permission_runs_the_saved_text_only(client_with, item) -> None:
    client = client_with(
        "rafts.view_raftitem", "executions.add_execution", "executions.run_on_local_server"
    )
    Server.objects.create(name="web1")
    run = {"run": "1", "servers": ["web1"], "mode": "execute"}
    run_url = item_url(item, "raft-item-run")
    assert client.post(run_url, {**run, "content": "Log-Information x;"}).status_code == 403
    response = client.post(run_url, {**run, "content": item.content})
    assert response.status_code == 302 and Execution.objects.get().job.script == item.content


# admin

NO_VERSION_ROWS = {f"versions-{key}": "0" for key in ("TOTAL_FORMS", "INITIAL_FORMS")}


def test_admin_save_of_a_broken_script_shows_diagnostics_and_keeps_the_text(
    admin_client, item
) -> None:
    url = reverse("admin:rafts_raftitem_change", args=[item.pk])
    data = {"raft": item.raft.pk, "name": "deploy", "kind": "script", "content": "set $x 1;"}
    response = admin_client.post(url, {**data, **NO_VERSION_ROWS})
    text = page(response)
    assert response.status_code == 200 and "main::deploy:1:8: error" in text
    assert "set $x 1;</textarea>" in text
    item.refresh_from_db()
    assert item.content == "Log-Information two;\n" and item.versions.count() == 2


def test_admin_save_renames_through_the_services_with_a_version(admin_client, item) -> None:
    url = reverse("admin:rafts_raftitem_change", args=[item.pk])
    data = {
        "raft": item.raft.pk,
        "name": "deploy/web",
        "kind": "script",
        "content": "Log-Information three;\r\n",
    }
    response = admin_client.post(url, {**data, **NO_VERSION_ROWS})
    assert response.status_code == 302
    item.refresh_from_db()
    assert (item.pk, item.name, item.content) == (
        item.pk,
        "deploy/web",
        "Log-Information three;\n",
    )
    assert RaftItem.objects.count() == 1
    assert item.versions.first().message == "Saved in the admin"
