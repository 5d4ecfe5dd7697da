from django.urls import path

from otterweb.execution_logs import views

urlpatterns = [
    path(
        "executions/<int:pk>/log.txt",
        views.ExecutionLogDownloadView.as_view(format="text"),
        name="execution-log-text",
    ),
    path(
        "executions/<int:pk>/log.jsonl",
        views.ExecutionLogDownloadView.as_view(format="jsonl"),
        name="execution-log-jsonl",
    ),
]
