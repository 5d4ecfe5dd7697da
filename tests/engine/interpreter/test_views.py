"""The views operations and functions get implement the contracts engine.registry gives them."""

from __future__ import annotations

import pytest

from engine import ast
from engine.interpreter import Host, NullSink
from engine.interpreter.context import Context, Scope, Strand
from engine.interpreter.expressions import Evaluator
from engine.interpreter.session import Session
from engine.interpreter.views import FunctionView, OperationView
from engine.registry import FunctionRun, OperationRun, Run

CONTRACTS = (Run, OperationRun, FunctionRun)


def views(*, simulate: bool = False) -> tuple[OperationView, FunctionView]:
    evaluator = Evaluator(Session(Host(sink=NullSink()), simulate=simulate), FunctionView)
    scope, context = Scope(), Context(strand=Strand(), server="localhost")
    statement = ast.OperationCall(name="Sleep")
    return (
        OperationView(evaluator, scope, context, statement),
        FunctionView(evaluator, scope, context, "$", None),
    )


def members(contract: type) -> set[str]:
    """What a contract and the contracts it extends name: methods, properties, attributes."""
    return {
        name
        for cls in contract.__mro__
        if cls in CONTRACTS
        for name in (*vars(cls), *vars(cls).get("__annotations__", {}))
        if not name.startswith("_")
    }


@pytest.mark.parametrize(
    ("view", "contract"),
    list(zip(views(), (OperationRun, FunctionRun), strict=True)),
    ids=("OperationView", "FunctionView"),
)
def test_views_implement_every_member_of_their_contract(view, contract) -> None:
    assert contract in type(view).__mro__
    for name in members(contract):
        owner = (
            "the view"
            if name in vars(view)
            else next(cls for cls in type(view).__mro__ if name in vars(cls))
        )
        assert owner not in CONTRACTS, f"{type(view).__name__}.{name} is the contract's stub"


def test_views_say_whether_the_run_is_a_simulation() -> None:
    assert [view.simulate for view in views()] == [False, False]
    assert [view.simulate for view in views(simulate=True)] == [True, True]
