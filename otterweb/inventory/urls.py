"""Inventory pages under /inventory/. A new object's page is ``-/new/``, as everywhere (no name
is "-": otterweb.names); the ``+new/`` of earlier versions sends there."""

from django.urls import path

from otterweb.addresses import moved
from otterweb.inventory import views


def pages(plural: str, name: str, list_view, create, detail, change, delete) -> list:
    """The five pages of one kind: ``<name>-list``, ``-create``, ``-detail``, ``-edit``, ``-delete``."""
    return [
        path(f"inventory/{plural}/", list_view.as_view(), name=f"{name}-list"),
        path(f"inventory/{plural}/-/new/", create.as_view(), name=f"{name}-create"),
        path(f"inventory/{plural}/+new/", moved(f"{name}-create")),
        path(f"inventory/{plural}/<name:name>/", detail.as_view(), name=f"{name}-detail"),
        path(f"inventory/{plural}/<name:name>/edit/", change.as_view(), name=f"{name}-edit"),
        path(f"inventory/{plural}/<name:name>/delete/", delete.as_view(), name=f"{name}-delete"),
    ]


urlpatterns = [
    path("inventory/packages/", views.PackageSearchView.as_view(), name="package-search"),
    *pages(
        "environments",
        "environment",
        views.EnvironmentListView,
        views.EnvironmentCreateView,
        views.EnvironmentDetailView,
        views.EnvironmentChangeView,
        views.EnvironmentDeleteView,
    ),
    *pages(
        "roles",
        "role",
        views.RoleListView,
        views.RoleCreateView,
        views.RoleDetailView,
        views.RoleChangeView,
        views.RoleDeleteView,
    ),
    *pages(
        "servers",
        "server",
        views.ServerListView,
        views.ServerCreateView,
        views.ServerDetailView,
        views.ServerChangeView,
        views.ServerDeleteView,
    ),
    *pages(
        "credentials",
        "credential",
        views.CredentialListView,
        views.CredentialCreateView,
        views.CredentialDetailView,
        views.CredentialChangeView,
        views.CredentialDeleteView,
    ),
    path(
        "inventory/servers/<name:name>/variables/",
        views.ServerVariablesView.as_view(),
        name="server-variables-page",
    ),
    path(
        "inventory/servers/<name:name>/packages/",
        views.ServerPackagesView.as_view(),
        name="server-packages",
    ),
    path(
        "inventory/servers/<name:name>/check/",
        views.ServerReachabilityCheckView.as_view(),
        name="server-check",
    ),
    path(
        "inventory/servers/<name:name>/trust-host-key/",
        views.ServerTrustHostKeyView.as_view(),
        name="server-trust-host-key",
    ),
    path(
        "inventory/servers/<name:name>/forget-host-keys/",
        views.ServerForgetHostKeysView.as_view(),
        name="server-forget-host-keys",
    ),
    path("inventory/variables/", views.GlobalVariablesView.as_view(), name="variable-list"),
    path(
        "inventory/variables/<int:pk>/delete/",
        views.VariableDeleteView.as_view(),
        name="variable-delete",
    ),
]
