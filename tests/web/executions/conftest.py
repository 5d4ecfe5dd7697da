"""Fixtures of the executions app's tests."""

from __future__ import annotations

import pytest

from otterweb.executions.frame_cache import frame_cache


@pytest.fixture(autouse=True)
def no_cached_frames():
    """Each test's executions start with nothing cached (a flushed test database gives ids out
    again)."""
    frame_cache.clear()
    yield
    frame_cache.clear()
