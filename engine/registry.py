"""The one registry of operations and variable functions.

Operations are classes registered with ``@operation``; their parameters are class attributes
made with ``param()``. Functions are plain functions registered with ``@function``. The
registry drives the interpreter (binding arguments), the checks (unknown operations and
arguments), the block editor and the reference documentation.
"""

from __future__ import annotations

import difflib
import inspect
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Concatenate, Protocol, TypeAlias, TypeVar

from engine.values import KIND_NAMES, Value, kind, to_text

if TYPE_CHECKING:
    from engine import ast
    from engine.agents import Agent
    from engine.interpreter.context import Context
    from engine.interpreter.host import Host, RunCredential
    from engine.interpreter.logs import Level
    from engine.spans import Span

T = TypeVar("T")
SUMMARY_CHARACTERS = 200


def brief(text: str) -> str:
    """The first line of ``text`` that is not blank, cut to SUMMARY_CHARACTERS with an ellipsis:
    what a log scope's title shows of an argument (a script, a command line, a path)."""
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return line if len(line) <= SUMMARY_CHARACTERS else line[: SUMMARY_CHARACTERS - 1] + "…"


class Run(Protocol):
    """What operations and functions see of the run in progress: the server and directory in
    context, its agent, the host, and the variables in scope."""

    @property
    def server(self) -> str: ...

    @property
    def working_directory(self) -> str: ...

    @property
    def host(self) -> Host: ...

    @property
    def simulate(self) -> bool:
        """Whether the run is a simulation: operations say what they would do, and do nothing."""

    def resolve(self, path: str) -> str:
        """``path`` from the directory in context."""

    async def agent(self) -> Agent: ...

    async def fact(self, name: str, load: Callable[[], Awaitable[T]]) -> T:
        """What ``load`` reads of the server in context, read once and shared by the operations
        that ask for ``name`` until something changes the server (engine/interpreter/facts.py).
        What it returns is shared: never changed in place."""

    def elsewhere(self, server: str) -> Run:
        """The run as seen from another server (its agent and working directory)."""

    def credential(self, name: str, *, kinds=None, use: str = "") -> RunCredential:
        """The credential ``name`` for the server in context, its secret masked in the log;
        an ExecutionError when it does not exist, may not be used here, or is of none of
        ``kinds`` (the kinds ``use``, an operation, accepts: ``Operation.credential_kinds``)."""

    def variable(self, name: str) -> Value | None:
        """A runtime or configuration variable by name (sigil optional), or None."""

    async def evaluate(self, expression: ast.Expression, variables: dict | None = None) -> Value:
        """Evaluate in this scope, with ``variables`` (casefolded name -> (name, value)) on top."""

    async def test(self, predicate: ast.Predicate, variables: dict | None = None) -> bool: ...


class OperationRun(Run, Protocol):
    """What an operation's ``execute`` and ``collect`` get: the run, and a log of its own (an
    error line fails the operation)."""

    def log(self, level: Level, message: str) -> None: ...

    def debug(self, message: str) -> None: ...

    def info(self, message: str) -> None: ...

    def warn(self, message: str) -> None: ...

    def error(self, message: str) -> None: ...

    def scalar_variables(self) -> dict[str, str]:
        """Every text runtime variable visible here, inner scopes winning (ImportVariables)."""

    def add_secret(self, secret: str) -> None:
        """Mask ``secret`` in the log from now on."""

    def set_variable(self, name: str, value: Value) -> None:
        """Create or assign a runtime variable as a plain `set` would."""


class FunctionRun(Run, Protocol):
    """What a variable function gets as its first argument, ``call``."""

    sigil: str  # how it was called: $, @ or %
    span: Span | None
    context: Context  # the server, role and directory in context, and the strand's status

    async def evaluate_text(self, text: str) -> Value:
        """``$Eval``: expand the variables and functions in ``text``."""


# a registered function: ``def f(call, *args)``, plain or async
FunctionImplementation: TypeAlias = Callable[Concatenate[FunctionRun, ...], Any]


class Kind(StrEnum):
    """How an operation behaves in the execution modes."""

    EXECUTE = "execute"  # changes something; runs in execute mode (and after drift)
    ENSURE = "ensure"  # collects the current state, compares, changes it only when it drifted
    COLLECT = "collect"  # reads state; runs in every mode


class ParamType(StrEnum):
    TEXT = "text"
    INTEGER = "integer"
    BOOLEAN = "true/false"
    LIST = "@list"
    MAP = "%map"
    ANY = "any"


@dataclass
class Param:
    """One parameter of an operation."""

    name: str
    type: ParamType = ParamType.TEXT
    aliases: tuple[str, ...] = ()
    required: bool = False
    default: Any = None
    positional: bool = False
    output: bool = False
    expand: bool = True  # False: the value is taken as written ($ not expanded)
    description: str = ""
    attribute: str = ""

    def __set_name__(self, owner: object, attribute: str) -> None:
        self.attribute = attribute

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)

    def convert(self, value: Value, operation: str) -> Any:
        """The value as this parameter's type; ValueError names the problem."""
        where = f"{operation}: argument '{self.name}'"
        if self.type == ParamType.ANY:
            return value
        if self.type == ParamType.LIST:
            if isinstance(value, dict):
                raise ValueError(f"{where} takes a list, not a map")
            return value if isinstance(value, list) else [value]
        if self.type == ParamType.MAP:
            if not isinstance(value, dict):
                raise ValueError(
                    f"{where} takes a map like %(key: value), not {KIND_NAMES[kind(value)]}"
                )
            return value
        if not isinstance(value, str):
            raise ValueError(f"{where} takes {self.type.value}, not a {KIND_NAMES[kind(value)]}")
        if self.type == ParamType.INTEGER:
            try:
                return int(value.strip())
            except ValueError:
                raise ValueError(f"{where} takes a whole number, not '{value}'") from None
        if self.type == ParamType.BOOLEAN:
            lowered = value.strip().lower()
            if lowered in ("true", "yes", "1"):
                return True
            if lowered in ("false", "no", "0", ""):
                return False
            raise ValueError(f"{where} takes true or false, not '{value}'")
        return value


def param(name: str, type: ParamType = ParamType.TEXT, **options: Any) -> Any:
    """Declare an operation parameter: ``seconds = param("Seconds", ParamType.INTEGER, required=True)``."""
    return Param(name, type, **options)


@dataclass
class OperationSpec:
    name: str
    aliases: tuple[str, ...]
    namespace: str
    kind: Kind
    description: str
    cls: type[Operation]
    params: list[Param] = field(default_factory=list)

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)

    @property
    def positional(self) -> Param | None:
        return next((p for p in self.params if p.positional), None)

    # What is wrong with a call's arguments, worded once for the checks and the run.

    def no_positional(self) -> str:
        return f"{self.name} takes no positional argument; name it: {self.name} (Name: value)"

    def unknown_argument(self, name: str) -> str:
        known = ", ".join(p.name for p in self.params)
        return f"{self.name} has no argument '{name}' (its arguments: {known})"

    def not_an_output(self, name: str) -> str:
        return f"{self.name}: '{name}' is not an output; pass it as {name}: value"

    def missing(self, parameter: Param) -> str:
        how = (
            "as its positional argument" if parameter.positional else f"as {parameter.name}: value"
        )
        return f"{self.name} needs '{parameter.name}' ({how})"

    def find_param(self, name: str) -> Param | None:
        lowered = name.casefold()
        return next((p for p in self.params if any(n.casefold() == lowered for n in p.names)), None)


class Operation:
    """Base of operations. Arguments are bound to the parameters' attributes before a run."""

    spec: ClassVar[OperationSpec]
    # the kinds of credential (engine.interpreter.host.CREDENTIAL_KINDS) its Credentials
    # argument accepts; an operation that takes none leaves it empty
    credential_kinds: ClassVar[tuple[str, ...]] = ()

    def __init__(self, values: dict[str, Any]) -> None:
        for p in self.spec.params:
            setattr(self, p.attribute, values.get(p.attribute, p.default))

    def summary(self) -> str:
        """A short description for the log scope: the operation and its main argument."""
        positional = self.spec.positional
        if positional is not None:
            value = getattr(self, positional.attribute)
            text = brief(to_text(value)) if value is not None else ""
            if text:
                return f"{self.spec.name} {text}"
        return self.spec.name

    async def execute(
        self, run: OperationRun
    ) -> None:  # pragma: no cover - each kind overrides what it uses
        raise NotImplementedError

    async def collect(self, run: OperationRun) -> dict[str, Any]:  # pragma: no cover
        raise NotImplementedError

    def desired(self) -> dict[str, Any]:
        """For ensure operations: the state the arguments describe, by parameter name."""
        return {}


@dataclass
class FunctionSpec:
    name: str
    aliases: tuple[str, ...]
    returns: str | None  # "$", "@", "%", or None when the call's sigil decides
    params: tuple[str, ...]
    optional: int  # how many of the trailing params may be left out
    variadic: bool
    description: str
    implementation: FunctionImplementation
    is_async: bool

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)

    def signature(self) -> str:
        shown = list(self.params)
        for index in range(len(shown) - self.optional, len(shown)):
            shown[index] = f"[{shown[index]}]"
        if self.variadic:
            shown.append("...")
        return f"{self.returns or '$'}{self.name}({', '.join(shown)})"

    def check_count(self, count: int) -> str | None:
        least = len(self.params) - self.optional
        if count < least:
            return f"{self.signature()} needs at least {least} argument{'s' if least != 1 else ''}, got {count}"
        if not self.variadic and count > len(self.params):
            return f"{self.signature()} takes at most {len(self.params)} argument{'s' if len(self.params) != 1 else ''}, got {count}"
        return None


class Registry:
    def __init__(self) -> None:
        self.operations: dict[str, list[OperationSpec]] = {}
        self.functions: dict[str, FunctionSpec] = {}

    def add_operation(self, spec: OperationSpec) -> None:
        for name in spec.names:
            self.operations.setdefault(name.casefold(), []).append(spec)

    def add_function(self, spec: FunctionSpec) -> None:
        for name in spec.names:
            key = name.casefold()
            if key in self.functions:
                raise ValueError(f"function {name} is registered twice")
            self.functions[key] = spec

    def find_operation(self, namespace: str | None, name: str) -> OperationSpec:
        """The operation a call names; LookupError with a helpful message otherwise."""
        _load_builtins()
        candidates = self.operations.get(name.casefold(), [])
        if namespace is not None:
            candidates = [c for c in candidates if c.namespace.casefold() == namespace.casefold()]
        if len(candidates) == 1:
            return candidates[0]
        qualified = f"{namespace}::{name}" if namespace else name
        if not candidates:
            close = difflib.get_close_matches(
                name.casefold(), list(self.operations), n=3, cutoff=0.75
            )
            known = sorted({self.operations[c][0].name for c in close})
            hint = f"; did you mean {' or '.join(known)}?" if known else ""
            raise LookupError(f"unknown operation '{qualified}'{hint}")
        namespaces = ", ".join(sorted(f"{c.namespace}::{c.name}" for c in candidates))
        raise LookupError(f"'{qualified}' is ambiguous: write one of {namespaces}")

    def find_function(self, name: str) -> FunctionSpec | None:
        _load_builtins()
        return self.functions.get(name.casefold())

    def all_operations(self) -> list[OperationSpec]:
        _load_builtins()
        unique = {id(spec): spec for specs in self.operations.values() for spec in specs}
        return sorted(unique.values(), key=lambda s: (s.namespace, s.name))

    def all_functions(self) -> list[FunctionSpec]:
        _load_builtins()
        unique = {id(spec): spec for spec in self.functions.values()}
        return sorted(unique.values(), key=lambda s: s.name)


REGISTRY = Registry()


def operation(
    name: str, *aliases: str, namespace: str, kind: Kind, description: str
) -> Callable[[type[Operation]], type[Operation]]:
    """Register an operation class."""

    def register(cls: type[Operation]) -> type[Operation]:
        params = [value for value in vars(cls).values() if isinstance(value, Param)]
        for base in cls.__mro__[1:]:
            params[:0] = [
                v
                for v in vars(base).values()
                if isinstance(v, Param) and v.attribute not in {p.attribute for p in params}
            ]
        if sum(p.positional for p in params) > 1:
            raise ValueError(f"{name} declares more than one positional parameter")
        spec = OperationSpec(name, aliases, namespace, kind, description, cls, params)
        cls.spec = spec
        REGISTRY.add_operation(spec)
        return cls

    return register


def function(
    name: str,
    *aliases: str,
    returns: str | None,
    params: tuple[str, ...] = (),
    optional: int = 0,
    variadic: bool = False,
    description: str,
) -> Callable[[FunctionImplementation], FunctionImplementation]:
    """Register a variable function ``def f(call, *args)``; ``call`` (a FunctionRun) gives it the
    run's context."""

    def register(implementation: FunctionImplementation) -> FunctionImplementation:
        spec = FunctionSpec(
            name=name,
            aliases=aliases,
            returns=returns,
            params=params,
            optional=optional,
            variadic=variadic,
            description=description,
            implementation=implementation,
            is_async=inspect.iscoroutinefunction(implementation),
        )
        REGISTRY.add_function(spec)
        return implementation

    return register


_loaded = False
_loading = threading.RLock()


def _load_builtins() -> None:
    """Import the built-in operations and functions once (they register themselves). Threads
    that ask while another imports them wait for it: the registry is loaded only when every
    module is."""
    global _loaded
    if _loaded:
        return
    with _loading:
        if _loaded:
            return
        import engine.functions
        import engine.operations  # noqa: F401

        _loaded = True
