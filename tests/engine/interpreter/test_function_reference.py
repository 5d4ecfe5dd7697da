"""The functions against Inedo's function reference: one row per documented example or edge
case (an index past the end, a negative count, empty input, text that is not a number). Where
the reference and its source disagree, docs/otterscript-semantics.md says which was followed."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

import pytest

from engine.functions.dates import format_date
from engine.interpreter import Level

# (expression, what it is: the text it gives) — $x is 42.
RESULTS = [
    # strings
    ("$Substring(abcdef, 6)", ""),
    ("$Substring(abcdef, 9)", ""),
    ("$Substring(abcdef, 4, 10)", "ef"),
    ("$Substring(abcdef, 2, 0)", ""),
    ("$(@Split(a;b;c, `;, 0))", "@()"),
    ("$(@Split(a;b;c, `;, 1))", "@(a;b;c)"),
    ("$(@Split(a;b;c, `;, 9))", "@(a, b, c)"),
    ("$(@Split('a b  c', ''))", "@(a, b, , c)"),
    ("$(@Split('a b c', '', 2))", "@(a, b c)"),
    ("$ListCount(@Split('', `;))", "1"),
    ("$Join(-, @())", ""),
    ("$Join(-, @(a))", "a"),
    ("$Join(-, @(a, @(b, c)))", "a-@(b, c)"),
    ("$Coalesce()", ""),
    ("$Coalesce('', ' ')", ""),
    ("$Coalesce(' a ', b)", " a "),
    ("$PadLeft(abc, 2)", "abc"),
    ("$PadLeft(7, 3, 0x)", "007"),
    ("$PadLeft(7, 3, '')", "  7"),
    ("$PadRight(7, 3, -)", "7--"),
    ("$Trim(xxaxx, xy)", "xxaxx"),
    ("$Trim('..a,,', ., `,)", "a"),
    ("$Trim('  a  ', ab)", "a"),
    ("$TrimStart('  a  ')", "a  "),
    ("$TrimEnd('  a  ')", "  a"),
    ("$Replace(aXa, x, `$0, true)", "a$0a"),
    ("$Replace(abc, z, y)", "abc"),
    ("$MatchesRegex(abab, '^(?<p>ab)\\k<p>`$')", "true"),
    ("$MatchesRegex(ABC, b)", "false"),
    ("$RegexReplace(abc, b, `$`$)", "a$c"),
    ("$RegexReplace(a1b2, '\\d', '<`$&>')", "a<1>b<2>"),
    ("$RegexReplace(abc, '(?<mid>b)', '[`${mid}]')", "a[b]c"),
    ("$RegexReplace(abc, '(b)', '[`$0`$1]')", "a[bb]c"),
    ("$RegexReplace(ab, b, `$5)", "a$5"),
    ("$RegexReplace(a-b, -, '\\t')", "a\\tb"),
    ("$(@RegexFind('a1 b c3', '([a-z])(\\d)?', 2))", "@(1, 3)"),
    ("$(@RegexFind('k1=v1;k2=v2', '(?<key>\\w+)=', key))", "@(k1, k2)"),
    ("$(@RegexFind(abc, '(b)', other))", "@()"),
    ("$(@RegexFind(abc, '(b)', 7))", "@()"),
    ("$(@RegexFind(abc, x))", "@()"),
    ('$HtmlEncode("it\'s é")', "it&#39;s &#233;"),
    ("$XmlEncode('say \"hi\" & <x>')", 'say "hi" &amp; &lt;x&gt;'),
    ('$JSEncode("it\'s é")', "it\\u0027s é"),
    ("$JSEncode('a\\b')", "a\\\\b"),
    ("$UrlEncode(a~b_c.d-e)", "a~b_c.d-e"),
    ("$NewLine(LINUX)", "\n"),
    ("$NewLine()", "\n"),
    # lists
    ("$(@ListInsert(@(a, b), z, 0))", "@(z, a, b)"),
    ("$(@ListInsert(@(a, b), z, 2))", "@(a, b, z)"),
    ("$(@ListInsert(@(a, b), z))", "@(a, b, z)"),
    ("$(@ListInsert(@(a, b), z, -1))", "@(a, b, z)"),
    ("$(@ListInsert(@(), z, 0))", "@(z)"),
    ("$ListItem(@(a, b), 0)", "a"),
    ("$ListItem(@(a, b), -2)", "a"),
    ("$(@ListRemove(@(a, b), 5))", "@(a, b)"),
    ("$(@ListRemove(@(a, b), -1))", "@(a)"),
    ("$(@ListRemove(@(), 0))", "@()"),
    ("$(@ListSet(@(a), 3, z))", "@(a, , , z)"),
    ("$(@ListSet(@(), 0, z))", "@(z)"),
    ("$(@ListSet(@(a, b), -1, z))", "@(a, z)"),
    ("$(@ListSet(@(a, b), -2, z))", "@(z, b)"),
    ("$ListCount(@())", "0"),
    ("$(@ListConcat())", "@()"),
    ("$(@ListConcat(@(), @(a), b))", "@(a, b)"),
    ("$ListIndexOf(@(a, A), A)", "1"),
    ("$ListIndexOf(@(), a)", "-1"),
    ("$(@Range(5, 0))", "@()"),
    ("$(@Range(-2, 3))", "@(-2, -1, 0)"),
    # maps
    ("$(%MapRemove(%(a: 1), z))", "%(a: 1)"),
    ("$(@MapKeys(%()))", "@()"),
    ("$(%MapSet(%(), a, @(1, 2)))", "%(a: @(1, 2))"),
    ("$(%MapAdd(%(a: 1), A, 2))", "%(a: 1, A: 2)"),
    # math
    ("$Abs(' -2 ')", "2"),
    ("$Abs(-0)", "0"),
    ("$Increment(1.50)", "2.50"),
    ("$Increment(5, -2)", "3"),
    ("$Decrement(1e3)", "999"),
    ("$Decrement(2.5, 0.5)", "2.0"),
    ("$Ceiling(-1.5)", "-1"),
    ("$Floor(-1.5)", "-2"),
    ("$Ceiling(3)", "3"),
    ("$Compare(07, >, 6, true)", "true"),
    ('$Compare("07", >, "6")', "true"),
    ("$Compare(07, >, 6, false)", "false"),
    ("$Compare(1.0, =, 1)", "true"),
    ("$Compare(abc, <, abd)", "true"),
    ("$Compare(B, <, a)", "true"),
    ("$Compare(x, !=, y)", "true"),
    ("$Expr(1 / 4)", "0.25"),
    ("$Expr(8 - 2 - 1)", "5"),
    ("$Expr('-(1 + 2) * 2')", "-6"),
    ("$Expr(0.1 + 0.2)", "0.3"),
    ("$Expr(7 `% -3)", "1"),
    ("$Expr(' 2e2 ')", "200"),
    # JSON
    ("$ToJson(@(1, 2, 3, 4, five))", '["1","2","3","4","five"]'),
    ("$ToJson(>>abc\n123>>)", '"abc\\n123"'),
    ("$ToJson(%())", "{}"),
    ("$ToJson(é)", '"é"'),
    ("$(@FromJson('[1,2,3,4,\"five\",6]'))", "@(1, 2, 3, 4, five, 6)"),
    (
        "$(@FromJson('[1.0, 1e3, -0, 12345678901234567890]'))",
        "@(1.0, 1e3, -0, 12345678901234567890)",
    ),
    ("$FromJson('\"abc\"')", "abc"),
    ("$FromJson(true)", "true"),
    ("$FromJson(null)", ""),
    ('$ToJson(%FromJson(\'{"abc":[1,2,3],"def":true}\'))', '{"abc":["1","2","3"],"def":"true"}'),
    ("$Eval('`$x + 1 = `$Increment(`$x)')", "42 + 1 = 43"),
    ("$(@Eval('@(`$x, b)'))", "@(42, b)"),
    # execution and server state
    ("$IsVariableDefined(ServerName)", "true"),
    ("$IsVariableDefined(ServerName, vector)", "false"),
    ("$IsVariableDefined(AllServers, vector)", "true"),
    ("$IsVariableDefined(ListCount)", "false"),
    ("$IsVariableDefined(x, SCALAR)", "true"),
    ("$IsVariableDefined('')", "false"),
    ("$GetVariableValue(nothere)", ""),
    ("$ListCount(@GetVariableValue(nothere))", "0"),
    ("$GetVariableValue(x, vector)", ""),
    ("$GetVariableValue(ServerName)", "localhost"),
    ("$(@GetVariableValue(AllServers, vector))", "@(localhost, db1)"),
    ("$IsSimulation", "false"),
]


@pytest.mark.parametrize(("expression", "expected"), RESULTS, ids=[r[0] for r in RESULTS])
async def test_function_reference_results(run, expression, expected) -> None:
    ran = await run(f"set $x = 42;\nset $result = {expression};\nLog-Information $result;")
    assert ran.status == "normal", ran.messages(Level.ERROR)
    assert ran.info == [expected]


# (expression, the start of its error message)
ERRORS = [
    ("$Substring(abc, -1)", "$Substring: offset must not be negative, not -1"),
    ("$Substring(abc, 0, -1)", "$Substring: length must not be negative, not -1"),
    ("$Substring(abc, one)", "$Substring: offset must be a whole number, not 'one'"),
    ("$Substring(@(a), 0)", "$Substring: text must be text, not a list"),
    ("@Split(a, b, -1)", "@Split: count must not be negative, not -1"),
    ("$PadLeft(a, -1)", "$PadLeft: length must not be negative, not -1"),
    ("$PadRight(a, 1.5)", "$PadRight: length must be a whole number, not '1.5'"),
    ("$Replace(abc, '', x)", "$Replace: the value to replace must not be empty"),
    ("$MatchesRegex(abc, '(')", "$MatchesRegex: invalid regular expression"),
    ("$NewLine(mac)", "$NewLine: the argument is windows, linux or current"),
    ("$ListItem(@(a, b), 2)", "$ListItem: index 2 is outside the list (it has 2 items)"),
    ("$ListItem(@(a, b), -3)", "$ListItem: index -3 is outside the list (it has 2 items)"),
    ("$ListItem(@(), 0)", "$ListItem: index 0 is outside the list (it has 0 items)"),
    ("$ListItem(@(a), x)", "$ListItem: the index must be a whole number, not 'x'"),
    ("@ListInsert(@(a, b), z, 3)", "@ListInsert: index 3 is outside the list (it has 2 items)"),
    ("@ListSet(@(a, b), -3, z)", "@ListSet: index -3 is outside the list (it has 2 items)"),
    ("@ListSet(@(), 1000000, z)", "@ListSet: index 1000000 would make a list longer than"),
    ("$ListCount(abc)", "$ListCount: the first argument must be a list"),
    ("@Range(1, -1)", "@Range: count must not be negative, not -1"),
    ("@Range(a, 1)", "@Range: start must be a whole number, not 'a'"),
    ("@Range(1, 1000001)", "@Range: count must be at most 1,000,000"),
    ("%MapAdd(%(a: 1), a, 2)", "%MapAdd: the map already has the key 'a'"),
    ("%MapSet(%(a: 1), ' ', 2)", "%MapSet: the key must not be empty"),
    ("$MapItem(%(a: 1), A)", "$MapItem: the map has no key 'A'"),
    ("$MapKeys(@(a))", "$MapKeys: the first argument must be a map"),
    ("$Abs(abc)", "$Abs: the value must be a number, not 'abc'"),
    ("$Abs('')", "$Abs: the value must be a number, not ''"),
    ("$Abs(NaN)", "$Abs: the value must be a number, not 'NaN'"),
    ("$Abs(1_000)", "$Abs: the value must be a number, not '1_000'"),
    ("$Ceiling(1e999)", "$Ceiling: the value is out of range (at most 1e308)"),
    ("$Increment(1, x)", "$Increment: the amount must be a number, not 'x'"),
    ("$Compare(a, <, 1, true)", "$Compare: arg1 must be a number, not 'a'"),
    ("$Compare(1, <>, 2)", "$Compare: the operator must be one of <, >, <=, >=, =, !="),
    ("$Expr('')", "$Expr: '' is not an arithmetic expression"),
    ("$Expr(2 ^ 3)", "$Expr: '2 ^ 3' is not an arithmetic expression"),
    ("$Expr(0x10)", "$Expr: '0x10' is not an arithmetic expression"),
    ("$Expr('(1 + 2')", "$Expr: '(1 + 2' is not an arithmetic expression"),
    ("$Expr(1 `% 0)", "$Expr: division by zero"),
    ("$FromJson('{')", "$FromJson: not valid JSON"),
    ("$IsVariableDefined(x, bogus)", "$IsVariableDefined: type must be any, scalar, vector or map"),
    ("$Date(x)", "$Date: 'x' is not a standard date format"),
    ('$Date("\'open")', "$Date: the date format has an unclosed '"),
]


@pytest.mark.parametrize(("expression", "message"), ERRORS, ids=[e[0] for e in ERRORS])
async def test_function_reference_errors(run, expression, message) -> None:
    ran = await run(f"set $x = 42;\nset $result = {expression};")
    assert ran.status == "error"
    assert ran.messages(Level.ERROR)[0].startswith(message), ran.messages(Level.ERROR)


async def test_function_reference_is_simulation_when_simulating(run) -> None:
    ran = await run("Log-Information $IsSimulation;", simulate=True)
    assert ran.info[-1] == "true"


async def test_function_reference_resolve_path_ends_with_a_separator(run, tmp_path) -> None:
    ran = await run(
        "Log-Information $ResolvePath();\nLog-Information $ResolvePath(my\\path/to);\n"
        "Log-Information $ResolvePath(/srv/app);\nLog-Information $ResolvePath(/srv/app/);"
    )
    assert ran.info == [f"{tmp_path}/", f"{tmp_path}/my/path/to/", "/srv/app/", "/srv/app/"]


MOMENT = datetime(2024, 3, 5, 14, 7, 9, 120_000, tzinfo=timezone(timedelta(hours=2)))

# (format, MOMENT in it): the formats of Inedo's $Date example, and the rest of .NET's
DATE_FORMATS = [
    ("yyyy-MM-ddTHH:mm:ss", "2024-03-05T14:07:09"),
    ("hh:mm:ss.f", "02:07:09.1"),
    ("r", "Tue, 05 Mar 2024 12:07:09 GMT"),
    ("s", "2024-03-05T14:07:09"),
    ("t", "14:07"),
    ("T", "14:07:09"),
    ("d", "03/05/2024"),
    ("D", "Tuesday, 05 March 2024"),
    ("f", "Tuesday, 05 March 2024 14:07"),
    ("F", "Tuesday, 05 March 2024 14:07:09"),
    ("g", "03/05/2024 14:07"),
    ("G", "03/05/2024 14:07:09"),
    ("M", "March 05"),
    ("y", "2024 March"),
    ("o", "2024-03-05T14:07:09.1200000+02:00"),
    ("u", "2024-03-05 12:07:09Z"),
    ("U", "Tuesday, 05 March 2024 12:07:09"),
    ("yyyyMMdd-hhmmss", "20240305-020709"),
    ("ss.FFF", "09.12"),
    ("ddd dddd MMM MMMM", "Tue Tuesday Mar March"),
    ("y yy yyy yyyyy", "24 24 2024 02024"),
    ("h H tt t", "2 14 PM P"),
    ("z zz zzz K", "+2 +02 +02:00 +02:00"),
    ("'yyyy' \"MM\" \\d %d", "yyyy MM d 5"),
    ("%H", "14"),
    ("dd/MM/yyyy", "05/03/2024"),
    ("g gg", "A.D. A.D."),
]


@pytest.mark.parametrize(("pattern", "expected"), DATE_FORMATS, ids=[d[0] for d in DATE_FORMATS])
def test_function_reference_date_formats(pattern, expected) -> None:
    assert format_date(MOMENT, pattern) == expected


def test_function_reference_date_format_drops_a_zero_fraction_and_its_point() -> None:
    whole = datetime(2024, 3, 5, 0, 7, 9, tzinfo=UTC)
    assert format_date(whole, "ss.FFF") == "09"
    assert format_date(whole, "hh tt K") == "12 AM Z"


async def test_function_reference_date_without_format_is_sortable(run) -> None:
    ran = await run("Log-Information $Date;\nLog-Information $DateUtc();")
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", line) for line in ran.info)
