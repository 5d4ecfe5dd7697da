"""The log models' choices hold the engine's values: a level or a scope's status the engine
gives is one the database takes."""

from __future__ import annotations

from engine import Level, RunScope
from otterweb.execution_logs.models import LogEntry, LogScope


def test_log_entry_level_choices_are_the_engine_levels_as_stored() -> None:
    # built from the engine's Level: a change there is a change of what is stored
    assert LogEntry._meta.get_field("level").choices == [
        (0, "debug"),
        (10, "information"),
        (20, "warning"),
        (30, "error"),
    ]


def test_log_scope_status_choices_are_every_status_an_engine_scope_has() -> None:
    statuses = {RunScope(1, None, "s", ("s",), None, 0.0, worst=level).status for level in Level}
    assert statuses == set(LogScope.Status.values)
