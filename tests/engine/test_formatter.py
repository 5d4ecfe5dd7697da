"""The formatter: canonical layout, and strings quoted only as much as their place needs."""

from __future__ import annotations

import pytest

from engine import ast, format_script, parse
from engine.formatter import format_condition, format_expression


def fmt(text: str) -> str:
    return format_script(parse(text))


def scalar(text: str, style: str = "implicit") -> ast.Scalar:
    return ast.Scalar(parts=(ast.Text(value=text),), style=style)


def test_formatter_layout_indents_four_spaces_braces_on_own_lines() -> None:
    assert fmt("if $a { foreach $x in @l { Log-Debug $x; } } else { fail; }") == (
        "if $a\n{\n    foreach $x in @l\n    {\n        Log-Debug $x;\n    }\n}\nelse\n{\n    fail;\n}\n"
    )


def test_formatter_arguments_one_per_line_in_parentheses() -> None:
    assert fmt("Exec x(A:1,B=>$c);") == "Exec x\n(\n    A: 1,\n    B => $c\n);\n"


def test_formatter_drops_empty_argument_list() -> None:
    assert fmt("Git::Checkout-Code();") == "Git::Checkout-Code;\n"


def test_formatter_keeps_one_blank_line_of_several() -> None:
    assert (
        fmt("Log-Debug a;\n\n\n\nLog-Debug b;\nLog-Debug c;")
        == "Log-Debug a;\n\nLog-Debug b;\nLog-Debug c;\n"
    )


def test_formatter_headers_then_blank_line() -> None:
    assert fmt("##AH:UseTextMode\nLog-Debug a;") == "##AH:UseTextMode\n\nLog-Debug a;\n"


def test_formatter_is_idempotent_on_messy_input() -> None:
    messy = "  set   $x=  a b ;if($x==\"a b\"){Log-Debug   'hi';}  # done\n"
    once = fmt(messy)
    assert fmt(once) == once


@pytest.mark.parametrize(
    ("text", "place", "expected"),
    [
        ("plain", "argument", "plain"),
        ("a, b", "argument", '"a, b"'),
        ("a, b", "line", "a, b"),
        ("a; b", "line", '"a; b"'),
        ("f(x)", "positional", '"f(x)"'),
        ("a == b", "condition", '"a == b"'),
        ("!x", "condition", '"!x"'),
        (" padded ", "argument", '" padded "'),
        ('say "hi"', "argument", 'say "hi"'),
        ('"hi"', "argument", "'\"hi\"'"),
        ("both \" and '", "argument", "both \" and '"),
        ("@home", "argument", '"@home"'),
        ("# not a comment", "argument", '"# not a comment"'),
        ("", "argument", '""'),
        ("tab\there", "argument", '"tab`there"'),
        ("cost $5", "argument", "cost `$5"),
        ("two\nlines", "argument", ">>\ntwo\nlines\n>>"),
    ],
)
def test_formatter_quotes_scalars_only_as_needed(text: str, place: str, expected: str) -> None:
    assert format_expression(scalar(text), place) == expected


def test_formatter_keeps_the_authors_quote_style_when_valid() -> None:
    assert format_expression(scalar("x", "single")) == "'x'"
    assert format_expression(scalar("x", "double")) == '"x"'
    assert format_expression(scalar("x", "swim")) == ">>x>>"


def test_formatter_swim_picks_a_sentinel_absent_from_the_text() -> None:
    assert format_expression(scalar("a >> b", "swim")) == ">->a >> b>->"


def test_formatter_braces_a_variable_followed_by_name_characters() -> None:
    value = ast.Scalar(parts=(ast.VariableRef(sigil="$", name="host"), ast.Text(value="name")))
    assert format_expression(value) == "${host}name"
    value = ast.Scalar(parts=(ast.VariableRef(sigil="$", name="host"), ast.Text(value="-name")))
    assert format_expression(value) == "$host-name"


def test_formatter_condition_parentheses_only_where_needed() -> None:
    assert (
        format_condition(parse("if ($a) && ((b) || !(c)) { }").body[0].condition)
        == "$a && (b || !c)"
    )
    assert format_condition(parse("if !($a && b) { }").body[0].condition) == "!($a && b)"


def test_formatter_description_and_trailing_comments_kept_in_place() -> None:
    source = "# Ensure the site\n{\n    Exec x; // run it\n}\n"
    assert fmt(source) == source


def test_formatter_statement_after_comment_node_gets_blank_line() -> None:
    script = ast.Script(body=(ast.Comment(lines=("# note",)), ast.Fail()))
    assert format_script(script) == "# note\n\nfail;\n"
    assert parse(format_script(script)) == script


def test_formatter_escaped_string_uses_a_quote_no_expansion_holds() -> None:
    """Text ending in a line break is written quoted with escapes; `$A("")` inside it takes the
    other quote, or its "" would end the string (found by the property test)."""
    call = ast.FunctionCall(sigil="$", name="A", args=(ast.Scalar(parts=(), style="implicit"),))
    value = ast.Scalar(parts=(call, ast.Text(value="\n\r")), style="implicit")
    script = ast.Script(
        headers=(),
        body=(ast.SetVariable(variable=ast.VariableRef(sigil="$", name="A"), value=value),),
    )
    text = format_script(script)
    assert text == "set $A = '$A(\"\")`n`r';\n"
    assert parse(text).body[0].value == value


@pytest.mark.parametrize(
    "inner, after",
    [
        ("\n", "\r"),  # a line break inside $( ) of a string that cannot be a swim string
        ('"', "\r"),  # a quote inside $( ): the string around it takes the other one
        ('"\n', "\r"),  # both
        ("\r", ""),  # a line break in $( ) of a one-line string
    ],
)
def test_formatter_writes_expansions_inside_quoted_strings_on_one_line(inner, after) -> None:
    value = ast.Scalar(
        parts=(
            ast.Interpolation(
                expression=ast.Scalar(parts=(ast.Text(value=inner),), style="implicit")
            ),
            *([ast.Text(value=after)] if after else []),
        ),
        style="double",
    )
    script = ast.Script(headers=(), body=(ast.Log(level="debug", message=value),))
    text = format_script(script)
    assert "\n" not in text.rstrip("\n")
    assert parse(text).body[0].message == value


@pytest.mark.parametrize("comment", ["#bin/debug/", "#( bin", "//x", "/*x*/"])
def test_formatter_last_argument_keeps_a_comment_that_text_would_swallow(comment) -> None:
    # after the last value, `#bin` would read as more of the value: the comma the source had
    # before it stays (found by test_properties)
    script = parse(f"Create-Artifact\n(\n    From:,{comment}\n);\n")
    text = format_script(script)
    assert text == f'Create-Artifact\n(\n    From: "", {comment}\n);\n'
    assert parse(text) == script
