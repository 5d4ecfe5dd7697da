"""The rounds of housekeeping: work every process that runs executions (`manage.py serve`, each
Celery worker) also does, each on a thread of its own, every few seconds. Each app adds its own
from its AppConfig.ready (inventory checks the servers due, the scheduler fires due schedules,
the audit trail deletes expired entries); the housekeeper (otterweb.executions.dispatch) goes
them round. This module sits below every app, so none of them imports another to add a round."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Round:
    """``run()`` every ``seconds()`` seconds (0: not in this process)."""

    name: str
    seconds: Callable[[], float]
    run: Callable[[], object]


ROUNDS: dict[str, Round] = {}


def also_keep_house(round_: Round) -> None:
    """Have every housekeeper started from now on do ``round_`` too (once per name)."""
    ROUNDS[round_.name] = round_
