"""Static checks."""

from __future__ import annotations

from engine import check, parse


def codes(text: str) -> list[tuple[str, str, int]]:
    return [(d.code, d.severity, d.line) for d in check(parse(text))]


def messages(text: str) -> list[str]:
    return [d.message for d in check(parse(text))]


def test_check_clean_script_has_no_diagnostics() -> None:
    assert check(parse("set $x = 1;\nforeach $i in @(1, 2) { Log-Debug $i; break; }")) == []


def test_check_wrong_sigil_on_set_is_an_error() -> None:
    assert codes("set @x = scalar;") == [("sigil", "error", 1)]
    assert codes("set $x = @(a);") == [("sigil", "error", 1)]
    assert codes("set %m = @(a);") == [("sigil", "error", 1)]
    assert codes("set @x = @ListConcat(@a, @b);\nset $y = @l[0];") == []


def test_check_foreach_needs_a_list() -> None:
    assert codes("foreach $x in abc { }") == [("sigil", "error", 1)]
    assert codes("foreach server in %(a: b) { }") == [("sigil", "error", 1)]


def test_check_for_context_takes_one_name() -> None:
    assert codes("for server @ServersInRole(web) { }") == [("sigil", "error", 1)]


def test_check_break_and_continue_outside_loop_warn() -> None:
    assert codes("break;\ncontinue;") == [
        ("loop-control", "warning", 1),
        ("loop-control", "warning", 2),
    ]
    assert codes("foreach $x in @l { if a { continue; } }") == []
    assert codes("foreach $x in @l { module M { break; } }") == [("loop-control", "warning", 1)]


def test_check_duplicate_module_names_in_one_block() -> None:
    assert codes("module A { }\nmodule a { }") == [("duplicate-module", "error", 2)]
    assert codes("module A { }\n{ module A { } }") == []


def test_check_module_call_arguments_match_parameters() -> None:
    source = "module M<$a, $b = 1, out $c> { }\n"
    assert codes(source + "call M(a: 1, c => $r);") == []
    assert messages(source + "call M(a: 1, d: 2);") == [
        "module 'M' has no parameter 'd' (its parameters: a, b, c)"
    ]
    assert messages(source + "call M(b: 2);") == ["module 'M' needs 'a', which has no default"]
    assert messages(source + "call M(a: 1, c: 2);") == [
        "'c' is an output of module 'M': bind it as c => $variable"
    ]
    assert messages(source + "call M(a => $x);") == [
        "'a' is an input of module 'M': pass it as a: value"
    ]


def test_check_module_found_in_parent_scope_not_in_sibling() -> None:
    assert codes("module M<$a> { }\n{ call M(b: 1); }")[0][0] == "module-argument"
    assert codes("{ module M<$a> { } }\ncall M(b: 1);") == []  # not visible: a raft module, perhaps


def test_check_unknown_statement_keywords() -> None:
    assert messages("raise-error oops;") == [
        "'raise-error' is not an OtterScript statement: use 'throw message;'"
    ]
    assert messages("Foreach x;") == ["keywords are lower case: write 'foreach', not 'Foreach'"]


def test_check_nested_lock_is_an_error() -> None:
    assert codes("with lock=a { with lock=!b { } }") == [("nested-lock", "error", 1)]
    assert codes("with lock=a { }\nwith lock=b { }") == []


def test_check_global_declaration_after_a_statement() -> None:
    assert codes("global $a = 1;\n# note\nglobal $b;\nLog-Debug x;\nglobal $c;") == [
        ("global-position", "error", 5)
    ]


def test_check_ordering_operator_in_condition_warns() -> None:
    assert codes("if $count > 3 { }") == [("comparison", "warning", 1)]


def test_check_await_unknown_token_warns() -> None:
    assert codes("with async=Build { }\nawait Build;\nawait Other;") == [
        ("await-token", "warning", 3)
    ]


def test_check_includes_parser_warnings_sorted() -> None:
    assert codes("Exec x (Arguments: b,)\nset @x = a;") == [
        ("trailing-comma", "warning", 1),
        ("missing-semicolon", "warning", 1),
        ("sigil", "error", 2),
    ]
