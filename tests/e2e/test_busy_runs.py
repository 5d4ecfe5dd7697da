"""Runs whose own code keeps them busy, in both modes: a tight loop and a catastrophic regular
expression are stopped by a cancel and by the time limit, and never stop the site from
answering."""

from __future__ import annotations

import time

import pytest

from tests.e2e.serving import running_site

MODES = ["embedded", "distributed"]
# a hundred million statements: far longer than any test waits
TIGHT_LOOP = """Log-Information started;
foreach $i in @Range(0, 10000)
{
    foreach $j in @Range(0, 10000)
    {
        set $x = $j;
    }
}
Log-Information never;"""
# each match is cut off by the regular expressions' time limit; a thousand of them
CATASTROPHIC_REGEX = """Log-Information started;
foreach $i in @Range(0, 1000)
{
    try
    {
        Log-Information $MatchesRegex("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!", "^(a|a)+`$");
    }
    catch
    {
        Log-Debug caught;
    }
}
Log-Information never;"""


@pytest.fixture(scope="module", params=MODES)
def busy_site(request, tmp_path_factory):
    """A site in each mode for the module's tests: each starts and stops a run of its own."""
    folder = tmp_path_factory.mktemp(f"busy-{request.param}")
    with running_site(request.param, folder, OTTERWEB_EXECUTION_TIME_LIMIT_SECONDS="6") as site:
        yield site


def started(site, script: str) -> dict:
    execution = site.api("POST", "/api/executions/", {"script": script, "servers": ["localhost"]})
    detail = site.wait_for(
        execution["id"], lambda d: d["run_state"] == "executing" and d["last_seq"] >= 1
    )
    assert detail["run_state"] == "executing", detail
    return detail


def slowest_answer(site, seconds: float) -> float:
    """The slowest of the API's answers to requests made one after another for ``seconds``."""
    slowest = 0.0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        began = time.monotonic()
        site.api("GET", "/api/executions/?limit=5")
        slowest = max(slowest, time.monotonic() - began)
    return slowest


@pytest.mark.parametrize("script", [TIGHT_LOOP, CATASTROPHIC_REGEX], ids=["loop", "regex"])
def test_e2e_cancel_stops_a_busy_run(busy_site, script) -> None:
    detail = started(busy_site, script)
    assert slowest_answer(busy_site, 1.0) < 2.0  # the site answers while the run is busy
    busy_site.api("POST", f"/api/executions/{detail['id']}/cancel/")
    asked = time.monotonic()
    detail = busy_site.wait_for(detail["id"], lambda d: d["run_state"] == "completed", 20)
    assert (detail["run_state"], detail["status"]) == ("completed", "cancelled")
    assert time.monotonic() - asked < 10
    messages = [e["message"] for e in busy_site.api("GET", f"/api/executions/{detail['id']}/logs/")]
    assert "never" not in messages


@pytest.mark.parametrize("script", [TIGHT_LOOP, CATASTROPHIC_REGEX], ids=["loop", "regex"])
def test_e2e_time_limit_stops_a_busy_run(busy_site, script) -> None:
    detail = started(busy_site, script)
    detail = busy_site.wait_for(detail["id"], lambda d: d["run_state"] == "completed", 30)
    assert (detail["run_state"], detail["status"]) == ("completed", "error")
    logs = busy_site.api("GET", f"/api/executions/{detail['id']}/logs/")
    assert any("longer than its time limit (6 seconds)" in e["message"] for e in logs)
    assert all(e["message"] != "never" for e in logs)
