"""Parse, format and blocks speed on a 10,000-line script built from the corpus's statements.

Run: .venv/bin/python bench/parse.py [--lines 10000] [--runs 11]

Prints the median of several runs for each figure, the target it is held to, and whether it
meets it. The baseline is lark parsing the same text with the same grammar, building only its
own parse tree (no AST, no comments, no checks).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine import OtterSyntaxError, check, format_script, parse, to_blocks  # noqa: E402
from engine.ast import Script  # noqa: E402
from engine.formatter import format_statement  # noqa: E402
from engine.parser import tree_parser  # noqa: E402

CORPUS = ROOT.parent / "shared" / "otterscript" / "corpus"


def corpus_statements() -> list[str]:
    """The canonical text of every top-level statement of every corpus file that parses."""
    statements = []
    for path in sorted(CORPUS.glob("*.otter")):
        try:
            script = parse(path.read_text(encoding="utf-8"))
        except OtterSyntaxError:
            continue
        statements.extend(format_statement(statement) for statement in script.body)
    return statements


def build_script(lines: int) -> str:
    statements = corpus_statements()
    chunks: list[str] = []
    count = 0
    index = 0
    while count < lines:
        text = statements[index % len(statements)]
        chunks.append(text)
        count += text.count("\n")
        index += 1
    return "".join(chunks)


def seconds(function: Callable[[], object]) -> float:
    gc.collect()
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def median_seconds(function: Callable[[], object], runs: int) -> float:
    return statistics.median(seconds(function) for _ in range(runs))


def report(name: str, value: float, unit: str, target: str, ok: bool) -> bool:
    shown = f"{value:>12,.2f}" if unit == "x" else f"{value:>12,.1f}"
    print(f"{name:<44} {shown} {unit:<10} target {target:<24} {'ok' if ok else 'MISSED'}")
    return ok


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--lines", type=int, default=10_000)
    options.add_argument("--runs", type=int, default=11)
    args = options.parse_args()

    text = build_script(args.lines)
    lines = text.count("\n")
    small = build_script(1_000)
    small_lines = small.count("\n")
    print(f"script: {lines:,} lines, {len(text):,} characters, from {CORPUS}")
    print(f"runs: {args.runs}, medians shown (the ratio is the median of paired runs)\n")

    baseline = tree_parser()
    baseline.parse(text, start="start")  # warm up both parsers
    script: Script = parse(text)

    # parse and the baseline alternate, so that drift in the machine's speed hits both alike
    pairs = [
        (seconds(lambda: parse(text)), seconds(lambda: baseline.parse(text, start="start")))
        for _ in range(args.runs)
    ]
    parse_time = statistics.median(ours for ours, _ in pairs)
    tree_time = statistics.median(theirs for _, theirs in pairs)
    ratio = statistics.median(ours / theirs for ours, theirs in pairs)
    format_time = median_seconds(lambda: format_script(script), args.runs)
    blocks_time = median_seconds(lambda: to_blocks(script), args.runs)
    small_time = median_seconds(lambda: to_blocks(check_and_return(parse(small))), args.runs)

    results = [
        report(
            "parse to AST",
            lines / parse_time,
            "lines/s",
            ">= 15,000 lines/s",
            lines / parse_time >= 15_000,
        ),
        report("lark tree-only parse (baseline)", lines / tree_time, "lines/s", "-", True),
        report("parse time / lark tree-only time", ratio, "x", "<= 1.5x", ratio <= 1.5),
        report(
            "format",
            lines / format_time,
            "lines/s",
            ">= 50,000 lines/s",
            lines / format_time >= 50_000,
        ),
        report("to blocks", lines / blocks_time, "lines/s", "-", True),
        report(
            f"parse + check + blocks, {small_lines:,} lines",
            small_time * 1000,
            "ms",
            "< 100 ms",
            small_time < 0.1,
        ),
    ]
    return 0 if all(results) else 1


def check_and_return(script: Script) -> Script:
    check(script)
    return script


if __name__ == "__main__":
    sys.exit(main())
