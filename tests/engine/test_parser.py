"""The parser: one test per syntax decision in docs/otterscript-syntax.md, then spans, errors
and recovery."""

from __future__ import annotations

import pytest

from engine import OtterSyntaxError, ast, parse
from engine.parser import parse_condition, parse_expression


def only(text: str) -> ast.Statement:
    script = parse(text)
    assert len(script.body) == 1, script.body
    return script.body[0]


def text_of(expression: ast.Expression) -> str:
    assert isinstance(expression, ast.Scalar), expression
    literal = expression.literal
    assert literal is not None, expression
    return literal


def errors(text: str) -> list[str]:
    with pytest.raises(OtterSyntaxError) as raised:
        parse(text)
    return [d.format() for d in raised.value.diagnostics if d.is_error]


def warnings(text: str) -> list[str]:
    return [d.message for d in parse(text).warnings]


# ---- decision 1: where an implicit string ends --------------------------------------------


def test_parser_implicit_argument_ends_at_comma_and_parenthesis() -> None:
    call = only("Exec x (A: one two, B: three);")
    assert [text_of(a.value) for a in call.arguments] == ["one two", "three"]


def test_parser_implicit_line_value_keeps_commas_and_parentheses() -> None:
    log = only("Log-Information Something went wrong, but continuing (twice);")
    assert text_of(log.message) == "Something went wrong, but continuing (twice)"


def test_parser_implicit_positional_ends_at_parenthesis() -> None:
    call = only("Exec c:\\tools\\7za.exe ( Arguments: x );")
    assert text_of(call.positional) == "c:\\tools\\7za.exe"
    assert text_of(call.arguments[0].value) == "x"


def test_parser_implicit_condition_operand_ends_at_operators() -> None:
    statement = only("if $a == x y && !$b || (c != d) { }")
    condition = statement.condition
    assert isinstance(condition, ast.Or)
    left = condition.operands[0]
    assert isinstance(left, ast.And)
    assert text_of(left.operands[0].right) == "x y"
    assert isinstance(left.operands[1], ast.Not)


def test_parser_implicit_context_value_ends_at_brace() -> None:
    statement = only("for server prod web 1 { }")
    assert text_of(statement.value) == "prod web 1"


def test_parser_implicit_module_default_ends_at_comma_or_angle() -> None:
    module = only("module M<$a = one two, $b = three> { }")
    assert [text_of(p.default) for p in module.parameters] == ["one two", "three"]


def test_parser_quotes_inside_implicit_text_do_not_protect_delimiters() -> None:
    with pytest.raises(OtterSyntaxError):
        parse('Exec x (Arguments: --name "a, b" --flag);')
    call = only("Exec x (Arguments: '--name \"a, b\" --flag');")
    assert text_of(call.arguments[0].value) == '--name "a, b" --flag'


def test_parser_balanced_parentheses_in_argument_text() -> None:
    call = only("Exec x (Description: Deploy (prod) now, B: c);")
    assert text_of(call.arguments[0].value) == "Deploy (prod) now"


# ---- decisions 2 and 3: values stay on their line -------------------------------------------


def test_parser_implicit_text_never_continues_on_next_line() -> None:
    script = parse("set $a = one\nset $b = two;\n")
    assert [text_of(s.value) for s in script.body] == ["one", "two"]
    assert any(
        "missing ';' at the end of line 1" in w for w in (d.message for d in script.warnings)
    )


def test_parser_positional_argument_starts_on_operation_line() -> None:
    script = parse("Deploy-Artifact\nProGet::Upload-Assets (To: x);\n")
    first, second = script.body
    assert first.name == "Deploy-Artifact" and first.positional is None
    assert second.namespace == "ProGet"


# ---- decision 4: variable references -----------------------------------------------------


def test_parser_variable_reference_ends_at_dash_and_dot() -> None:
    scalar = only("Log-Information $ApplicationName-rg $ReleaseNumber.$BuildNumber;").message
    kinds = [
        (type(p).__name__, getattr(p, "name", getattr(p, "value", None))) for p in scalar.parts
    ]
    assert kinds == [
        ("VariableRef", "ApplicationName"),
        ("Text", "-rg "),
        ("VariableRef", "ReleaseNumber"),
        ("Text", "."),
        ("VariableRef", "BuildNumber"),
    ]


def test_parser_braced_variable_allows_any_name() -> None:
    scalar = only("Log-Information ${name with spaces}x;").message
    assert scalar.parts[0] == ast.VariableRef(sigil="$", name="name with spaces")


def test_parser_declarations_accept_dashed_names() -> None:
    statement = only("set $my-name = 1;")
    assert statement.variable.name == "my-name"


# ---- decision 5: comments inside values -----------------------------------------------------


def test_parser_hash_after_blank_starts_a_comment_in_a_value() -> None:
    call = only("Exec x (Overwrite: true # replace it\n);")
    assert text_of(call.arguments[0].value) == "true"
    assert call.arguments[0].trailing_comment == "# replace it"


def test_parser_hash_inside_a_word_is_text() -> None:
    log = only("Log-Information Build #42 of http://example.org/#top;")
    assert text_of(log.message) == "Build #42 of http://example.org/#top"


# ---- decision 6: quotes -------------------------------------------------------------------


def test_parser_quote_starts_a_quoted_string_only_at_value_start() -> None:
    call = only('Exec x (A: say "hi");')
    assert text_of(call.arguments[0].value) == 'say "hi"'
    quoted = only('Exec x (A: "a, b");')
    assert text_of(quoted.arguments[0].value) == "a, b"
    assert quoted.arguments[0].value.style == "double"


def test_parser_text_after_closing_quote_is_joined_with_warning() -> None:
    script = parse('Log-Information "myvar" is $myvar;')
    parts = script.body[0].message.parts
    assert parts[0] == ast.Text(value="myvar is ")
    assert any("text after a closing quote" in d.message for d in script.warnings)


def test_parser_quoted_strings_expand_variables() -> None:
    for source in ['"Item: $item"', "'Item: $item'"]:
        parts = only(f"Log-Information {source};").message.parts
        assert parts == (ast.Text(value="Item: "), ast.VariableRef(sigil="$", name="item"))


# ---- decision 7: escapes ----------------------------------------------------------------


def test_parser_escapes_resolve() -> None:
    log = only("Log-Information `$x ``y`` `n`t `@z `%w `;;")
    assert text_of(log.message) == "$x `y` \n\t @z %w ;"


def test_parser_unknown_letter_escape_warns() -> None:
    script = parse("Log-Information `q;")
    assert text_of(script.body[0].message) == "q"
    assert any("unknown escape '`q'" in d.message for d in script.warnings)


def test_parser_escaped_quote_inside_quotes() -> None:
    assert text_of(only('Log-Information "say `"hi`"";').message) == 'say "hi"'


# ---- decision 8: swim strings -------------------------------------------------------------


def test_parser_swim_trims_first_and_last_newline() -> None:
    log = only("PSExec >>\n    Get-Service\n>>;")
    assert text_of(log.positional) == "    Get-Service"


def test_parser_swim_custom_sentinel_contains_other_sentinels() -> None:
    statement = only("set $x = >==8>a >> b >--=> c>==8>;")
    assert text_of(statement.value) == "a >> b >--=> c"


def test_parser_swim_closing_sentinel_moves_right() -> None:
    statement = only("set $x = >>a>>>;")
    assert text_of(statement.value) == "a>"


def test_parser_swim_expands_variables_with_positions() -> None:
    statement = only("set $x = >>\nhello $name\n>>;")
    variable = statement.value.parts[1]
    assert variable == ast.VariableRef(sigil="$", name="name")
    assert (variable.span.line, variable.span.column) == (2, 7)


def test_parser_greater_or_equal_is_not_a_swim_string() -> None:
    call = only("Exec x (SuccessExitCode: >= 0);")
    assert text_of(call.arguments[0].value) == ">= 0"


# ---- decisions 9 to 16: statements -------------------------------------------------------


def test_parser_keywords_are_lower_case() -> None:
    assert isinstance(only("If $x;"), ast.OperationCall)
    assert isinstance(only("log-information x;"), ast.Log)
    assert isinstance(only("LOG-WARNING x;"), ast.Log)


def test_parser_condition_precedence_not_and_or() -> None:
    condition = parse_condition("!a && b || c")
    assert isinstance(condition, ast.Or)
    assert isinstance(condition.operands[0], ast.And)
    assert isinstance(condition.operands[0].operands[0], ast.Not)


def test_parser_condition_bare_value_is_a_truth_test() -> None:
    assert isinstance(parse_condition("$isEnabled"), ast.IsTrue)


def test_parser_else_if_chain() -> None:
    statement = only("if a { } else if b { } else if c { } else { Log-Debug x; }")
    assert len(statement.else_ifs) == 2
    assert isinstance(statement.else_body[0], ast.Log)


def test_parser_global_declaration_value_is_optional() -> None:
    script = parse("global $a = 1;\nglobal @b;\n")
    assert script.body[1] == ast.GlobalDeclaration(variable=ast.VariableRef(sigil="@", name="b"))


def test_parser_with_directives_combine_and_are_checked() -> None:
    statement = only(
        "with retry=3, timeout=30, async=Build, lock=!Deploy, executionPolicy=Always { }"
    )
    assert [(d.name, d.value) for d in statement.directives] == [
        ("retry", "3"),
        ("timeout", "30"),
        ("async", "Build"),
        ("lock", "!Deploy"),
        ("executionPolicy", "Always"),
    ]
    assert "takes a whole number" in errors("with retry=many { }")[0]
    assert "unknown directive 'retries'" in errors("with retries=3 { }")[0]


def test_parser_module_out_parameters_and_call_outputs() -> None:
    script = parse("module M<$a, out $b = x> { }\ncall raft::M(a: 1, b => $result);\n")
    module, call = script.body
    assert module.parameters[1].output and text_of(module.parameters[1].default) == "x"
    assert call.raft == "raft"
    assert call.arguments[1] == ast.OutputArgument(
        name="b", variable=ast.VariableRef(sigil="$", name="result")
    )


def test_parser_template_keyword_is_not_accepted() -> None:
    assert "'template' was renamed 'module'" in errors("template M<$a> { }")[0]


def test_parser_headers_kept_exactly() -> None:
    script = parse("##AH:UseTextMode\n##AH:Key=Value\nLog-Debug x;\n##AH:Later\n")
    assert script.headers == ("##AH:UseTextMode", "##AH:Key=Value")
    assert script.body[-1] == ast.Comment(lines=("##AH:Later",))


@pytest.mark.parametrize(
    ("source", "words"),
    [
        ("retry 3 { }", "use 'with retry=N { … }'"),
        ("try { } finally { }", "no 'finally'"),
        ("for i = 1 to 100 { }", "expected"),
        ("$x = value;", "assign with 'set $name = value;'"),
    ],
)
def test_parser_not_otterscript_is_an_error_naming_the_fix(source: str, words: str) -> None:
    assert any(words in message for message in errors(source))


# ---- leniency --------------------------------------------------------------------------------


def test_parser_missing_semicolon_after_parenthesis_warns() -> None:
    assert any("missing ';' after ')'" in w for w in warnings("Exec x (A: b)\nExec y;"))


def test_parser_missing_comma_at_line_end_warns() -> None:
    script = parse("Exec x\n(\n    A: b\n    C: d\n);")
    assert [a.name for a in script.body[0].arguments] == ["A", "C"]
    assert any("missing ','" in d.message for d in script.warnings)


def test_parser_trailing_commas_warn() -> None:
    for source in [
        "Exec x (A: b,);",
        "set @a = @(1, 2,);",
        "set %m = %(a: 1,);",
        "set $a = $F(1,);",
    ]:
        assert any("trailing comma" in w for w in warnings(source)), source


def test_parser_empty_argument_value_warns() -> None:
    script = parse("Exec x (Summary: , B: c);")
    assert script.body[0].arguments[0].value == ast.Scalar()
    assert any("has no value" in d.message for d in script.warnings)


def test_parser_brace_after_operation_is_not_a_missing_semicolon() -> None:
    assert "argument lists are written in parentheses" in errors("Exec\n{\n    A: b\n};")[0]


# ---- comments and descriptions -----------------------------------------------------------


def test_parser_description_is_comments_directly_above() -> None:
    statement = only("# Deploy\n// the site\n/* now */\nLog-Debug x;")
    assert statement.description == ("# Deploy", "// the site", "/* now */")
    assert statement.short_description == "Deploy"


def test_parser_blank_line_detaches_a_comment() -> None:
    script = parse("# standalone\n\nLog-Debug x;")
    assert script.body[0] == ast.Comment(lines=("# standalone",))
    assert script.body[1].description == ()


def test_parser_comment_at_block_end_stands_alone() -> None:
    block = only("{\n    Log-Debug x;\n    # the end\n}")
    assert block.body[-1] == ast.Comment(lines=("# the end",))


def test_parser_comments_in_argument_list_belong_to_arguments() -> None:
    call = only("Exec x\n(\n    # first\n    A: 1, # one\n    B: 2\n);")
    assert call.arguments[0].comments == ("# first",)
    assert call.arguments[0].trailing_comment == "# one"


def test_parser_comment_inside_statement_joins_description() -> None:
    statement = only("if $a # why\n{\n}")
    assert statement.description == ("# why",)


# ---- spans, errors and recovery ---------------------------------------------------------


def test_parser_spans_are_offsets_lines_and_columns() -> None:
    script = parse("Log-Debug x;\n  set $abc = 1;\n")
    span = script.body[1].span
    assert (span.start, span.end, span.line, span.column, span.end_line, span.end_column) == (
        15,
        28,
        2,
        3,
        2,
        16,
    )
    variable = script.body[1].variable.span
    assert (variable.line, variable.column, variable.end_column) == (2, 7, 11)


def test_parser_error_says_expected_and_found_with_position() -> None:
    with pytest.raises(OtterSyntaxError) as raised:
        parse("set $x = 1;\nset $y 2;\n")
    diagnostic = raised.value.diagnostics[0]
    assert (diagnostic.line, diagnostic.column) == (2, 8)
    assert diagnostic.message == "expected '.key', '=' or '[', found '2'"


def test_parser_reports_every_error_not_only_the_first() -> None:
    messages = errors("set $x = ;\nLog-Debug ok;\nwith retry=no { }\nset $y 2;\n")
    assert [m.split(":")[1] for m in messages] == ["1", "3", "4"]


def test_parser_unclosed_block_names_its_opening_line() -> None:
    assert "expected '}' to close the '{' on line 2" in errors("for server x\n{\n    Exec y;\n")[0]


def test_parser_unterminated_string_is_named() -> None:
    assert "unterminated string" in errors('Log-Information "open;\n')[0]


def test_parser_syntax_error_str_shows_line_and_caret() -> None:
    with pytest.raises(OtterSyntaxError) as raised:
        parse("Log-Debug ok;\nset $y 2;\n", name="deploy.otter")
    assert str(raised.value).splitlines()[:3] == [
        raised.value.diagnostics[0].format("deploy.otter"),
        "    set $y 2;",
        "           ^",
    ]


@pytest.mark.parametrize("source", ["", "   \n", "# only a comment\n", "##AH:UseTextMode\n"])
def test_parser_empty_scripts_parse(source: str) -> None:
    assert parse(source).body in ((), (ast.Comment(lines=("# only a comment",)),))


@pytest.mark.parametrize(
    "source",
    [
        "{" * 5000,
        "}" * 50,
        "(((",
        "\x00\x01",
        "set",
        "if",
        '"',
        ">>",
        "`",
        "${",
        "@(",
        "%(a:",
        "/*",
        "\ufeffLog-Debug x;",
    ],
)
def test_parser_garbage_raises_only_syntax_errors(source: str) -> None:
    try:
        parse(source)
    except OtterSyntaxError as error:
        assert error.diagnostics
        assert all(d.line >= 1 and d.column >= 1 for d in error.diagnostics)
        assert not any("internal parser error" in d.message for d in error.diagnostics)


def test_parser_expression_entry_point_reads_each_place() -> None:
    assert text_of(parse_expression("a, b", "line")) == "a, b"
    assert isinstance(parse_expression("@(a, b)[0]"), ast.Index)
    with pytest.raises(ValueError):
        parse_expression("x", "nowhere")


def test_parser_diagnostic_hint_is_a_field_of_its_own() -> None:
    with pytest.raises(OtterSyntaxError) as raised:
        parse("$x = value;")
    diagnostic = raised.value.diagnostics[0]
    assert diagnostic.message == "expected a statement, found '$x'"
    assert diagnostic.hint == "assign with 'set $name = value;'"
    assert diagnostic.to_dict()["hint"] == diagnostic.hint
    assert diagnostic.format().endswith(f"{diagnostic.message}: {diagnostic.hint}")


def test_parser_statement_with_bodies_records_where_their_braces_are() -> None:
    text = "if $a {\n} else if $b\n{ fail; }\nelse {}\ntry { } catch { }\n{ }\n"
    conditional, attempt, block = parse(text).body
    assert [text[offset] for offset in conditional.braces] == ["{", "}"] * 3
    assert conditional.braces == (6, 8, 21, 29, 36, 37)
    assert len(attempt.braces) == 4 and block.braces == (text.rindex("{"), text.rindex("}"))
    assert ast.bodies(conditional) == (conditional.body, conditional.else_ifs[0].body, ())
    assert attempt == ast.Try()  # braces, like spans, are not compared


# ---- the parser's tables, kept between processes


@pytest.fixture
def own_grammar(tmp_path, monkeypatch):
    """The parser built from a copy of the grammar in ``tmp_path`` (its tables kept there)."""
    from engine.parser import entry

    copy = tmp_path / "otterscript.lark"
    copy.write_bytes(entry.GRAMMAR_PATH.read_bytes())
    monkeypatch.setattr(entry, "GRAMMAR_PATH", copy)
    entry._parser.cache_clear()
    yield entry
    entry._parser.cache_clear()


SAMPLE = 'Log-Information "hi $x"; # said\nif $a == 1 { set $b = @(1, 2); }\n'


def test_parser_tables_are_kept_beside_the_grammar_and_used_again(own_grammar) -> None:
    built = parse(SAMPLE)
    (tables,) = own_grammar.GRAMMAR_PATH.parent.glob("__pycache__/*.lark-tables")
    made = tables.stat().st_mtime_ns
    own_grammar._parser.cache_clear()
    assert parse(SAMPLE) == built
    assert tables.stat().st_mtime_ns == made  # read, not made again
    assert [p.name for p in tables.parent.iterdir()] == [tables.name]  # no half-made file left


def test_parser_tables_cut_short_are_not_trusted(own_grammar) -> None:
    built = parse(SAMPLE)
    (tables,) = own_grammar.GRAMMAR_PATH.parent.glob("__pycache__/*.lark-tables")
    tables.write_bytes(tables.read_bytes()[:5000])  # a file another process was writing
    own_grammar._parser.cache_clear()
    assert parse(SAMPLE) == built


def test_parser_tables_follow_the_grammar(own_grammar) -> None:
    parse(SAMPLE)
    before = own_grammar._tables_file()
    own_grammar.GRAMMAR_PATH.write_text(own_grammar.GRAMMAR_PATH.read_text() + "\n// changed\n")
    assert own_grammar._tables_file() != before
