"""Blocks -> AST: ``statement`` reads what every block has (its type, description, trailing
comment and blank line) and one method per block type reads the block's own fields, statement
inputs and extraState, as the values of its statement's fields.

A field that does not read as what it holds is a diagnostic (all of them are gathered); JSON
that is not a workspace of OtterScript blocks is a BlocksError at once."""

from __future__ import annotations

from typing import Any

from engine import ast
from engine.blocks.source import read_kept
from engine.blocks.workspace import (
    RAW,
    STATEMENT_TYPES,
    BlocksError,
    as_comment,
    as_comments,
    as_list,
    as_object,
    as_text,
    json_kind,
    plain_text,
)
from engine.errors import Diagnostic, OtterSyntaxError
from engine.limits import MAX_NESTING, nesting_problem
from engine.parser import parse, parse_condition, parse_expression

BlockData = dict[str, Any]  # a block's JSON object
Values = dict[str, Any]  # JSON settings by name, or a statement's field values by name


class BlockReader:
    """Reads blocks into statements; with ``key``, keeps only the text sealed with it (see
    engine.blocks.source)."""

    def __init__(self, key: bytes | None = None) -> None:
        self.key = key
        self.diagnostics: list[Diagnostic] = []
        self.depth = 0

    def problem(self, block: BlockData, message: str) -> None:
        self.diagnostics.append(
            Diagnostic(1, 1, 1, 1, "error", f"{where(block)}: {message}", "blocks")
        )

    def chain(self, block: Any) -> list[ast.Statement]:
        """The statements of a block and of those chained to it by ``next``."""
        statements: list[ast.Statement] = []
        seen: set[int] = set()
        while block is not None:
            if not isinstance(block, dict):
                raise BlocksError(f"a block is a JSON object, not {json_kind(block)}")
            if id(block) in seen:  # pragma: no cover - JSON cannot hold cycles
                raise BlocksError("the blocks form a cycle")
            seen.add(id(block))
            statements.extend(self.statement(block))
            block = as_object(block.get("next"), f"'next' of {where(block)}").get("block")
        return statements

    def statement(self, block: BlockData) -> list[ast.Statement]:
        """The statement of a block; those of its text for a block of another editor's making."""
        kind = block.get("type")
        if not isinstance(kind, str):
            raise BlocksError(f"{where(block)} has no type (text like 'otter_log')")
        extra = self.extra(block)
        cls = STATEMENT_TYPES.get(kind)
        # a block of another editor's making is kept when it carries its statement's text
        if cls is None and kind != RAW and not isinstance(self.fields(block).get("TEXT"), str):
            raise BlocksError(
                f"unknown block type {kind!r}: it has no TEXT field to keep as OtterScript"
            )
        if cls is None:
            text = self.field(block, "TEXT")
            try:
                return list(self.shallow("TEXT", text, parse(text).body, statements=True))
            except OtterSyntaxError as error:
                self.problem(block, error.diagnostics[0].explained)
                return []
        common = self.common(block, extra)
        return [cls(**READERS[kind](self, block, extra), **common)]

    def common(self, block: BlockData, extra: Values) -> Values:
        """The description, trailing comment and blank line before of a block's statement, and
        what it keeps of its text."""
        what = where(block)
        description = as_comments(extra.get("description"), f"the description of {what}")
        icons = as_object(block.get("icons"), f"'icons' of {what}")
        icon = as_object(icons.get("comment"), f"the comment icon of {what}").get("text")
        if icon is not None and not isinstance(icon, str):
            raise BlocksError(
                f"the comment icon's text of {what} must be text, not {json_kind(icon)}"
            )
        if icon is not None and icon != plain_text(description):
            description = comments_from_text(icon)
        elif icon is None and description:
            description = ()  # the user removed the comment
        return {
            "description": description,
            "trailing_comment": self.trailing(extra, what),
            "blank_line_before": bool(extra.get("blankLineBefore")),
            "kept": read_kept(extra.get("source"), what, self.key),
        }

    # one method per block type: the values of its statement's own fields

    def read_operation_call(self, block: BlockData, extra: Values) -> Values:
        positional = self.field(block, "POSITIONAL", "")
        return {
            "namespace": self.field(block, "NAMESPACE", "") or None,
            "name": self.field(block, "NAME"),
            "positional": self.expression(block, "POSITIONAL", "positional")
            if positional
            else None,
            "arguments": self.arguments(block),
        }

    def read_call_module(self, block: BlockData, extra: Values) -> Values:
        return {
            "raft": self.field(block, "RAFT", "") or None,
            "name": self.field(block, "NAME"),
            "arguments": self.arguments(block),
        }

    def read_block(self, block: BlockData, extra: Values) -> Values:
        return {"body": self.body(block, "BODY")}

    def read_set_variable(self, block: BlockData, extra: Values) -> Values:
        indexes = as_list(extra.get("indexes"), f"the indexes of {where(block)}")
        return {
            "scope": self.field(block, "SCOPE", "") or None,
            "variable": self.variable(block, self.field(block, "VARIABLE")),
            "indexes": tuple(
                self.expression(
                    block, "index", "index", text=as_text(key, f"an index of {where(block)}")
                )
                for key in indexes
            ),
            "value": self.expression(block, "VALUE", "line"),
        }

    def read_global_declaration(self, block: BlockData, extra: Values) -> Values:
        value = self.field(block, "VALUE", "")
        return {
            "variable": self.variable(block, self.field(block, "VARIABLE")),
            "value": self.expression(block, "VALUE", "line") if value else None,
        }

    def read_log(self, block: BlockData, extra: Values) -> Values:
        level = self.field(block, "LEVEL", "information")
        if level not in ast.Log.keyword_by_level:
            self.problem(block, f"LEVEL {level!r} is not debug, information, warning or error")
            level = "information"
        return {"level": level, "message": self.expression(block, "MESSAGE", "line")}

    def read_if(self, block: BlockData, extra: Values) -> Values:
        count = extra.get("elseIfCount") or 0
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise BlocksError(f"elseIfCount of {where(block)} must be a whole number")
        if count >= max(len(self.fields(block)), 1):  # IF0 and one IFn for each
            raise BlocksError(
                f"elseIfCount of {where(block)} is {count}, but it has no IF{count} field"
            )
        return {
            "condition": self.condition(block, "IF0"),
            "body": self.body(block, "DO0"),
            "else_ifs": tuple(
                ast.ElseIf(
                    condition=self.condition(block, f"IF{n}"), body=self.body(block, f"DO{n}")
                )
                for n in range(1, count + 1)
            ),
            "else_body": self.body(block, "ELSE") if extra.get("hasElse") else None,
        }

    def read_for_each(self, block: BlockData, extra: Values) -> Values:
        return {
            "variable": self.variable(block, self.field(block, "VARIABLE")),
            "source": self.expression(block, "SOURCE", "context"),
            "body": self.body(block, "BODY"),
        }

    def read_context_iteration(self, block: BlockData, extra: Values) -> Values:
        return {
            "context": self.context(block),
            "source": self.expression(block, "SOURCE", "context"),
            "body": self.body(block, "BODY"),
        }

    def read_set_context(self, block: BlockData, extra: Values) -> Values:
        return {
            "context": self.context(block),
            "value": self.expression(block, "VALUE", "context"),
            "body": self.body(block, "BODY"),
        }

    def read_with(self, block: BlockData, extra: Values) -> Values:
        return {"directives": self.directives(block), "body": self.body(block, "BODY")}

    def read_try(self, block: BlockData, extra: Values) -> Values:
        return {"body": self.body(block, "BODY"), "catch_body": self.body(block, "CATCH")}

    def read_await(self, block: BlockData, extra: Values) -> Values:
        return {"token": self.field(block, "TOKEN", "") or None}

    def read_throw(self, block: BlockData, extra: Values) -> Values:
        message = self.field(block, "MESSAGE", "")
        return {"message": self.expression(block, "MESSAGE", "line") if message else None}

    def read_warn(self, block: BlockData, extra: Values) -> Values:
        return {"force": self.field(block, "FORCE", "FALSE").upper() == "TRUE"}

    def read_module_declaration(self, block: BlockData, extra: Values) -> Values:
        return {
            "name": self.field(block, "NAME"),
            "parameters": self.parameters(block, extra),
            "body": self.body(block, "BODY"),
        }

    def read_comment(self, block: BlockData, extra: Values) -> Values:
        lines = as_comments(extra.get("lines"), f"the lines of {where(block)}")
        text = self.field(block, "TEXT", "")
        if plain_text(lines) != text:
            lines = comments_from_text(text) or ("#",)
        return {"lines": lines}

    def read_fail(self, block: BlockData, extra: Values) -> Values:
        """A statement that is its keyword alone: its block has nothing of its own."""
        return {}

    read_error = read_force_normal = read_break = read_continue = read_return = read_fail

    # the parts of a block

    def fields(self, block: BlockData) -> Values:
        return as_object(block.get("fields"), f"'fields' of {where(block)}")

    def extra(self, block: BlockData) -> Values:
        return as_object(block.get("extraState"), f"'extraState' of {where(block)}")

    def field(self, block: BlockData, name: str, default: str | None = None) -> str:
        value = self.fields(block).get(name, default)
        if value is None:
            self.problem(block, f"field {name} is missing")
            return ""
        return as_text(value, f"field {name} of {where(block)}")

    def body(self, block: BlockData, name: str) -> ast.Body:
        inputs = as_object(block.get("inputs"), f"'inputs' of {where(block)}")
        child = as_object(inputs.get(name), f"input {name} of {where(block)}").get("block")
        if child is None:
            return ()
        if self.depth + 2 > MAX_NESTING:  # the child's level: its body's and its own
            raise BlocksError(f"{where(block)}: blocks are nested more than {MAX_NESTING} deep")
        self.depth += 1
        try:
            return tuple(self.chain(child))
        finally:
            self.depth -= 1

    def expression(
        self, block: BlockData, name: str, place: str = "argument", text: str | None = None
    ) -> ast.Expression:
        text = self.field(block, name) if text is None else text
        try:
            return self.shallow(name, text, parse_expression(text, place))
        except OtterSyntaxError as error:
            self.problem(block, f"{name} {text!r}: {error.diagnostics[0].explained}")
            return ast.Scalar(parts=(ast.Text(value=text),))

    def shallow(self, name: str, text: str, value: Any, *, statements: bool = False) -> Any:
        """``value`` (a value, or ``statements``, read from ``text``), after checking that it
        nests no deeper than the limit where the block being read stands."""
        # this block's statement is self.depth + 1 levels deep; a value stands in it
        problem = nesting_problem(value, self.depth + (0 if statements else 1))
        if problem is not None:
            raise OtterSyntaxError([problem], name=name, text=text)
        return value

    def variable(self, block: BlockData, text: str) -> ast.VariableRef:
        expression = self.expression(block, "VARIABLE", text=text)
        if (
            isinstance(expression, ast.Scalar)
            and len(expression.parts) == 1
            and isinstance(expression.parts[0], ast.VariableRef)
        ):
            return expression.parts[0]
        if isinstance(expression, ast.VariableRef):
            return expression
        self.problem(block, f"{text!r} is not a variable like $name, @name or %name")
        return ast.VariableRef(sigil="$", name=text.lstrip("$@%") or "x")

    def condition(self, block: BlockData, name: str) -> ast.Predicate:
        text = self.field(block, name)
        try:
            return self.shallow(name, text, parse_condition(text))
        except OtterSyntaxError as error:
            self.problem(block, f"{name} {text!r}: {error.diagnostics[0].explained}")
            return ast.IsTrue(operand=ast.Scalar(parts=(ast.Text(value=text),)))

    def arguments(self, block: BlockData) -> tuple[ast.CallArgument, ...]:
        result: list[ast.CallArgument] = []
        what = f"an argument of {where(block)}"
        for item in as_list(self.extra(block).get("arguments"), f"the arguments of {where(block)}"):
            item = as_object(item, what)
            comments = as_comments(item.get("comments"), f"the comments of {what}")
            trailing = self.trailing(item, what)
            name = as_text(item.get("name", ""), f"the name of {what}")
            if "output" in item:
                variable = self.variable(block, as_text(item["output"], f"the output of {what}"))
                result.append(
                    ast.OutputArgument(
                        name=name, variable=variable, comments=comments, trailing_comment=trailing
                    )
                )
            else:
                value = self.expression(
                    block,
                    f"argument {name}",
                    text=as_text(item.get("value", ""), f"{what}'s value"),
                )
                result.append(
                    ast.Argument(
                        name=name, value=value, comments=comments, trailing_comment=trailing
                    )
                )
        return tuple(result)

    def trailing(self, item: Values, what: str) -> str | None:
        value = item.get("trailingComment")
        return None if value is None else as_comment(value, f"the trailing comment of {what}")

    def context(self, block: BlockData) -> str:
        context = self.field(block, "CONTEXT", "server")
        if context not in ("server", "role", "directory", "deployable"):
            self.problem(block, f"CONTEXT {context!r} is not server, role or directory")
            return "server"
        return context

    def directives(self, block: BlockData) -> tuple[ast.Directive, ...]:
        text = self.field(block, "DIRECTIVES")
        try:
            statement = parse(f"with {text}\n{{\n}}\n").body[0]
        except OtterSyntaxError as error:
            self.problem(block, f"DIRECTIVES {text!r}: {error.diagnostics[0].explained}")
            return ()
        assert isinstance(statement, ast.With)
        return tuple(ast.Directive(name=d.name, value=d.value) for d in statement.directives)

    def parameters(self, block: BlockData, extra: Values) -> tuple[ast.ModuleParameter, ...]:
        result = []
        what = f"a parameter of {where(block)}"
        for item in as_list(extra.get("parameters"), f"the parameters of {where(block)}"):
            item = as_object(item, what)
            default = item.get("default")
            result.append(
                ast.ModuleParameter(
                    variable=self.variable(
                        block, as_text(item.get("variable", ""), f"the variable of {what}")
                    ),
                    default=self.expression(
                        block, "default", "default", text=as_text(default, f"the default of {what}")
                    )
                    if default is not None
                    else None,
                    output=bool(item.get("output")),
                )
            )
        return tuple(result)


# the method that reads each block type's own fields (a test holds it to one for every type)
READERS = {
    kind: getattr(BlockReader, "read_" + kind.removeprefix("otter_")) for kind in STATEMENT_TYPES
}


def where(block: BlockData) -> str:
    """Which block, for messages: ``block b7 (otter_log)``."""

    def label(value: Any) -> str:
        return str(value) if isinstance(value, str | int) and not isinstance(value, bool) else "?"

    return f"block {label(block.get('id'))} ({label(block.get('type'))})"


def comments_from_text(text: str) -> tuple[str, ...]:
    """A comment icon's text as comments: ``# `` before each line."""
    return tuple(f"# {line}".rstrip() for line in text.splitlines())
