"""Regular expressions from scripts (engine.patterns): every function and operation
that takes one stops it after REGEX_SECONDS with an error the script can catch, naming what
took it and showing the pattern; the process's other threads keep going meanwhile; and the
.NET spellings scripts use keep working."""

from __future__ import annotations

import threading
import time

import pytest

from engine.interpreter import Level
from engine.limits import REGEX_SECONDS
from engine.patterns import PatternError, PatternTimeout
from engine.patterns import compile as compile_pattern

# backtracks without end in the regex package (as in .NET): 2^44 ways to fail
CATASTROPHIC = "^(a|a)+$"
SUBJECT = "a" * 44 + "!"
# OtterScript: `$ is a dollar sign
SET = f'set $p = "{CATASTROPHIC.replace("$", "`$")}";\nset $s = "{SUBJECT}";\n'
# The package counts the process's CPU time: the bound is on that (the run's own work on
# top); wall time is bounded only loosely, as a machine busy with other tests (a load of 10 on 2
# cores) hands the process a fraction of a core.
CPU_WITHIN = REGEX_SECONDS + 1.0
WALL_WITHIN = 5 * REGEX_SECONDS


class Took:
    """The wall and CPU time of the process inside it, checked against the limit."""

    def __enter__(self) -> Took:
        self.wall, self.cpu = time.monotonic(), time.process_time()
        return self

    def __exit__(self, *error) -> None:
        self.wall, self.cpu = time.monotonic() - self.wall, time.process_time() - self.cpu

    def within_limit(self) -> bool:
        return self.cpu < CPU_WITHIN and self.wall < WALL_WITHIN


FUNCTIONS = {
    "$MatchesRegex": "Log-Information $MatchesRegex($s, $p);",
    "$RegexReplace": "Log-Information $RegexReplace($s, $p, x);",
    "@RegexFind": "Log-Information $(@RegexFind($s, $p));",
}


@pytest.mark.parametrize("name", FUNCTIONS)
async def test_patterns_catastrophic_function_fails_within_limit(run, name) -> None:
    with Took() as took:
        ran = await run(SET + FUNCTIONS[name] + "\nLog-Information never;")
    assert took.within_limit(), f"{name} took {took.wall:.1f} s, {took.cpu:.1f} s of CPU"
    assert ran.status == "error" and "never" not in ran.info
    [error] = [m for m in ran.messages(Level.ERROR) if "took longer" in m]
    assert error.startswith(f"{name}: the regular expression took longer than")
    assert f"{REGEX_SECONDS:g} s" in error and repr(CATASTROPHIC) in error


async def test_patterns_timeout_is_caught_by_try_catch(run) -> None:
    ran = await run(
        SET
        + "try { Log-Information $MatchesRegex($s, $p); }\n"
        + "catch { Log-Information caught; force normal; }\nLog-Information after;"
    )
    assert ran.info == ["caught", "after"] and ran.status == "normal"


async def test_patterns_nested_quantifier_answers_at_once(run) -> None:
    # ^(a+)+$ on this subject keeps re busy for minutes; regex sees that (a+)+ cannot fail
    # differently
    started = time.monotonic()
    ran = await run(f'Log-Information $MatchesRegex("{SUBJECT}", "^(a+)+`$");')
    assert ran.info == ["false"] and time.monotonic() - started < 1.5


async def test_patterns_exec_warn_regex_fails_the_operation(run) -> None:
    with Took() as took:
        ran = await run(
            f"Exec sh (Arguments: -c 'echo {SUBJECT}', WarnRegex: '{CATASTROPHIC.replace('$', '`$')}');"
            "\nLog-Information never;"
        )
    assert took.within_limit()
    assert ran.status == "error" and "never" not in ran.info
    assert any(
        m.startswith("WarnRegex: the regular expression took longer than")
        for m in ran.messages(Level.ERROR)
    )


async def test_patterns_replace_text_fails_the_operation(run, tmp_path) -> None:
    (tmp_path / "a.txt").write_text(SUBJECT)
    with Took() as took:
        ran = await run(
            f"Replace-Text (Include: a.txt, Directory: {tmp_path}, "
            f"SearchText: '{CATASTROPHIC.replace('$', '`$')}', ReplaceWith: x, UseRegex: true);"
        )
    assert took.within_limit()
    assert ran.status == "error"
    assert any("SearchText: the regular expression took longer" in m for m in ran.messages())
    assert (tmp_path / "a.txt").read_text() == SUBJECT


async def test_patterns_replace_text_plain_and_regex_still_replace(run, tmp_path) -> None:
    (tmp_path / "a.txt").write_text("v1.2 (a+b)")
    await run(
        f"Replace-Text (Include: a.txt, Directory: {tmp_path}, SearchText: '(a+b)', ReplaceWith: c);"
    )
    assert (tmp_path / "a.txt").read_text() == "v1.2 c"
    await run(
        f"Replace-Text (Include: a.txt, Directory: {tmp_path}, SearchText: '\\d', "
        "ReplaceWith: n, UseRegex: true);"
    )
    assert (tmp_path / "a.txt").read_text() == "vn.n c"


@pytest.mark.parametrize(
    ("pattern", "text", "found"),
    [
        (r"(?<year>\d{4})-\k<year>", "2024-2024", "2024-2024"),
        (r"(?'year'\d{4})-\k'year'", "2024-2024", "2024-2024"),
        (r"(?P<n>\d)(?P=n)", "a11", "11"),
        ("^inedox-.$*", "inedox-core", "inedox-c"),  # $* matches zero times, anywhere
        (r"\p{Lu}+", "abcDEF", "DEF"),
        (r"(?i)ABC", "xabc", "abc"),
        (r"\bword\b", "a word.", "word"),
    ],
)
def test_patterns_dotnet_spellings_match(pattern, text, found) -> None:
    match = compile_pattern(pattern).search(text)
    assert match is not None and match.group(0) == found


def test_patterns_invalid_pattern_is_a_value_error_naming_it() -> None:
    with pytest.raises(PatternError, match=r"^DebugRegex: invalid regular expression"):
        compile_pattern("(unclosed", name="DebugRegex")


def test_patterns_timeout_lets_other_threads_run() -> None:
    pattern = compile_pattern(CATASTROPHIC, seconds=1.0)
    gaps: list[float] = []
    stop = threading.Event()

    def tick() -> None:
        while not stop.is_set():
            before = time.monotonic()
            time.sleep(0.01)
            gaps.append(time.monotonic() - before)

    ticker = threading.Thread(target=tick)
    ticker.start()
    try:
        with Took() as took, pytest.raises(PatternTimeout):
            pattern.search(SUBJECT)
    finally:
        stop.set()
        ticker.join()
    assert took.wall > 0.9 and took.cpu < 2.0
    # the ticker kept ticking: the match never held the GIL for long (with re: one tick)
    assert len(gaps) > 20 and max(gaps) < 0.5, (len(gaps), max(gaps))


def test_patterns_long_pattern_is_cut_in_the_message() -> None:
    pattern = compile_pattern("(a|a)+$" + "x?" * 300, seconds=0.2)
    with pytest.raises(PatternTimeout) as caught:
        pattern.search(SUBJECT)
    assert "characters)" in str(caught.value) and len(str(caught.value)) < 400
