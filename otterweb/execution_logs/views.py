"""The log's pages: its downloads (the execution's page, with the live log viewer, is the
executions app's)."""

from __future__ import annotations

from django.contrib.auth.mixins import LoginRequiredMixin, UserPassesTestMixin
from django.core.handlers.asgi import ASGIRequest
from django.http import Http404, HttpRequest, StreamingHttpResponse
from django.views import View

from otterweb.execution_logs import hooks
from otterweb.execution_logs.selectors import LogDownload


class ExecutionLogDownloadView(LoginRequiredMixin, UserPassesTestMixin, View):
    """GET /executions/<pk>/log.txt or log.jsonl: the whole log, as the API's download."""

    format = "text"

    def test_func(self) -> bool:
        return hooks.may_view(self.request.user)

    def get(self, request, pk: int):
        execution = hooks.find(pk, request.user)
        if execution is None:
            raise Http404("No execution matches the given query.")
        return download_response(
            LogDownload(execution_id=execution.pk, format=self.format), request
        )


def download_response(download: LogDownload, request: HttpRequest) -> StreamingHttpResponse:
    """The log streamed as an attachment. Under ASGI the response gets an async iterator: Django
    would read a synchronous one whole into memory before sending it."""
    asynchronous = isinstance(request, ASGIRequest)
    response = StreamingHttpResponse(
        download.chunks() if asynchronous else iter(download), content_type=download.content_type
    )
    response["Content-Disposition"] = f'attachment; filename="{download.filename}"'
    response["X-Content-Type-Options"] = "nosniff"
    return response
