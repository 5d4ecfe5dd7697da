"""Reading the trail: the page and the API filter alike, newest first and paged; CSV export
with its columns; only who may see it sees it; nothing changes or deletes an entry through
the product (API, admin); retention deletes only entries past it."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest
from django.test import RequestFactory
from django.urls import reverse
from django.utils import timezone

from otterweb.audit import context, services
from otterweb.audit.api import CSV_COLUMNS
from otterweb.audit.models import Entry
from otterweb.housekeeping import ROUNDS
from otterweb.inventory import services as inventory

pytestmark = pytest.mark.django_db
A = Entry.Action


@pytest.fixture
def trail(admin_user):
    """Three changes by admin, from 10.0.0.9, then one by nobody (OtterWeb itself)."""
    request = RequestFactory().get("/", REMOTE_ADDR="10.0.0.9")
    request.user = admin_user
    with context.answering(request):
        web = inventory.save_server(name="web1")
        inventory.save_server(server=web, name="web1", port=2200)
        inventory.save_environment(name="-cmd")
    inventory.save_role(name="db")
    return Entry.objects.filter(action__lt=10)


def listed(client, query: str = "") -> list[tuple[str, str, str]]:
    response = client.get(f"/api/audit/?{query}")
    assert response.status_code == 200, response.content
    return [(e["action"], e["kind"], e["object"]) for e in response.json()["results"]]


def test_api_lists_newest_first_with_who_and_where(admin_client, trail) -> None:
    results = admin_client.get("/api/audit/?kind=inventory.server").json()["results"]
    assert [(e["action"], e["who"], e["address"], e["changes"].get("port")) for e in results] == [
        ("update", "admin", "10.0.0.9", ["22", "2200"]),
        ("create", "admin", "10.0.0.9", ["None", "22"]),
    ]


def test_api_filters_by_who_kind_action_text_and_dates(admin_client, trail) -> None:
    assert listed(admin_client, "who=ADMIN&action=create") == [
        ("create", "inventory.environment", "-cmd"),
        ("create", "inventory.server", "web1"),
    ]
    assert listed(admin_client, "action=create&kind=inventory.role") == [
        ("create", "inventory.role", "db")
    ]
    assert listed(admin_client, "q=WEB&action=update") == [("update", "inventory.server", "web1")]
    today = timezone.now().date()
    assert len(listed(admin_client, f"since={today}&until={today}&kind=inventory.server")) == 2
    assert listed(admin_client, f"until={today - timedelta(days=1)}") == []
    Entry.objects.filter(object_repr="db").update(timestamp=timezone.now() - timedelta(days=3))
    assert listed(admin_client, f"since={today}&kind=inventory.role") == []


def test_api_refuses_a_filter_it_cannot_read_with_400(admin_client, trail) -> None:
    for query in (
        "action=erase",
        "since=yesterday",
        "kind=no.such",
        "since=2026-02-02&until=2026-02-01",
    ):
        response = admin_client.get(f"/api/audit/?{query}")
        assert response.status_code == 400, query
        assert response.json()["code"] == "invalid"


def test_api_csv_export_has_its_columns_and_every_filtered_entry(admin_client, trail) -> None:
    for url in (
        "/api/audit/?format=csv&kind=inventory.environment",
        "/api/audit.csv?kind=inventory.environment",
    ):
        response = admin_client.get(url)
        assert response.status_code == 200, url
        assert response["Content-Type"].startswith("text/csv")
        rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
        assert rows[0] == CSV_COLUMNS
        (row,) = rows[1:]
        line = dict(zip(CSV_COLUMNS, row, strict=True))
        assert (line["who"], line["address"], line["action"], line["kind"]) == (
            "admin",
            "10.0.0.9",
            "create",
            "inventory.environment",
        )
        # a name a spreadsheet would run as a formula is quoted
        assert line["object"] == "'-cmd"


def test_api_is_read_only(admin_client, trail) -> None:
    entry = trail.first()
    url = f"/api/audit/{entry.pk}/"
    assert admin_client.get(url).status_code == 200
    assert admin_client.put(url, {}, content_type="application/json").status_code == 405
    assert admin_client.patch(url, {}, content_type="application/json").status_code == 405
    assert admin_client.delete(url).status_code == 405
    assert admin_client.post("/api/audit/", {}, content_type="application/json").status_code == 405
    assert Entry.objects.filter(pk=entry.pk).exists()


def test_admin_shows_entries_but_never_adds_changes_or_deletes_them(admin_client, trail) -> None:
    entry = trail.first()
    assert admin_client.get(reverse("admin:audit_entry_changelist")).status_code == 200
    assert admin_client.get(reverse("admin:audit_entry_change", args=[entry.pk])).status_code == 200
    assert admin_client.get(reverse("admin:audit_entry_add")).status_code == 403
    changed = admin_client.post(
        reverse("admin:audit_entry_change", args=[entry.pk]), {"object_repr": "forged"}
    )
    assert changed.status_code == 403
    deleted = admin_client.post(
        reverse("admin:audit_entry_delete", args=[entry.pk]), {"post": "yes"}
    )
    assert deleted.status_code == 403
    bulk = admin_client.post(
        reverse("admin:audit_entry_changelist"),
        {"action": "delete_selected", "_selected_action": [entry.pk], "post": "yes"},
    )
    assert bulk.status_code in (200, 302)
    entry.refresh_from_db()
    assert entry.object_repr != "forged"


def test_who_may_see_it_is_the_view_permission_or_a_superuser(client_with, trail) -> None:
    nobody = client_with("inventory.view_server")
    assert nobody.get("/api/audit/").status_code == 403
    assert nobody.get(reverse("audit-list")).status_code == 403
    auditor = client_with("audit.view_entry")
    assert auditor.get("/api/audit/").status_code == 200
    page = auditor.get(reverse("audit-list"))
    assert page.status_code == 200
    assert b"Audit trail" in page.content


def test_page_filters_and_pages_newest_first(admin_client, trail) -> None:
    page = admin_client.get(reverse("audit-list"), {"kind": "inventory.server"}).content.decode()
    assert page.index("<ins>2200</ins>") < page.index(
        "<ins>22</ins>"
    )  # the change, then the create
    assert "-cmd" not in page
    bad = admin_client.get(reverse("audit-list"), {"action": "erase"})
    assert bad.status_code == 200 and "Select a valid choice" in bad.content.decode()
    for number in range(60):
        inventory.save_role(name=f"r{number}")
    first = admin_client.get(reverse("audit-list"), {"kind": "inventory.role"}).content.decode()
    assert "r59" in first and "Page 1 of 2" in first and "r0<" not in first
    second = admin_client.get(
        reverse("audit-list"), {"kind": "inventory.role", "page": 2}
    ).content.decode()
    assert "r0<" in second.replace("</td>", "<").replace(" <small", "<")


def test_retention_deletes_only_entries_past_it(settings, trail) -> None:
    now = timezone.now()
    old = list(trail.order_by("pk")[:2])
    Entry.objects.filter(pk__in=[e.pk for e in old]).update(timestamp=now - timedelta(days=31))
    Entry.objects.filter(pk=trail.order_by("pk")[2].pk).update(timestamp=now - timedelta(days=29))
    kept = Entry.objects.count() - 2
    settings.OTTERWEB_AUDIT_RETENTION_DAYS = 0
    assert services.delete_expired(now=now) == 0 and services.retention_interval() == 0
    settings.OTTERWEB_AUDIT_RETENTION_DAYS = 30
    assert services.delete_expired(now=now) == 2
    assert Entry.objects.count() == kept
    assert not Entry.objects.filter(pk__in=[e.pk for e in old]).exists()
    # the housekeeper of every process that runs executions does it
    housekeeping = ROUNDS["otterweb-audit-retention"]
    assert housekeeping.run is services.delete_expired and housekeeping.seconds() == 3600
