"""Reading rafts."""

from __future__ import annotations

import difflib

from otterweb.rafts.models import RaftItem, RaftItemVersion


def diff_versions(*, old: RaftItemVersion, new: RaftItemVersion) -> str:
    """A unified diff from ``old`` to ``new``."""
    return "".join(
        difflib.unified_diff(
            old.content.splitlines(keepends=True),
            new.content.splitlines(keepends=True),
            fromfile=f"{old.item} v{old.number}",
            tofile=f"{new.item} v{new.number}",
        )
    )


def find_item(*, raft: str | None, name: str, kinds: tuple[str, ...]) -> RaftItem | None:
    """A raft item by raft and name (any raft when ``raft`` is None), of one of ``kinds``."""
    query = RaftItem.objects.select_related("raft").filter(name__iexact=name, kind__in=kinds)
    if raft:
        query = query.filter(raft__name__iexact=raft)
    return query.order_by("raft__name").first()
