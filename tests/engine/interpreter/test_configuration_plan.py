"""engine.configuration: roles' scripts made into one plan (a described block each, modules
first, written by the formatter) with each line mapped back to its script and line; and what a
remediation runs beyond the drifted operations."""

from __future__ import annotations

import pytest

from engine import (
    OtterSyntaxError,
    PlanPart,
    combine_plan,
    format_script,
    parse,
    remediation_outline,
)

BASE = """# the base of every server
Ensure-Directory /srv/app;

module Greet<$who>
{
    Log-Information hello $who;
}
set $x = 1;
"""

WEB = """Ensure-File /srv/app/index.html
(
    Text: hello
);
SHExec echo restarted (Output => $said);
Ensure-File /srv/app/said.txt (Text: $said);
call Greet(who: web);
"""


def plan():
    return combine_plan(
        [PlanPart("Role base", "rafts::base", BASE), PlanPart("Role web", "rafts::web", WEB)]
    )


def test_combine_plan_puts_each_part_in_a_described_block_after_the_modules() -> None:
    combined = plan()
    script = parse(combined.text)
    assert [type(s).__name__ for s in script.body] == ["ModuleDeclaration", "Block", "Block"]
    assert [s.short_description for s in script.body[1:]] == ["Role base", "Role web"]
    assert combined.text == format_script(script)  # the formatter's own text


def test_combine_plan_maps_each_statement_line_back_to_its_part_and_line() -> None:
    combined = plan()
    lines = combined.text.splitlines()
    found = {}
    for line, origin in combined.origins.items():
        if origin.line is not None:
            found[(origin.part, origin.line)] = lines[line - 1].strip()
    assert found[(0, 2)] == "Ensure-Directory /srv/app;"
    assert found[(0, 8)] == "set $x = 1;"
    assert found[(1, 1)] == "Ensure-File /srv/app/index.html"
    assert found[(1, 5)] == "SHExec echo restarted"
    assert found[(1, 7)] == "call Greet"
    assert found[(0, 4)] == "module Greet<$who>"


def test_combine_plan_part_lines_cover_each_block_from_its_description() -> None:
    combined = plan()
    lines = combined.text.splitlines()
    (first_base, last_base), (first_web, last_web) = combined.part_lines
    assert lines[first_base - 1] == "# Role base" and lines[last_base - 1] == "}"
    assert lines[first_web - 1] == "# Role web" and last_web == len(lines)
    assert last_base < first_web


def test_combine_plan_names_the_part_that_does_not_parse() -> None:
    with pytest.raises(OtterSyntaxError, match=r"rafts::broken:2:"):
        combine_plan(
            [
                PlanPart("Role ok", "rafts::ok", BASE),
                PlanPart("Role b", "rafts::broken", "Log-Information a;\nEnsure-File (;"),
            ]
        )


async def test_combine_plan_runs_each_part_in_a_scope_named_after_its_role(run, tmp_path) -> None:
    text = f"Ensure-File {tmp_path}/a.txt (Text: a);\n"
    combined = combine_plan(
        [
            PlanPart("Role one", "r::one", text),
            PlanPart("Role two", "r::two", "Log-Information two;"),
        ]
    )
    ran = await run(combined.text, mode="collect")
    (drift,) = ran.result.drifted
    assert combined.origin(drift.line).part == 0 and combined.origin(drift.line).line == 1
    assert {"Role one", "Role two"} <= {scope.name for scope in ran.sink.scopes}


def test_remediation_outline_names_what_runs_with_drift_and_what_is_unresolvable() -> None:
    combined = plan()
    script = parse(combined.text)
    line_of = {(o.part, o.line): line for line, o in combined.origins.items()}
    index, said = line_of[(1, 1)], line_of[(1, 6)]
    outline = remediation_outline(script, [index, said])
    assert [(r.operation, r.line) for r in outline.also_runs] == [("SHExec", line_of[(1, 5)])]
    assert outline.unresolvable == {said}  # its text is the output of SHExec, run first
    # drift only in the base: nothing else runs there, nothing is unresolvable
    calm = remediation_outline(script, [line_of[(0, 2)]])
    assert calm.also_runs == () and calm.unresolvable == frozenset()
