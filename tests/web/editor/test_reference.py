"""GET /api/reference/: the registry's operations and functions for the editor's completion and
hover docs."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from engine.registry import REGISTRY

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(client_with):
    """A signed-in user without any permission: the reference is for everyone who edits."""
    return client_with()


def test_reference_lists_every_registry_operation(client) -> None:
    response = client.get("/api/reference/")
    assert response.status_code == 200
    listed = {(o["namespace"], o["name"]) for o in response.json()["operations"]}
    assert listed == {(spec.namespace, spec.name) for spec in REGISTRY.all_operations()}


def test_reference_lists_every_registry_function_with_its_sigils(client) -> None:
    functions = {f["name"]: f for f in client.get("/api/reference/").json()["functions"]}
    assert set(functions) == {spec.name for spec in REGISTRY.all_functions()}
    assert functions["ToUpper"]["sigils"] == ["$"]
    assert functions["ToUpper"]["signature"] == "$ToUpper(text)"
    assert functions["ToUpper"]["parameters"] == [{"name": "text", "required": True}]
    assert functions["Range"]["sigils"] == ["@"]
    assert functions["Eval"]["returns"] is None
    assert functions["Eval"]["sigils"] == ["$", "@", "%"]


def test_reference_ensure_file_parameters(client) -> None:
    operations = client.get("/api/reference/").json()["operations"]
    ensure_file = next(o for o in operations if o["name"] == "Ensure-File")
    assert ensure_file["namespace"] == "Files"
    assert ensure_file["kind"] == "ensure"
    assert ensure_file["description"].startswith("Ensures a file exists")
    parameters = {p["name"]: p for p in ensure_file["parameters"]}
    assert list(parameters) == ["Name", "Text", "Exists", "ReadOnly", "Attributes", "Modified"]
    assert parameters["Name"] == {
        "name": "Name",
        "aliases": [],
        "type": "text",
        "required": True,
        "default": None,
        "positional": True,
        "output": False,
        "expanded": True,
        "description": "The path of the file.",
    }
    assert parameters["Exists"]["type"] == "true/false"
    assert parameters["Exists"]["default"] is True
    assert not parameters["Exists"]["required"] and not parameters["Exists"]["positional"]
    assert not any(p["output"] for p in ensure_file["parameters"])


def test_reference_output_and_aliased_parameters_are_marked(client) -> None:
    operations = client.get("/api/reference/").json()["operations"]
    expected = {
        (spec.name, p.name): (p.output, list(p.aliases))
        for spec in REGISTRY.all_operations()
        for p in spec.params
    }
    listed = {
        (o["name"], p["name"]): (p["output"], p["aliases"])
        for o in operations
        for p in o["parameters"]
    }
    assert listed == expected
    assert any(output for output, _ in listed.values())


def test_reference_refuses_anonymous_users() -> None:
    response = APIClient().get("/api/reference/")
    assert response.status_code in (401, 403)
    assert response.json()["code"] in ("not_authenticated", "authentication_failed")
