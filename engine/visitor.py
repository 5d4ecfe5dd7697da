"""The one way code here dispatches on the type of an AST node.

``Visitor[T].visit(node, *args)`` calls the subclass's method for the node's type, named
``visit_`` and the type's name in snake case (``visit_context_iteration`` for
``ContextIteration``), with the same arguments, and returns what it returns. As in Python's
``ast.NodeVisitor`` and jinja's ``NodeVisitor`` the method is found by name, but once per
visitor class and node type (later visits are one dictionary lookup), and a node type without
a method is an error, not a silent walk over its children: each visitor says what every node
it meets means.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar, Generic, TypeVar

from engine.ast import Node

T = TypeVar("T")

_WORD_START = re.compile(r"(?<!^)(?=[A-Z])")


def snake_case(name: str) -> str:
    """``ContextIteration`` -> ``context_iteration``."""
    return _WORD_START.sub("_", name).lower()


def method_name(node_type: type[Node]) -> str:
    """The name of the method a visitor has for ``node_type``: ``visit_context_iteration``."""
    return "visit_" + snake_case(node_type.__name__)


class Visitor(Generic[T]):
    """Base of the visitors: subclasses define ``visit_<snake_case_type>(node, *args) -> T``."""

    # the method for each node type visited so far, per visitor class
    _methods: ClassVar[dict[type[Node], Callable[..., Any]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._methods = {}

    def visit(self, node: Node, *args: Any) -> T:
        """What this visitor's method for the node's type returns for ``node`` and ``args``."""
        try:
            method = self._methods[type(node)]
        except KeyError:
            method = self._method_for(type(node))
        return method(self, node, *args)

    @classmethod
    def _method_for(cls, node_type: type[Node]) -> Callable[..., T]:
        name = method_name(node_type)
        method = getattr(cls, name, None)
        if method is None:
            raise TypeError(f"{cls.__name__} cannot visit a {node_type.__name__}: no {name} method")
        cls._methods[node_type] = method
        return method
