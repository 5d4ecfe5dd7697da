"""Rafts: every save makes a version; versions can be diffed and restored."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from otterweb.rafts import selectors, services
from otterweb.rafts.models import Raft, RaftItem

pytestmark = pytest.mark.django_db


@pytest.fixture
def raft():
    return Raft.objects.create(name="main")


def test_save_item_makes_a_version_per_change(raft, user_with) -> None:
    author = user_with()
    services.save_item(
        raft=raft, name="deploy", content="Log-Information one;", author=author, message="first"
    )
    services.save_item(
        raft=raft, name="deploy", content="Log-Information one;"
    )  # unchanged: no version
    item = services.save_item(
        raft=raft, name="deploy", content="Log-Information two;", message="second"
    )
    assert [(v.number, v.message) for v in item.versions.all()] == [(2, "second"), (1, "first")]
    assert item.versions.get(number=1).author == author


def test_save_item_refuses_a_script_that_does_not_parse(raft) -> None:
    with pytest.raises(ValidationError) as raised:
        services.save_item(raft=raft, name="bad", content="set $x 1;")
    assert "bad:1:8: error:" in raised.value.messages[0]
    assert not RaftItem.objects.filter(name="bad").exists()
    services.save_item(
        raft=raft, name="notes.sh", content="set $x 1;", kind=RaftItem.Kind.SHELL_SCRIPT
    )


def test_versions_diff_and_restore(raft) -> None:
    services.save_item(raft=raft, name="m", content="Log-Information a;\n")
    item = services.save_item(raft=raft, name="m", content="Log-Information b;\n")
    old, new = item.versions.get(number=1), item.versions.get(number=2)
    diff = selectors.diff_versions(old=old, new=new)
    assert "-Log-Information a;" in diff and "+Log-Information b;" in diff
    restored = services.restore_version(version=old)
    assert restored.content == "Log-Information a;\n"
    assert restored.versions.first().message == "Restored version 1"


def test_find_item_by_raft_and_kind(raft) -> None:
    services.save_item(
        raft=raft, name="Build", content="module Build { }", kind=RaftItem.Kind.MODULE
    )
    assert selectors.find_item(raft="MAIN", name="build", kinds=("module",)).name == "Build"
    assert selectors.find_item(raft=None, name="build", kinds=("script",)) is None


def test_admin_diff_page(admin_client, raft) -> None:
    services.save_item(raft=raft, name="m", content="a\n")
    item = services.save_item(raft=raft, name="m", content="b\n")
    old, new = item.versions.get(number=1), item.versions.get(number=2)
    page = admin_client.get(reverse("admin:rafts_raftitem_diff", args=[item.pk, old.pk, new.pk]))
    assert page.status_code == 200 and "+b" in page.content.decode()
    change = admin_client.get(
        reverse("admin:rafts_raftitem_change", args=[item.pk])
    ).content.decode()
    assert "diff with v1" in change


def test_admin_diff_page_needs_the_view_permission_not_only_staff(client_with, raft) -> None:
    services.save_item(raft=raft, name="m", content="secret plan\n")
    item = services.save_item(raft=raft, name="m", content="b\n")
    old, new = item.versions.get(number=1), item.versions.get(number=2)
    url = reverse("admin:rafts_raftitem_diff", args=[item.pk, old.pk, new.pk])
    refused = client_with(is_staff=True).get(url)
    assert refused.status_code == 403 and "secret plan" not in refused.content.decode()
    viewer = client_with("rafts.view_raftitem", is_staff=True)
    assert "secret plan" in viewer.get(url).content.decode()
