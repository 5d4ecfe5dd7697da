"""Nesting: every part of the engine handles MAX_NESTING levels, refuses deeper scripts with a
diagnostic at a position (never a RecursionError), and converts flat scripts of any length."""

from __future__ import annotations

import asyncio
import sys
import time

import pytest

from engine import (
    MAX_NESTING,
    OtterSyntaxError,
    ast,
    check,
    format_script,
    from_blocks,
    parse,
    to_blocks,
)
from engine.blocks import BlocksError
from engine.interpreter import ListSink, StandaloneHost, run
from engine.limits import RECURSION_LIMIT, nesting_problem

# Scripts nested ``levels`` deep in each way a script nests; a statement is a level of its own.
SHAPES = {
    "blocks": lambda n: "{\n" * (n - 1) + "Log-Information deep;\n" + "}\n" * (n - 1),
    "ifs": lambda n: "if $a == 1 {\n" * (n - 1) + "Log-Information deep;\n" + "}\n" * (n - 1),
    "foreach": lambda n: (
        "foreach $i in @(1) {\n" * (n - 1) + "Log-Information $i;\n" + "}\n" * (n - 1)
    ),
    "calls": lambda n: "set $x = " + "$Trim(" * (n - 1) + "a" + ")" * (n - 1) + ";",
    "lists": lambda n: "set @x = " + "@(" * (n - 1) + "a" + ")" * (n - 1) + ";",
    "maps": lambda n: "set %x = " + "%(k: " * (n - 1) + "a" + ")" * (n - 1) + ";",
    "nots": lambda n: "if " + "!" * (n - 1) + "false { }",
    "interpolations": lambda n: 'set $x = "' + "$(" * (n - 1) + "a" + ")" * (n - 1) + '";',
}


def run_script(script: ast.Script) -> tuple[str, list[str]]:
    sink = ListSink()
    result = asyncio.run(run(script, host=StandaloneHost(sink=sink), variables={"a": "1"}))
    return result.status.label, sink.messages()


def nested(levels: int) -> ast.Script:
    """A tree made by hand, nested deeper than any parse makes."""
    statement: ast.Statement = ast.Log(level="information", message=ast.Scalar(parts=()))
    for _ in range(levels - 1):
        statement = ast.Block(body=(statement,))
    return ast.Script(body=(statement,))


def test_engine_raises_the_recursion_limit_it_needs() -> None:
    assert sys.getrecursionlimit() >= RECURSION_LIMIT


@pytest.mark.parametrize("shape", SHAPES)
def test_engine_handles_nesting_up_to_the_limit(shape) -> None:
    text = SHAPES[shape](MAX_NESTING)
    script = parse(text)
    assert nesting_problem(script) is None
    assert not [d for d in check(script) if d.code == "nesting"]
    assert parse(format_script(script)) == script
    assert from_blocks(to_blocks(script)) == script
    status, messages = run_script(script)
    assert status != "error", messages


@pytest.mark.parametrize("shape", SHAPES)
def test_parser_reports_nesting_past_the_limit_at_its_position(shape) -> None:
    text = SHAPES[shape](MAX_NESTING + 1)
    with pytest.raises(OtterSyntaxError) as raised:
        parse(text)
    [diagnostic] = raised.value.diagnostics
    assert diagnostic.code == "nesting"
    assert f"more than {MAX_NESTING} levels deep" in diagnostic.message
    assert (diagnostic.line, diagnostic.column) > (1, 1)


def test_parser_counts_an_element_followed_by_text_as_two_levels() -> None:
    """`%a[k] text` is an interpolation around an index: two levels for one `[`, which the
    parser's count of the characters that open levels allows for before it skips the walk."""

    def elements(brackets: int) -> str:
        return "set $x = " + "%a[" * brackets + "k" + "] t" * brackets + ";"

    within = (MAX_NESTING - 1) // 2  # the statement, and two levels per bracket
    parse(elements(within))
    with pytest.raises(OtterSyntaxError) as raised:
        parse(elements(within + 1))
    assert [d.code for d in raised.value.diagnostics] == ["nesting"]


def test_parser_reports_nesting_past_python_s_recursion_limit_without_recursing() -> None:
    levels = RECURSION_LIMIT * 2
    with pytest.raises(OtterSyntaxError) as raised:
        parse("{\n" * levels + "}\n" * levels)
    assert raised.value.diagnostics[0].code == "nesting"
    assert raised.value.diagnostics[0].line == MAX_NESTING + 1


def test_formatter_blocks_and_checks_report_a_hand_made_tree_nested_past_recursion() -> None:
    script = nested(RECURSION_LIMIT * 2)
    for convert in (format_script, to_blocks):
        with pytest.raises(OtterSyntaxError, match="levels deep"):
            convert(script)
    [diagnostic] = check(script)
    assert diagnostic.code == "nesting"


def test_from_blocks_refuses_blocks_nested_past_the_limit_naming_the_block() -> None:
    workspace = to_blocks(parse(SHAPES["blocks"](MAX_NESTING)))
    innermost = workspace["blocks"]["blocks"][0]
    while "inputs" in innermost:
        innermost = innermost["inputs"]["BODY"]["block"]
    innermost.update(type="otter_block", inputs={"BODY": {"block": {"type": "otter_fail"}}})
    with pytest.raises(BlocksError, match=f"block {innermost['id']} .*more than {MAX_NESTING}"):
        from_blocks(workspace)


def test_from_blocks_counts_a_field_s_value_into_the_nesting() -> None:
    workspace = to_blocks(parse(SHAPES["blocks"](MAX_NESTING - 1)))
    innermost = workspace["blocks"]["blocks"][0]
    while "inputs" in innermost:
        innermost = innermost["inputs"]["BODY"]["block"]
    innermost["fields"]["MESSAGE"] = "$Trim($Trim(a))"  # two levels more than the limit allows
    with pytest.raises(OtterSyntaxError) as raised:
        from_blocks(workspace)
    assert "nests more than" in raised.value.diagnostics[0].message


def test_blocks_convert_a_flat_script_of_5000_statements_both_ways() -> None:
    script = parse("".join(f"Log-Information line {n};\n" for n in range(5000)))
    workspace = to_blocks(script)
    assert from_blocks(workspace) == script


def test_interpreter_stops_a_module_that_calls_itself_without_end() -> None:
    status, messages = run_script(parse("module Again {\n    call Again;\n}\ncall Again;\n"))
    assert status == "error"
    assert "does the module 'Again' call itself without end?" in messages[-1]
    assert "(line 2, column 5)" in messages[-1]


def test_parser_stops_recovering_from_errors_after_a_bounded_number() -> None:
    garbage = '{"a":' * 100_000 + "1" + "}" * 100_000  # JSON: an error at every token
    started = time.monotonic()
    with pytest.raises(OtterSyntaxError) as raised:
        parse(garbage)
    assert time.monotonic() - started < 10  # a minute before the bound
    assert raised.value.diagnostics[0].line == 1
