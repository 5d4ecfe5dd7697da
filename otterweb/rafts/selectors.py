"""Reading rafts."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass

from django.db.models import Count, QuerySet
from django.utils.text import normalize_newlines

from otterweb.rafts.models import Raft, RaftItem, RaftItemDraft, RaftItemVersion

# How a script opens in the editor: its header (``##AH:UseTextMode``, ``##AH:UseVisualMode``),
# else the user's choice, else this.
EDITOR_MODES = ("text", "visual")
DEFAULT_EDITOR_MODE = "visual"
MODE_HEADERS = {"text": "##AH:UseTextMode", "visual": "##AH:UseVisualMode"}


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


# the names of the job templates that run any of some items (``items=``: a raft item queryset
# or list), from the app that has job templates (executions), added from its AppConfig.ready
JOB_TEMPLATES_OF: list[Callable[..., list[str]]] = []


def job_templates_of(*, items) -> list[str]:
    """The names of the job templates that run any of ``items`` (a raft item queryset or
    list), in order."""
    return sorted({name for templates_of in JOB_TEMPLATES_OF for name in templates_of(items=items)})


def latest_version(*, item: RaftItem) -> RaftItemVersion | None:
    """An item's newest version (None only for an item made without one)."""
    return item.versions.select_related("author").order_by("-number").first()


def diff_texts(*, old: str, new: str, old_name: str, new_name: str) -> str:
    """A unified diff from the text ``old`` to ``new`` ("" when their lines are the same)."""
    lines = difflib.unified_diff(
        old.splitlines(), new.splitlines(), fromfile=old_name, tofile=new_name, lineterm=""
    )
    return "".join(f"{line}\n" for line in lines)


def diff_versions(*, old: RaftItemVersion, new: RaftItemVersion) -> str:
    """A unified diff from ``old`` to ``new`` ("" when their lines are the same)."""
    return diff_texts(
        old=old.content,
        new=new.content,
        old_name=f"{old.item} v{old.number}",
        new_name=f"{new.item} v{new.number}",
    )


def diff_to_text(*, version: RaftItemVersion, content: str, name: str = "yours") -> str:
    """A unified diff from ``version`` to ``content`` (text not saved yet, such as the editor's)."""
    return diff_texts(
        old=version.content,
        new=content,
        old_name=f"{version.item} v{version.number}",
        new_name=f"{version.item} ({name})",
    )


@dataclass(frozen=True, slots=True)
class VersionConflict:
    """What a change made from ``base_version`` would overwrite: the newest version, what
    changed from the base to it, and how the change differs from it."""

    base_version: int
    latest: RaftItemVersion
    diff: str  # base -> latest
    diff_to_submitted: str  # latest -> the change


def version_conflict(*, item: RaftItem, base_version: int, content: str) -> VersionConflict | None:
    """The conflict of saving ``content`` as a change of version ``base_version``, or None when
    that is the newest version (or the content is the newest version's)."""
    latest = latest_version(item=item)
    if latest is None or base_version >= latest.number:
        return None
    content = normalize_newlines(content)
    if content == latest.content:
        return None
    base = item.versions.filter(number=base_version).first()
    return VersionConflict(
        base_version=base_version,
        latest=latest,
        diff=diff_versions(old=base, new=latest)
        if base
        else diff_texts(
            old="", new=latest.content, old_name=f"{item} v{base_version}", new_name=str(latest)
        ),
        diff_to_submitted=diff_to_text(version=latest, content=content),
    )


def draft_of(*, item: RaftItem, user) -> RaftItemDraft | None:
    """``user``'s draft of ``item``; nobody sees another's."""
    if not getattr(user, "is_authenticated", False):
        return None
    return RaftItemDraft.objects.filter(item=item, user=user).first()


def editor_mode(*, content: str, kind: str = RaftItem.Kind.SCRIPT, default: str = "") -> str:
    """How a text opens in the editor: "text" or "visual". An OtterScript script or module
    opens as its header asks (``##AH:UseTextMode``, ``##AH:UseVisualMode``; the first wins),
    else in ``default`` (the user's choice) or visual; other kinds open as text. The headers
    are read from the lines before the first statement, so a half-typed draft has a mode too."""
    if kind not in (RaftItem.Kind.SCRIPT, RaftItem.Kind.MODULE):
        return "text"
    for header in leading_headers(content=content):
        for mode, mode_header in MODE_HEADERS.items():
            if header.strip().lower() == mode_header.lower():
                return mode
    return default if default in EDITOR_MODES else DEFAULT_EDITOR_MODE


def leading_headers(*, content: str) -> list[str]:
    """The ``##AH:`` lines of a script as the parser takes them: before its first statement,
    among blank lines and comments. (Writing them is the formatter's work.)"""
    headers = []
    in_block_comment = False
    for raw in content.splitlines():
        line = raw.strip()
        if in_block_comment:
            in_block_comment = "*/" not in line
        elif line.startswith("##AH:"):
            headers.append(line)
        elif line.startswith("/*"):
            in_block_comment = "*/" not in line[2:]
        elif line and not line.startswith(("#", "//")):
            break
    return headers


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
