"""The OtterScript abstract syntax tree.

Nodes are frozen dataclasses. Spans, and presentation hints such as the quoting style a user
chose, are excluded from equality: two scripts are equal when they mean the same thing and
carry the same comments. Descriptions (the comment lines directly above a statement),
trailing comments and standalone comments are kept on the nodes, so nothing is lost between
text, AST and blocks.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from typing import ClassVar, Literal, TypeAlias, TypeVar, dataclass_transform

from engine.errors import Diagnostic
from engine.spans import Span

NodeClass = TypeVar("NodeClass")


@dataclass_transform(frozen_default=True, kw_only_default=True, field_specifiers=(field,))
def node(cls: type[NodeClass]) -> type[NodeClass]:
    """A frozen, slotted, keyword-only dataclass (declared so that type checkers see one)."""
    return dataclass(frozen=True, slots=True, kw_only=True)(cls)


def _span() -> Span | None:
    return field(default=None, compare=False, repr=False)


@node
class Node:
    span: Span | None = _span()

    def children(self) -> Iterator[Node]:
        """The direct child nodes, in source order."""
        for f in fields(self):
            if f.name == "span":
                continue
            value = getattr(self, f.name)
            if isinstance(value, Node):
                yield value
            elif isinstance(value, tuple):
                for item in value:
                    if isinstance(item, Node):
                        yield item

    def walk(self) -> Iterator[Node]:
        """This node and every node below it, depth first."""
        stack: list[Node] = [self]
        while stack:
            current = stack.pop()
            yield current
            stack.extend(reversed(list(current.children())))


# ---- expressions ---------------------------------------------------------------------------

Sigil = Literal["$", "@", "%"]
QuoteStyle = Literal["implicit", "double", "single", "swim"]


@node
class Text(Node):
    """Literal text inside a scalar, escapes already resolved; ``escaped`` is the text with its
    escapes as the script writes them (`` `$ ``, `` `% ``), when it holds any."""

    value: str
    escaped: str | None = field(default=None, compare=False, repr=False)

    @property
    def written(self) -> str:
        """The text as the script writes it, escapes included."""
        return self.value if self.escaped is None else self.escaped


@node
class VariableRef(Node):
    """``$name``, ``@name``, ``%name`` or the braced forms ``${any name}``."""

    sigil: Sigil
    name: str


@node
class FunctionCall(Node):
    """``$F(...)``, ``@F(...)``, ``%F(...)``. ``$F`` without parentheses is a VariableRef."""

    sigil: Sigil
    name: str
    args: tuple[Expression, ...] = ()


@node
class Interpolation(Node):
    """``$( expression )`` inside a scalar: the expression's value as text."""

    expression: Expression


ScalarPart: TypeAlias = Text | VariableRef | FunctionCall | Interpolation


@node
class Scalar(Node):
    """A string: implicit, quoted or swim; its parts are concatenated at run time."""

    parts: tuple[ScalarPart, ...] = ()
    style: QuoteStyle = field(default="implicit", compare=False)

    @property
    def literal(self) -> str | None:
        """The text when the scalar has no expansions, else None."""
        texts = [part.value for part in self.parts if isinstance(part, Text)]
        return "".join(texts) if len(texts) == len(self.parts) else None


@node
class Vector(Node):
    """``@(a, b, c)``"""

    items: tuple[Expression, ...] = ()


@node
class MapEntry(Node):
    key: str
    value: Expression


@node
class Map(Node):
    """``%(key: value, ...)``"""

    entries: tuple[MapEntry, ...] = ()


@node
class Index(Node):
    """``@list[0]``, ``%map[key]`` or ``%map.key``."""

    target: Expression
    key: Expression
    dotted: bool = field(default=False, compare=False)


Expression: TypeAlias = Scalar | Vector | Map | VariableRef | FunctionCall | Index


def kind_of(expression: Expression) -> Sigil | None:
    """The kind an expression is known to produce before it runs: ``$``, ``@``, ``%``, or None
    when only run time can tell (an element of a list or map)."""
    if isinstance(expression, Scalar):
        return "$"
    if isinstance(expression, Vector):
        return "@"
    if isinstance(expression, Map):
        return "%"
    if isinstance(expression, VariableRef | FunctionCall):
        return expression.sigil
    return None


# ---- predicates ----------------------------------------------------------------------------


@node
class Or(Node):
    operands: tuple[Predicate, ...]


@node
class And(Node):
    operands: tuple[Predicate, ...]


@node
class Not(Node):
    operand: Predicate


@node
class Compare(Node):
    """``left == right`` (equal, case-sensitive) or ``left != right``."""

    left: Expression
    operator: Literal["==", "!="]
    right: Expression


@node
class IsTrue(Node):
    """A bare operand: true when its value is ``true``, ignoring case."""

    operand: Expression


Predicate: TypeAlias = Or | And | Not | Compare | IsTrue


# ---- statements ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Kept:
    """How a statement was written in the text it came from, carried through the block editor
    (``engine.blocks``) so that the formatter can write it back as it was.

    ``signature`` is ``engine.formatter.signature`` of the statement as it was parsed (its
    canonical text with its bodies left empty): the kept text is written only while the
    statement still has that signature and stands ``depth`` statements deep (0: at the top).
    ``before`` is the white space between the statement and the one before it (None when it
    was the first of its body: that white space is its body's). A statement without bodies
    keeps its ``text``, from its first description comment to the end of its trailing comment;
    one with bodies keeps its ``frame``, the text around its bodies (from its first description
    comment up to its first ``{``, between a ``}`` and the next ``{``, from its last ``}`` to the
    end of its trailing comment), and for each body the white space before its first statement
    (None when it had none) and after its last (all of it, when it had none)."""

    signature: str
    depth: int
    before: str | None = None
    text: str | None = None
    frame: tuple[str, ...] = ()
    bodies: tuple[tuple[str | None, str], ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class KeptScript:
    """How a script's text was laid out around its statements (see ``Kept``): ``head``, the
    text up to the end of its last header (the ``headers`` it held); ``lead``, the white space
    between the head and the first statement (None when there was none); ``tail``, what follows
    the last statement (all of what follows the head, when there was none); ``indent``, the
    text one level of indentation is written with (four spaces, a tab...)."""

    head: str
    headers: tuple[str, ...]
    lead: str | None
    tail: str
    indent: str


@node
class Statement(Node):
    """Base of statements. ``description`` holds the comments directly above the statement,
    exactly as written (markers included); the first one names the statement's log scope.
    ``braces`` are the offsets in the parsed text of each body's ``{`` and ``}``, in pairs;
    ``kept`` is how the statement was written, when it comes from the block editor."""

    description: tuple[str, ...] = ()
    trailing_comment: str | None = None
    blank_line_before: bool = field(default=False, compare=False)
    braces: tuple[int, ...] = field(default=(), compare=False, repr=False)
    kept: Kept | None = field(default=None, compare=False, repr=False)

    @property
    def short_description(self) -> str | None:
        """The first description line without its comment marker."""
        for comment in self.description:
            for line in comment_text(comment).splitlines():
                if line.strip():
                    return line.strip()
        return None


Body: TypeAlias = tuple[Statement, ...]


@node
class Argument(Node):
    """``Name: value`` in an operation or module call."""

    name: str
    value: Expression
    comments: tuple[str, ...] = ()
    trailing_comment: str | None = None


@node
class OutputArgument(Node):
    """``Name => $variable``."""

    name: str
    variable: VariableRef
    comments: tuple[str, ...] = ()
    trailing_comment: str | None = None


CallArgument: TypeAlias = Argument | OutputArgument


@node
class OperationCall(Statement):
    """``[Namespace::]Name [positional] [( arguments )];``"""

    namespace: str | None = None
    name: str
    positional: Expression | None = None
    arguments: tuple[CallArgument, ...] = ()

    @property
    def qualified_name(self) -> str:
        return f"{self.namespace}::{self.name}" if self.namespace else self.name


@node
class Block(Statement):
    """``{ ... }``: an anonymous block; with a description it opens a named log scope."""

    body: Body = ()


@node
class SetVariable(Statement):
    """``set [local|global] $x[index...] = value;``"""

    scope: Literal["local", "global"] | None = None
    variable: VariableRef
    indexes: tuple[Expression, ...] = ()
    value: Expression


@node
class GlobalDeclaration(Statement):
    """``global $x [= value];`` at the top of a script."""

    variable: VariableRef
    value: Expression | None = None


LogLevel = Literal["debug", "information", "warning", "error"]


@node
class Log(Statement):
    """``Log-Information message;``"""

    level: LogLevel
    message: Expression

    keyword_by_level: ClassVar[dict[str, str]] = {
        "debug": "Log-Debug",
        "information": "Log-Information",
        "warning": "Log-Warning",
        "error": "Log-Error",
    }


@node
class ElseIf(Node):
    condition: Predicate
    body: Body = ()


@node
class If(Statement):
    """``if predicate { } [else if predicate { }]... [else { }]``"""

    condition: Predicate
    body: Body = ()
    else_ifs: tuple[ElseIf, ...] = ()
    else_body: Body | None = None


@node
class ForEach(Statement):
    """``foreach $item in @list { }``"""

    variable: VariableRef
    source: Expression
    body: Body = ()


ContextType = Literal["server", "role", "directory", "deployable"]


@node
class ContextIteration(Statement):
    """``foreach server in @list { }``: sets the context to each item in turn."""

    context: ContextType
    source: Expression
    body: Body = ()


@node
class SetContext(Statement):
    """``for server name { }``"""

    context: ContextType
    value: Expression
    body: Body = ()


DIRECTIVES = ("async", "lock", "retry", "timeout", "executionPolicy", "isolation", "credentials")


@node
class Directive(Node):
    """One ``with`` directive: ``async``, ``async=token``, ``lock=!token``, ``retry=3`` ..."""

    name: str
    value: str | None = None


@node
class With(Statement):
    directives: tuple[Directive, ...]
    body: Body = ()


@node
class Try(Statement):
    body: Body = ()
    catch_body: Body = ()


@node
class Await(Statement):
    token: str | None = None


@node
class Throw(Statement):
    message: Expression | None = None


@node
class Fail(Statement):
    pass


@node
class Error(Statement):
    pass


@node
class Warn(Statement):
    force: bool = False


@node
class ForceNormal(Statement):
    pass


@node
class Break(Statement):
    pass


@node
class Continue(Statement):
    pass


@node
class Return(Statement):
    pass


@node
class ModuleParameter(Node):
    variable: VariableRef
    default: Expression | None = None
    output: bool = False


@node
class ModuleDeclaration(Statement):
    """``module Name<$a, $b = default, out $c> { }``"""

    name: str
    parameters: tuple[ModuleParameter, ...] = ()
    body: Body = ()


@node
class CallModule(Statement):
    """``call [raft::]Name(a: value, b => $out);``"""

    raft: str | None = None
    name: str
    arguments: tuple[CallArgument, ...] = ()


@node
class Comment(Statement):
    """Comment lines that describe no statement: separated from the next statement by a
    blank line, or at the end of a block. ``lines`` are the comments as written."""

    lines: tuple[str, ...]


@node
class Script(Node):
    """A whole script: additional headers (``##AH:Key``) and a body."""

    headers: tuple[str, ...] = ()
    body: Body = ()
    name: str = field(default="<script>", compare=False)
    # How the text was laid out around the statements, when the script comes from blocks.
    kept: KeptScript | None = field(default=None, compare=False, repr=False)
    # Warnings the parser found (a missing ';' after ')', a trailing comma ...).
    warnings: tuple[Diagnostic, ...] = field(default=(), compare=False, repr=False)


# Statements with bodies, and which of their fields hold bodies.
BODY_FIELDS: dict[type[Statement], tuple[str, ...]] = {
    Block: ("body",),
    If: ("body", "else_body"),
    ForEach: ("body",),
    ContextIteration: ("body",),
    SetContext: ("body",),
    With: ("body",),
    Try: ("body", "catch_body"),
    ModuleDeclaration: ("body",),
}


def bodies(statement: Statement) -> tuple[Body, ...]:
    """The bodies of a statement, in the order they are written (an ``if``'s own, each ``else
    if``'s, its ``else``'s); none for a statement without."""
    if isinstance(statement, If):
        found = (statement.body, *(clause.body for clause in statement.else_ifs))
        return found if statement.else_body is None else (*found, statement.else_body)
    if isinstance(statement, Try):
        return (statement.body, statement.catch_body)
    body = getattr(statement, "body", None)
    return () if body is None else (body,)


def comment_text(comment: str) -> str:
    """A comment without its marker: ``# text`` -> ``text``."""
    if comment.startswith("/*"):
        return comment[2:-2].strip()
    if comment.startswith("//"):
        return comment[2:].strip()
    return comment.lstrip("#").strip()


MISPLACED_GLOBAL = "a global declaration must come before every other statement"


def misplaced_globals(body: Body) -> Iterator[GlobalDeclaration]:
    """The global declarations of a script's body that follow a statement that runs: the run
    stops with a fatal error before the first statement (the specification). Comments and
    module declarations run nothing, so they may come first."""
    ran = False
    for statement in body:
        if isinstance(statement, GlobalDeclaration):
            if ran:
                yield statement
        elif not isinstance(statement, Comment | ModuleDeclaration):
            ran = True


def targets_servers(script: Node) -> bool:
    """Whether a script chooses servers itself: a ``for server``/``for role`` block or a
    ``foreach server``/``foreach role`` loop anywhere in it (a job of it may then name none)."""
    return any(
        isinstance(node, SetContext | ContextIteration) and node.context in ("server", "role")
        for node in script.walk()
    )


def named_targets(script: Node) -> list[tuple[str, str]]:
    """The servers and roles a script names itself, as (``server`` or ``role``, name): each
    ``for server``/``for role`` block whose name is plain text, and each plain-text item of a
    ``foreach server``/``foreach role`` loop over a list written in place. A name computed at
    run time (``for server $Name``) is not known here."""
    found: list[tuple[str, str]] = []
    for node in script.walk():
        if isinstance(node, SetContext) and node.context in ("server", "role"):
            values: tuple = (node.value,)
        elif isinstance(node, ContextIteration) and node.context in ("server", "role"):
            values = node.source.items if isinstance(node.source, Vector) else ()
        else:
            continue
        for value in values:
            text = value.literal if isinstance(value, Scalar) else None
            if text:
                found.append((node.context, text))
    return found


def called_modules(script: Node) -> list[tuple[str | None, str]]:
    """The modules a script calls, as (raft or None, name)."""
    return [(node.raft, node.name) for node in script.walk() if isinstance(node, CallModule)]


def node_types() -> list[type[Node]]:
    """Every concrete node type, for tests that each visitor handles them all."""
    found: dict[str, type[Node]] = {}
    pending = [Node]
    while pending:
        cls = pending.pop()
        for sub in cls.__subclasses__():
            pending.append(sub)
            # dataclass(slots=True) replaces each class: keep the one the module exports
            if sub.__name__ not in ("Node", "Statement") and globals().get(sub.__name__) is sub:
                found[sub.__name__] = sub
    return sorted(found.values(), key=lambda cls: cls.__name__)
