"""AST <-> Blockly workspace JSON (Blockly's own serialization format).

Each statement kind has one block type, ``otter_<snake_case_name>``. An operation call is one
generic block whose namespace, name and positional argument are fields and whose argument list
is data (``extraState.arguments``). An expression or condition is a text field holding its
canonical text, read back in the place it stands in, so quoting choices survive. Comments are
kept exactly: a statement's description is both its comment icon (plain text, editable) and
``extraState.description`` (as written); an edited icon wins. ``from_blocks(to_blocks(s)) == s``.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from engine import ast
from engine.errors import Diagnostic, OtterSyntaxError
from engine.formatter import format_condition, format_expression, format_statement
from engine.limits import MAX_NESTING, nesting_guard, nesting_problem
from engine.parser import parse, parse_condition, parse_expression

WORKSPACE_KEY = "otterscript"


def block_type(node_type: type[ast.Statement]) -> str:
    return "otter_" + re.sub(r"(?<!^)(?=[A-Z])", "_", node_type.__name__).lower()


STATEMENT_TYPES: dict[str, type[ast.Statement]] = {
    block_type(cls): cls for cls in ast.node_types() if issubclass(cls, ast.Statement)
}
RAW = "otter_raw"
HEADER = re.compile(r"##AH:[^\n]*")
COMMENT = re.compile(r"#[^\n]*|//[^\n]*|/\*(?:(?!\*/)[\s\S])*\*/")


class BlocksError(ValueError):
    """Workspace JSON that does not describe a script."""


def to_blocks(script: ast.Script) -> dict[str, Any]:
    """The Blockly workspace JSON of a script."""
    ids = itertools.count(1)
    with nesting_guard(script, script.name):
        top = _chain(script.body, ids)
    blocks = []
    if top is not None:
        top["x"] = 20
        top["y"] = 20
        blocks.append(top)
    return {
        "blocks": {"languageVersion": 0, "blocks": blocks},
        WORKSPACE_KEY: {"headers": list(script.headers)},
    }


def from_blocks(data: dict[str, Any]) -> ast.Script:
    """The script a Blockly workspace describes. Raises OtterSyntaxError for a bad field and
    BlocksError for JSON that is not a workspace of OtterScript blocks."""
    if not isinstance(data, dict):
        raise BlocksError("a workspace is a JSON object")
    blocks = _list(_object(data.get("blocks"), "'blocks'").get("blocks"), "'blocks.blocks'")
    headers = _list(
        _object(data.get(WORKSPACE_KEY), f"'{WORKSPACE_KEY}'").get("headers"),
        f"'{WORKSPACE_KEY}.headers'",
    )
    for header in headers:
        if not isinstance(header, str) or not HEADER.fullmatch(header):
            raise BlocksError(f"a header is one line of text starting ##AH:, not {_shown(header)}")
    reader = _Reader()
    body: list[ast.Statement] = []
    for top in sorted(blocks, key=lambda b: (_position(b, "y"), _position(b, "x"))):
        body.extend(reader.chain(top))
    if reader.diagnostics:
        raise OtterSyntaxError(reader.diagnostics, name="<blocks>")
    return ast.Script(headers=tuple(headers), body=tuple(body))


def _kind(value: Any) -> str:
    """What a JSON value is, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "text"
    return "a list" if isinstance(value, list) else "an object"


def _shown(value: Any) -> str:
    """A short picture of a JSON value for a message: text quoted and cut, else its kind."""
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:40] + "...")
    return _kind(value)


def _object(value: Any, what: str) -> dict[str, Any]:
    """``value`` when it is a JSON object, {} when it is absent (null)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise BlocksError(f"{what} must be a JSON object, not {_kind(value)}")
    return value


def _list(value: Any, what: str) -> list[Any]:
    """``value`` when it is a JSON list, [] when it is absent (null)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise BlocksError(f"{what} must be a list, not {_kind(value)}")
    return value


def _text(value: Any, what: str) -> str:
    """A field's or a setting's text: text, a number or a boolean (Blockly's TRUE/FALSE)."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, str | int | float):
        return str(value)
    raise BlocksError(f"{what} must be text, not {_kind(value)}")


def _comments(value: Any, what: str) -> tuple[str, ...]:
    """A list of comments, each as written (``# ...``, ``// ...`` or ``/* ... */``)."""
    return tuple(_comment(item, what) for item in _list(value, what))


def _comment(value: Any, what: str) -> str:
    if not isinstance(value, str) or not COMMENT.fullmatch(value):
        raise BlocksError(
            f"{what} must be comments (# ..., // ... or /* ... */), not {_shown(value)}"
        )
    return value


def _position(block: Any, axis: str) -> float:
    value = block.get(axis) if isinstance(block, dict) else None
    return value if isinstance(value, int | float) and not isinstance(value, bool) else 0


# ---- AST -> blocks ----------------------------------------------------------------------------


def _chain(body: ast.Body, ids: itertools.count) -> dict[str, Any] | None:
    first: dict[str, Any] | None = None
    previous: dict[str, Any] | None = None
    for statement in body:
        block = _block(statement, ids)
        if previous is None:
            first = block
        else:
            previous["next"] = {"block": block}
        previous = block
    return first


def _statement_input(body: ast.Body, ids: itertools.count) -> dict[str, Any] | None:
    block = _chain(body, ids)
    return {"block": block} if block is not None else None


def _arguments(arguments: tuple[ast.CallArgument, ...]) -> list[dict[str, Any]]:
    result = []
    for argument in arguments:
        item: dict[str, Any] = {"name": argument.name}
        if isinstance(argument, ast.Argument):
            item["value"] = format_expression(argument.value)
        else:
            item["output"] = format_expression(argument.variable)
        if argument.comments:
            item["comments"] = list(argument.comments)
        if argument.trailing_comment is not None:
            item["trailingComment"] = argument.trailing_comment
        result.append(item)
    return result


def _block(statement: ast.Statement, ids: itertools.count) -> dict[str, Any]:
    kind = type(statement)
    block: dict[str, Any] = {"type": block_type(kind), "id": f"b{next(ids)}"}
    fields: dict[str, Any] = {}
    inputs: dict[str, Any] = {}
    extra: dict[str, Any] = {}

    def body(name: str, statements: ast.Body) -> None:
        value = _statement_input(statements, ids)
        if value is not None:
            inputs[name] = value

    if isinstance(statement, ast.OperationCall):
        fields["NAMESPACE"] = statement.namespace or ""
        fields["NAME"] = statement.name
        fields["POSITIONAL"] = (
            ""
            if statement.positional is None
            else format_expression(statement.positional, "positional")
        )
        extra["arguments"] = _arguments(statement.arguments)
    elif isinstance(statement, ast.CallModule):
        fields["RAFT"] = statement.raft or ""
        fields["NAME"] = statement.name
        extra["arguments"] = _arguments(statement.arguments)
    elif isinstance(statement, ast.Block):
        body("BODY", statement.body)
    elif isinstance(statement, ast.SetVariable):
        fields["SCOPE"] = statement.scope or ""
        fields["VARIABLE"] = format_expression(statement.variable)
        fields["VALUE"] = format_expression(statement.value, "line")
        if statement.indexes:
            extra["indexes"] = [format_expression(key) for key in statement.indexes]
    elif isinstance(statement, ast.GlobalDeclaration):
        fields["VARIABLE"] = format_expression(statement.variable)
        fields["VALUE"] = (
            "" if statement.value is None else format_expression(statement.value, "line")
        )
    elif isinstance(statement, ast.Log):
        fields["LEVEL"] = statement.level
        fields["MESSAGE"] = format_expression(statement.message, "line")
    elif isinstance(statement, ast.If):
        fields["IF0"] = format_condition(statement.condition)
        body("DO0", statement.body)
        for number, clause in enumerate(statement.else_ifs, start=1):
            fields[f"IF{number}"] = format_condition(clause.condition)
            body(f"DO{number}", clause.body)
        extra["elseIfCount"] = len(statement.else_ifs)
        extra["hasElse"] = statement.else_body is not None
        if statement.else_body is not None:
            body("ELSE", statement.else_body)
    elif isinstance(statement, ast.ForEach):
        fields["VARIABLE"] = format_expression(statement.variable)
        fields["SOURCE"] = format_expression(statement.source, "context")
        body("BODY", statement.body)
    elif isinstance(statement, ast.ContextIteration):
        fields["CONTEXT"] = statement.context
        fields["SOURCE"] = format_expression(statement.source, "context")
        body("BODY", statement.body)
    elif isinstance(statement, ast.SetContext):
        fields["CONTEXT"] = statement.context
        fields["VALUE"] = format_expression(statement.value, "context")
        body("BODY", statement.body)
    elif isinstance(statement, ast.With):
        fields["DIRECTIVES"] = ", ".join(
            d.name if d.value is None else f"{d.name}={d.value}" for d in statement.directives
        )
        body("BODY", statement.body)
    elif isinstance(statement, ast.Try):
        body("BODY", statement.body)
        body("CATCH", statement.catch_body)
    elif isinstance(statement, ast.Await):
        fields["TOKEN"] = statement.token or ""
    elif isinstance(statement, ast.Throw):
        fields["MESSAGE"] = (
            "" if statement.message is None else format_expression(statement.message, "line")
        )
    elif isinstance(statement, ast.Warn):
        fields["FORCE"] = "TRUE" if statement.force else "FALSE"
    elif isinstance(statement, ast.ModuleDeclaration):
        fields["NAME"] = statement.name
        extra["parameters"] = [
            {
                "variable": format_expression(p.variable),
                "output": p.output,
                **(
                    {"default": format_expression(p.default, "default")}
                    if p.default is not None
                    else {}
                ),
            }
            for p in statement.parameters
        ]
        body("BODY", statement.body)
    elif isinstance(statement, ast.Comment):
        fields["TEXT"] = "\n".join(ast.comment_text(line) for line in statement.lines)
        extra["lines"] = list(statement.lines)
    elif isinstance(
        statement, ast.Fail | ast.Error | ast.ForceNormal | ast.Break | ast.Continue | ast.Return
    ):
        pass
    else:  # a statement with no block form of its own keeps its text
        block["type"] = RAW
        fields["TEXT"] = format_statement(statement).rstrip("\n")

    if statement.description:
        extra["description"] = list(statement.description)
        block["icons"] = {
            "comment": {
                "text": _plain(statement.description),
                "pinned": False,
                "height": 80,
                "width": 240,
            }
        }
    if statement.trailing_comment is not None:
        extra["trailingComment"] = statement.trailing_comment
    if statement.blank_line_before:
        extra["blankLineBefore"] = True
    if fields:
        block["fields"] = fields
    if inputs:
        block["inputs"] = inputs
    if extra:
        block["extraState"] = extra
    return block


def _plain(comments: tuple[str, ...]) -> str:
    return "\n".join(ast.comment_text(comment) for comment in comments)


def _comments_from_text(text: str) -> tuple[str, ...]:
    return tuple(f"# {line}".rstrip() for line in text.splitlines())


# ---- blocks -> AST ----------------------------------------------------------------------------


def _where(block: dict[str, Any]) -> str:
    def label(value: Any) -> str:
        return str(value) if isinstance(value, str | int) and not isinstance(value, bool) else "?"

    return f"block {label(block.get('id'))} ({label(block.get('type'))})"


class _Reader:
    def __init__(self) -> None:
        self.diagnostics: list[Diagnostic] = []
        self.depth = 0

    def problem(self, block: dict[str, Any], message: str) -> None:
        self.diagnostics.append(
            Diagnostic(1, 1, 1, 1, "error", f"{_where(block)}: {message}", "blocks")
        )

    def chain(self, block: Any) -> list[ast.Statement]:
        statements: list[ast.Statement] = []
        seen: set[int] = set()
        while block is not None:
            if not isinstance(block, dict):
                raise BlocksError(f"a block is a JSON object, not {_kind(block)}")
            if id(block) in seen:  # pragma: no cover - JSON cannot hold cycles
                raise BlocksError("the blocks form a cycle")
            seen.add(id(block))
            statements.extend(self.statement(block))
            block = _object(block.get("next"), f"'next' of {_where(block)}").get("block")
        return statements

    def body(self, block: dict[str, Any], name: str) -> ast.Body:
        inputs = _object(block.get("inputs"), f"'inputs' of {_where(block)}")
        child = _object(inputs.get(name), f"input {name} of {_where(block)}").get("block")
        if child is None:
            return ()
        if self.depth + 2 > MAX_NESTING:  # the child's level: its body's and its own
            raise BlocksError(f"{_where(block)}: blocks are nested more than {MAX_NESTING} deep")
        self.depth += 1
        try:
            return tuple(self.chain(child))
        finally:
            self.depth -= 1

    def fields(self, block: dict[str, Any]) -> dict[str, Any]:
        return _object(block.get("fields"), f"'fields' of {_where(block)}")

    def extra(self, block: dict[str, Any]) -> dict[str, Any]:
        return _object(block.get("extraState"), f"'extraState' of {_where(block)}")

    def field(self, block: dict[str, Any], name: str, default: str | None = None) -> str:
        value = self.fields(block).get(name, default)
        if value is None:
            self.problem(block, f"field {name} is missing")
            return ""
        return _text(value, f"field {name} of {_where(block)}")

    def expression(
        self, block: dict[str, Any], name: str, place: str = "argument", text: str | None = None
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

    def variable(self, block: dict[str, Any], text: str) -> ast.VariableRef:
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

    def condition(self, block: dict[str, Any], name: str) -> ast.Predicate:
        text = self.field(block, name)
        try:
            return self.shallow(name, text, parse_condition(text))
        except OtterSyntaxError as error:
            self.problem(block, f"{name} {text!r}: {error.diagnostics[0].explained}")
            return ast.IsTrue(operand=ast.Scalar(parts=(ast.Text(value=text),)))

    def arguments(self, block: dict[str, Any]) -> tuple[ast.CallArgument, ...]:
        result: list[ast.CallArgument] = []
        what = f"an argument of {_where(block)}"
        for item in _list(self.extra(block).get("arguments"), f"the arguments of {_where(block)}"):
            item = _object(item, what)
            comments = _comments(item.get("comments"), f"the comments of {what}")
            trailing = self.trailing(item, what)
            name = _text(item.get("name", ""), f"the name of {what}")
            if "output" in item:
                variable = self.variable(block, _text(item["output"], f"the output of {what}"))
                result.append(
                    ast.OutputArgument(
                        name=name, variable=variable, comments=comments, trailing_comment=trailing
                    )
                )
            else:
                value = self.expression(
                    block, f"argument {name}", text=_text(item.get("value", ""), f"{what}'s value")
                )
                result.append(
                    ast.Argument(
                        name=name, value=value, comments=comments, trailing_comment=trailing
                    )
                )
        return tuple(result)

    def trailing(self, item: dict[str, Any], what: str) -> str | None:
        value = item.get("trailingComment")
        return None if value is None else _comment(value, f"the trailing comment of {what}")

    def statement(self, block: dict[str, Any]) -> list[ast.Statement]:
        kind = block.get("type")
        if not isinstance(kind, str):
            raise BlocksError(f"{_where(block)} has no type (text like 'otter_log')")
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
                statements = list(self.shallow("TEXT", text, parse(text).body, statements=True))
            except OtterSyntaxError as error:
                self.problem(block, error.diagnostics[0].explained)
                return []
            return statements
        common = self.common(block, extra)
        values: dict[str, Any] = {}
        if cls is ast.OperationCall:
            positional = self.field(block, "POSITIONAL", "")
            values = {
                "namespace": self.field(block, "NAMESPACE", "") or None,
                "name": self.field(block, "NAME"),
                "positional": self.expression(block, "POSITIONAL", "positional")
                if positional
                else None,
                "arguments": self.arguments(block),
            }
        elif cls is ast.CallModule:
            values = {
                "raft": self.field(block, "RAFT", "") or None,
                "name": self.field(block, "NAME"),
                "arguments": self.arguments(block),
            }
        elif cls is ast.Block:
            values = {"body": self.body(block, "BODY")}
        elif cls is ast.SetVariable:
            values = {
                "scope": self.field(block, "SCOPE", "") or None,
                "variable": self.variable(block, self.field(block, "VARIABLE")),
                "indexes": tuple(
                    self.expression(block, "index", text=_text(t, f"an index of {_where(block)}"))
                    for t in _list(extra.get("indexes"), f"the indexes of {_where(block)}")
                ),
                "value": self.expression(block, "VALUE", "line"),
            }
        elif cls is ast.GlobalDeclaration:
            value = self.field(block, "VALUE", "")
            values = {
                "variable": self.variable(block, self.field(block, "VARIABLE")),
                "value": self.expression(block, "VALUE", "line") if value else None,
            }
        elif cls is ast.Log:
            level = self.field(block, "LEVEL", "information")
            if level not in ast.Log.keyword_by_level:
                self.problem(block, f"LEVEL {level!r} is not debug, information, warning or error")
                level = "information"
            values = {"level": level, "message": self.expression(block, "MESSAGE", "line")}
        elif cls is ast.If:
            count = extra.get("elseIfCount") or 0
            if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                raise BlocksError(f"elseIfCount of {_where(block)} must be a whole number")
            if count >= max(len(self.fields(block)), 1):  # IF0 and one IFn for each
                raise BlocksError(
                    f"elseIfCount of {_where(block)} is {count}, but it has no IF{count} field"
                )
            values = {
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
        elif cls is ast.ForEach:
            values = {
                "variable": self.variable(block, self.field(block, "VARIABLE")),
                "source": self.expression(block, "SOURCE", "context"),
                "body": self.body(block, "BODY"),
            }
        elif cls is ast.ContextIteration:
            values = {
                "context": self.context(block),
                "source": self.expression(block, "SOURCE", "context"),
                "body": self.body(block, "BODY"),
            }
        elif cls is ast.SetContext:
            values = {
                "context": self.context(block),
                "value": self.expression(block, "VALUE", "context"),
                "body": self.body(block, "BODY"),
            }
        elif cls is ast.With:
            values = {"directives": self.directives(block), "body": self.body(block, "BODY")}
        elif cls is ast.Try:
            values = {"body": self.body(block, "BODY"), "catch_body": self.body(block, "CATCH")}
        elif cls is ast.Await:
            values = {"token": self.field(block, "TOKEN", "") or None}
        elif cls is ast.Throw:
            message = self.field(block, "MESSAGE", "")
            values = {"message": self.expression(block, "MESSAGE", "line") if message else None}
        elif cls is ast.Warn:
            values = {"force": self.field(block, "FORCE", "FALSE").upper() == "TRUE"}
        elif cls is ast.ModuleDeclaration:
            values = {
                "name": self.field(block, "NAME"),
                "parameters": self.parameters(block, extra),
                "body": self.body(block, "BODY"),
            }
        elif cls is ast.Comment:
            lines = _comments(extra.get("lines"), f"the lines of {_where(block)}")
            text = self.field(block, "TEXT", "")
            if "\n".join(ast.comment_text(line) for line in lines) != text:
                lines = _comments_from_text(text) or ("#",)
            values = {"lines": lines}
        return [cls(**values, **common)]

    def common(self, block: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
        what = _where(block)
        description = _comments(extra.get("description"), f"the description of {what}")
        icons = _object(block.get("icons"), f"'icons' of {what}")
        icon = _object(icons.get("comment"), f"the comment icon of {what}").get("text")
        if icon is not None and not isinstance(icon, str):
            raise BlocksError(f"the comment icon's text of {what} must be text, not {_kind(icon)}")
        if icon is not None and icon != _plain(description):
            description = _comments_from_text(icon)
        elif icon is None and description:
            description = ()  # the user removed the comment
        return {
            "description": description,
            "trailing_comment": self.trailing(extra, what),
            "blank_line_before": bool(extra.get("blankLineBefore")),
        }

    def context(self, block: dict[str, Any]) -> str:
        context = self.field(block, "CONTEXT", "server")
        if context not in ("server", "role", "directory", "deployable"):
            self.problem(block, f"CONTEXT {context!r} is not server, role or directory")
            return "server"
        return context

    def directives(self, block: dict[str, Any]) -> tuple[ast.Directive, ...]:
        text = self.field(block, "DIRECTIVES")
        try:
            statement = parse(f"with {text}\n{{\n}}\n").body[0]
        except OtterSyntaxError as error:
            self.problem(block, f"DIRECTIVES {text!r}: {error.diagnostics[0].explained}")
            return ()
        return tuple(ast.Directive(name=d.name, value=d.value) for d in statement.directives)  # type: ignore[attr-defined]

    def parameters(
        self, block: dict[str, Any], extra: dict[str, Any]
    ) -> tuple[ast.ModuleParameter, ...]:
        result = []
        what = f"a parameter of {_where(block)}"
        for item in _list(extra.get("parameters"), f"the parameters of {_where(block)}"):
            item = _object(item, what)
            default = item.get("default")
            result.append(
                ast.ModuleParameter(
                    variable=self.variable(
                        block, _text(item.get("variable", ""), f"the variable of {what}")
                    ),
                    default=self.expression(
                        block, "default", "default", text=_text(default, f"the default of {what}")
                    )
                    if default is not None
                    else None,
                    output=bool(item.get("output")),
                )
            )
        return tuple(result)
