"""The API's refusals as its schema documents them: in the one error body, with the status codes
the schema lists (tests/web/api/test_schema_conformance.py holds every operation to them)."""

from __future__ import annotations

import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from otterweb.api.error_body import error_body, first_message
from otterweb.executions.models import JobTemplate
from otterweb.rafts import services as rafts
from otterweb.rafts.models import Raft, RaftItem

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin(django_user_model) -> APIClient:
    client = APIClient()
    client.force_authenticate(django_user_model.objects.create_superuser("admin"))
    return client


@pytest.fixture
def run_item() -> RaftItem:
    raft = Raft.objects.create(name="main")
    item = rafts.save_item(
        raft=raft, name="deploy", kind=RaftItem.Kind.SCRIPT, content="Log-Information hi;"
    )
    JobTemplate.objects.create(name="Nightly", raft_item=item, targeting="servers")
    return item


def test_raft_item_delete_is_409_naming_the_templates_that_run_it(admin, run_item) -> None:
    answer = admin.delete(f"/api/raft-items/{run_item.pk}/")
    assert answer.status_code == 409
    assert answer.json()["code"] == "conflict"
    assert "the job templates Nightly run it" in answer.json()["detail"]
    assert RaftItem.objects.filter(pk=run_item.pk).exists()


def test_raft_delete_is_409_naming_the_templates_that_run_its_items(admin, run_item) -> None:
    answer = admin.delete(f"/api/rafts/{run_item.raft_id}/")
    assert answer.status_code == 409
    assert "the job templates Nightly run its items" in answer.json()["detail"]


def test_api_address_no_view_answers_is_404_in_the_error_body(admin) -> None:
    answer = admin.get("/api/raft-items/1.5/draft/")
    assert answer.status_code == 404
    assert answer["Content-Type"] == "application/json"
    assert answer.json()["code"] == "not_found"


def test_error_body_holds_errors_and_diagnostics_only_when_given() -> None:
    assert error_body("gone", "not_found") == {"detail": "gone", "code": "not_found"}
    errors = {"name": ["a name is needed"], "port": ["a number"]}
    assert error_body(first_message(errors), "invalid", errors=errors) == {
        "detail": "a name is needed",
        "code": "invalid",
        "errors": errors,
    }
    assert error_body("no parse", "script", diagnostics=[])["diagnostics"] == []


def test_api_schema_lists_each_operations_refusals_with_the_error_body() -> None:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    item = schema["paths"]["/api/raft-items/{id}/"]
    assert sorted(item["get"]["responses"]) == ["200", "400", "401", "403", "404", "429"]
    assert sorted(item["delete"]["responses"]) == ["204", "400", "401", "403", "404", "409", "429"]
    assert "415" in item["put"]["responses"]
    assert "404" not in schema["paths"]["/api/servers/"]["get"]["responses"]
    error = item["get"]["responses"]["404"]["content"]["application/json"]["schema"]
    assert error == {"$ref": "#/components/schemas/Error"}
    assert schema["components"]["schemas"]["Error"]["required"] == ["code", "detail"]
    limit = next(
        p for p in schema["paths"]["/api/servers/"]["get"]["parameters"] if p["name"] == "limit"
    )
    assert limit["schema"]["minimum"] == 1


@pytest.mark.parametrize("query", ["offset=x", "limit=2.5", "limit=0"])
def test_audit_csv_refuses_a_limit_or_offset_that_is_no_whole_number(admin, query) -> None:
    answer = admin.get(f"/api/audit/?format=csv&{query}")
    assert answer.status_code == 400
    assert query.split("=")[0] in answer.json()["errors"]
