"""The one privilege function: scopes inherited down the environment tree, grants through
groups, objects in several environments, Django's own permissions, a narrower key's limit, and
granting within one's own privileges."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied

from otterweb.inventory.models import Environment, Server
from otterweb.privileges import services
from otterweb.privileges.checks import LIMIT, Limit, forget, may, visible
from otterweb.privileges.models import Grant, Role

VIEW = "inventory.view_server"
CHANGE = "inventory.change_server"


@pytest.fixture
def tree(db) -> dict:
    nonprod = Environment.objects.create(name="nonprod")
    testing = Environment.objects.create(name="testing", parent=nonprod)
    production = Environment.objects.create(name="production")
    servers = {}
    for name, environments in [
        ("t1", [testing]),
        ("n1", [nonprod]),
        ("p1", [production]),
        ("both", [testing, production]),
        ("nowhere", []),
    ]:
        servers[name] = Server.objects.create(name=name)
        servers[name].environments.set(environments)
    return {"nonprod": nonprod, "testing": testing, "production": production, **servers}


def user(name: str = "ann"):
    return get_user_model().objects.create_user(username=name)


def role(name: str) -> Role:
    return Role.objects.get(name=name)


def test_may_grant_on_an_environment_covers_the_environments_inside_it(tree) -> None:
    ann = user()
    services.grant(role=role("Viewer"), user=ann, environment=tree["nonprod"])
    assert may(ann, VIEW, tree["t1"]) and may(ann, VIEW, tree["n1"])
    assert not may(ann, VIEW, tree["p1"])
    # in Testing and Production: the grant must cover every environment it is in
    assert not may(ann, VIEW, tree["both"])
    # in no environment: only a grant on everything covers it
    assert not may(ann, VIEW, tree["nowhere"])
    assert set(visible(ann, Server.objects.all()).values_list("name", flat=True)) == {"t1", "n1"}


def test_may_a_role_gives_only_its_permissions(tree) -> None:
    ann = user()
    services.grant(role=role("Viewer"), user=ann, environment=tree["testing"])
    assert may(ann, VIEW, tree["t1"]) and not may(ann, CHANGE, tree["t1"])
    assert may(ann, VIEW) and not may(ann, CHANGE)


def test_may_grants_to_a_group_reach_its_members(tree) -> None:
    ann, bob = user("ann"), user("bob")
    ops = Group.objects.create(name="ops")
    ann.groups.add(ops)
    services.grant(role=role("Administrator"), group=ops, environment=tree["production"])
    assert may(ann, CHANGE, tree["p1"]) and not may(bob, CHANGE, tree["p1"])


def test_may_django_permissions_hold_everywhere(tree, user_with) -> None:
    old = user_with(VIEW)
    assert may(old, VIEW, tree["p1"]) and may(old, VIEW, tree["nowhere"])


def test_may_superusers_and_otterweb_itself_may_anything(tree) -> None:
    root = get_user_model().objects.create_superuser(username="root")
    assert may(root, CHANGE, tree["p1"]) and may(None, CHANGE, tree["p1"])


def test_may_a_narrower_key_keeps_only_its_role_on_its_scope(tree) -> None:
    root = get_user_model().objects.create_superuser(username="root")
    setattr(
        root,
        LIMIT,
        Limit(permissions=frozenset({VIEW}), environment=tree["testing"].pk, superuser=True),
    )
    root.is_superuser = False
    assert may(root, VIEW, tree["t1"])
    assert not may(root, VIEW, tree["p1"]) and not may(root, CHANGE, tree["t1"])


def test_grant_on_a_scope_needs_the_right_to_grant_there(tree) -> None:
    admin = user("admin")
    services.grant(role=role("Administrator"), user=admin, environment=tree["testing"])
    bob = user("bob")
    made = services.grant(role=role("Viewer"), user=bob, environment=tree["testing"], by=admin)
    assert made.created_by == admin
    with pytest.raises(PermissionDenied):
        services.grant(role=role("Viewer"), user=bob, environment=tree["production"], by=admin)
    with pytest.raises(PermissionDenied):
        services.grant(role=role("Administrator"), user=bob, by=admin)  # everything
    # granted twice: one grant
    again = services.grant(role=role("Viewer"), user=bob, environment=tree["testing"], by=admin)
    assert again == made and Grant.objects.filter(user=bob).count() == 1
    forget(bob)
    assert may(bob, VIEW, tree["t1"])
    services.revoke(grant=made, by=admin)
    forget(bob)
    assert not may(bob, VIEW, tree["t1"])


def test_built_in_roles_are_made_after_migrate(db) -> None:
    assert set(Role.objects.filter(built_in=True).values_list("name", flat=True)) == {
        "Viewer",
        "Operator",
        "Editor",
        "Administrator",
    }
    assert role("Operator").permissions.filter(codename="run_jobtemplate").exists()
    assert not role("Viewer").permissions.filter(codename="run_jobtemplate").exists()


def test_may_inventory_roles_are_seen_by_any_viewer_and_changed_only_everywhere(tree) -> None:
    from otterweb.inventory.models import Role as InventoryRole

    web = InventoryRole.objects.create(name="web")
    ann = user()
    services.grant(role=role("Administrator"), user=ann, environment=tree["testing"])
    assert may(ann, "inventory.view_role", web)
    assert not may(ann, "inventory.change_role", web)


def test_audit_trail_is_for_administrators_of_everything(tree) -> None:
    from otterweb.audit.selectors import may_view

    everywhere, testing = user("everywhere"), user("testing")
    services.grant(role=role("Administrator"), user=everywhere)
    services.grant(role=role("Administrator"), user=testing, environment=tree["testing"])
    assert may_view(everywhere) and not may_view(testing)
