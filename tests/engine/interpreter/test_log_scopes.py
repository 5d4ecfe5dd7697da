"""Where a log scope sits among its parent's lines: after_seq, the seq logged last before it
opened (a viewer that has a parent's lines and its scopes places each scope by it)."""

from __future__ import annotations

from engine.interpreter import Level, ListSink
from engine.interpreter.logs import Logger, Masker


async def test_scope_after_seq_is_the_last_seq_logged_before_it_opened(run) -> None:
    ran = await run(
        "Log-Information one;\n"
        "# Outer\n{\n    Log-Information two;\n"
        "    # Inner\n    {\n        Log-Information three;\n    }\n"
        "    Log-Information four;\n"
        "    # Second\n    {\n        Log-Information five;\n    }\n}\n"
        "Log-Information six;"
    )
    after = {scope.name: scope.after_seq for scope in ran.sink.scopes}
    assert after == {"Outer": 1, "Inner": 2, "Second": 4}
    seqs = {record.message: record.seq for record in ran.sink.records}
    assert seqs == {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


def test_scope_after_seq_is_zero_when_nothing_was_logged_yet() -> None:
    logger = Logger(ListSink(), Masker())
    outer = logger.open("outer", None, None)
    logger.write(Level.INFORMATION, "inside", outer, None)
    inner = logger.open("inner", outer, None)
    assert (outer.after_seq, inner.after_seq) == (0, 1)
