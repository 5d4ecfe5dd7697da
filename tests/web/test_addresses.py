"""The pages' addresses (otterweb.addresses): one style for a new object's page, and the
addresses of earlier versions sent on to theirs."""

from __future__ import annotations

import pytest
from django.urls import get_resolver, reverse


def test_addresses_of_every_new_object_page_end_in_dash_new() -> None:
    creating = sorted(
        name
        for name in get_resolver().reverse_dict
        if isinstance(name, str) and name.endswith("-create")
    )
    assert len(creating) >= 8, creating  # the inventory's five kinds, rafts, items, schedules...
    for name in creating:
        args = ["main"] if name == "raft-item-create" else []
        assert reverse(name, args=args).endswith("/-/new/"), name


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("/inventory/servers/+new/?role=web", "/inventory/servers/-/new/?role=web"),
        ("/inventory/credentials/+new/", "/inventory/credentials/-/new/"),
        ("/schedules/new/", "/schedules/-/new/"),
        ("/templates/new/?item=3", "/templates/-/new/?item=3"),
    ],
)
def test_addresses_of_earlier_versions_are_sent_on(client, old: str, new: str) -> None:
    answer = client.get(old)
    assert (answer.status_code, answer["Location"]) == (301, new)
