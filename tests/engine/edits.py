"""Edits of a Blockly workspace made as Blockly makes them (a block added to a stack, a field
changed, a block deleted with what it holds, a block dragged elsewhere in its stack), the same
edits made to the syntax tree, and where a statement's lines are in a text: for the tests of
minimal edits (text from blocks changes only the edited statement's lines)."""

from __future__ import annotations

import copy
import difflib
import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from engine import ast, from_blocks, parse
from engine.formatter import format_script_changes

Path = tuple[int, ...]  # top index, then (body number, index) for each level further in
Block = dict[str, Any]

ADDED: Block = {
    "type": "otter_log",
    "id": "added",
    "fields": {"LEVEL": "information", "MESSAGE": "added in the editor"},
}


# ---- the workspace ------------------------------------------------------------------------------


def input_names(block: Block) -> list[str]:
    """The statement inputs of a block, in the order of its statement's bodies."""
    kind = block["type"]
    if kind == "otter_if":
        extra = block.get("extraState", {})
        names = [f"DO{n}" for n in range(extra.get("elseIfCount", 0) + 1)]
        return [*names, "ELSE"] if extra.get("hasElse") else names
    if kind == "otter_try":
        return ["BODY", "CATCH"]
    if kind in ("otter_block", "otter_for_each", "otter_context_iteration", "otter_set_context"):
        return ["BODY"]
    if kind in ("otter_with", "otter_module_declaration"):
        return ["BODY"]
    return []


def chain(first: Block | None) -> list[Block]:
    blocks = []
    while first is not None:
        blocks.append(first)
        first = first.get("next", {}).get("block")
    return blocks


def link(blocks: list[Block]) -> Block | None:
    """Chains ``blocks`` by ``next`` (as Blockly heals a stack); the first, or None."""
    for block, following in zip(blocks, [*blocks[1:], None], strict=False):
        if following is None:
            block.pop("next", None)
        else:
            block["next"] = {"block": following}
    return blocks[0] if blocks else None


def stack(workspace: dict, parent: Path | None, number: int) -> list[Block]:
    """The blocks of a body: the top stack (parent None), or a body of the block at ``parent``."""
    if parent is None:
        tops = workspace["blocks"]["blocks"]
        return chain(tops[0]) if tops else []
    block = block_at(workspace, parent)
    slot = block.get("inputs", {}).get(input_names(block)[number])
    return chain(slot["block"]) if slot else []


def set_stack(workspace: dict, parent: Path | None, number: int, blocks: list[Block]) -> None:
    first = link(blocks)
    if parent is None:
        tops = workspace["blocks"]["blocks"]
        where = {key: tops[0][key] for key in ("x", "y")} if tops else {"x": 20, "y": 20}
        for block in blocks:
            block.pop("x", None)
            block.pop("y", None)
        if first is not None:
            first.update(where)
        workspace["blocks"]["blocks"] = [first] if first is not None else []
        return
    block = block_at(workspace, parent)
    name = input_names(block)[number]
    inputs = block.setdefault("inputs", {})
    if first is None:
        inputs.pop(name, None)
    else:
        inputs[name] = {"block": first}


def block_at(workspace: dict, path: Path) -> Block:
    blocks = stack(workspace, None, 0)
    block = blocks[path[0]]
    for position in range(1, len(path), 2):
        block = stack_of(block, path[position])[path[position + 1]]
    return block


def stack_of(block: Block, number: int) -> list[Block]:
    slot = block.get("inputs", {}).get(input_names(block)[number])
    return chain(slot["block"]) if slot else []


def block_paths(workspace: dict) -> Iterator[tuple[Path, Block]]:
    """Every statement's block with its path, in the order of the text."""

    def walk(blocks: list[Block], prefix: Path) -> Iterator[tuple[Path, Block]]:
        for index, block in enumerate(blocks):
            path = (*prefix, index)
            yield path, block
            for number in range(len(input_names(block))):
                yield from walk(stack_of(block, number), (*path, number))

    yield from walk(stack(workspace, None, 0), ())


def split(path: Path) -> tuple[Path | None, int, int]:
    """(parent path or None, body number, index) of a path."""
    if len(path) == 1:
        return None, 0, path[0]
    return path[:-2], path[-2], path[-1]


# ---- edits of a workspace, and of the tree ----------------------------------------------------


def add(workspace: dict, parent: Path | None, number: int, index: int, block: Block) -> dict:
    workspace = copy.deepcopy(workspace)
    blocks = stack(workspace, parent, number)
    blocks.insert(index, copy.deepcopy(block))
    set_stack(workspace, parent, number, blocks)
    return workspace


def delete(workspace: dict, path: Path) -> dict:
    workspace = copy.deepcopy(workspace)
    parent, number, index = split(path)
    blocks = stack(workspace, parent, number)
    del blocks[index]
    set_stack(workspace, parent, number, blocks)
    return workspace


def move(workspace: dict, path: Path, to: int) -> dict:
    """The block at ``path`` moved to position ``to`` of its stack (counted without it)."""
    workspace = copy.deepcopy(workspace)
    parent, number, index = split(path)
    blocks = stack(workspace, parent, number)
    blocks.insert(to, blocks.pop(index))
    set_stack(workspace, parent, number, blocks)
    return workspace


def change(workspace: dict, path: Path) -> dict:
    """A field of the block at ``path`` changed as a user would: a log's message, an
    operation's name, a variable's value, a comment's text; else its comment icon's text."""
    workspace = copy.deepcopy(workspace)
    block = block_at(workspace, path)
    fields = block.setdefault("fields", {})
    kind = block["type"]
    if kind == "otter_log":
        fields["MESSAGE"] = "changed in the editor"
    elif kind == "otter_operation_call":
        fields["NAME"] = fields["NAME"] + "-Changed"
    elif kind == "otter_set_variable":
        fields["VALUE"] = "changed"
    elif kind == "otter_comment":
        fields["TEXT"] = "changed in the editor"
    else:
        block.setdefault("icons", {})["comment"] = {"text": "changed in the editor"}
    return workspace


def statement_at(script: ast.Script, path: Path) -> ast.Statement:
    statement = script.body[path[0]]
    for position in range(1, len(path), 2):
        statement = ast.bodies(statement)[path[position]][path[position + 1]]
    return statement


def body_at(script: ast.Script, parent: Path | None, number: int) -> ast.Body:
    if parent is None:
        return script.body
    return ast.bodies(statement_at(script, parent))[number]


def with_body(script: ast.Script, parent: Path | None, number: int, body: ast.Body) -> ast.Script:
    """The script with a body replaced."""
    if parent is None:
        return replace(script, body=body)
    grandparent, parent_number, index = split(parent)
    statement = statement_at(script, parent)
    if isinstance(statement, ast.If):
        count = 1 + len(statement.else_ifs)
        if number == 0:
            statement = replace(statement, body=body)
        elif number < count:
            clauses = list(statement.else_ifs)
            clauses[number - 1] = replace(clauses[number - 1], body=body)
            statement = replace(statement, else_ifs=tuple(clauses))
        else:
            statement = replace(statement, else_body=body)
    elif isinstance(statement, ast.Try):
        statement = replace(statement, **{"body" if number == 0 else "catch_body": body})
    else:
        statement = replace(statement, body=body)
    outer = list(body_at(script, grandparent, parent_number))
    outer[index] = statement
    return with_body(script, grandparent, parent_number, tuple(outer))


# ---- where a statement's lines are --------------------------------------------------------------


def statement_lines(script: ast.Script, text: str, path: Path) -> range:
    """The lines (0-based) of the statement at ``path`` of a script parsed from ``text``: from
    the line after the statement before it (blank lines before it are its own), or the first
    line after its body's ``{`` or the headers that is not blank (the blank lines there are the
    body's), or the line the statement before it ends on, when it starts there, to the line its
    trailing comment ends on."""
    parent, number, index = split(path)
    statement = statement_at(script, path)
    assert statement.span is not None
    if index > 0:
        previous = body_at(script, parent, number)[index - 1]
        assert previous.span is not None
        before = previous.span.end_line - 1 + (previous.trailing_comment or "").count("\n")
    elif parent is None:
        before, seen = -1, 0  # the line of the last header
        for row_number, row in enumerate(text.split("\n")):
            if seen == len(script.headers):
                break
            if row.strip().startswith("##AH:"):
                before, seen = row_number, seen + 1
    else:
        opening = statement_at(script, parent).braces[2 * number]
        before = text.count("\n", 0, opening)
    rows = text.split("\n")
    start = before
    if statement.span.line - 1 != before:
        start += 1
        while index == 0 and not rows[start].strip():  # a body's first lines are its own
            start += 1
    end = statement.span.end_line - 1 + (statement.trailing_comment or "").count("\n")
    return range(start, end + 1)


def apart(text: str, region: range | None) -> tuple[list[str], list[str]]:
    """The lines of ``text`` in a statement's region and the others."""
    rows = text.split("\n")  # lines as spans count them: a carriage return alone ends none
    region = region or range(0)
    inside = [row for number, row in enumerate(rows) if number in region]
    return inside, [row for number, row in enumerate(rows) if number not in region]


def only_in(
    old: str, new: str, old_region: range | None, new_region: range | None, places: int = 1
) -> bool:
    """Whether ``new`` differs from ``old`` only in a statement's lines: out of them, the lines
    that are not blank are the same, and the runs of blank lines too but for one at each of the
    ``places`` where the statement was taken out or put in (where the white space before and
    after it meets). (Compared as sequences rather than by difflib's changes, which may take
    a line that repeats, like ``);``, from another statement.)"""
    before, after = apart(old, old_region)[1], apart(new, new_region)[1]
    if [row for row in before if row.strip()] != [row for row in after if row.strip()]:
        return False
    return abs(blank_runs(before) - blank_runs(after)) <= places


def blank_runs(rows: list[str]) -> int:
    return sum(
        not row.strip() and (number == 0 or bool(rows[number - 1].strip()))
        for number, row in enumerate(rows)
    )


def unified(old: str, new: str) -> str:
    return "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), n=1))


# ---- one edit, made both ways, and what the text from blocks must be after it -------------------


@dataclass(frozen=True, slots=True)
class Edit:
    """An edit made to a workspace, the tree it must give (None for a change: the blocks say
    what the statement became), and where the edited statement is before and after it."""

    kind: str
    workspace: dict
    expected: ast.Script | None
    before: Path | None
    after: Path | None


def body_places(script: ast.Script) -> list[tuple[Path | None, int]]:
    """Every body of a script, as (parent path or None, body number)."""
    places: list[tuple[Path | None, int]] = [(None, 0)]

    def walk(body: ast.Body, prefix: Path) -> None:
        for index, statement in enumerate(body):
            path = (*prefix, index)
            for number, inner in enumerate(ast.bodies(statement)):
                places.append((path, number))
                walk(inner, (*path, number))

    walk(script.body, ())
    return places


def adding(workspace: dict, tree: ast.Script, parent: Path | None, number: int, index: int) -> Edit:
    body = body_at(tree, parent, number)
    added = from_blocks({"blocks": {"blocks": [ADDED]}}).body[0]
    expected = with_body(tree, parent, number, (*body[:index], added, *body[index:]))
    path = (index,) if parent is None else (*parent, number, index)
    return Edit("add", add(workspace, parent, number, index, ADDED), expected, None, path)


def deleting(workspace: dict, tree: ast.Script, path: Path) -> Edit:
    parent, number, index = split(path)
    body = body_at(tree, parent, number)
    expected = with_body(tree, parent, number, body[:index] + body[index + 1 :])
    return Edit("delete", delete(workspace, path), expected, path, None)


def changing(workspace: dict, path: Path) -> Edit:
    return Edit("change", change(workspace, path), None, path, path)


def moving(workspace: dict, tree: ast.Script, path: Path, to: int) -> Edit:
    parent, number, index = split(path)
    body = body_at(tree, parent, number)
    rest = body[:index] + body[index + 1 :]
    expected = with_body(tree, parent, number, (*rest[:to], body[index], *rest[to:]))
    return Edit("move", move(workspace, path, to), expected, path, (*path[:-1], to))


def text_after(edit: Edit, tree: ast.Script, text: str) -> str:
    """The text from the edited workspace, checked: it parses to the edited tree, and differs
    from ``text`` (of ``tree``) only in the edited statement's lines; a moved statement keeps
    its lines."""
    script = from_blocks(json.loads(json.dumps(edit.workspace)))
    if edit.expected is not None:
        assert script == edit.expected, "the workspace's edit is not the tree's"
    else:
        assert script != tree, "the change changed nothing"
    result, anew = format_script_changes(script)
    again = parse(result)
    assert again == script, unified(text, result)
    for written, statement in anew:  # what a server parses to know the text reads as the blocks
        assert parse(written).body == (statement,), written
    before = None if edit.before is None else statement_lines(tree, text, edit.before)
    after = None if edit.after is None else statement_lines(again, result, edit.after)
    places = 2 if edit.kind == "move" else 1
    assert only_in(text, result, before, after, places), unified(text, result)
    if edit.kind == "move":
        kept = [
            [row for row in apart(*side)[0] if row.strip()]
            for side in ((text, before), (result, after))
        ]
        assert kept[0] == kept[1], unified(text, result)
    return result
