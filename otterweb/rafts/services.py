"""Writing rafts: every save of an item makes a version."""

from __future__ import annotations

import dataclasses
import unicodedata
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import ProtectedError

from engine import OtterSyntaxError, format_script, parse
from otterweb.parse_errors import parse_failure
from otterweb.rafts import selectors
from otterweb.rafts.models import Raft, RaftItem, RaftItemDraft, RaftItemVersion

# The segment that separates an item's name from the page it is on in the raft URLs
# (/rafts/main/deploy/-/edit/): no raft and no segment of an item's name may be it.
RESERVED_SEGMENT = "-"

# what must hold before an item's content changes, from the apps that run items (schedules:
# the rights their runs need); each takes item, content and user and raises ValidationError
ITEM_CHANGE_CHECKS: list[Callable[..., None]] = []


def check_item_change(*, item: RaftItem, content: str, user) -> None:
    """Raise ValidationError when ``user`` may not give ``item`` this ``content``."""
    for check in ITEM_CHANGE_CHECKS:
        check(item=item, content=content, user=user)


def check_raft_name(*, name: str) -> None:
    """Refuse a raft name that the raft pages could not tell from one of their own."""
    if name == RESERVED_SEGMENT:
        raise ValidationError(
            {"name": f"“{RESERVED_SEGMENT}” is kept for the pages; choose another name."}
        )


def check_item_name(*, name: str) -> None:
    """Refuse an item name that is not a path of non-empty segments, or has the reserved one,
    or that its pages' URLs cannot carry: a control or invisible character (a line break, U+202E
    that turns text around), or a “.” or “..” part (which browsers resolve away)."""
    segments = name.split("/")
    if not name.strip() or any(not segment.strip() for segment in segments):
        raise ValidationError(
            {"name": "A name has no empty part: no leading, trailing or doubled “/”."}
        )
    for character in name:
        if unicodedata.category(character) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            raise ValidationError(
                {
                    "name": "A name holds no control or invisible character (a line break, a tab, "
                    f"a direction mark); this one holds U+{ord(character):04X}."
                }
            )
    if any(segment.strip() in (".", "..") for segment in segments):
        raise ValidationError({"name": "No part of a name between “/” may be “.” or “..”."})
    if RESERVED_SEGMENT in segments:
        raise ValidationError(
            {"name": f"No part of a name between “/” may be “{RESERVED_SEGMENT}” alone."}
        )


class ScriptInvalid(ValidationError):
    """An OtterScript script or module that does not parse: its diagnostics
    (``name:line:column: error: ...``) keyed by ``content``, and the parser's error itself
    (``syntax_error``) for an editor that marks them in place."""

    def __init__(self, error: OtterSyntaxError, *, name: str) -> None:
        super().__init__(parse_failure(error, name=name, field="content"))
        self.syntax_error = error


class StaleBaseVersion(Exception):
    """A change made from a version that is no longer the item's newest: saving it would undo,
    unseen, what came after. ``conflict`` says what."""

    def __init__(self, *, item: RaftItem, conflict: selectors.VersionConflict) -> None:
        latest = conflict.latest
        who = f"by {latest.author}" if latest.author else "author unknown"
        super().__init__(
            f"{item} has changed since version {conflict.base_version}, which this change was "
            f"made from: version {latest.number} is the newest ({who}, "
            f"{latest.created:%Y-%m-%d %H:%M} UTC). Merge the change into it and save again."
        )
        self.item = item
        self.conflict = conflict


def check_content(*, kind: str, content: str, name: str) -> None:
    """Refuse an OtterScript script or module that does not parse, with its diagnostics
    (``name:line:column: error: ...``) keyed by ``content`` (:class:`ScriptInvalid`); other
    kinds hold any text."""
    if kind not in (RaftItem.Kind.SCRIPT, RaftItem.Kind.MODULE):
        return
    try:
        parse(content, name=name)
    except OtterSyntaxError as error:
        raise ScriptInvalid(error, name=name) from None


def check_size(*, content: str, field: str = "content") -> None:
    """Refuse text over ``OTTERWEB_MAX_SCRIPT_BYTES`` (bytes of UTF-8), naming the limit."""
    size = len(content.encode("utf-8", "surrogatepass"))
    limit = settings.OTTERWEB_MAX_SCRIPT_BYTES
    if size > limit:
        raise ValidationError(
            {
                field: (
                    f"The text is {size:,} bytes; the server keeps at most {limit:,} bytes "
                    "(OTTERWEB_MAX_SCRIPT_BYTES)."
                )
            }
        )


def create_raft(*, name: str, description: str = "") -> Raft:
    check_raft_name(name=name)
    raft = Raft(name=name, description=description)
    raft.full_clean()
    raft.save()
    return raft


def update_raft(*, raft: Raft, name: str, description: str) -> Raft:
    """Rename a raft or change its description. Scripts that name its modules as
    ``raft::module`` must be changed too: the rename does not rewrite them."""
    check_raft_name(name=name)
    raft.name = name
    raft.description = description
    raft.full_clean()
    raft.save()
    return raft


class InUse(ValidationError):
    """A raft or item is not deleted while job templates run it (the API answers 409)."""


@transaction.atomic
def delete_raft(*, raft: Raft) -> int:
    """Delete a raft with its items and their versions; returns how many items went. Refused
    while job templates run any of its items."""
    templates = selectors.job_templates_of(items=raft.items.all())
    if templates:
        raise InUse(
            f"The raft {raft} is not deleted: the job templates {', '.join(templates)} run its "
            "items. Change or delete those templates first."
        )
    count = selectors.raft_item_count(raft=raft)
    try:
        raft.delete()
    except ProtectedError as error:  # a template made since the check
        raise InUse(f"The raft {raft} is still in use: {error.args[0]}") from None
    return count


@transaction.atomic
def create_item(
    *, raft: Raft, name: str, kind: str, content: str = "", author=None, message: str = ""
) -> RaftItem:
    """A new item with its first version; refused if the raft already has one of that name."""
    check_item_name(name=name)
    if RaftItem.objects.filter(raft=raft, name=name).exists():
        raise ValidationError({"name": "The raft already has an item of that name."})
    return save_item(
        raft=raft,
        name=name,
        content=content,
        kind=kind,
        author=author,
        message=message or "Created",
    )


@transaction.atomic
def save_item(
    *,
    raft: Raft,
    name: str,
    content: str,
    kind: str = RaftItem.Kind.SCRIPT,
    author=None,
    message: str = "",
    base_version: int | None = None,
) -> RaftItem:
    """Create or change a raft item and record the new content as its next version (none
    when the content is what it was). An OtterScript script or module that does not parse is
    refused with its diagnostics. With ``base_version`` (the version the change was made
    from), a change of an item that has a newer version is refused (:class:`StaleBaseVersion`)
    unless it is that version's content: nothing is overwritten unseen. Changing an item that
    schedules or triggers run needs the rights their runs need (``author``'s; None: OtterWeb
    itself)."""
    check_content(kind=kind, content=content, name=f"{raft.name}::{name}")
    if not RaftItem.objects.filter(raft=raft, name=name).exists():
        check_item_name(name=name)  # a new item (a rename checks its own)
    item, _created = RaftItem.objects.select_for_update().get_or_create(
        raft=raft, name=name, defaults={"kind": kind}
    )
    if not _created:
        check_item_change(item=item, content=content, user=author)
    if base_version is not None and not _created:
        conflict = selectors.version_conflict(item=item, base_version=base_version, content=content)
        if conflict is not None:
            raise StaleBaseVersion(item=item, conflict=conflict)
    item.kind = kind
    item.content = content
    item.full_clean()
    item.save()  # the field gives the content \n line endings
    latest = item.versions.order_by("-number").first()
    if latest is None or latest.content != item.content:
        RaftItemVersion.objects.create(
            item=item,
            number=(latest.number if latest else 0) + 1,
            content=item.content,
            author=author,
            message=message,
        )
    return item


def save_content(
    *, item: RaftItem, content: str, author=None, message: str = "", base_version: int | None = None
) -> RaftItem:
    """Save ``content`` as ``item``'s next version (:func:`save_item`, the item kept where it is
    and as what it is)."""
    return save_item(
        raft=item.raft,
        name=item.name,
        content=content,
        kind=item.kind,
        author=author,
        message=message,
        base_version=base_version,
    )


@transaction.atomic
def rename_item(*, item: RaftItem, name: str, raft: Raft | None = None) -> RaftItem:
    """Rename an item, move it to another raft (``raft``), or both; its versions and the job
    templates that run it go with it."""
    check_item_name(name=name)
    item.name = name
    item.raft = raft or item.raft
    item.full_clean()
    item.save()
    return item


def delete_item(*, item: RaftItem) -> None:
    """Delete an item and its versions; refused while job templates run it."""
    templates = selectors.job_templates_of(items=[item])
    if templates:
        raise InUse(
            f"{item} is not deleted: the job templates {', '.join(templates)} run it. "
            "Change or delete those templates first."
        )
    try:
        item.delete()
    except ProtectedError as error:
        raise InUse(f"{item} is still in use: {error.args[0]}") from None


def restore_version(
    *, version: RaftItemVersion, author=None, base_version: int | None = None
) -> RaftItem:
    """Make an old version the current content (as a new version, so nothing is lost); with
    ``base_version``, refused when the item has moved on from it (:class:`StaleBaseVersion`)."""
    return save_content(
        item=version.item,
        content=version.content,
        author=author,
        message=f"Restored version {version.number}",
        base_version=base_version,
    )


# ---- the editor: drafts, commits, the mode a script opens in ------------------------------


def save_draft(*, item: RaftItem, user, content: str, base_version: int) -> RaftItemDraft:
    """Keep ``user``'s unsaved edit of ``item`` (one per user and item; the last one wins).
    Never a version and never parsed: a draft may be half-typed. Text over the size limit is
    refused and the draft kept as it was."""
    check_size(content=content)
    if not item.versions.filter(number=base_version).exists():
        raise ValidationError({"base_version": f"{item} has no version {base_version}."})
    draft, _created = RaftItemDraft.objects.update_or_create(
        item=item, user=user, defaults={"content": content, "base_version": base_version}
    )
    return draft


def delete_draft(*, item: RaftItem, user) -> bool:
    """Forget ``user``'s draft of ``item``; whether there was one."""
    deleted, _ = RaftItemDraft.objects.filter(item=item, user=user).delete()
    return bool(deleted)


@transaction.atomic
def commit_item(
    *,
    item: RaftItem,
    content: str,
    author,
    base_version: int,
    message: str = "",
    mode: str | None = None,
) -> RaftItem:
    """Save what the editor shows as the item's next version and forget the author's draft.
    Refused, with nothing saved and the draft kept: text over the size limit; a script or
    module that does not parse (:class:`ScriptInvalid`); a change made from a version that is
    no longer the newest (:class:`StaleBaseVersion`). With ``mode`` ("text" or "visual"), the
    script's header says it opens in that mode from now on."""
    check_size(content=content)
    name = f"{item.raft.name}::{item.name}"
    if mode is not None:
        if not item.is_otterscript:
            raise ValidationError({"mode": "Only OtterScript scripts and modules have a mode."})
        try:
            content = with_editor_mode(content=content, mode=mode, name=name)
        except OtterSyntaxError as error:
            raise ScriptInvalid(error, name=name) from None
    saved = save_content(
        item=item, content=content, author=author, message=message, base_version=base_version
    )
    delete_draft(item=saved, user=author)
    return saved


def with_editor_mode(*, content: str, mode: str, name: str = "<script>") -> str:
    """``content`` with the header that makes it open in ``mode`` ("text" or "visual") in place
    of the other one, its other headers kept. The text is the formatter's (the only writer of
    OtterScript), unchanged when it has the header already. OtterSyntaxError when it does not
    parse."""
    if mode not in selectors.EDITOR_MODES:
        raise ValidationError({"mode": f"A mode is text or visual, not {mode!r}."})
    script = parse(content, name=name)
    wanted = selectors.MODE_HEADERS[mode]
    mode_headers = {h.lower() for h in selectors.MODE_HEADERS.values()}
    headers: list[str] = []
    for header in script.headers:
        if header.strip().lower() not in mode_headers:
            headers.append(header)
        elif wanted not in headers:  # the first mode header's place
            headers.append(wanted)
    if wanted not in headers:
        headers.insert(0, wanted)
    if tuple(headers) == script.headers:
        return content
    return format_script(dataclasses.replace(script, headers=tuple(headers)))
