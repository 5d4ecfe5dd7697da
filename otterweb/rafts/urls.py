"""The rafts pages. An item's name may hold "/", so the pages about a raft or an item follow
a "-" segment (as in /rafts/main/deploy/web/-/edit/), which no raft or item name may be; they
come before ``raft-item``, whose name would match them otherwise."""

from django.urls import path

import otterweb.addresses  # noqa: F401  (registers <name:...>)
from otterweb.rafts import views

RAFT = "rafts/<name:raft>/"
ITEM = "rafts/<name:raft>/<path:name>/"

urlpatterns = [
    path("rafts/", views.RaftListView.as_view(), name="raft-list"),
    path("rafts/-/new/", views.RaftCreateView.as_view(), name="raft-create"),
    path(RAFT, views.RaftDetailView.as_view(), name="raft-detail"),
    path(RAFT + "-/edit/", views.RaftEditView.as_view(), name="raft-edit"),
    path(RAFT + "-/delete/", views.RaftDeleteView.as_view(), name="raft-delete"),
    path(RAFT + "-/new/", views.ItemCreateView.as_view(), name="raft-item-create"),
    path(ITEM + "-/edit/", views.ItemEditView.as_view(), name="raft-item-edit"),
    path(ITEM + "-/delete/", views.ItemDeleteView.as_view(), name="raft-item-delete"),
    path(ITEM + "-/diff/", views.DiffView.as_view(), name="raft-item-diff"),
    path(ITEM + "-/versions/<int:number>/", views.VersionView.as_view(), name="raft-item-version"),
    path(
        ITEM + "-/versions/<int:number>/restore/",
        views.RestoreView.as_view(),
        name="raft-item-restore",
    ),
    path(ITEM, views.RaftItemView.as_view(), name="raft-item"),
]
