"""Log data for the log viewer's browser tests and benchmark (bench/logviewer.py).

- `plan(...)`: a whole run's log as events (scopes opened, lines, scopes closed), made up here:
  `lines` lines in `scopes` nested scopes, deterministic for a seed. Pure Python: the tests
  read it to know what the page must show.
- `store(...)`: a finished execution with that log, stored through the web application's own log
  sink (DatabaseLogSink, as a run stores its log), so that whatever the sink keeps beside the rows
  (the execution's counters, the scopes' counts, the skeleton of runs) is kept here too, and
  stays right when the sink changes. A million lines take seconds: the sink's batches are made
  large (its own constants, raised for this process only).
- `emit(...)`: lines printed at a steady rate, for a live run (`Exec "python3 <this file> emit
  ..."`): the executing run logs each line it prints. Runs with the system's Python, no Django.

From the command line, in a site's environment (OTTERWEB_DATA_DIR and the settings module):
    python tests/e2e/logdata.py store --lines 1000000 --scopes 2000 [--root CHECKOUT]
prints the new execution's id. `--root` stores it with another checkout's code (today's page
in bench/logviewer.py). And:
    python3 tests/e2e/logdata.py emit --rate 20000 --seconds 5
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve()
RATE = 20_000  # lines per second: the generated log's time stamps are this far apart
NEEDLE = "checksum mismatch"  # in one line of every NEEDLE_EVERY: what the searches look for
NEEDLE_EVERY = 1000
SERVERS = 8  # top-level scopes (one per server), when there are that many scopes
DEBUG, INFORMATION, WARNING, ERROR = 0, 10, 20, 30  # engine.Level's values (no import: see emit)
LEVEL_NAMES = {DEBUG: "debug", INFORMATION: "information", WARNING: "warning", ERROR: "error"}


@dataclass
class Scope:
    """A scope of the plan (the engine's RunScope is made from it when stored)."""

    id: int
    parent_id: int | None
    name: str
    depth: int
    children: list[Scope] = field(default_factory=list)
    started: float = 0.0
    ended: float | None = None
    after_seq: int = 0  # the seq logged last before it opened (0: none)
    worst: int = DEBUG  # the worst level logged inside, nested scopes included


@dataclass(slots=True)
class Line:
    seq: int
    scope_id: int | None
    level: int  # engine.Level's values: 0 debug, 10 information, 20 warning, 30 error
    message: str
    line: int | None
    time: float


def level_of(seq: int) -> int:
    if seq % 997 == 0:
        return ERROR
    if seq % 101 == 0:
        return WARNING
    if seq % 7 == 0:
        return DEBUG
    return INFORMATION


def message_of(seq: int, scope: Scope | None) -> str:
    where = scope.name if scope else "the run"
    if seq % NEEDLE_EVERY == NEEDLE_EVERY // 2:
        return f"{NEEDLE} on {where}: expected sha256 {seq * 7919:x}, found {seq * 104729:x}"
    if seq % 10_007 == 0:  # a multi-line message, as a process's output may be
        return f"output of step {seq} in {where}:\n  first detail {seq}\n  second detail {seq}"
    kind = seq % 5
    if kind == 0:
        return f"Ensure-File /srv/app{seq % 97}/config.json in {where}: unchanged (line {seq})"
    if kind == 1:
        return f"Deploying release 4.{seq % 13}.{seq % 7} to {where}, step {seq}"
    if kind == 2:
        return f"Set $Port{seq % 50} = {8000 + seq % 1000} ({seq})"
    if kind == 3:
        return f"Copied {seq % 4096} bytes to /var/www/site{seq % 31}/index.html ({seq})"
    return f"Service web{seq % 17} restarted in {seq % 900} ms ({seq})"


def tree(scopes: int, rng: random.Random) -> list[Scope]:
    """`scopes` scopes: SERVERS at the top, each with nested blocks (breadth first, 2 to 6
    children each, so the deepest are five or six levels down), numbered in the order they open
    (depth first), as the engine numbers them."""
    top = [Scope(0, None, f"web{n + 1:02}.example.org", 1) for n in range(min(SERVERS, scopes))]
    count, queue = len(top), list(top)
    while count < scopes:
        parent = queue.pop(0)
        for _ in range(rng.randint(2, 6)):
            if count == scopes:
                break
            names = ("with async", "foreach $Site", "Ensure-File", "Exec", "if $Changed")
            child = Scope(0, None, f"{rng.choice(names)} #{count + 1}", parent.depth + 1)
            parent.children.append(child)
            queue.append(child)
            count += 1
    ordered: list[Scope] = []

    def number(scope: Scope, parent: Scope | None) -> None:
        ordered.append(scope)
        scope.id, scope.parent_id = len(ordered), parent.id if parent else None
        for child in scope.children:
            number(child, scope)

    for scope in top:
        number(scope, None)
    return ordered


def plan(
    lines: int, scopes: int, *, seed: int = 12, gaps: bool = False, start: float | None = None
) -> Iterator[tuple[str, Scope | list[Line]]]:
    """The run's events in order: ("open", Scope), ("lines", [Line, ...]), ("close", Scope).
    Each scope has lines of its own before its first child, between its children and after its
    last (stretches of different lengths), and so has the top level. `gaps`: some seqs are
    missing (as when the volume limit dropped lines): three after every 5,000th line. Times are
    1/RATE s apart, ending about now (or starting at `start`)."""
    rng = random.Random(seed)
    ordered = tree(scopes, rng)
    top = [s for s in ordered if s.parent_id is None]
    slots = 2 * len(ordered) + 1
    weights = [rng.random() + 0.5 for _ in range(slots)]
    total = sum(weights)
    sizes = [int(lines * w / total) for w in weights]
    sizes[-1] += lines - sum(sizes)
    by_id = {s.id: s for s in ordered}
    clock = (time.time() - lines / RATE) if start is None else start
    state = {"seq": 0, "made": 0, "slot": 0}

    def stretch(scope: Scope | None) -> list[Line]:
        made, seq = state["made"], state["seq"]
        scope_id = scope.id if scope else None
        stretched = []
        for _ in range(sizes[state["slot"]]):
            made += 1
            seq += 4 if gaps and made % 5000 == 1 and made > 1 else 1
            message = message_of(seq, scope)
            stretched.append(
                Line(seq, scope_id, level_of(seq), message, seq % 400 + 1, clock + made / RATE)
            )
        state["made"], state["seq"] = made, seq
        state["slot"] += 1
        worst = max((line.level for line in stretched), default=DEBUG)
        while scope is not None:  # the worst level shows on every enclosing scope
            scope.worst = max(scope.worst, worst)
            scope = by_id.get(scope.parent_id) if scope.parent_id else None
        return stretched

    def walk(scope: Scope) -> Iterator[tuple[str, Scope | list[Line]]]:
        scope.started, scope.after_seq = clock + state["made"] / RATE, state["seq"]
        yield "open", scope
        yield "lines", stretch(scope)
        for child in scope.children:
            yield from walk(child)
            yield "lines", stretch(scope)
        scope.ended = clock + state["made"] / RATE
        yield "close", scope

    yield "lines", stretch(None)
    for scope in top:
        yield from walk(scope)
        yield "lines", stretch(None)


def plan_lines(lines: int, scopes: int, **options) -> list[Line]:
    """Every line of `plan(lines, scopes, **options)`, in order."""
    return [
        line for kind, item in plan(lines, scopes, **options) if kind == "lines" for line in item
    ]


def scope_paths(scopes: int, *, seed: int = 12) -> dict[int, str]:
    """Each scope's path as the downloads write it: "outer / inner"."""
    ordered = tree(scopes, random.Random(seed))
    paths: dict[int, str] = {}
    for scope in ordered:
        parent = paths.get(scope.parent_id) if scope.parent_id else None
        paths[scope.id] = f"{parent} / {scope.name}" if parent else scope.name
    return paths


# ---- storing (in a site's Django environment)


def store(lines: int, scopes: int, *, seed: int = 12, gaps: bool = False, batch=20_000) -> int:
    """A finished execution whose log is `plan(lines, scopes, ...)`, stored through
    DatabaseLogSink; its id."""
    import asyncio
    from datetime import UTC, datetime

    from engine import Level, LogRecord, RunScope
    from otterweb.execution_logs import sink as sinks
    from otterweb.executions.models import Execution, Job

    # a few large batches instead of thousands of small ones (the sink's own pacing constants),
    # the next one made while the last is stored
    for name, value in {
        "BATCH_ROWS": batch,
        "CATCH_UP_ROWS": batch,
        "MAX_PENDING": 2 * batch,
    }.items():
        if hasattr(sinks, name):
            setattr(sinks, name, value)
    job = Job.objects.create(
        name=f"generated log: {lines:,} lines in {scopes:,} scopes",
        script="# the log of this job was generated by tests/e2e/logdata.py",
        targets=[f"web{n + 1:02}.example.org" for n in range(min(SERVERS, scopes))],
    )
    execution = Execution.objects.create(job=job)
    execution.start(worker="tests/e2e/logdata.py")
    worst = Level.DEBUG

    # today's engine (bench/logviewer.py's "before" checkout) has no after_seq
    placed = {"after_seq"} & set(RunScope.__dataclass_fields__)

    def run_scope(scope: Scope) -> RunScope:
        return RunScope(
            id=scope.id,
            parent_id=scope.parent_id,
            name=scope.name,
            path=(),
            line=scope.id % 400 + 1,
            started=scope.started,
            ended=scope.ended,
            worst=Level(scope.worst),
            **{name: getattr(scope, name) for name in placed},
        )

    async def feed() -> float | None:
        nonlocal worst
        sink = sinks.DatabaseLogSink(execution.pk)
        sink.volume.total_bytes = 0  # the generated log is not held to OTTERWEB_MAX_LOG_MB
        storing = asyncio.create_task(sink.run())
        first = None
        levels = {level.value: level for level in Level}
        for kind, item in plan(lines, scopes, seed=seed, gaps=gaps):
            if kind == "lines":
                for line in item:
                    first = first or line.time
                    level = levels[line.level]
                    worst = max(worst, level)
                    sink.record(
                        LogRecord(
                            line.seq, line.scope_id, (), level, line.message, line.line, line.time
                        )
                    )
                    await sink.wait_for_room()
            elif kind == "open":
                sink.scope_opened(run_scope(item))
            else:
                sink.scope_closed(run_scope(item))
        sink.close()
        await storing
        return first

    first = asyncio.run(feed())
    started = datetime.fromtimestamp(first or time.time(), UTC)
    Execution.objects.filter(pk=execution.pk).update(started=started)
    execution.refresh_from_db()
    status = {Level.ERROR: "error", Level.WARNING: "warning"}.get(worst, "normal")
    execution.finish(status=status, drift=[])
    return execution.pk


# ---- a live run's output


def emit(rate: int, seconds: float, *, tag: str = "") -> None:
    """Print `rate * seconds` numbered lines, `rate` a second, in small bursts every 5 ms; one
    in NEEDLE_EVERY holds NEEDLE."""
    out = sys.stdout
    total = int(rate * seconds)
    begun = time.monotonic()
    n = 0
    while n < total:
        due = min(total, int((time.monotonic() - begun) * rate) + 1)
        chunk = []
        while n < due:
            n += 1
            text = f"{NEEDLE} at " if n % NEEDLE_EVERY == NEEDLE_EVERY // 2 else ""
            chunk.append(f"{tag}output line {n} of {total}: {text}step {n % 977} done\n")
        out.write("".join(chunk))
        out.flush()
        time.sleep(0.005)


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = options.add_subparsers(dest="command", required=True)
    storing = commands.add_parser("store", help="a finished execution with a generated log")
    storing.add_argument("--lines", type=int, default=1_000_000)
    storing.add_argument("--scopes", type=int, default=2_000)
    storing.add_argument("--seed", type=int, default=12)
    storing.add_argument("--gaps", action="store_true")
    storing.add_argument("--root", type=Path, help="the checkout whose code stores it")
    emitting = commands.add_parser("emit", help="print lines at a steady rate")
    emitting.add_argument("--rate", type=int, default=RATE)
    emitting.add_argument("--seconds", type=float, default=5)
    emitting.add_argument("--tag", default="")
    args = options.parse_args()
    if args.command == "emit":
        emit(args.rate, args.seconds, tag=args.tag)
        return
    root = (args.root or HERE.parent.parent.parent).resolve()
    sys.path[:0] = [str(root)]
    import os

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "otterweb.settings.prod")
    django.setup()
    print(store(args.lines, args.scopes, seed=args.seed, gaps=args.gaps))


if __name__ == "__main__":
    main()
