"""Interpreter speed: statements per second, async fan-out, process fan-out, and flat memory.

Run: .venv/bin/python bench/engine.py [--runs 5]

Each figure is the median of several runs, printed beside the target it is held to.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine import parse  # noqa: E402
from engine.agents.local import PARENT_DEATH  # noqa: E402
from engine.interpreter import Host, NullSink, ScriptRun  # noqa: E402

LOOP_ITERATIONS = 100_000
LOOP = f"""
foreach $i in @Range(0, {LOOP_ITERATIONS})
{{
    set $x = $i;
    if $x == 5
    {{
        set $found = yes;
    }}
}}
"""
# the foreach, then a set and an if per iteration, and the one inner set
LOOP_STATEMENTS = 1 + 2 * LOOP_ITERATIONS + 1
ASYNC_BLOCKS = 1_000
PROCESSES = 100
LOG_LINES = 1_000_000


def run_script(text: str) -> float:
    script = parse(text)
    gc.collect()
    start = time.perf_counter()
    result = asyncio.run(ScriptRun(script, host=Host(sink=NullSink())).run())
    elapsed = time.perf_counter() - start
    if result.status.label == "error":
        raise SystemExit(f"the benchmark script failed: {result.error}")
    return elapsed


def async_script() -> str:
    return "\n".join("with async { Sleep 1; }" for _ in range(ASYNC_BLOCKS)) + "\nawait;\n"


def processes_script() -> str:
    return "\n".join("with async { SHExec echo hello; }" for _ in range(PROCESSES)) + "\nawait;\n"


async def plain_processes(*, wrapped: bool) -> None:
    """The floor: the same processes, both output streams read line by line, nothing logged.
    ``wrapped``: launched as the local agent launches them, through setpriv's parent-death
    signal on Linux (a second exec per process, the price of leaving nothing behind when the
    server is killed: see engine/agents/local.py)."""
    command = ["/bin/sh", "-c", "echo hello"]
    if wrapped and PARENT_DEATH is not None:
        command = [PARENT_DEATH, "--pdeathsig", "KILL", "--", *command]

    async def lines(stream: asyncio.StreamReader) -> None:
        while await stream.readline():
            pass

    async def one() -> None:
        process = await asyncio.create_subprocess_exec(
            *command,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        await asyncio.gather(lines(process.stdout), lines(process.stderr))  # type: ignore[arg-type]
        await process.wait()

    await asyncio.gather(*(one() for _ in range(PROCESSES)))


def plain_processes_seconds(*, wrapped: bool = True) -> float:
    gc.collect()
    start = time.perf_counter()
    asyncio.run(plain_processes(wrapped=wrapped))
    return time.perf_counter() - start


def peak_memory(lines: int) -> int:
    """Peak bytes allocated while a script logs ``lines`` lines to a null sink. The lists stay
    the same size whatever ``lines`` is: only more log statements run."""
    per_item = lines // 10_000
    body = "        Log-Information line $i of $j;\n" * per_item
    script = parse(
        f"foreach $j in @Range(0, 100)\n{{\n    foreach $i in @Range(0, 100)\n    {{\n{body}    }}\n}}\n"
    )
    gc.collect()
    tracemalloc.start()
    asyncio.run(ScriptRun(script, host=Host(sink=NullSink())).run())
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def report(name: str, value: str, target: str, ok: bool) -> bool:
    print(f"{name:<52} {value:>22}   target {target:<28} {'ok' if ok else 'MISSED'}")
    return ok


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--runs", type=int, default=5)
    args = options.parse_args()
    print(f"runs: {args.runs}, medians shown\n")
    results = []

    loop_time = statistics.median(run_script(LOOP) for _ in range(args.runs))
    rate = LOOP_STATEMENTS / loop_time
    results.append(
        report(
            f"set/if loop, {LOOP_STATEMENTS:,} statements",
            f"{rate:,.0f} statements/s",
            ">= 100,000 statements/s",
            rate >= 100_000,
        )
    )

    async_time = statistics.median(run_script(async_script()) for _ in range(args.runs))
    results.append(
        report(
            f"{ASYNC_BLOCKS:,} async blocks that each Sleep 1",
            f"{async_time:.2f} s ({async_time:.2f}x of 1 s)",
            "< 1.5 s",
            async_time < 1.5,
        )
    )

    runs = [
        (
            run_script(processes_script()),
            plain_processes_seconds(),
            plain_processes_seconds(wrapped=False),
        )
        for _ in range(args.runs)
    ]
    ours = statistics.median(r[0] for r in runs)
    plain = statistics.median(r[1] for r in runs)
    ratio = statistics.median(r[0] / r[1] for r in runs)
    results.append(
        report(
            f"{PROCESSES} concurrent SHExec echo",
            f"{ours:.3f} s vs {plain:.3f} s = {ratio:.2f}x",
            "<= 1.3x plain asyncio",
            ratio <= 1.3,
        )
    )
    if PARENT_DEATH is not None:
        bare = statistics.median(r[2] for r in runs)
        print(
            f"  (plain asyncio launches through setpriv as the agent does; without it: {bare:.3f} s,"
            f" so SHExec is {statistics.median(r[0] / r[2] for r in runs):.2f}x of bare processes)"
        )

    small = peak_memory(LOG_LINES // 10)
    large = peak_memory(LOG_LINES)
    growth = large / small
    results.append(
        report(
            f"peak memory, {LOG_LINES // 10:,} vs {LOG_LINES:,} lines to a null sink",
            f"{small / 1e3:,.0f} KB vs {large / 1e3:,.0f} KB",
            "flat: 10x lines, < 1.5x memory",
            growth < 1.5,
        )
    )
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
