"""`GET /api/audit/`: the audit trail, newest first, filtered as the page is, as JSON pages or
as CSV (`?format=csv` or `/api/audit.csv`: every entry the filters keep). Read only: there is
no way to change or delete an entry through the API."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator

from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import serializers, viewsets
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.permissions import BasePermission
from rest_framework.renderers import BaseRenderer
from rest_framework.settings import api_settings

from otterweb.audit import selectors
from otterweb.audit.forms import FilterForm
from otterweb.audit.models import Entry

CSV_COLUMNS = [
    "id",
    "timestamp",
    "who",
    "address",
    "action",
    "kind",
    "object_id",
    "object",
    "changes",
    "data",
]
# a cell a spreadsheet would take for a formula starts with one of these: it gets a quote first
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


class MayViewAudit(BasePermission):
    message = "You may not read the audit trail: that needs the permission 'audit.view_entry'."

    def has_permission(self, request, view) -> bool:
        return selectors.may_view(request.user)


class CSVRenderer(BaseRenderer):
    """text/csv: the list streams its rows itself; only an error body reaches ``render``."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None) -> bytes:
        detail = data.get("detail", "") if isinstance(data, dict) else str(data)
        return csv_text([["detail"], [detail]]).encode()


class EntrySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    timestamp = serializers.DateTimeField()
    who = serializers.CharField(
        source="actor_name", help_text="The user; empty for OtterWeb itself or a failed login."
    )
    address = serializers.IPAddressField(
        source="remote_addr", allow_null=True, help_text="Where the request came from."
    )
    action = serializers.ChoiceField(
        source="action_name", choices=[action.name.lower() for action in Entry.Action]
    )
    kind = serializers.CharField(help_text="The kind of object: app_label.model.")
    object_id = serializers.CharField(source="object_pk")
    object = serializers.CharField(source="object_repr")
    changes = serializers.JSONField(
        allow_null=True,
        help_text="Field -> [before, after]; a secret shows only that it changed.",
    )
    # a declared field leaves the class (SerializerMetaclass): it hides no Serializer.data
    data = serializers.JSONField(  # type: ignore[assignment]
        source="additional_data", allow_null=True, help_text="What else says what happened."
    )


FILTERS = [
    OpenApiParameter("who", str, description="A user name (exactly, any case)."),
    OpenApiParameter("kind", str, description="The kind of object: app_label.model."),
    OpenApiParameter(
        "action", str, enum=[action.name.lower() for action in Entry.Action], description="Action."
    ),
    OpenApiParameter("since", OpenApiTypes.DATE, description="From this day on (UTC)."),
    OpenApiParameter("until", OpenApiTypes.DATE, description="Up to this day, included (UTC)."),
    OpenApiParameter("q", str, description="In the object's name, or its id."),
]


@extend_schema_view(
    list=extend_schema(
        summary="The audit trail",
        description="Every change, login and run event, newest first. `?format=csv` (or "
        "`/api/audit.csv`) answers every entry the filters keep as CSV, unpaged.",
        parameters=FILTERS,
    ),
    retrieve=extend_schema(summary="One audit entry"),
)
class EntryViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = EntrySerializer
    permission_classes = [MayViewAudit]
    # the stubs type the setting as the renderers' dotted paths; it holds the classes
    renderer_classes = [*api_settings.DEFAULT_RENDERER_CLASSES, CSVRenderer]  # type: ignore[list-item]
    queryset = Entry.objects.none()  # for the schema; get_queryset answers

    def get_queryset(self):
        if self.action != "list":
            return selectors.entries()
        form = FilterForm(self.request.query_params)
        if not form.is_valid():
            # DRF takes a form's errors as they are; the stubs leave Django's ErrorList out
            raise ValidationError(form.errors)  # type: ignore[arg-type]
        return selectors.entries(filters=form.filters())

    def handle_exception(self, exc):
        """A refusal is the API's one error body in JSON, also when CSV was asked for."""
        response = super().handle_exception(exc)
        renderer = self.renderer_classes[0]()
        self.request.accepted_renderer = renderer
        self.request.accepted_media_type = renderer.media_type
        return response

    def list(self, request, *args, **kwargs):
        if request.accepted_renderer.format == "csv":
            # unpaged, but a limit or offset that is no whole number is refused as for JSON
            paginator = self.paginator
            if isinstance(paginator, LimitOffsetPagination):
                paginator.get_limit(request)
                paginator.get_offset(request)
            response = StreamingHttpResponse(
                csv_lines(self.get_queryset()), content_type="text/csv; charset=utf-8"
            )
            response["Content-Disposition"] = 'attachment; filename="audit.csv"'
            return response
        return super().list(request, *args, **kwargs)


def csv_row(entry: Entry) -> list[str]:
    return [
        str(entry.pk),
        entry.timestamp.isoformat(),
        entry.actor_name,
        entry.remote_addr or "",
        entry.action_name,
        entry.kind,
        entry.object_pk,
        entry.object_repr,
        json.dumps(entry.changes or {}, sort_keys=True),
        json.dumps(entry.additional_data or {}, sort_keys=True),
    ]


def csv_lines(entries) -> Iterator[str]:
    yield csv_text([CSV_COLUMNS])
    for entry in entries.iterator(chunk_size=500):
        yield csv_text([csv_row(entry)])


def csv_text(rows: Iterable[list[str]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    for row in rows:
        writer.writerow([f"'{cell}" if cell.startswith(FORMULA_STARTS) else cell for cell in row])
    return out.getvalue()
