"""Modules and argument binding: the module a call names (declared in an enclosing block, or an
item of a raft), and a call's arguments bound to the parameters of a module or an operation,
with its outputs assigned back to the caller's variables."""

from __future__ import annotations

from typing import Any

from engine import ast
from engine.interpreter.context import Context, Scope, assign
from engine.interpreter.errors import ExecutionError, FatalError
from engine.interpreter.expressions import Evaluator, check_kind, empty_value
from engine.interpreter.ledger import Ledger
from engine.limits import MAX_RUN_NESTING
from engine.parser import parse
from engine.registry import Operation, OperationSpec, Param
from engine.values import Value, as_written


class Modules:
    """Finds modules (caching those of rafts) and binds the arguments of calls."""

    __slots__ = ("_declared", "_rafts", "evaluator", "host", "ledger")

    def __init__(self, evaluator: Evaluator, ledger: Ledger) -> None:
        self.evaluator = evaluator
        self.host = evaluator.host
        self.ledger = ledger  # learns the blocks of the raft modules that are run
        # the modules each block declares, by casefolded name, by id of the block
        self._declared: dict[int, dict[str, ast.ModuleDeclaration]] = {}
        self._rafts: dict[tuple[str, str], ast.ModuleDeclaration] = {}  # by raft and name

    async def find(self, statement: ast.CallModule, scope: Scope) -> ast.ModuleDeclaration:
        """The module a call names: declared in the block of the call or of one around it, the
        nearest first, or else an item of the raft."""
        key = statement.name.casefold()
        if statement.raft is None:
            current: Scope | None = scope
            while current is not None:
                module = self._declared_in(current.body).get(key)
                if module is not None:
                    return module
                current = current.parent
        raft = statement.raft or self.host.raft
        cache_key = ((raft or "").casefold(), key)
        if cache_key in self._rafts:
            return self._rafts[cache_key]
        text = await self.host.raft_item(raft, statement.name, "module")
        if text is None:
            where = f"the raft '{raft}'" if raft else "this script or its raft"
            raise ExecutionError(
                f"module '{statement.name}' was not found in {where}", statement.span
            )
        try:
            module_script = parse(text, name=f"{raft or ''}::{statement.name}")
        except Exception as error:  # OtterSyntaxError: the raft module does not parse
            raise ExecutionError(
                f"module '{statement.name}' in its raft does not parse: {error}", statement.span
            ) from None
        declared = next(
            (
                s
                for s in module_script.body
                if isinstance(s, ast.ModuleDeclaration) and s.name.casefold() == key
            ),
            None,
        )
        module = declared or ast.ModuleDeclaration(name=statement.name, body=module_script.body)
        self._rafts[cache_key] = module
        self.ledger.add_body(module_script.body)
        return module

    def _declared_in(self, body: ast.Body) -> dict[str, ast.ModuleDeclaration]:
        declared = self._declared.get(id(body))
        if declared is None:
            declared = {s.name.casefold(): s for s in body if isinstance(s, ast.ModuleDeclaration)}
            self._declared[id(body)] = declared
        return declared

    async def bind_module(
        self,
        module: ast.ModuleDeclaration,
        statement: ast.CallModule,
        scope: Scope,
        context: Context,
    ) -> Scope:
        """The scope the module runs in: its parameters, from the call's arguments or their
        defaults."""
        module_scope = Scope(scope)
        if module_scope.depth > MAX_RUN_NESTING:
            raise FatalError(
                f"blocks and module calls nest more than {MAX_RUN_NESTING} levels deep here: "
                f"does the module '{module.name}' call itself without end?",
                statement.span,
            )
        parameters = {p.variable.name.casefold(): p for p in module.parameters}
        given: set[str] = set()
        for argument in statement.arguments:
            key = argument.name.casefold()
            parameter = parameters.get(key)
            if parameter is None:
                raise ExecutionError(
                    f"module '{module.name}' has no parameter '{argument.name}'",
                    argument.span or statement.span,
                )
            given.add(key)
            if isinstance(argument, ast.Argument):
                value = await self.evaluator.evaluate(argument.value, scope, context)
                check_kind(parameter.variable, value, argument.value.span)
                module_scope.variables[key] = (parameter.variable.name, value)
        for key, parameter in parameters.items():
            if key in given and not parameter.output:
                continue
            if key in given and parameter.output and key in module_scope.variables:
                continue
            if parameter.default is not None:
                value = await self.evaluator.evaluate(parameter.default, scope, context)
            elif parameter.output:
                value = empty_value(parameter.variable.sigil)
            else:
                raise ExecutionError(
                    f"module '{module.name}' needs the argument '{parameter.variable.name}', which has no default",
                    statement.span,
                )
            module_scope.variables[key] = (parameter.variable.name, value)
        return module_scope

    def assign_module_outputs(
        self, statement: ast.CallModule, module_scope: Scope, scope: Scope, context: Context
    ) -> None:
        for argument in statement.arguments:
            if isinstance(argument, ast.OutputArgument):
                _name, value = module_scope.variables[argument.name.casefold()]
                check_kind(argument.variable, value, argument.span)
                assign(argument.variable, value, scope, context)

    async def bind_operation(
        self, spec: OperationSpec, statement: ast.OperationCall, scope: Scope, context: Context
    ) -> tuple[dict[str, Any], list[tuple[Param, ast.OutputArgument]]]:
        """The operation's arguments by parameter attribute, and its output arguments with
        their parameters."""
        values: dict[str, Any] = {}
        outputs: list[tuple[Param, ast.OutputArgument]] = []

        async def value_of(parameter: Param, expression: ast.Expression) -> Any:
            value = (
                await self.evaluator.evaluate(expression, scope, context)
                if parameter.expand
                else as_written(expression, keep_escapes=True)
            )
            try:
                return parameter.convert(value, spec.name)
            except ValueError as error:
                raise ExecutionError(str(error), expression.span or statement.span) from None

        if statement.positional is not None:
            positional = spec.positional
            if positional is None:
                raise ExecutionError(spec.no_positional(), statement.positional.span)
            values[positional.attribute] = await value_of(positional, statement.positional)
        for argument in statement.arguments:
            parameter = spec.find_param(argument.name)
            if parameter is None:
                raise ExecutionError(spec.unknown_argument(argument.name), argument.span)
            if isinstance(argument, ast.OutputArgument):
                if not parameter.output:
                    raise ExecutionError(spec.not_an_output(argument.name), argument.span)
                outputs.append((parameter, argument))
                continue
            values[parameter.attribute] = await value_of(parameter, argument.value)
        for parameter in spec.params:
            if parameter.required and parameter.attribute not in values:
                raise ExecutionError(spec.missing(parameter), statement.span)
        return values, outputs

    def assign_operation_outputs(
        self,
        operation: Operation,
        outputs: list[tuple[Param, ast.OutputArgument]],
        scope: Scope,
        context: Context,
    ) -> None:
        for parameter, argument in outputs:
            value = getattr(operation, parameter.attribute)
            value = empty_value(argument.variable.sigil) if value is None else _output_value(value)
            check_kind(argument.variable, value, argument.span)
            assign(argument.variable, value, scope, context)


def _output_value(value: Any) -> Value:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return value
