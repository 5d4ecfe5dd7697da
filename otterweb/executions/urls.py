from django.urls import path

from otterweb.addresses import moved
from otterweb.executions import template_views, views

urlpatterns = [
    path("executions/", views.ExecutionListView.as_view(), name="execution-list"),
    path("executions/<int:pk>/", views.ExecutionDetailView.as_view(), name="execution-detail"),
    path(
        "executions/<int:pk>/run-again/",
        views.ExecutionRunAgainView.as_view(),
        name="execution-run-again",
    ),
    path(
        "executions/<int:pk>/cancel/", views.ExecutionCancelView.as_view(), name="execution-cancel"
    ),
    path("executions/activity/", views.ExecutionActivityView.as_view(), name="execution-activity"),
    path("targets/preview/", views.TargetPreviewView.as_view(), name="target-preview"),
    # before the rafts' pages (otterweb.urls): their item address would take it for an item
    path(
        "rafts/<name:raft>/<path:name>/-/run/",
        views.RaftItemRunView.as_view(),
        name="raft-item-run",
    ),
    path("templates/", template_views.JobTemplateListView.as_view(), name="template-list"),
    path("templates/-/new/", template_views.JobTemplateEditView.as_view(), name="template-create"),
    path("templates/new/", moved("template-create")),
    path(
        "templates/<int:pk>/",
        template_views.JobTemplateLaunchView.as_view(),
        name="template-launch",
    ),
    path(
        "templates/<int:pk>/edit/",
        template_views.JobTemplateEditView.as_view(),
        name="template-edit",
    ),
    path(
        "templates/<int:pk>/delete/",
        template_views.JobTemplateDeleteView.as_view(),
        name="template-delete",
    ),
]
