"""API routes of the audit app, under /api/: the audit trail."""

from rest_framework.routers import SimpleRouter

from otterweb.audit import api

router = SimpleRouter()
router.register("audit", api.EntryViewSet, basename="audit")
