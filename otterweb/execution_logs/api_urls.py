"""API routes of the execution logs, under /api/: an execution's log, under the execution's own
address (its other routes are otterweb.executions.api_urls')."""

from django.urls import path

from otterweb.execution_logs import api

LOG = "executions/<int:pk>/"

urlpatterns = [
    path(LOG + "logs/", api.LogEntriesView.as_view(), name="execution-logs"),
    path(LOG + "log/index/", api.LogIndexView.as_view(), name="execution-log-index"),
    path(LOG + "log/lines/", api.LogLinesView.as_view(), name="execution-log-lines"),
    path(LOG + "log/search/", api.LogSearchView.as_view(), name="execution-log-search"),
    path(LOG + "log/download/", api.LogDownloadView.as_view(), name="execution-log-download"),
]
