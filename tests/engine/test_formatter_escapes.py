"""The formatter and escapes: a text keeps the escapes its author wrote where they can mean more
than their character (an argument that is not expanded, like Apply-Template's Literal, reaches
the template as written), so formatting is a fixed point that keeps both the value and what a
template makes of it."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine import OtterSyntaxError, ast, format_script, parse
from engine.formatter import format_expression
from engine.templates import TemplateError, compile_template
from engine.values import as_written

# Every escape of the language, an escaped quote, escaped characters that mean something to a
# template or to an implicit string, an escaped blank, and an escape of a letter that is none.
ESCAPES = [
    "`$",
    "`@",
    "`%",
    "`n",
    "`t",
    "`r",
    "``",
    '`"',
    "`'",
    "`<",
    "`>",
    "`#",
    "`,",
    "`(",
    "`)",
    "`;",
    "` ",
    "`q",
]
# Where a text stands, and how it is quoted there.
PLACES = {
    "literal": "Apply-Template (Literal: {});",
    "message": "Log-Information {};",
    "function argument": "set $x = $Trim({});",
}
QUOTINGS = {
    "implicit": "x{}y",
    "double": '"x{}y"',
    "single": "'x{}y'",
    "swim": ">>x{}y>>",
}
# Escapes the formatter writes its own way, as it writes any text: `$ and `` always escaped,
# `n `t `r as escapes or, in a swim string, as the characters.
REWRITTEN = {"`$", "``", "`n", "`t", "`r"}


def meaning(scalar: ast.Scalar) -> object:
    """What a template makes of a value as written: its texts, tags and expansions."""
    try:
        return compile_template(as_written(scalar, keep_escapes=True))
    except TemplateError:
        return TemplateError


def meanings(script: ast.Script) -> list[object]:
    return [meaning(node) for node in script.walk() if isinstance(node, ast.Scalar)]


def assert_round_trips(source: str) -> str:
    script = parse(source)
    text = format_script(script)
    again = parse(text)
    assert again == script, text
    assert meanings(again) == meanings(script), text
    assert format_script(again) == text
    return text


def test_formatter_keeps_the_escape_of_a_template_tag_in_a_literal() -> None:
    text = assert_round_trips('Apply-Template (Literal: "<`% x %>");')
    assert 'Literal: "<`% x %>"' in text
    [argument] = parse(text).body[0].arguments
    assert as_written(argument.value, keep_escapes=True) == "<`% x %>"
    assert meaning(argument.value) == [parse_text_scalar("<% x %>")]


def parse_text_scalar(text: str) -> ast.Scalar:
    return ast.Scalar(parts=(ast.Text(value=text),), style="swim")


@pytest.mark.parametrize("quoting", QUOTINGS)
@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("escape", ESCAPES)
def test_formatter_round_trips_each_escape(escape: str, place: str, quoting: str) -> None:
    source = PLACES[place].format(QUOTINGS[quoting].format(escape))
    text = assert_round_trips(source)
    if escape not in REWRITTEN:
        assert escape in text


def test_formatter_keeps_an_implicit_string_its_escapes_make_valid() -> None:
    assert format_script(parse("Foo (A: a`,b`(c`));")) == "Foo\n(\n    A: a`,b`(c`)\n);\n"
    assert format_script(parse("set $x = `%abc;")) == "set $x = `%abc;\n"


def test_formatter_keeps_the_quote_style_of_a_text_with_escaped_quotes() -> None:
    assert format_script(parse('set $x = "say `"hi`"";')) == 'set $x = "say `"hi`"";\n'


def test_formatter_keeps_an_escape_of_a_letter_that_is_none() -> None:
    """`q is the letter q, with a warning; the formatter leaves it to its author, and what
    follows a variable stays apart from it (`$a`q` is not `$aq`, as written or as expanded)."""
    for source in ("Log-Debug `q unknown escape;\n", "Log-Debug $a`q;\n"):
        script = parse(source)
        assert [warning.code for warning in script.warnings] == ["escape"]
        assert format_script(script) == source


def test_formatter_writes_a_text_whose_escapes_do_not_spell_it_by_its_value() -> None:
    """A tree made by hand may give a text escapes that are not its value: the value wins."""
    value = ast.Scalar(parts=(ast.Text(value="<% x %>", escaped="`$other"),), style="double")
    assert format_expression(value) == '"<% x %>"'


# Characters as they are, and escapes, to build texts of.
BARE = list("ab <%>#,();\"'$@\t")
ESCAPED = st.sampled_from(list("$@%ntr`\"'<>#,();q ")).map(lambda char: "`" + char)


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)
@given(
    pieces=st.lists(st.one_of(st.sampled_from(BARE), ESCAPED), min_size=1, max_size=10),
    place=st.sampled_from(list(PLACES.values())),
    quoting=st.sampled_from(list(QUOTINGS.values())),
)
def test_formatter_round_trips_texts_with_escapes(pieces: list[str], place: str, quoting: str):
    source = place.format(quoting.replace("x{}y", "{}").format("".join(pieces)))
    try:
        parse(source)
    except OtterSyntaxError:
        assume(False)
    assert_round_trips(source)
