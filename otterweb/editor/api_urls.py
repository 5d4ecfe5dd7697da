"""API routes of the script editor, under /api/: check, format, blocks and back, the names a
raft's scripts can use, and the reference of operations and functions."""

from django.urls import path

from otterweb.editor import api

urlpatterns = [
    path("scripts/check/", api.DiagnosticsView.as_view(), name="script-check"),
    path("scripts/format/", api.FormatView.as_view(), name="script-format"),
    path("scripts/blocks/", api.BlocksView.as_view(), name="script-blocks"),
    path("scripts/unblocks/", api.UnblocksView.as_view(), name="script-unblocks"),
    path("scripts/names/", api.NamesView.as_view(), name="script-names"),
    path("reference/", api.ReferenceView.as_view(), name="reference"),
]
