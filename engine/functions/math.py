"""Arithmetic and comparison. OtterScript values are text; these read them as numbers."""

from __future__ import annotations

import ast as python_ast
import math as python_math
import operator
from decimal import Decimal, InvalidOperation

from engine.registry import function
from engine.values import Value, to_bool, to_text


def number(value: Value, what: str = "value") -> Decimal:
    try:
        return Decimal(to_text(value).strip())
    except InvalidOperation:
        raise ValueError(f"the {what} must be a number, not '{to_text(value)}'") from None


def show(value: Decimal) -> str:
    if value == value.to_integral_value():
        return str(value.quantize(Decimal(1)))
    return format(value.normalize(), "f")


@function("Abs", returns="$", params=("Value",), description="The absolute value of a number.")
def absolute(call, value):
    return show(abs(number(value)))


@function("Ceiling", returns="$", params=("Value",), description="The number rounded up.")
def ceiling(call, value):
    return str(python_math.ceil(number(value)))


@function("Floor", returns="$", params=("Value",), description="The number rounded down.")
def floor(call, value):
    return str(python_math.floor(number(value)))


@function(
    "Increment",
    returns="$",
    params=("Value", "Amount"),
    optional=1,
    description="The number plus an amount (1 by default).",
)
def increment(call, value, amount="1"):
    return show(number(value) + number(amount, "amount"))


@function(
    "Decrement",
    returns="$",
    params=("Value", "Amount"),
    optional=1,
    description="The number minus an amount (1 by default).",
)
def decrement(call, value, amount="1"):
    return show(number(value) - number(amount, "amount"))


COMPARISONS = {
    "<": operator.lt,
    ">": operator.gt,
    "<=": operator.le,
    ">=": operator.ge,
    "=": operator.eq,
    "==": operator.eq,
    "!=": operator.ne,
}


@function(
    "Compare",
    returns="$",
    params=("arg1", "operator", "arg2", "asNumber"),
    optional=1,
    description="Compares two values as numbers (when both are) or as case-sensitive text: true or false.",
)
def compare(call, left, op, right, as_number=None):
    test = COMPARISONS.get(to_text(op).strip())
    if test is None:
        raise ValueError(f"the operator must be one of <, >, <=, >=, =, != (not '{to_text(op)}')")
    if as_number is None:
        try:
            return "true" if test(number(left), number(right)) else "false"
        except ValueError:
            return "true" if test(to_text(left), to_text(right)) else "false"
    if to_bool(as_number):
        return "true" if test(number(left), number(right)) else "false"
    return "true" if test(to_text(left), to_text(right)) else "false"


_OPERATORS = {
    python_ast.Add: operator.add, python_ast.Sub: operator.sub, python_ast.Mult: operator.mul,
    python_ast.Div: operator.truediv, python_ast.Mod: operator.mod,
}  # fmt: skip


def _evaluate(node: python_ast.AST) -> Decimal:
    if isinstance(node, python_ast.Expression):
        return _evaluate(node.body)
    if isinstance(node, python_ast.Constant) and isinstance(node.value, int | float):
        return Decimal(str(node.value))
    if isinstance(node, python_ast.UnaryOp) and isinstance(
        node.op, python_ast.USub | python_ast.UAdd
    ):
        value = _evaluate(node.operand)
        return -value if isinstance(node.op, python_ast.USub) else value
    if isinstance(node, python_ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, python_ast.Div | python_ast.Mod) and right == 0:
            raise ValueError("division by zero")
        return _OPERATORS[type(node.op)](left, right)
    raise ValueError("only numbers, parentheses and + - * / % are allowed")


@function(
    "Expr",
    returns="$",
    params=("Expression",),
    description="Evaluates arithmetic with + - * / % and parentheses.",
)
def expression(call, text):
    source = to_text(text)
    try:
        tree = python_ast.parse(source, mode="eval")
    except SyntaxError:
        raise ValueError(f"'{source}' is not an arithmetic expression") from None
    return show(_evaluate(tree))
