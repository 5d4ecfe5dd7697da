"""Reading rafts."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from django.db.models import Count, QuerySet

from otterweb.executions.models import JobTemplate
from otterweb.rafts.models import Raft, RaftItem, RaftItemVersion


def rafts_with_counts() -> QuerySet[Raft]:
    """Every raft, with ``item_count``."""
    return Raft.objects.annotate(item_count=Count("items"))


def raft_items(*, raft: Raft) -> QuerySet[RaftItem]:
    """A raft's items by name, with ``version_count``."""
    return raft.items.annotate(version_count=Count("versions")).order_by("name")


def item_versions(*, item: RaftItem) -> QuerySet[RaftItemVersion]:
    """An item's versions, newest first, with their authors."""
    return item.versions.select_related("author").order_by("-number")


def raft_item_count(*, raft: Raft) -> int:
    return raft.items.count()


def job_templates_of(*, items) -> list[str]:
    """The names of the job templates that run any of ``items`` (a raft item queryset)."""
    return list(
        JobTemplate.objects.filter(raft_item__in=items)
        .order_by("name")
        .values_list("name", flat=True)
    )


def diff_versions(*, old: RaftItemVersion, new: RaftItemVersion) -> str:
    """A unified diff from ``old`` to ``new`` ("" when their lines are the same)."""
    lines = difflib.unified_diff(
        old.content.splitlines(),
        new.content.splitlines(),
        fromfile=f"{old.item} v{old.number}",
        tofile=f"{new.item} v{new.number}",
        lineterm="",
    )
    return "".join(f"{line}\n" for line in lines)


@dataclass(frozen=True, slots=True)
class DiffLine:
    kind: str  # "header", "hunk", "added", "removed" or "context"
    text: str


def diff_lines(*, old: RaftItemVersion, new: RaftItemVersion) -> list[DiffLine]:
    """The lines of :func:`diff_versions`, each with what it is, for drawing."""
    result = []
    for index, text in enumerate(diff_versions(old=old, new=new).splitlines()):
        if index < 2:  # the "--- old" and "+++ new" lines
            kind = "header"
        elif text.startswith("@@"):
            kind = "hunk"
        elif text.startswith("+"):
            kind = "added"
        elif text.startswith("-"):
            kind = "removed"
        else:
            kind = "context"
        result.append(DiffLine(kind=kind, text=text))
    return result


def find_item(*, raft: str | None, name: str, kinds: tuple[str, ...]) -> RaftItem | None:
    """A raft item by raft and name (any raft when ``raft`` is None), of one of ``kinds``."""
    query = RaftItem.objects.select_related("raft").filter(name__iexact=name, kind__in=kinds)
    if raft:
        query = query.filter(raft__name__iexact=raft)
    return query.order_by("raft__name").first()
