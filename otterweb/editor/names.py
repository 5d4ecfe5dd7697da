"""The names a script in a raft can use, for the editor's completion: the inventory's variable
names (with the sigil their value's kind takes, never the value) and the raft items a script
calls as modules or applies as templates, named as a script in that raft writes them."""

from __future__ import annotations

import re
from typing import Any

from engine import OtterError, kind, literal_value
from otterweb.executions.host import RAFT_KINDS
from otterweb.inventory.models import Variable
from otterweb.privileges.checks import visible
from otterweb.rafts.models import Raft, RaftItem

# `call` takes a name (engine/grammar/otterscript.lark, NAME); other items cannot be called
CALLABLE = re.compile(r"[A-Za-z][A-Za-z0-9_\-]*")
SCOPES = ("server", "environment", "role")


def _scope(variable: Variable) -> str:
    return next((s for s in SCOPES if getattr(variable, f"{s}_id")), "global")


def _sigil(variable: Variable) -> str:
    """The sigil of an ordinary variable's value; ``$`` for a sensitive one, whose value is not
    read here."""
    if variable.sensitive:
        return "$"
    try:
        return kind(literal_value(variable.value))
    except OtterError:  # stored before values were checked: text, as the engine would read it
        return "$"


def inventory_variables(*, user=None) -> list[dict[str, Any]]:
    """Each configuration variable name once per kind (``$``, ``@`` or ``%``), with the kinds of
    scope that set it (server, environment, role, global), by name. An ordinary value is only
    read for its kind; a sensitive one not at all."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    fields = ("name", "value", "sensitive", "server", "environment", "role")
    for variable in visible(user, Variable.objects.only(*fields)):
        sigil = _sigil(variable)
        entry = found.setdefault(
            (variable.name.casefold(), sigil), {"name": variable.name, "sigil": sigil, "scopes": []}
        )
        if _scope(variable) not in entry["scopes"]:
            entry["scopes"].append(_scope(variable))
    for entry in found.values():
        entry["scopes"].sort(key=(*SCOPES, "global").index)
    return sorted(found.values(), key=lambda e: (e["name"].casefold(), e["sigil"]))


def _items(
    raft: Raft, kinds: tuple[str, ...], *, callable_only: bool = False, user=None
) -> list[dict]:
    """The items of ``kinds``: ``raft``'s by their names, then other rafts' as ``raft::name``."""
    items = visible(user, RaftItem.objects.filter(kind__in=kinds).select_related("raft"))
    return [
        {
            "name": item.name if item.raft_id == raft.pk else f"{item.raft.name}::{item.name}",
            "raft": item.raft.name,
            "kind": item.kind,
        }
        for item in sorted(items, key=lambda i: (i.raft_id != raft.pk, i.raft.name, i.name))
        if not callable_only or CALLABLE.fullmatch(item.name)
    ]


def script_names(
    *, raft: Raft, variables: bool = True, items: bool = True, user=None
) -> dict[str, list]:
    """``{"variables": [...], "modules": [...], "templates": [...]}`` for a script in ``raft``,
    of what ``user`` may see (None: everything); ``variables``/``items`` False leaves that part
    empty (a user who may not read it)."""
    return {
        "variables": inventory_variables(user=user) if variables else [],
        "modules": _items(raft, RAFT_KINDS["module"], callable_only=True, user=user)
        if items
        else [],
        "templates": _items(raft, RAFT_KINDS["template"], user=user) if items else [],
    }
