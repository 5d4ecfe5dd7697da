"""Every variable function, by what it returns."""

from __future__ import annotations

import os

import pytest

from engine.interpreter import Level
from engine.registry import REGISTRY

CASES = [
    ("$ToUpper(abc)", "ABC"),
    ("$ToLower(ABC)", "abc"),
    ("$Trim('  x  ')", "x"),
    ("$Trim(xxaxx, x)", "a"),
    ("$TrimStart(--a--, -)", "a--"),
    ("$TrimEnd(50%, `%)", "50"),
    ("$Substring(abcdef, 2)", "cdef"),
    ("$Substring(abcdef, 1, 3)", "bcd"),
    ("$Replace(a-b-c, -, +)", "a+b+c"),
    ("$Replace(aAa, a, x, true)", "xxx"),
    ("$PadLeft(7, 3, 0)", "007"),
    ("$PadRight(ab, 4)", "ab  "),
    ("$(@Split(a;b;c, `;))", "@(a, b, c)"),
    ("$(@Split(a;b;c, `;, 2))", "@(a, b;c)"),
    ("$Join(', ', @(a, b))", "a, b"),
    ("$Coalesce('', '  ', x, y)", "x"),
    ("$MatchesRegex(inedox-core, ^inedox-.`$*)", "true"),
    ("$MatchesRegex(abc, ^x)", "false"),
    ("$RegexReplace(v1.2.3, '(\\d+)\\.(\\d+)', `$2.`$1)", "v2.1.3"),
    ("$(@RegexFind(a1b22c333, \\d+))", "@(1, 22, 333)"),
    ("$HtmlEncode('<a href=\"x\">')", "&lt;a href=&quot;x&quot;&gt;"),
    ("$XmlEncode(a&b)", "a&amp;b"),
    ("$JSEncode('say \"hi\"')", 'say \\"hi\\"'),
    ("$UrlEncode(a b/c)", "a%20b%2Fc"),
    ("$NewLine(windows)", "\r\n"),
    ("$ListCount(@(a, b, c))", "3"),
    ("$(@ListConcat(@(a), @(b, c)))", "@(a, b, c)"),
    ("$ListIndexOf(@(a, b), b)", "1"),
    ("$ListIndexOf(@(a, b), z)", "-1"),
    ("$(@ListInsert(@(a, c), b, 1))", "@(a, b, c)"),
    ("$ListItem(@(a, b), -1)", "b"),
    ("$(@ListRemove(@(a, b, c), 0))", "@(b, c)"),
    ("$(@ListSet(@(a, b), 1, z))", "@(a, z)"),
    ("$(@Range(1, 3))", "@(1, 2, 3)"),
    ("$(%MapAdd(%(a: 1), b, 2))", "%(a: 1, b: 2)"),
    ("$(%MapSet(%(a: 1), a, 9))", "%(a: 9)"),
    ("$(%MapRemove(%(a: 1, b: 2), a))", "%(b: 2)"),
    ("$MapItem(%(a: 1), a)", "1"),
    ("$(@MapKeys(%(a: 1, b: 2)))", "@(a, b)"),
    ("$Abs(-3.5)", "3.5"),
    ("$Ceiling(1.2)", "2"),
    ("$Floor(1.8)", "1"),
    ("$Increment(41)", "42"),
    ("$Decrement(10, 2.5)", "7.5"),
    ("$Compare(10, >, 9)", "true"),
    ("$Compare(10, >, 9, false)", "false"),
    ("$Compare(abc, =, abc)", "true"),
    ("$Expr(2 * (3 + 4) `% 5)", "4"),
    ("$ToJson(%(abc: @(1, 2), def: true))", '{"abc":["1","2"],"def":"true"}'),
    ("$(%FromJson('{\"a\": [1, true, null]}'))", "%(a: @(1, true, ))"),
    ("$Eval(`$x and more)", "42 and more"),
    ("$IsVariableDefined(x)", "true"),
    ("$IsVariableDefined(nothere)", "false"),
    ("$IsVariableDefined(x, vector)", "false"),
    ("$GetVariableValue(x)", "42"),
    ("$ExecutionState", "normal"),
    ("$ServerName", "localhost"),
    ("$EnvironmentName", "Production"),
    ("$RoleName", ""),
    ("$(@AllServers)", "@(localhost, db1)"),
    ("$(@AllRoles)", "@(database, web)"),
    ("$(@AllEnvironments)", "@(Production)"),
    ("$(@ServersInRole(database))", "@(db1)"),
    ("$(@ServersInEnvironment(Production))", "@(localhost, db1)"),
    ("$(@ServersInRoleAndEnvironment(web, Production))", "@(localhost)"),
    ("$PathCombine(/srv, app, config.json)", "/srv/app/config.json"),
    ("$PythonPath", "python3"),
]


@pytest.mark.parametrize(("expression", "expected"), CASES, ids=[c[0] for c in CASES])
async def test_functions_return_what_they_document(run, expression, expected) -> None:
    ran = await run(
        f"set $x = 42;\nset $result = {expression};\nLog-Information >>$result>>;".replace(
            ">>$result>>", "$result"
        )
    )
    assert ran.status == "normal", ran.messages(Level.ERROR)
    assert ran.info == [expected]


async def test_functions_files_and_directories(run, tmp_path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.cs").write_text("class A {}")
    (tmp_path / "b.txt").write_text("hello file")
    ran = await run(
        f"Log-Information $FileExists({tmp_path}/b.txt) $FileExists({tmp_path}/sub) $DirectoryExists({tmp_path}/sub);\n"
        f"Log-Information $FileContents({tmp_path}/b.txt) $FileContents({tmp_path}/b.txt, 5);\n"
        f"Log-Information $(@FilesOnDisk(@(*.cs), @(), @({tmp_path})));\n"
        f"Log-Information $ResolvePath(sub) $WorkingDirectory;"
    )
    assert ran.info == [
        "true false true",
        "hello file hello",
        f"@({tmp_path}/sub/a.cs)",
        f"{tmp_path}/sub/ {tmp_path}",
    ]


async def test_functions_environment_variable_and_execution_id(run, host, monkeypatch) -> None:
    monkeypatch.setenv("OTTER_TEST_VALUE", "from env")
    ran = await run("Log-Information $EnvironmentVariable(OTTER_TEST_VALUE) $ExecutionId;")
    assert ran.info == [f"from env {host.execution_id}"]
    assert os.environ["OTTER_TEST_VALUE"] == "from env"


async def test_functions_environment_variable_never_reads_the_servers_settings(
    run, monkeypatch
) -> None:
    for name in ("OTTERWEB_SECRET_KEY", "DJANGO_SECRET", "CELERY_BROKER_URL"):
        monkeypatch.setenv(name, "hidden")
    ran = await run(
        "Log-Information [$EnvironmentVariable(OTTERWEB_SECRET_KEY)]"
        "[$EnvironmentVariable(DJANGO_SECRET)][$EnvironmentVariable(CELERY_BROKER_URL)];\n"
        "SHExec >>env | grep -c hidden || true>>;"
    )
    assert ran.info[0] == "[][][]"
    assert "hidden" not in "".join(ran.info) and "0" in ran.info[1:]


async def test_functions_date_formats(run) -> None:
    ran = await run("Log-Information $Date(yyyy-MM-dd) $DateUtc(HH:mm);")
    date, time = ran.info[0].split(" ")
    assert len(date) == 10 and date[4] == "-" and len(time) == 5 and time[2] == ":"


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("$NoSuchFunction(1)", "unknown function $NoSuchFunction"),
        ("$Substring(abc, -1)", "$Substring: offset must not be negative, not -1"),
        ("$ToUpper()", "$ToUpper(text) needs at least 1 argument, got 0"),
        ("$Expr(1 / 0)", "$Expr: division by zero"),
        ("$(@ListConcat)", None),
        ("@Split(a, b)", None),
    ],
)
async def test_functions_bad_calls_are_errors_with_position(run, expression, message) -> None:
    ran = await run(f"set $r = {expression};")
    if message is None:
        return
    assert ran.status == "error"
    assert ran.messages(Level.ERROR)[0].startswith(message)
    assert "(line 1, column" in ran.messages(Level.ERROR)[0]


def test_functions_every_catalog_function_is_registered() -> None:
    names = {spec.name for spec in REGISTRY.all_functions()}
    documented = {
        "ExecutionId",
        "ExecutionState",
        "GetVariableValue",
        "IsVariableDefined",
        "WorkingDirectory",
        "DirectoryExists",
        "FileContents",
        "FileExists",
        "FilesOnDisk",
        "PathCombine",
        "ResolvePath",
        "FromJson",
        "JSEncode",
        "ToJson",
        "ListConcat",
        "ListCount",
        "ListIndexOf",
        "ListInsert",
        "ListItem",
        "ListRemove",
        "ListSet",
        "MapAdd",
        "MapItem",
        "MapKeys",
        "MapRemove",
        "MapSet",
        "Abs",
        "Ceiling",
        "Compare",
        "Decrement",
        "Expr",
        "Floor",
        "Increment",
        "AllEnvironments",
        "AllRoles",
        "AllServers",
        "EnvironmentVariable",
        "RoleName",
        "ServerName",
        "ServersInEnvironment",
        "ServersInRole",
        "ServersInRoleAndEnvironment",
        "Coalesce",
        "HtmlEncode",
        "Join",
        "MatchesRegex",
        "NewLine",
        "PadLeft",
        "PadRight",
        "RegexFind",
        "RegexReplace",
        "Replace",
        "Split",
        "Substring",
        "ToLower",
        "ToUpper",
        "Trim",
        "TrimEnd",
        "TrimStart",
        "UrlEncode",
        "XmlEncode",
        "Date",
        "DateUtc",
        "Eval",
        "Range",
        "EnvironmentName",
    }
    assert documented <= names, sorted(documented - names)
