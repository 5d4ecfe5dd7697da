"""Writing rafts: every save of an item makes a version."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max

from engine import OtterSyntaxError, parse
from otterweb.rafts.models import Raft, RaftItem, RaftItemVersion


@transaction.atomic
def save_item(
    *,
    raft: Raft,
    name: str,
    content: str,
    kind: str = RaftItem.Kind.SCRIPT,
    author=None,
    message: str = "",
) -> RaftItem:
    """Create or change a raft item and record the new content as its next version. An
    OtterScript script or module that does not parse is refused with its diagnostics."""
    if kind in (RaftItem.Kind.SCRIPT, RaftItem.Kind.MODULE):
        try:
            parse(content, name=f"{raft.name}::{name}")
        except OtterSyntaxError as error:
            raise ValidationError(
                [d.format(name) for d in error.diagnostics if d.is_error]
            ) from None
    item, _created = RaftItem.objects.select_for_update().get_or_create(
        raft=raft, name=name, defaults={"kind": kind}
    )
    unchanged = item.content == content and item.versions.exists()
    item.kind = kind
    item.content = content
    item.full_clean()
    item.save()
    if not unchanged:
        latest = item.versions.aggregate(latest=Max("number"))["latest"] or 0
        RaftItemVersion.objects.create(
            item=item, number=latest + 1, content=content, author=author, message=message
        )
    return item


def restore_version(*, version: RaftItemVersion, author=None) -> RaftItem:
    """Make an old version the current content (as a new version, so nothing is lost)."""
    item = version.item
    return save_item(
        raft=item.raft, name=item.name, content=version.content, kind=item.kind, author=author,
        message=f"Restored version {version.number}",
    )  # fmt: skip
