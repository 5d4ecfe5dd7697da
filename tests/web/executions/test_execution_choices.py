"""The executions' choices hold the engine's values: a mode, a state or a status the engine
gives is one the database takes."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from engine.interpreter import Mode, RunState, Status
from otterweb.executions import models
from otterweb.executions.models import Execution
from otterweb.fields import text_choices


def test_mode_choices_are_the_engine_modes() -> None:
    assert set(models.Mode.values) == {mode.value for mode in Mode}


def test_execution_run_state_choices_are_the_engine_run_states() -> None:
    assert set(Execution.RunState.values) == {state.value for state in RunState}


def test_mode_choices_have_the_engine_mode_names_and_their_labels() -> None:
    assert {choice.name: choice.value for choice in models.Mode} == {
        mode.name: mode.value for mode in Mode
    }
    assert models.Mode.COLLECT == Mode.COLLECT
    assert models.Mode.COLLECT.label == "Collect only (drift check)"
    assert Execution.RunState.EXECUTING == RunState.EXECUTING
    assert Execution.RunState.EXECUTING.label == "Executing"


def test_text_choices_keep_the_order_of_the_labels() -> None:
    choices = text_choices(
        RunState, {s: s.name.title() for s in reversed(RunState)}, module=__name__
    )
    assert choices.choices == [
        ("completed", "Completed"),
        ("executing", "Executing"),
        ("pending", "Pending"),
    ]


def test_text_choices_refuse_labels_that_miss_a_member() -> None:
    with pytest.raises(ImproperlyConfigured, match="RunState"):
        text_choices(RunState, {RunState.PENDING: "Pending"}, module=__name__)


def test_execution_status_choices_are_the_engine_statuses_and_cancelled() -> None:
    assert set(Execution.Status.values) == {status.label for status in Status} | {"cancelled"}


@pytest.mark.parametrize("member", [*models.Mode, *Execution.RunState])
def test_choices_members_survive_pickling(member) -> None:
    """Worker processes send them to the server in events (a pipe pickles them)."""
    import pickle

    assert pickle.loads(pickle.dumps(member)) is member


def test_status_event_of_an_execution_pickles(db) -> None:
    import pickle

    from otterweb.execution_logs.events import status_event
    from otterweb.executions.services import create_job
    from otterweb.inventory.models import Server

    Server.objects.create(name="here")
    execution = create_job(script="Log-Information x;", servers=["here"])
    execution.start(worker="w")
    event = status_event(execution)
    assert pickle.loads(pickle.dumps(event)) == event
