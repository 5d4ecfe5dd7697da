from django.contrib import admin
from django.urls import include, path

from otterweb import views
from otterweb.executions.views import (
    ExecutionCancelView,
    ExecutionDetailView,
    ExecutionListView,
    JobTemplateLaunchView,
    JobTemplateListView,
)
from otterweb.inventory.views import ServerVariablesView
from otterweb.rafts.views import RaftItemView, RaftListView

urlpatterns = [
    path("", views.HomeView.as_view(), name="home"),
    path(
        "inventory/servers/<slug:name>/variables/",
        ServerVariablesView.as_view(),
        name="server-variables-page",
    ),
    path("executions/", ExecutionListView.as_view(), name="execution-list"),
    path("executions/<int:pk>/", ExecutionDetailView.as_view(), name="execution-detail"),
    path("executions/<int:pk>/cancel/", ExecutionCancelView.as_view(), name="execution-cancel"),
    path("templates/", JobTemplateListView.as_view(), name="template-list"),
    path("templates/<int:pk>/", JobTemplateLaunchView.as_view(), name="template-launch"),
    path("rafts/", RaftListView.as_view(), name="raft-list"),
    path("rafts/<slug:raft>/<path:name>/", RaftItemView.as_view(), name="raft-item"),
    path("api/", include("otterweb.api.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
]
