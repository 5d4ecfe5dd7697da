"""A server's configuration plan: its roles' desired-state scripts made into one script, with a
map from each line of it back to the role script and line it came from; and what a remediation
of drift would run besides the operations that drifted.

Each role's script becomes a described block (a log scope of its own, named after the role), in
the order given. Module declarations move to the top, where the language wants them. The one
formatter writes the text; the line map comes from walking the built script beside the script
parsed back from that text, statement for statement."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine import ast
from engine.formatter import format_script
from engine.parser import parse
from engine.registry import REGISTRY, Kind

HOISTED = (ast.ModuleDeclaration, ast.GlobalDeclaration)


@dataclass(frozen=True)
class PlanPart:
    """One role's desired state: ``label`` names its block (and log scope), ``name`` its script
    (in parse errors), ``text`` the OtterScript."""

    label: str
    name: str
    text: str


@dataclass(frozen=True)
class Origin:
    part: int  # the index of the part in the plan
    line: int | None  # the line in the part's own text; None for the block made around it


@dataclass(frozen=True)
class CombinedPlan:
    text: str
    parts: tuple[PlanPart, ...]
    origins: dict[int, Origin]  # by line of ``text``, for each line a statement starts on
    part_lines: tuple[tuple[int, int], ...]  # each part's first and last line in ``text``

    def origin(self, line: int | None) -> Origin | None:
        return self.origins.get(line) if line is not None else None


def combine_plan(parts: Sequence[PlanPart]) -> CombinedPlan:
    """The parts as one script. Raises OtterSyntaxError, named after the part, for a part that
    does not parse."""
    parsed = [parse(part.text, name=part.name) for part in parts]
    hoisted: list[ast.Statement] = []
    blocks: list[ast.Statement] = []
    part_of: dict[int, int] = {}  # id of every node of a part's script: the part's index
    for index, (part, script) in enumerate(zip(parts, parsed, strict=True)):
        for node in script.walk():
            part_of[id(node)] = index
        kept = tuple(s for s in script.body if not isinstance(s, HOISTED))
        hoisted.extend(s for s in script.body if isinstance(s, HOISTED))
        block = ast.Block(description=(f"# {part.label}",), body=kept or (ast.Comment(lines=()),))
        part_of[id(block)] = index
        blocks.append(block)
    built = ast.Script(body=(*hoisted, *blocks), name="configuration plan")
    text = format_script(built)
    reparsed = parse(text, name="configuration plan")
    origins: dict[int, Origin] = {}
    for original, written in zip(built.walk(), reparsed.walk(), strict=False):
        if type(original) is not type(written):  # the formatter kept the shape: never expected
            raise AssertionError(f"the plan did not read back as written: {type(original)}")
        if isinstance(written, ast.Statement) and written.span is not None:
            owner = part_of.get(id(original))
            if owner is not None and written.span.line not in origins:
                line = original.span.line if original.span is not None else None
                origins[written.span.line] = Origin(owner, line)
    part_lines = tuple(  # from the description line that names the part
        (written.span.line - 1, written.span.end_line)
        for written in reparsed.body[len(hoisted) :]
        if written.span is not None
    )
    return CombinedPlan(text, tuple(parts), origins, part_lines)


@dataclass(frozen=True)
class FollowingRun:
    """An operation that a remediation runs besides the ensure operations that drifted: an
    execute operation in a block that drifted (its effect cannot be known before it runs)."""

    line: int
    operation: str


@dataclass(frozen=True)
class RemediationOutline:
    also_runs: tuple[FollowingRun, ...]
    unresolvable: frozenset[int]  # lines of drifted operations whose values come from runs


def remediation_outline(script: ast.Script, drifted_lines: Iterable[int]) -> RemediationOutline:
    """What a collect-then-execute run of ``script`` does beyond fixing the operations that
    drifted (at ``drifted_lines``): the execute operations in their blocks, which run too, and
    which drifted operations take a value that an operation sets only when it runs (so their
    desired state is unresolvable in a plan)."""
    drifted = set(drifted_lines)
    also: dict[int, FollowingRun] = {}
    unresolvable: set[int] = set()
    for body in _bodies(script):
        operations = [s for s in body if isinstance(s, ast.OperationCall)]
        if not any(_line(s) in drifted for s in operations):
            continue
        produced: set[str] = set()  # variables set by the block's execute operations
        for statement in operations:
            line = _line(statement)
            try:
                spec = REGISTRY.find_operation(statement.namespace, statement.name)
            except LookupError:  # the run says so; a plan shows what it can
                continue
            if line is None:
                continue
            if spec.kind == Kind.EXECUTE:
                also[line] = FollowingRun(line, statement.name)
                produced |= _outputs(statement)
            elif line in drifted and _reads(statement) & produced:
                unresolvable.add(line)
    return RemediationOutline(
        tuple(sorted(also.values(), key=lambda run: run.line)), frozenset(unresolvable)
    )


def _bodies(script: ast.Script) -> Iterable[ast.Body]:
    yield script.body
    for node in script.walk():
        if isinstance(node, ast.Statement):
            for name in ast.BODY_FIELDS.get(type(node), ()):
                yield getattr(node, name)


def _line(statement: ast.Statement) -> int | None:
    return statement.span.line if statement.span is not None else None


def _outputs(statement: ast.OperationCall) -> set[str]:
    return {
        argument.variable.name.casefold()
        for argument in statement.arguments
        if isinstance(argument, ast.OutputArgument)
    }


def _reads(statement: ast.OperationCall) -> set[str]:
    read: list[ast.Node] = [statement.positional] if statement.positional is not None else []
    read += [a for a in statement.arguments if not isinstance(a, ast.OutputArgument)]
    return {
        node.name.casefold()
        for argument in read
        for node in argument.walk()
        if isinstance(node, ast.VariableRef)
    }
