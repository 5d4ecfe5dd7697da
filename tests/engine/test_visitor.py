"""engine.visitor: dispatch to visit_<snake_case_type>, cached per visitor class."""

from __future__ import annotations

import pytest

from engine import ast
from engine.visitor import Visitor, method_name, snake_case

X = ast.VariableRef(sigil="$", name="x")


class Names(Visitor[str]):
    def visit_variable_ref(self, node: ast.VariableRef, prefix: str = "") -> str:
        return prefix + node.sigil + node.name

    def visit_context_iteration(self, node: ast.ContextIteration) -> str:
        return "foreach " + node.context

    def visit_log(self, node: ast.Log) -> str:
        return "log " + self.visit(node.message)

    def visit_scalar(self, node: ast.Scalar) -> str:
        return "".join(self.visit(part) for part in node.parts)

    def visit_text(self, node: ast.Text) -> str:
        return node.value


def test_snake_case_splits_words_at_capitals() -> None:
    assert snake_case("ContextIteration") == "context_iteration"
    assert snake_case("If") == "if"


def test_method_name_is_visit_and_the_snake_case_type_name() -> None:
    assert method_name(ast.OperationCall) == "visit_operation_call"


def test_visitor_visit_calls_the_method_of_the_node_type_with_the_arguments() -> None:
    names = Names()
    assert names.visit(X) == "$x"
    assert names.visit(X, "name: ") == "name: $x"
    assert names.visit(ast.ContextIteration(context="role", source=X)) == "foreach role"


def test_visitor_visit_recurses_through_the_methods() -> None:
    log = ast.Log(level="debug", message=ast.Scalar(parts=(ast.Text(value="a"), X)))
    assert Names().visit(log) == "log a$x"


def test_visitor_visit_raises_type_error_naming_the_node_type_without_a_method() -> None:
    with pytest.raises(TypeError, match=r"Names cannot visit a Fail: no visit_fail method"):
        Names().visit(ast.Fail())


def test_visitor_methods_are_cached_per_visitor_class() -> None:
    class Louder(Names):
        def visit_variable_ref(self, node: ast.VariableRef, prefix: str = "") -> str:
            return super().visit_variable_ref(node, prefix).upper()

    assert Names().visit(X) == "$x"
    assert Louder().visit(X) == "$X"
    assert Names().visit(X) == "$x"
    assert Louder().visit(ast.Scalar(parts=(ast.Text(value="inherited"),))) == "inherited"
