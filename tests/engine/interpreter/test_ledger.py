"""The ledger: what an operation does in each mode and pass, and the drift it records."""

from __future__ import annotations

from engine import parse
from engine.interpreter.ledger import (
    BLOCK_NOT_DRIFTED,
    COLLECT,
    COMPARE,
    EXECUTE,
    NOT_DRIFTED,
    NOT_WHILE_COLLECTING,
    SIMULATE,
    Ledger,
    Place,
)
from engine.interpreter.results import Difference, Drift, Mode
from engine.registry import Kind

# two blocks: an ensure operation and an execute operation in each
SCRIPT = parse(
    "{\n    Ensure-Directory /a;\n    Exec touch /a/x;\n}\n"
    "{\n    Ensure-Directory /b;\n    Exec touch /b/x;\n}\n"
)
FIRST, SECOND = (block.body for block in SCRIPT.body)


def place(statement, server: str = "web1", iteration: tuple[int, ...] = ()) -> Place:
    return Place(statement, server, iteration)


def remediating() -> Ledger:
    """A collect-execute ledger after its collect pass found the first block's ensure drifted."""
    ledger = Ledger(Mode.COLLECT_EXECUTE, simulate=False, body=SCRIPT.body)
    ledger.collecting = True
    ledger.compare(place(FIRST[0]), "Ensure-Directory /a", {"Exists": True}, {"Exists": False})
    ledger.collecting = False
    return ledger


def test_ledger_step_simulation_only_says_what_each_kind_would_do() -> None:
    ledger = Ledger(Mode.EXECUTE, simulate=True, body=SCRIPT.body)
    for kind in Kind:
        assert ledger.step(kind, place(FIRST[0]), always_execute=True) is SIMULATE


def test_ledger_step_collect_operations_collect_in_every_pass() -> None:
    for mode in Mode:
        ledger = Ledger(mode, simulate=False, body=SCRIPT.body)
        for collecting in (True, False):
            ledger.collecting = collecting
            assert ledger.step(Kind.COLLECT, place(FIRST[0]), always_execute=False) is COLLECT


def test_ledger_step_while_collecting_ensures_compare_and_executes_wait() -> None:
    ledger = Ledger(Mode.COLLECT, simulate=False, body=SCRIPT.body)
    ledger.collecting = True
    assert ledger.step(Kind.ENSURE, place(FIRST[0]), always_execute=False) is COMPARE
    assert ledger.step(Kind.EXECUTE, place(FIRST[1]), always_execute=True) is NOT_WHILE_COLLECTING
    assert NOT_WHILE_COLLECTING.reason.format(summary="Exec touch") == (
        "Not run while collecting: Exec touch."
    )


def test_ledger_step_execute_mode_runs_every_operation() -> None:
    ledger = Ledger(Mode.EXECUTE, simulate=False, body=SCRIPT.body)
    assert ledger.step(Kind.ENSURE, place(SECOND[0]), always_execute=False) is EXECUTE
    assert ledger.step(Kind.EXECUTE, place(SECOND[1]), always_execute=False) is EXECUTE


def test_ledger_step_remediation_runs_what_drifted_and_the_executes_of_its_block() -> None:
    ledger = remediating()
    assert ledger.step(Kind.ENSURE, place(FIRST[0]), always_execute=False) is EXECUTE
    assert ledger.step(Kind.EXECUTE, place(FIRST[1]), always_execute=False) is EXECUTE
    assert ledger.step(Kind.ENSURE, place(SECOND[0]), always_execute=False) is NOT_DRIFTED
    assert ledger.step(Kind.EXECUTE, place(SECOND[1]), always_execute=False) is BLOCK_NOT_DRIFTED


def test_ledger_step_remediation_tells_servers_and_loop_items_apart() -> None:
    ledger = remediating()
    assert ledger.step(Kind.ENSURE, place(FIRST[0], "web2"), always_execute=False) is NOT_DRIFTED
    assert ledger.step(Kind.EXECUTE, place(FIRST[1], iteration=(1,)), always_execute=False) is (
        BLOCK_NOT_DRIFTED
    )


def test_ledger_step_remediation_runs_everything_when_the_block_always_executes() -> None:
    ledger = remediating()
    assert ledger.step(Kind.ENSURE, place(SECOND[0]), always_execute=True) is EXECUTE
    assert ledger.step(Kind.EXECUTE, place(SECOND[1]), always_execute=True) is EXECUTE


def test_ledger_compare_records_the_differences_as_drift() -> None:
    ledger = Ledger(Mode.COLLECT, simulate=False, body=SCRIPT.body)
    differences = ledger.compare(
        place(FIRST[0]),
        "Ensure-File /a",
        {"Exists": True, "Text": "a\r\nb", "Owner": None, "Mode": "644"},
        {"Exists": True, "Text": "a\nb", "Mode": "600"},
    )
    # line endings do not count, and a desired value of None is not checked
    assert differences == (Difference("Mode", "644", "600"),)
    assert list(ledger.drift.values()) == [Drift("web1", "Ensure-File /a", 2, differences)]


def test_ledger_compare_records_nothing_when_the_state_is_as_desired() -> None:
    ledger = Ledger(Mode.COLLECT, simulate=False, body=SCRIPT.body)
    assert ledger.compare(place(FIRST[0]), "Ensure", {"Exists": True}, {"Exists": True}) == ()
    assert ledger.drift == {}


def test_ledger_add_body_learns_the_blocks_of_a_raft_module() -> None:
    module = parse("Ensure-Directory /m;\nExec touch /m/x;").body
    ledger = Ledger(Mode.COLLECT_EXECUTE, simulate=False, body=SCRIPT.body)
    ledger.add_body(module)
    ledger.collecting = True
    ledger.compare(place(module[0]), "Ensure-Directory /m", {"Exists": True}, {"Exists": False})
    ledger.collecting = False
    assert ledger.step(Kind.EXECUTE, place(module[1]), always_execute=False) is EXECUTE
