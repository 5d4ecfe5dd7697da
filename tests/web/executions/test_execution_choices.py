"""The executions' choices hold the engine's values: a mode, a state or a status the engine
gives is one the database takes."""

from __future__ import annotations

from engine.interpreter import Mode, RunState, Status
from otterweb.executions import models
from otterweb.executions.models import Execution, LogEntry


def test_mode_choices_are_the_engine_modes() -> None:
    assert set(models.Mode.values) == {mode.value for mode in Mode}


def test_execution_run_state_choices_are_the_engine_run_states() -> None:
    assert set(Execution.RunState.values) == {state.value for state in RunState}


def test_execution_status_choices_are_the_engine_statuses_and_cancelled() -> None:
    assert set(Execution.Status.values) == {status.label for status in Status} | {"cancelled"}


def test_log_entry_level_choices_are_the_engine_levels_as_stored() -> None:
    # built from the engine's Level: a change there is a change of what is stored
    assert LogEntry._meta.get_field("level").choices == [
        (0, "debug"),
        (10, "information"),
        (20, "warning"),
        (30, "error"),
    ]
