"""Every node type is handled by the formatter, the block converter and the checks: each has a
sample here, and each sample goes through all three. A new node type without a sample fails, and
so does a visitor without a method for a node type it meets."""

from __future__ import annotations

import json

import pytest

from engine import ast, check, format_script, from_blocks, parse, to_blocks
from engine.blocks.reader import BlockReader
from engine.blocks.writer import BlockWriter
from engine.checks import checker
from engine.formatter.canonical import Writer
from engine.interpreter.handlers import Handlers
from engine.visitor import method_name, snake_case


def text(value: str) -> ast.Scalar:
    return ast.Scalar(parts=(ast.Text(value=value),))


X = ast.VariableRef(sigil="$", name="x")
LIST = ast.VariableRef(sigil="@", name="list")
BODY = (ast.Log(level="debug", message=text("inside")),)


def in_set(value: ast.Expression) -> ast.Script:
    return ast.Script(body=(ast.SetVariable(variable=X, value=value),))


def in_scalar(part: ast.ScalarPart) -> ast.Script:
    return in_set(ast.Scalar(parts=(ast.Text(value="a "), part)))


def in_if(condition: ast.Predicate) -> ast.Script:
    return ast.Script(body=(ast.If(condition=condition, body=BODY),))


def statement(node: ast.Statement) -> ast.Script:
    return ast.Script(body=(node,))


COMPARE = ast.Compare(left=ast.Scalar(parts=(X,)), operator="==", right=text("yes"))
SAMPLES: dict[type, ast.Script] = {
    ast.Script: ast.Script(headers=("##AH:UseTextMode",), body=BODY),
    ast.Text: in_set(ast.Scalar(parts=(X, ast.Text(value=" and b")))),
    ast.VariableRef: in_scalar(ast.VariableRef(sigil="$", name="y")),
    ast.FunctionCall: in_scalar(ast.FunctionCall(sigil="$", name="Join", args=(text("1"), LIST))),
    ast.Interpolation: in_scalar(
        ast.Interpolation(expression=ast.Index(target=LIST, key=text("0")))
    ),
    ast.Scalar: in_set(text("plain")),
    ast.Vector: statement(
        ast.SetVariable(variable=LIST, value=ast.Vector(items=(text("a"), text("b"))))
    ),
    ast.Map: statement(
        ast.SetVariable(
            variable=ast.VariableRef(sigil="%", name="m"),
            value=ast.Map(entries=(ast.MapEntry(key="k", value=text("v")),)),
        )
    ),
    ast.MapEntry: statement(
        ast.SetVariable(
            variable=ast.VariableRef(sigil="%", name="m"),
            value=ast.Map(entries=(ast.MapEntry(key="a.b", value=LIST),)),
        )
    ),
    ast.Index: in_set(
        ast.Index(target=ast.VariableRef(sigil="%", name="m"), key=text("key"), dotted=True)
    ),
    ast.Or: in_if(ast.Or(operands=(COMPARE, ast.IsTrue(operand=text("true"))))),
    ast.And: in_if(ast.And(operands=(COMPARE, COMPARE))),
    ast.Not: in_if(ast.Not(operand=COMPARE)),
    ast.Compare: in_if(ast.Compare(left=text("a"), operator="!=", right=text("b"))),
    ast.IsTrue: in_if(ast.IsTrue(operand=ast.Scalar(parts=(X,)))),
    ast.Argument: statement(
        ast.OperationCall(
            name="Exec",
            arguments=(ast.Argument(name="Arguments", value=text("b"), comments=("# why",)),),
        )
    ),
    ast.OutputArgument: statement(
        ast.OperationCall(
            name="Get-Http",
            positional=text("http://127.0.0.1/"),
            arguments=(
                ast.OutputArgument(name="ResponseBody", variable=X, trailing_comment="# out"),
            ),
        )
    ),
    ast.OperationCall: statement(
        ast.OperationCall(namespace="Files", name="Ensure-Directory", positional=text("web"))
    ),
    ast.Block: statement(ast.Block(body=BODY, description=("# Named block",))),
    ast.SetVariable: statement(
        ast.SetVariable(scope="local", variable=X, indexes=(), value=text("1"))
    ),
    ast.GlobalDeclaration: statement(ast.GlobalDeclaration(variable=X, value=text("1"))),
    ast.Log: statement(ast.Log(level="warning", message=text("careful, now"))),
    ast.ElseIf: ast.Script(
        body=(
            ast.If(
                condition=COMPARE,
                body=BODY,
                else_ifs=(ast.ElseIf(condition=COMPARE, body=BODY),),
                else_body=(),
            ),
        )
    ),
    ast.If: in_if(COMPARE),
    ast.ForEach: statement(ast.ForEach(variable=X, source=LIST, body=BODY)),
    ast.ContextIteration: statement(ast.ContextIteration(context="server", source=LIST, body=BODY)),
    ast.SetContext: statement(ast.SetContext(context="directory", value=text("/srv"), body=BODY)),
    ast.Directive: statement(
        ast.With(
            directives=(ast.Directive(name="retry", value="3"), ast.Directive(name="isolation")),
            body=BODY,
        )
    ),
    ast.With: statement(ast.With(directives=(ast.Directive(name="async"),), body=BODY)),
    ast.Try: statement(ast.Try(body=BODY, catch_body=BODY)),
    ast.Await: statement(ast.Await(token="Build")),
    ast.Throw: statement(ast.Throw(message=text("oops"))),
    ast.Fail: statement(ast.Fail()),
    ast.Error: statement(ast.Error()),
    ast.Warn: statement(ast.Warn(force=True)),
    ast.ForceNormal: statement(ast.ForceNormal()),
    ast.Break: statement(ast.ForEach(variable=X, source=LIST, body=(ast.Break(),))),
    ast.Continue: statement(ast.ForEach(variable=X, source=LIST, body=(ast.Continue(),))),
    ast.Return: statement(ast.Return()),
    ast.ModuleParameter: statement(
        ast.ModuleDeclaration(
            name="M", parameters=(ast.ModuleParameter(variable=X, default=text("d"), output=True),)
        )
    ),
    ast.ModuleDeclaration: statement(ast.ModuleDeclaration(name="M", body=BODY)),
    ast.CallModule: statement(
        ast.CallModule(
            raft="Global", name="M", arguments=(ast.Argument(name="x", value=text("1")),)
        )
    ),
    ast.Comment: statement(ast.Comment(lines=("# a note", "/* and more */"))),
}


def test_visitors_every_node_type_has_a_sample() -> None:
    assert set(SAMPLES) == set(ast.node_types())


@pytest.mark.parametrize(
    "node_type", sorted(SAMPLES, key=lambda cls: cls.__name__), ids=lambda cls: cls.__name__
)
def test_visitors_sample_goes_through_formatter_blocks_and_checks(node_type: type) -> None:
    script = SAMPLES[node_type]
    assert any(isinstance(node, node_type) for node in script.walk())
    assert parse(format_script(script)) == script
    assert from_blocks(json.loads(json.dumps(to_blocks(script)))) == script
    assert [d for d in check(script) if d.is_error] == []


STATEMENT_TYPES = [cls for cls in ast.node_types() if issubclass(cls, ast.Statement)]
# each visitor and the node types it meets: the formatter and the block writer write a value
# or a condition as text (engine.formatter's format_expression and format_condition)
VISITORS = [
    (checker._Checker, ast.node_types()),
    (Writer, STATEMENT_TYPES),
    (BlockWriter, STATEMENT_TYPES),
    (Handlers, STATEMENT_TYPES),
]
NAMES = [visitor.__module__ + "." + visitor.__name__ for visitor, _ in VISITORS]


@pytest.mark.parametrize(("visitor", "node_types"), VISITORS, ids=NAMES)
def test_visitors_visitor_has_a_method_for_every_node_type_it_meets(
    visitor: type, node_types: list[type[ast.Node]]
) -> None:
    assert [cls.__name__ for cls in node_types if not hasattr(visitor, method_name(cls))] == []


@pytest.mark.parametrize(("visitor", "node_types"), VISITORS, ids=NAMES)
def test_visitors_visitor_methods_each_name_a_node_type(
    visitor: type, node_types: list[type[ast.Node]]
) -> None:
    methods = {name for name in dir(visitor) if name.startswith("visit_")}
    assert methods - {method_name(cls) for cls in node_types} == set()


def test_visitors_block_reader_has_a_method_for_each_block_type_and_no_other() -> None:
    methods = {name for name in dir(BlockReader) if name.startswith("read_")}
    assert methods == {"read_" + snake_case(cls.__name__) for cls in STATEMENT_TYPES}
