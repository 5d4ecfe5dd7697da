"""API routes of the rafts app, under /api/: rafts, their items and the items' versions."""

from rest_framework.routers import SimpleRouter

from otterweb.rafts import api

router = SimpleRouter()
router.register("rafts", api.RaftViewSet)
router.register("raft-items", api.RaftItemViewSet)
router.register("raft-item-versions", api.RaftItemVersionViewSet)
