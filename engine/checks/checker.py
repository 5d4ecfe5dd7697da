"""Static checks on a parsed script, reported as diagnostics for the editor, the API and the CLI.

One visitor walks the tree, with a method per node type (a test holds it to that), keeping
the scope facts the rules need: enclosing loops, locks, and the modules each block declares.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from engine import ast
from engine.errors import Diagnostic, Severity, sort_key
from engine.keywords import NOT_STATEMENTS, STATEMENT_KEYWORDS
from engine.limits import nesting_problem, too_deep
from engine.registry import REGISTRY, ParamType
from engine.spans import Span
from engine.visitor import Visitor

KIND_NAMES = {"$": "a text (scalar)", "@": "a list (vector)", "%": "a map"}
ORDERING = re.compile(r"\s(<|>|<=|>=)\s")
NOWHERE = Span(0, 0, 1, 1, 1, 1)


def check(script: ast.Script) -> list[Diagnostic]:
    """Every diagnostic for ``script``: the parser's warnings and the checks below, by position."""
    checker = _Checker()
    try:
        checker.visit(script)
    except RecursionError:  # a tree made by hand, nested deeper than any parse makes
        checker.diagnostics = [nesting_problem(script) or too_deep(None)]
    return sorted([*script.warnings, *checker.diagnostics], key=sort_key)


@dataclass
class _Scope:
    modules: dict[str, ast.ModuleDeclaration] = field(default_factory=dict)


class _Checker(Visitor[None]):
    def __init__(self) -> None:
        self.diagnostics: list[Diagnostic] = []
        self.scopes: list[_Scope] = []
        self.loops = 0
        self.locks = 0
        self.async_tokens: set[str] = set()

    def report(
        self, node: ast.Node, message: str, *, severity: Severity = "error", code: str
    ) -> None:
        span = node.span or NOWHERE
        self.diagnostics.append(Diagnostic.at(span, message, severity=severity, code=code))

    def generic(self, node: ast.Node) -> None:
        for child in node.children():
            self.visit(child)

    # ---- scripts and bodies

    def visit_script(self, node: ast.Script) -> None:
        self.async_tokens = {
            d.value.casefold()
            for d in _walk_type(node, ast.Directive)
            if d.name == "async" and d.value
        }
        for declaration in ast.misplaced_globals(node.body):
            self.report(declaration, ast.MISPLACED_GLOBAL, code="global-position")
        self.body(node.body)

    def body(self, body: ast.Body | None) -> None:
        if body is None:
            return
        scope = _Scope()
        for statement in body:
            if isinstance(statement, ast.ModuleDeclaration):
                key = statement.name.casefold()
                if key in scope.modules:
                    first = scope.modules[key].span
                    where = f" (first declared on line {first.line})" if first else ""
                    self.report(
                        statement,
                        f"module '{statement.name}' is declared twice in this block{where}",
                        code="duplicate-module",
                    )
                else:
                    scope.modules[key] = statement
        self.scopes.append(scope)
        for statement in body:
            self.visit(statement)
        self.scopes.pop()

    def find_module(self, name: str) -> ast.ModuleDeclaration | None:
        for scope in reversed(self.scopes):
            module = scope.modules.get(name.casefold())
            if module is not None:
                return module
        return None

    # ---- statements

    def visit_operation_call(self, node: ast.OperationCall) -> None:
        lowered = node.name.casefold()
        if node.namespace is None and lowered in NOT_STATEMENTS:
            self.report(
                node,
                f"'{node.name}' is not an OtterScript statement: {NOT_STATEMENTS[lowered]}",
                code="unknown-statement",
            )
        elif node.namespace is None and lowered in STATEMENT_KEYWORDS:
            self.report(
                node,
                f"keywords are lower case: write '{lowered}', not '{node.name}'",
                code="unknown-statement",
            )
        else:
            self.operation_arguments(node)
        self.generic(node)

    def operation_arguments(self, node: ast.OperationCall) -> None:
        """The operation exists, and its arguments are its own and of the right kind."""
        try:
            spec = REGISTRY.find_operation(node.namespace, node.name)
        except LookupError as error:
            self.report(node, str(error), code="unknown-operation")
            return
        if node.positional is not None:
            if spec.positional is None:
                self.report(node.positional, spec.no_positional(), code="operation-argument")
            else:
                self.argument_kind(spec.name, spec.positional, node.positional)
        given = (
            {spec.positional.attribute}
            if node.positional is not None and spec.positional
            else set()
        )
        for argument in node.arguments:
            parameter = spec.find_param(argument.name)
            if parameter is None:
                self.report(
                    argument, spec.unknown_argument(argument.name), code="operation-argument"
                )
                continue
            given.add(parameter.attribute)
            if isinstance(argument, ast.OutputArgument):
                if not parameter.output:
                    self.report(
                        argument, spec.not_an_output(argument.name), code="operation-argument"
                    )
            else:
                self.argument_kind(spec.name, parameter, argument.value)
        for parameter in spec.params:
            if parameter.required and parameter.attribute not in given:
                self.report(node, spec.missing(parameter), code="operation-argument")

    def argument_kind(self, operation: str, parameter, value: ast.Expression) -> None:
        value_kind = ast.kind_of(value)
        literal = value.literal if isinstance(value, ast.Scalar) else None
        problem = None
        if parameter.type in (
            ParamType.TEXT,
            ParamType.INTEGER,
            ParamType.BOOLEAN,
        ) and value_kind in ("@", "%"):
            problem = f"takes {parameter.type.value}, not {KIND_NAMES[value_kind]}"
        elif parameter.type == ParamType.MAP and value_kind in ("$", "@"):
            problem = f"takes a map like %(key: value), not {KIND_NAMES[value_kind]}"
        elif parameter.type == ParamType.LIST and value_kind == "%":
            problem = "takes a list, not a map"
        elif literal is not None:
            try:
                parameter.convert(literal, operation)
            except ValueError as error:
                self.report(value, str(error), code="operation-argument")
                return
        if problem:
            self.report(
                value,
                f"{operation}: argument '{parameter.name}' {problem}",
                code="operation-argument",
            )

    def visit_call_module(self, node: ast.CallModule) -> None:
        self.generic(node)
        if node.raft is not None:
            return
        module = self.find_module(node.name)
        if module is None:
            return  # a module of the raft: only the host can tell
        parameters = {p.variable.name.casefold(): p for p in module.parameters}
        given = set()
        for argument in node.arguments:
            key = argument.name.casefold()
            given.add(key)
            parameter = parameters.get(key)
            if parameter is None:
                names = ", ".join(p.variable.name for p in module.parameters) or "none"
                self.report(
                    argument,
                    f"module '{module.name}' has no parameter '{argument.name}' (its parameters: {names})",
                    code="module-argument",
                )
            elif isinstance(argument, ast.OutputArgument) and not parameter.output:
                self.report(
                    argument,
                    f"'{argument.name}' is an input of module '{module.name}': pass it as {argument.name}: value",
                    code="module-argument",
                )
            elif isinstance(argument, ast.Argument) and parameter.output:
                self.report(
                    argument,
                    f"'{argument.name}' is an output of module '{module.name}': bind it as {argument.name} => $variable",
                    code="module-argument",
                )
        for key, parameter in parameters.items():
            if key not in given and parameter.default is None and not parameter.output:
                self.report(
                    node,
                    f"module '{module.name}' needs '{parameter.variable.name}', which has no default",
                    code="module-argument",
                )

    def visit_block(self, node: ast.Block) -> None:
        self.body(node.body)

    def visit_set_variable(self, node: ast.SetVariable) -> None:
        if not node.indexes:
            self.sigil_matches(node.variable, node.value)
        self.generic_expressions(node)

    def visit_global_declaration(self, node: ast.GlobalDeclaration) -> None:
        if node.value is not None:
            self.sigil_matches(node.variable, node.value)
        self.generic_expressions(node)

    def sigil_matches(self, variable: ast.VariableRef, value: ast.Expression) -> None:
        kind = ast.kind_of(value)
        if kind is not None and kind != variable.sigil:
            self.report(
                value,
                f"{variable.sigil}{variable.name} holds {KIND_NAMES[variable.sigil]}, but the value is {KIND_NAMES[kind]}; "
                f"use {kind}{variable.name} or a value of the right kind",
                code="sigil",
            )

    def visit_log(self, node: ast.Log) -> None:
        self.generic(node)

    def visit_if(self, node: ast.If) -> None:
        self.visit(node.condition)
        self.body(node.body)
        for clause in node.else_ifs:
            self.visit(clause)
        self.body(node.else_body)

    def visit_else_if(self, node: ast.ElseIf) -> None:
        self.visit(node.condition)
        self.body(node.body)

    def visit_for_each(self, node: ast.ForEach) -> None:
        self.needs_list(node.source, f"foreach {node.variable.sigil}{node.variable.name}")
        self.visit(node.source)
        self.loop(node.body)

    def visit_context_iteration(self, node: ast.ContextIteration) -> None:
        self.needs_list(node.source, f"foreach {node.context}")
        self.visit(node.source)
        self.loop(node.body)

    def needs_list(self, source: ast.Expression, what: str) -> None:
        kind = ast.kind_of(source)
        if kind is not None and kind != "@":
            self.report(
                source,
                f"{what} needs a list (like @(a, b) or @Servers), but this is {KIND_NAMES[kind]}",
                code="sigil",
            )

    def loop(self, body: ast.Body) -> None:
        self.loops += 1
        self.body(body)
        self.loops -= 1

    def visit_set_context(self, node: ast.SetContext) -> None:
        kind = ast.kind_of(node.value)
        if kind is not None and kind != "$":
            self.report(
                node.value,
                f"for {node.context} takes one {node.context} name; to run for each item of a list use 'foreach {node.context} in …'",
                code="sigil",
            )
        self.visit(node.value)
        self.body(node.body)

    def visit_with(self, node: ast.With) -> None:
        locked = any(d.name == "lock" for d in node.directives)
        if locked and self.locks:
            self.report(
                node,
                "a lock inside a locked block would never be released: this is a fatal error when it runs",
                code="nested-lock",
            )
        self.locks += locked
        self.body(node.body)
        self.locks -= locked

    def visit_directive(self, node: ast.Directive) -> None:
        pass

    def visit_try(self, node: ast.Try) -> None:
        self.body(node.body)
        self.body(node.catch_body)

    def visit_await(self, node: ast.Await) -> None:
        if node.token and node.token.casefold() not in self.async_tokens:
            self.report(
                node,
                f"no 'with async={node.token}' block in this script: this await has nothing to wait for",
                severity="warning",
                code="await-token",
            )

    def visit_throw(self, node: ast.Throw) -> None:
        self.generic(node)

    def visit_break(self, node: ast.Break) -> None:
        self.outside_loop(node, "break")

    def visit_continue(self, node: ast.Continue) -> None:
        self.outside_loop(node, "continue")

    def outside_loop(self, node: ast.Statement, word: str) -> None:
        if not self.loops:
            self.report(
                node,
                f"'{word}' outside a loop does nothing but log a warning",
                severity="warning",
                code="loop-control",
            )

    def visit_module_declaration(self, node: ast.ModuleDeclaration) -> None:
        for parameter in node.parameters:
            self.visit(parameter)
        loops, self.loops = self.loops, 0
        self.body(node.body)
        self.loops = loops

    def visit_module_parameter(self, node: ast.ModuleParameter) -> None:
        self.generic(node)

    def visit_fail(self, node: ast.Fail) -> None:
        pass

    visit_error = visit_warn = visit_force_normal = visit_return = visit_comment = visit_fail

    def visit_argument(self, node: ast.Argument) -> None:
        self.generic(node)

    def visit_output_argument(self, node: ast.OutputArgument) -> None:
        pass

    def generic_expressions(self, node: ast.Node) -> None:
        self.generic(node)

    # ---- conditions

    def visit_is_true(self, node: ast.IsTrue) -> None:
        operand = node.operand
        if isinstance(operand, ast.Scalar):
            for part in operand.parts:
                if isinstance(part, ast.Text) and ORDERING.search(part.value):
                    self.report(
                        node,
                        "conditions compare only with == and !=; this is tested as text. Use $Compare(a, >, b) == true",
                        severity="warning",
                        code="comparison",
                    )
                    break
        self.generic(node)

    def visit_or(self, node: ast.Or) -> None:
        self.generic(node)

    visit_and = visit_not = visit_compare = visit_or

    # ---- values

    def visit_scalar(self, node: ast.Scalar) -> None:
        if node.style == "implicit":
            for part in node.parts:
                if isinstance(part, ast.Text) and part.value.count('"') % 2 == 1:
                    self.report(
                        part,
                        'an unquoted value with an unbalanced " keeps the quote as text; quote the whole value',
                        severity="warning",
                        code="quote",
                    )
                    break
        self.generic(node)

    def visit_text(self, node: ast.Text) -> None:
        pass

    def visit_variable_ref(self, node: ast.VariableRef) -> None:
        pass

    def visit_function_call(self, node: ast.FunctionCall) -> None:
        spec = REGISTRY.find_function(node.name)
        if spec is None:
            self.report(node, f"unknown function {node.sigil}{node.name}", code="unknown-function")
        else:
            problem = spec.check_count(len(node.args))
            if problem:
                self.report(node, problem, code="function-arguments")
        self.generic(node)

    def visit_vector(self, node: ast.Vector) -> None:
        self.generic(node)

    visit_interpolation = visit_map = visit_map_entry = visit_index = visit_vector


def _walk_type(node: ast.Node, kind: type) -> Iterator:
    return (n for n in node.walk() if isinstance(n, kind))
