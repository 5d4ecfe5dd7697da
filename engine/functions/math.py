"""Arithmetic and comparison. OtterScript values are text; these read them as numbers."""

from __future__ import annotations

import math as python_math
import operator
import re
from decimal import Decimal, DecimalException

from engine.functions.arguments import number
from engine.registry import function
from engine.values import to_bool, to_text


def show(value: Decimal) -> str:
    """A computed number as people write it: no exponent, no trailing zeros."""
    return "0" if value == 0 else format(value.normalize(), "f")


@function("Abs", returns="$", params=("Value",), description="The absolute value of a number.")
def absolute(call, value):
    return show(abs(number(value, "the value")))


@function("Ceiling", returns="$", params=("Value",), description="The number rounded up.")
def ceiling(call, value):
    return str(python_math.ceil(number(value, "the value")))


@function("Floor", returns="$", params=("Value",), description="The number rounded down.")
def floor(call, value):
    return str(python_math.floor(number(value, "the value")))


@function(
    "Increment",
    returns="$",
    params=("Value", "Amount"),
    optional=1,
    description="The number plus an amount (1 by default), with the decimals it was written "
    "with: $Increment(1.50) is 2.50.",
)
def increment(call, value, amount="1"):
    return format(number(value, "the value") + number(amount, "the amount"), "f")


@function(
    "Decrement",
    returns="$",
    params=("Value", "Amount"),
    optional=1,
    description="The number minus an amount (1 by default), with the decimals it was written with.",
)
def decrement(call, value, amount="1"):
    return format(number(value, "the value") - number(amount, "the amount"), "f")


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
    description="Compares two values as numbers (when both are) or as case-sensitive text: "
    "true or false. asNumber true makes text that is not a number an error; false always "
    "compares text.",
)
def compare(call, left, op, right, as_number=None):
    test = COMPARISONS.get(to_text(op).strip())
    if test is None:
        raise ValueError(f"the operator must be one of <, >, <=, >=, =, != (not '{to_text(op)}')")
    if as_number is None:
        try:
            return "true" if test(number(left, "arg1"), number(right, "arg2")) else "false"
        except ValueError:
            return "true" if test(to_text(left), to_text(right)) else "false"
    if to_bool(as_number):
        return "true" if test(number(left, "arg1"), number(right, "arg2")) else "false"
    return "true" if test(to_text(left), to_text(right)) else "false"


_TOKEN = re.compile(r"\s*(?:((?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)|([-+*/%()]))")
_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "%": 2, "negate": 3, "plus": 3}
_BINARY = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "%": operator.mod,
}


def _apply(symbol: str, values: list[Decimal]) -> None:
    if symbol in ("negate", "plus"):
        values.append(-values.pop() if symbol == "negate" else values.pop())
        return
    right, left = values.pop(), values.pop()
    if symbol in "/%" and right == 0:
        raise ValueError("division by zero")
    values.append(_BINARY[symbol](left, right))


def arithmetic(source: str) -> Decimal:
    """The value of ``source``: numbers, + - * / %, unary minus and parentheses, evaluated in
    decimal with the usual precedence (operator precedence parsing; no recursion)."""
    values: list[Decimal] = []
    operators: list[str] = []
    expect_value = True  # a number, "(" or a sign comes next
    position, end = 0, len(source.rstrip())

    def invalid() -> ValueError:
        return ValueError(
            f"'{source}' is not an arithmetic expression (numbers, + - * / % and parentheses)"
        )

    while position < end:
        match = _TOKEN.match(source, position)
        if match is None:
            raise invalid()
        position = match.end()
        literal, symbol = match.groups()
        if literal is not None or symbol == "(":
            if not expect_value:
                raise invalid()
            if literal is not None:
                values.append(number(literal, "a number in the expression"))
                expect_value = False
            else:
                operators.append("(")
        elif symbol == ")":
            if expect_value:
                raise invalid()
            while operators and operators[-1] != "(":
                _apply(operators.pop(), values)
            if not operators:
                raise invalid()
            operators.pop()
        elif expect_value:
            if symbol not in "+-":
                raise invalid()
            operators.append("negate" if symbol == "-" else "plus")
        else:
            while operators and operators[-1] != "(":
                if _PRECEDENCE[operators[-1]] < _PRECEDENCE[symbol]:
                    break
                _apply(operators.pop(), values)
            operators.append(symbol)
            expect_value = True
    if expect_value or "(" in operators:
        raise invalid()
    while operators:
        _apply(operators.pop(), values)
    return values[0]


@function(
    "Expr",
    returns="$",
    params=("Expression",),
    description="Evaluates arithmetic with + - * / % and parentheses, in decimal: "
    "$Expr(1 / 4) is 0.25.",
)
def expression(call, text):
    try:
        return show(arithmetic(to_text(text)))
    except DecimalException:
        raise ValueError(f"the result of '{to_text(text)}' is out of range") from None
