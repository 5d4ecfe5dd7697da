"""Where rafts and their items are, for privileges (otterweb.privileges.places)."""

from __future__ import annotations

from otterweb.privileges.places import Place, register
from otterweb.rafts.models import Raft, RaftItem, RaftItemDraft, RaftItemVersion


def register_places() -> None:
    register(Raft, lambda raft: Place(raft=raft.pk))
    register(RaftItem, lambda item: Place(raft=item.raft_id))
    register(RaftItemVersion, lambda version: Place(raft=version.item.raft_id))
    register(RaftItemDraft, lambda draft: Place(raft=draft.item.raft_id))
