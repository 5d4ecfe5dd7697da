"""AST -> blocks: one method per statement type writes its block's own fields, statement
inputs and extraState; ``block`` adds what every statement has (its description, trailing
comment and blank line)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from engine import ast
from engine.blocks.workspace import STATEMENT_TYPES, plain_text
from engine.formatter import format_condition, format_expression
from engine.visitor import Visitor

TYPE_NAMES = {cls: name for name, cls in STATEMENT_TYPES.items()}


@dataclass(slots=True)
class Parts:
    """The fields, statement inputs and extraState of the block being written."""

    fields: dict[str, Any] = field(default_factory=dict)
    inputs: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)


class BlockWriter(Visitor[None]):
    def __init__(self, sources: dict[int, dict[str, Any]] | None = None) -> None:
        self.ids = itertools.count(1)
        # What each statement's block keeps of its text, by the statement's id (engine.blocks.source).
        self.sources = sources

    def chain(self, body: ast.Body) -> dict[str, Any] | None:
        """The first block of a body, the others chained to it by ``next``."""
        first: dict[str, Any] | None = None
        previous: dict[str, Any] | None = None
        for statement in body:
            block = self.block(statement)
            if previous is None:
                first = block
            else:
                previous["next"] = {"block": block}
            previous = block
        return first

    def block(self, statement: ast.Statement) -> dict[str, Any]:
        block: dict[str, Any] = {"type": TYPE_NAMES[type(statement)], "id": f"b{next(self.ids)}"}
        parts = Parts()
        self.visit(statement, parts)
        if statement.description:
            parts.extra["description"] = list(statement.description)
            block["icons"] = {
                "comment": {
                    "text": plain_text(statement.description),
                    "pinned": False,
                    "height": 80,
                    "width": 240,
                }
            }
        if statement.trailing_comment is not None:
            parts.extra["trailingComment"] = statement.trailing_comment
        if statement.blank_line_before:
            parts.extra["blankLineBefore"] = True
        if self.sources is not None:
            source = self.sources.get(id(statement))
            if source is not None:
                parts.extra["source"] = source
        if parts.fields:
            block["fields"] = parts.fields
        if parts.inputs:
            block["inputs"] = parts.inputs
        if parts.extra:
            block["extraState"] = parts.extra
        return block

    def body(self, parts: Parts, name: str, statements: ast.Body) -> None:
        """The statement input ``name`` holding ``statements``, unless there are none."""
        first = self.chain(statements)
        if first is not None:
            parts.inputs[name] = {"block": first}

    # one method per statement type

    def visit_operation_call(self, node: ast.OperationCall, parts: Parts) -> None:
        parts.fields["NAMESPACE"] = node.namespace or ""
        parts.fields["NAME"] = node.name
        parts.fields["POSITIONAL"] = (
            "" if node.positional is None else format_expression(node.positional, "positional")
        )
        parts.extra["arguments"] = [argument(item) for item in node.arguments]

    def visit_call_module(self, node: ast.CallModule, parts: Parts) -> None:
        parts.fields["RAFT"] = node.raft or ""
        parts.fields["NAME"] = node.name
        parts.extra["arguments"] = [argument(item) for item in node.arguments]

    def visit_block(self, node: ast.Block, parts: Parts) -> None:
        self.body(parts, "BODY", node.body)

    def visit_set_variable(self, node: ast.SetVariable, parts: Parts) -> None:
        parts.fields["SCOPE"] = node.scope or ""
        parts.fields["VARIABLE"] = format_expression(node.variable)
        parts.fields["VALUE"] = format_expression(node.value, "line")
        if node.indexes:
            parts.extra["indexes"] = [format_expression(key, "index") for key in node.indexes]

    def visit_global_declaration(self, node: ast.GlobalDeclaration, parts: Parts) -> None:
        parts.fields["VARIABLE"] = format_expression(node.variable)
        parts.fields["VALUE"] = "" if node.value is None else format_expression(node.value, "line")

    def visit_log(self, node: ast.Log, parts: Parts) -> None:
        parts.fields["LEVEL"] = node.level
        parts.fields["MESSAGE"] = format_expression(node.message, "line")

    def visit_if(self, node: ast.If, parts: Parts) -> None:
        parts.fields["IF0"] = format_condition(node.condition)
        self.body(parts, "DO0", node.body)
        for number, clause in enumerate(node.else_ifs, start=1):
            parts.fields[f"IF{number}"] = format_condition(clause.condition)
            self.body(parts, f"DO{number}", clause.body)
        parts.extra["elseIfCount"] = len(node.else_ifs)
        parts.extra["hasElse"] = node.else_body is not None
        if node.else_body is not None:
            self.body(parts, "ELSE", node.else_body)

    def visit_for_each(self, node: ast.ForEach, parts: Parts) -> None:
        parts.fields["VARIABLE"] = format_expression(node.variable)
        parts.fields["SOURCE"] = format_expression(node.source, "context")
        self.body(parts, "BODY", node.body)

    def visit_context_iteration(self, node: ast.ContextIteration, parts: Parts) -> None:
        parts.fields["CONTEXT"] = node.context
        parts.fields["SOURCE"] = format_expression(node.source, "context")
        self.body(parts, "BODY", node.body)

    def visit_set_context(self, node: ast.SetContext, parts: Parts) -> None:
        parts.fields["CONTEXT"] = node.context
        parts.fields["VALUE"] = format_expression(node.value, "context")
        self.body(parts, "BODY", node.body)

    def visit_with(self, node: ast.With, parts: Parts) -> None:
        parts.fields["DIRECTIVES"] = ", ".join(
            d.name if d.value is None else f"{d.name}={d.value}" for d in node.directives
        )
        self.body(parts, "BODY", node.body)

    def visit_try(self, node: ast.Try, parts: Parts) -> None:
        self.body(parts, "BODY", node.body)
        self.body(parts, "CATCH", node.catch_body)

    def visit_await(self, node: ast.Await, parts: Parts) -> None:
        parts.fields["TOKEN"] = node.token or ""

    def visit_throw(self, node: ast.Throw, parts: Parts) -> None:
        parts.fields["MESSAGE"] = (
            "" if node.message is None else format_expression(node.message, "line")
        )

    def visit_warn(self, node: ast.Warn, parts: Parts) -> None:
        parts.fields["FORCE"] = "TRUE" if node.force else "FALSE"

    def visit_module_declaration(self, node: ast.ModuleDeclaration, parts: Parts) -> None:
        parts.fields["NAME"] = node.name
        parts.extra["parameters"] = [parameter(item) for item in node.parameters]
        self.body(parts, "BODY", node.body)

    def visit_comment(self, node: ast.Comment, parts: Parts) -> None:
        parts.fields["TEXT"] = plain_text(node.lines)
        parts.extra["lines"] = list(node.lines)

    def visit_fail(self, node: ast.Statement, parts: Parts) -> None:
        """A statement that is its keyword alone: its block has nothing of its own."""

    visit_error = visit_force_normal = visit_break = visit_continue = visit_return = visit_fail


def argument(node: ast.CallArgument) -> dict[str, Any]:
    """An argument of an operation or module call, as an item of ``extraState.arguments``."""
    item: dict[str, Any] = {"name": node.name}
    if isinstance(node, ast.Argument):
        item["value"] = format_expression(node.value)
    else:
        item["output"] = format_expression(node.variable)
    if node.comments:
        item["comments"] = list(node.comments)
    if node.trailing_comment is not None:
        item["trailingComment"] = node.trailing_comment
    return item


def parameter(node: ast.ModuleParameter) -> dict[str, Any]:
    """A module's parameter, as an item of ``extraState.parameters``."""
    item: dict[str, Any] = {"variable": format_expression(node.variable), "output": node.output}
    if node.default is not None:
        item["default"] = format_expression(node.default, "default")
    return item
