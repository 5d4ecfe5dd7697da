"""Faults nobody expected end where they happen: an operation that raises fails that operation
(a `try` catches it), and anything that escapes a run ends it at once with status error and the
error as its last log line."""

from __future__ import annotations

from engine.interpreter.expressions import Evaluator
from engine.registry import REGISTRY


async def test_operation_given_a_url_with_a_space_fails_with_a_message(run) -> None:
    ran = await run(
        'try {\n    Get-Http "http://example.invalid/a b";\n}\ncatch {\n    Log-Information caught;\n}'
    )
    assert ran.status == "error"
    assert any("holds a space" in message for message in ran.messages())
    assert ran.messages()[-1] == "caught"


async def test_operation_raising_an_unexpected_exception_fails_only_itself(
    run, monkeypatch
) -> None:
    async def broken(self, run) -> None:
        raise KeyError("surprise")

    monkeypatch.setattr(REGISTRY.find_operation(None, "Sleep").cls, "execute", broken)
    ran = await run("try {\n    Sleep 0;\n}\ncatch {\n    Log-Warning after;\n}")
    assert "Sleep failed: KeyError: 'surprise'" in ran.messages()
    assert ran.messages()[-1] == "after"


async def test_execution_ends_with_error_when_the_engine_itself_fails(run, monkeypatch) -> None:
    async def broken(self, *args, **kwargs) -> None:
        raise RuntimeError("the engine broke")

    monkeypatch.setattr(Evaluator, "evaluate", broken)
    ran = await run("Log-Information x;")
    assert ran.status == "error"
    assert ran.result.error == "RuntimeError: the engine broke"
    assert ran.messages()[-1] == "RuntimeError: the engine broke"
