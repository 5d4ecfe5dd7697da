"""The API's routes are declared by each app (its api_urls.py) and collected in
otterweb.api.urls."""

from __future__ import annotations

from pathlib import Path

import pytest

from otterweb.api.urls import APPS

ROOT = Path(__file__).resolve().parents[3]


def test_api_urls_collect_every_app_that_declares_api_routes() -> None:
    declared = {
        "otterweb." + path.parent.name for path in (ROOT / "otterweb").glob("*/api_urls.py")
    }
    assert declared == set(APPS)


@pytest.mark.django_db
def test_api_urls_root_lists_the_viewsets_of_every_app(admin_client) -> None:
    listed = admin_client.get("/api/", HTTP_ACCEPT="application/json").json()
    assert {"servers", "rafts", "executions", "audit", "schedules"} <= set(listed)
    assert listed["schedules"].endswith("/api/schedules/")
