"""How deep a script may nest, and the Python recursion the engine needs for that.

Every part of the engine that walks a script (the formatter, the checks, the block converter,
the interpreter) recurses once or a few times per level of nesting. A script nests one level
for each statement inside a statement's block, and for each value inside a value: a function
call's argument, a list's item, a map's value, ``$( )`` in a text, an index, a condition's
``!``, ``&&``, ``||`` and comparison. Up to ``MAX_NESTING`` levels (counted together) every part
works; the parser and ``from_blocks`` refuse deeper scripts with a diagnostic at the first
statement or value that goes past it, and the interpreter stops a run whose blocks and module
calls nest past ``MAX_RUN_NESTING`` (a module that calls itself without end) with an error.

Python stops a recursion at 1,000 frames by default, too few for 200 levels of nesting in
every visitor: importing the engine raises the limit to ``RECURSION_LIMIT`` (never lowers it).
Ten thousand frames fit in a thread's 8 MiB stack, async frames included.

A regular expression from a script (a function's, an operation's) gets ``REGEX_SECONDS`` per
call (a search, a replace, a find of every match) before it is stopped with an error the script
can catch (``engine.patterns``): a pattern that backtracks without end must not hold a worker.
The environment variable ``OTTERWEB_REGEX_SECONDS`` sets another limit (read once, at import).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import fields

from engine import ast
from engine.errors import Diagnostic, OtterSyntaxError
from engine.spans import Span

MAX_NESTING = 200
MAX_RUN_NESTING = 400
RECURSION_LIMIT = 10_000
# per call of a regular expression from a script (engine.patterns)
REGEX_SECONDS = float(os.environ.get("OTTERWEB_REGEX_SECONDS", "2"))

# The nodes that are one level of nesting; the others (a text, a variable, an argument, an else
# if ...) are parts of the level they stand in.
LEVELS = (
    ast.Statement,
    ast.FunctionCall,
    ast.Interpolation,
    ast.Vector,
    ast.Map,
    ast.Index,
    ast.Or,
    ast.And,
    ast.Not,
    ast.Compare,
)
NESTING_HINT = "write it flatter: move inner blocks into modules, or values into variables"


def allow_deep_recursion() -> None:
    """Raise Python's recursion limit to RECURSION_LIMIT (never lower it)."""
    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)


def nesting_problem(root: ast.Node | tuple | list, depth: int = 0) -> Diagnostic | None:
    """A diagnostic at the first statement or value nested more than MAX_NESTING levels deep
    in ``root`` (a node, or a tuple of nodes, standing ``depth`` levels deep), or None. Counted
    without recursion."""
    pending: list[tuple[object, int, Span | None]] = [(root, depth, None)]
    while pending:
        value, depth, where = pending.pop()
        if isinstance(value, tuple | list):
            pending.extend((item, depth, where) for item in reversed(value))
            continue
        if not isinstance(value, ast.Node):
            continue
        where = value.span or where
        if isinstance(value, LEVELS):
            depth += 1
            if depth > MAX_NESTING:
                return too_deep(where)
        for name in reversed(_node_fields(type(value))):
            child = getattr(value, name)
            if isinstance(child, ast.Node | tuple):
                pending.append((child, depth, where))
    return None


@contextmanager
def nesting_guard(root: ast.Node, name: str = "<script>") -> Iterator[None]:
    """Turn a RecursionError of a walk over ``root`` (a tree made by hand, nested deeper than
    any parse makes) into an OtterSyntaxError at the statement or value that nests too deep."""
    try:
        yield
    except RecursionError:
        raise OtterSyntaxError([nesting_problem(root) or too_deep(None)], name=name) from None


def too_deep(span: Span | None, what: str = "the script") -> Diagnostic:
    message = f"{what} nests more than {MAX_NESTING} levels deep here"
    if span is None:
        return Diagnostic(1, 1, 1, 1, "error", message, "nesting", NESTING_HINT)
    return Diagnostic.at(span, message, code="nesting", hint=NESTING_HINT)


_FIELDS: dict[type[ast.Node], tuple[str, ...]] = {}


def _node_fields(cls: type[ast.Node]) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(
            f.name
            for f in fields(cls)
            if f.name not in ("span", "description", "warnings", "name", "style", "braces", "kept")
        )
    return names
