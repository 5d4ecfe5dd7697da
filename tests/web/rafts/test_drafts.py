"""The editor's drafts and commits: a draft per user and item (never a version, never parsed),
commit from a base version (409 with the diffs when the item has moved on), the diff of the text
on screen, and the header that says which mode a script opens in."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from otterweb.rafts import selectors, services
from otterweb.rafts.models import Raft, RaftItem, RaftItemDraft

pytestmark = pytest.mark.django_db

ONE = "Log-Information one;\n"
TWO = "Log-Information two;\n"


@pytest.fixture
def ops(client_with):
    return client_with("rafts.view_raftitem", "rafts.change_raftitem", username="ops")


@pytest.fixture
def dev(client_with):
    return client_with("rafts.view_raftitem", "rafts.change_raftitem", username="dev")


@pytest.fixture
def item():
    raft = Raft.objects.create(name="main")
    return services.create_item(raft=raft, name="deploy", kind=RaftItem.Kind.SCRIPT, content=ONE)


def url(item: RaftItem, action: str) -> str:
    return f"/api/raft-items/{item.pk}/{action}/"


# ---- drafts ---------------------------------------------------------------------------------


def test_draft_put_then_get_returns_it_as_a_reload_would(ops, item) -> None:
    assert ops.get(url(item, "draft")).status_code == 404
    half = "Log-Information one;\nif $x {\n"  # half-typed: kept as it is, not parsed
    saved = ops.put(url(item, "draft"), {"content": half, "base_version": 1}, format="json")
    assert saved.status_code == 200, saved.content
    reloaded = ops.get(url(item, "draft")).json()
    assert reloaded["content"] == half and reloaded["base_version"] == 1
    assert reloaded["latest_version"] == 1 and reloaded["moved_on"] is False
    assert reloaded["saved"]
    assert item.versions.count() == 1  # never a version
    assert RaftItem.objects.get(pk=item.pk).content == ONE


def test_draft_put_again_replaces_it(ops, item) -> None:
    ops.put(url(item, "draft"), {"content": "a", "base_version": 1}, format="json")
    ops.put(url(item, "draft"), {"content": "b", "base_version": 1}, format="json")
    assert ops.get(url(item, "draft")).json()["content"] == "b"
    assert RaftItemDraft.objects.count() == 1


def test_draft_is_per_user_and_another_never_sees_it(ops, dev, item) -> None:
    ops.put(url(item, "draft"), {"content": "ops's", "base_version": 1}, format="json")
    assert dev.get(url(item, "draft")).status_code == 404
    dev.put(url(item, "draft"), {"content": "dev's", "base_version": 1}, format="json")
    assert ops.get(url(item, "draft")).json()["content"] == "ops's"
    assert dev.get(url(item, "draft")).json()["content"] == "dev's"
    assert dev.delete(url(item, "draft")).status_code == 204
    assert dev.get(url(item, "draft")).status_code == 404
    assert ops.get(url(item, "draft")).json()["content"] == "ops's"


def test_draft_delete_without_one_is_204(ops, item) -> None:
    assert ops.delete(url(item, "draft")).status_code == 204


def test_draft_says_when_the_item_moved_on_since_its_base(ops, dev, item) -> None:
    ops.put(url(item, "draft"), {"content": "mine", "base_version": 1}, format="json")
    dev.post(url(item, "commit"), {"content": TWO, "base_version": 1}, format="json")
    draft = ops.get(url(item, "draft")).json()
    assert draft["moved_on"] is True and draft["latest_version"] == 2 and draft["base_version"] == 1


def test_draft_too_large_is_refused_naming_the_limit_and_the_old_one_kept(
    ops, item, settings
) -> None:
    settings.OTTERWEB_MAX_SCRIPT_BYTES = 100
    ops.put(url(item, "draft"), {"content": "kept", "base_version": 1}, format="json")
    refused = ops.put(url(item, "draft"), {"content": "é" * 51, "base_version": 1}, format="json")
    assert refused.status_code == 400
    body = refused.json()
    assert body["code"] == "invalid" and "content" in body["errors"]
    assert (
        "102 bytes; the server keeps at most 100 bytes (OTTERWEB_MAX_SCRIPT_BYTES)"
        in (body["detail"])
    )
    assert ops.get(url(item, "draft")).json()["content"] == "kept"


def test_draft_of_a_version_the_item_does_not_have_is_400(ops, item) -> None:
    refused = ops.put(url(item, "draft"), {"content": "x", "base_version": 7}, format="json")
    assert refused.status_code == 400 and "base_version" in refused.json()["errors"]
    missing = ops.put(url(item, "draft"), {"content": "x"}, format="json")
    assert missing.status_code == 400 and "base_version" in missing.json()["errors"]


def test_draft_needs_permission_to_change_items_to_be_saved(client_with, item) -> None:
    viewer = client_with("rafts.view_raftitem")
    assert viewer.get(url(item, "draft")).status_code == 404
    refused = viewer.put(url(item, "draft"), {"content": "x", "base_version": 1}, format="json")
    assert refused.status_code == 403 and not RaftItemDraft.objects.exists()
    assert client_with().get(url(item, "draft")).status_code == 403


# ---- commit ---------------------------------------------------------------------------------


def test_commit_makes_a_version_and_clears_the_draft(ops, item) -> None:
    ops.put(url(item, "draft"), {"content": TWO, "base_version": 1}, format="json")
    committed = ops.post(
        url(item, "commit"), {"content": TWO, "message": "two", "base_version": 1}, format="json"
    )
    assert committed.status_code == 200, committed.content
    assert committed.json()["version"] == 2 and committed.json()["content"] == TWO
    latest = selectors.latest_version(item=item)
    assert (latest.number, latest.message, latest.author.username) == (2, "two", "ops")
    assert ops.get(url(item, "draft")).status_code == 404


def test_commit_from_a_stale_base_is_409_with_the_diffs_and_nothing_saved(ops, dev, item) -> None:
    dev.post(
        url(item, "commit"), {"content": TWO, "message": "dev's", "base_version": 1}, format="json"
    )
    ops.put(
        url(item, "draft"), {"content": "Log-Information mine;\n", "base_version": 1}, format="json"
    )
    stale = ops.post(
        url(item, "commit"),
        {"content": "Log-Information mine;\n", "base_version": 1},
        format="json",
    )
    assert stale.status_code == 409
    body = stale.json()
    assert body["code"] == "conflict" and "version 2 is the newest (by dev" in body["detail"]
    assert body["base_version"] == 1
    assert body["latest"]["number"] == 2 and body["latest"]["author"] == "dev"
    assert body["latest"]["message"] == "dev's" and body["latest"]["created"]
    assert "-Log-Information one;" in body["diff"] and "+Log-Information two;" in body["diff"]
    assert "-Log-Information two;" in body["diff_to_submitted"]
    assert "+Log-Information mine;" in body["diff_to_submitted"]
    assert item.versions.count() == 2 and RaftItem.objects.get(pk=item.pk).content == TWO
    assert ops.get(url(item, "draft")).json()["content"] == "Log-Information mine;\n"  # kept


def test_commit_from_a_stale_base_of_the_newest_text_is_no_conflict(ops, dev, item) -> None:
    dev.post(url(item, "commit"), {"content": TWO, "base_version": 1}, format="json")
    same = ops.post(url(item, "commit"), {"content": TWO, "base_version": 1}, format="json")
    assert same.status_code == 200 and same.json()["version"] == 2


def test_commit_of_a_script_that_does_not_parse_is_400_with_diagnostics(ops, item) -> None:
    ops.put(url(item, "draft"), {"content": "set $x 1;", "base_version": 1}, format="json")
    broken = ops.post(
        url(item, "commit"), {"content": "set $x 1;", "base_version": 1}, format="json"
    )
    assert broken.status_code == 400
    body = broken.json()
    assert body["code"] == "script" and body["detail"].startswith("the script does not parse")
    assert (body["diagnostics"][0]["line"], body["diagnostics"][0]["column"]) == (1, 8)
    assert item.versions.count() == 1
    assert ops.get(url(item, "draft")).json()["content"] == "set $x 1;"  # kept


def test_commit_too_large_is_400_naming_the_limit(ops, item, settings) -> None:
    settings.OTTERWEB_MAX_SCRIPT_BYTES = 20  # TWO is 21; the request, under 80, fits
    refused = ops.post(url(item, "commit"), {"content": TWO, "base_version": 1}, format="json")
    assert refused.status_code == 400 and "at most 20 bytes" in refused.json()["detail"]


def test_commit_needs_permission_to_change_items(client_with, item) -> None:
    viewer = client_with("rafts.view_raftitem")
    refused = viewer.post(url(item, "commit"), {"content": TWO, "base_version": 1}, format="json")
    assert refused.status_code == 403 and item.versions.count() == 1


def test_patch_with_a_stale_base_version_is_409_and_without_one_saves(
    ops, dev, client_with, item
) -> None:
    admin = client_with("rafts.view_raftitem", "rafts.change_raftitem", username="admin")
    dev.post(url(item, "commit"), {"content": TWO, "base_version": 1}, format="json")
    stale = admin.patch(
        f"/api/raft-items/{item.pk}/",
        {"content": "Log-Information three;\n", "base_version": 1, "name": "renamed"},
        format="json",
    )
    assert stale.status_code == 409 and stale.json()["latest"]["number"] == 2
    assert RaftItem.objects.get(pk=item.pk).name == "deploy"  # the rename is undone too
    put = admin.put(
        f"/api/raft-items/{item.pk}/",
        {
            "raft": "main",
            "name": "deploy",
            "content": "Log-Information three;\n",
            "base_version": 2,
        },
        format="json",
    )
    assert put.status_code == 200 and put.json()["version"] == 3
    unchecked = admin.patch(
        f"/api/raft-items/{item.pk}/", {"content": "Log-Information four;\n"}, format="json"
    )
    assert unchecked.status_code == 200 and unchecked.json()["version"] == 4


def test_restore_with_a_stale_base_version_is_409(ops, dev, item) -> None:
    dev.post(url(item, "commit"), {"content": TWO, "base_version": 1}, format="json")
    first = item.versions.get(number=1)
    admin = APIClient()
    admin.force_authenticate(get_user_model().objects.create_superuser("root"))
    stale = admin.post(
        f"/api/raft-item-versions/{first.pk}/restore/", {"base_version": 1}, format="json"
    )
    assert stale.status_code == 409 and item.versions.count() == 2
    fresh = admin.post(
        f"/api/raft-item-versions/{first.pk}/restore/", {"base_version": 2}, format="json"
    )
    assert fresh.status_code == 200 and fresh.json()["version"] == 3


# ---- diffs ----------------------------------------------------------------------------------


def test_diff_of_the_text_on_screen_against_the_newest_version(ops, item) -> None:
    ops.post(url(item, "commit"), {"content": TWO, "base_version": 1}, format="json")
    answer = ops.post(url(item, "diff"), {"content": "Log-Information mine;\n"}, format="json")
    assert answer.status_code == 200
    body = answer.json()
    assert body["from"] == 2
    assert "-Log-Information two;" in body["diff"] and "+Log-Information mine;" in body["diff"]
    against_one = ops.post(url(item, "diff"), {"content": ONE, "version": 1}, format="json").json()
    assert against_one["from"] == 1 and against_one["diff"] == ""
    assert (
        ops.post(url(item, "diff"), {"content": ONE, "version": 9}, format="json").status_code
        == 400
    )


def test_diff_between_any_two_versions_by_number(ops, item) -> None:
    for text in (TWO, "Log-Information three;\n"):
        version = selectors.latest_version(item=item).number
        ops.post(url(item, "commit"), {"content": text, "base_version": version}, format="json")
    newest = ops.get(url(item, "diff")).json()
    assert (newest["from"], newest["to"]) == (2, 3) and "+Log-Information three;" in newest["diff"]
    chosen = ops.get(url(item, "diff") + "?from=1&to=3").json()
    assert "-Log-Information one;" in chosen["diff"] and "+Log-Information three;" in chosen["diff"]
    assert ops.get(url(item, "diff") + "?from=x").status_code == 400


# ---- the editor's mode ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "mode"),
    [
        ("##AH:UseTextMode\nLog-Debug a;\n", "text"),
        ("# why\n\n##AH:UseVisualMode\nLog-Debug a;\n", "visual"),
        ("##AH:Other\n##AH:UseTextMode\nif $x {\n", "text"),  # a half-typed draft too
        ("Log-Debug a;\n##AH:UseTextMode\n", "visual"),  # a comment after the first statement
        ("Log-Debug a;\n", "visual"),
    ],
)
def test_editor_mode_follows_the_header_else_the_default(content, mode) -> None:
    assert selectors.editor_mode(content=content) == mode


def test_editor_mode_default_is_the_users_and_other_kinds_are_text() -> None:
    assert selectors.editor_mode(content="Log-Debug a;\n", default="text") == "text"
    assert selectors.editor_mode(content="##AH:UseVisualMode\n", kind=RaftItem.Kind.ASSET) == "text"


def test_with_editor_mode_replaces_the_other_mode_header_and_keeps_the_rest() -> None:
    text = "##AH:UseTextMode\n##AH:Key=Value\n\n# say hi\nLog-Debug a;\n"
    visual = services.with_editor_mode(content=text, mode="visual")
    assert visual == "##AH:UseVisualMode\n##AH:Key=Value\n\n# say hi\nLog-Debug a;\n"
    assert services.with_editor_mode(content=visual, mode="visual") is visual
    added = services.with_editor_mode(content="Log-Debug a;", mode="text")
    assert added == "##AH:UseTextMode\n\nLog-Debug a;\n"


def test_item_api_shows_the_mode_and_commit_writes_it(ops, item) -> None:
    assert ops.get(f"/api/raft-items/{item.pk}/").json()["mode"] == "visual"
    committed = ops.post(
        url(item, "commit"),
        {"content": "##AH:Key=Value\n" + TWO, "base_version": 1, "mode": "text"},
        format="json",
    ).json()
    assert committed["mode"] == "text" and committed["version"] == 2
    assert committed["content"] == "##AH:UseTextMode\n##AH:Key=Value\n\n" + TWO
    kept = ops.post(
        url(item, "commit"),
        {"content": committed["content"] + "fail;\n", "base_version": 2},
        format="json",
    ).json()
    assert kept["mode"] == "text" and kept["version"] == 3
    back = ops.post(
        url(item, "commit"),
        {"content": kept["content"], "base_version": 3, "mode": "visual"},
        format="json",
    ).json()
    assert back["mode"] == "visual" and back["content"].startswith(
        "##AH:UseVisualMode\n##AH:Key=Value\n"
    )
    assert ops.get(f"/api/raft-items/{item.pk}/").json()["mode"] == "visual"


def test_commit_mode_is_text_or_visual_and_only_for_otterscript(ops, item) -> None:
    wrong = ops.post(
        url(item, "commit"), {"content": TWO, "base_version": 1, "mode": "blocks"}, format="json"
    )
    assert wrong.status_code == 400 and "mode" in wrong.json()["errors"]
    asset = services.create_item(
        raft=item.raft, name="notes.txt", kind=RaftItem.Kind.ASSET, content="x"
    )
    refused = ops.post(
        url(asset, "commit"), {"content": "y", "base_version": 1, "mode": "text"}, format="json"
    )
    assert refused.status_code == 400 and "mode" in refused.json()["errors"]
    assert ops.get(f"/api/raft-items/{asset.pk}/").json()["mode"] == "text"
