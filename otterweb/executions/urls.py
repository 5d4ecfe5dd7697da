from django.urls import path

from otterweb.executions import views

urlpatterns = [
    path("executions/", views.ExecutionListView.as_view(), name="execution-list"),
    path("executions/<int:pk>/", views.ExecutionDetailView.as_view(), name="execution-detail"),
    path(
        "executions/<int:pk>/cancel/", views.ExecutionCancelView.as_view(), name="execution-cancel"
    ),
    path("templates/", views.JobTemplateListView.as_view(), name="template-list"),
    path("templates/<int:pk>/", views.JobTemplateLaunchView.as_view(), name="template-launch"),
]
