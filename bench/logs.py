"""Live log delivery, end to end, in the embedded mode (`manage.py serve`: runs in worker
processes, their log batches relayed through the serving process) and in the distributed mode
(daphne and a Celery worker on PostgreSQL and Redis, started by scripts/services).

Run: .venv/bin/python bench/logs.py [--cases viewers,throughput,late]
         [--modes embedded,distributed] [--repeat 1] [--viewer-lines 20000] [--viewers 20]
         [--lines 100000] [--clients 1,20] [--late-lines 20000] [--late-clients 20]

A line's lag is from the time stamp of its own entry (when the run logged it) to when a client
has the frame that holds it. Every frame a run's clients get is decoded once for all of them
after the run (the clients share the machine with the server); while it goes, they only read
its first and last seq, and check that each frame starts right after the last one they had.

viewers (issue 19): a script logs 20,000 lines, watched by 20 websocket viewers connected
before its first line. Each must get every line exactly once (the seqs, in order, none missing,
none twice, up to "complete"'s last_seq). Prints the p50 and p99 lag and the lines per second
each viewer got (the median viewer), beside the floor measured right after in the same run: a
plain `websockets` server, in a process of its own, broadcasting the very frames the viewers got
(the product's batches, as its sink cut them: BATCH_ROWS, BATCH_SECONDS, CATCH_UP_ROWS), each at
the moment its last line was logged, to as many clients in this process. Target: p99 under
250 ms.

throughput (issue 4): a script logs 100,000 lines; 1 and then 20 websocket clients, connected
before its first line, read them. Compared with a plain `websockets` server in this process that
broadcasts the same records one message each, as fast as it can (the floor issue 4 set its
throughput target against). Prints lines per second delivered to each client (the median
client) and the p50 and p99 lag. Targets: at least a quarter of the floor's throughput, and p99
under 250 ms.

late (issue 12): a script logs 20,000 lines, watched by 20 clients who connected before its
first line (early viewers), then another run by 20 who set out to connect once its first line is
stored (late viewers: a backlog, then the live tail; the usual case, colleagues opening a running
job's page). Prints the time from the first line logged to the last client's "complete", and the
lags. Targets: the late viewers within 2x the early viewers' time, and their p99 under 1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

from websockets.asyncio.client import connect
from websockets.asyncio.server import broadcast, serve
from websockets.protocol import State

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.e2e.serving import Site, free_port, make_site, stop  # noqa: E402

TYPE = re.compile(r'\{"type":\s*"(\w+)"')
SEQ = re.compile(r'"seq":\s*(\d+)')

TARGET_P99_MS = 250


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def seqs(raw: str) -> tuple[int, int]:
    """The first and last seq of a log frame, without decoding it."""
    return int(SEQ.search(raw).group(1)), int(SEQ.match(raw, raw.rfind('"seq"')).group(1))


class Client:
    """What one websocket client got: each log frame's first and last seq, and when it came."""

    def __init__(self) -> None:
        self.frames: list[tuple[int, int, float]] = []
        self.seq = 0  # the last seq received
        self.problems: list[str] = []  # frames that did not start right after the last one
        self.done = 0.0  # when "complete" (or the floor's last frame) came
        self.connected = 0.0  # when the websocket handshake was over

    def got(self, first: int, last: int) -> None:
        if first != self.seq + 1 and len(self.problems) < 5:
            self.problems.append(f"seq {first} after {self.seq}")
        self.seq = max(self.seq, last)
        self.frames.append((first, last, time.time()))

    def lines(self, after: int) -> int:
        return sum(
            last - max(first, after + 1) + 1 for first, last, _ in self.frames if last > after
        )

    def lags(self, logged: dict[int, float], after: int) -> list[float]:
        """Each line's lag after seq ``after``: when it came less when it was logged."""
        return [
            now - logged[seq]
            for first, last, now in self.frames
            for seq in range(max(first, after + 1), last + 1)
        ]

    def rate(self, after: int) -> float:
        times = [now for _, last, now in self.frames if last > after]
        return self.lines(after) / max(times[-1] - times[0], 1e-9) if times else 0.0


class Log:
    """The frames a run's clients got, kept once each (by first and last seq), and decoded once
    for all of them after the run: when each line was logged."""

    def __init__(self) -> None:
        self.texts: dict[tuple[int, int], str] = {}

    def keep(self, first: int, last: int, raw: str) -> None:
        self.texts.setdefault((first, last), raw)

    def logged(self) -> dict[int, float]:
        return {
            entry["seq"]: datetime.fromisoformat(entry["time"]).timestamp()
            for raw in self.texts.values()
            for entry in json.loads(raw)["entries"]
        }


class Figures(NamedTuple):
    rate: float  # lines per second, the median client
    p50: float  # ms
    p99: float  # ms


def figures(clients: list[Client], logged: dict[int, float], after: int) -> Figures:
    lags = [x for c in clients for x in c.lags(logged, after)]
    return Figures(
        statistics.median(c.rate(after) for c in clients),
        percentile(lags, 0.5) * 1000,
        percentile(lags, 0.99) * 1000,
    )


def summary(name: str, result: Figures) -> None:
    print(
        f"{name:<44} {result.rate:>12,.0f} lines/s per client"
        f"   p50 {result.p50:>7.1f} ms   p99 {result.p99:>7.1f} ms"
    )


def exactly_once(clients: list[Client], last_seq: int) -> list[str]:
    """Why not every client got seqs 1 to ``last_seq`` exactly once, in order (none: they did)."""
    problems = []
    for number, client in enumerate(clients, 1):
        wrong = list(client.problems)
        if client.seq != last_seq:
            wrong.append(f"last seq {client.seq}, not {last_seq}")
        if client.lines(0) != last_seq:
            wrong.append(f"{client.lines(0):,} lines, not {last_seq:,}")
        if wrong:
            problems.append(f"client {number}: {'; '.join(wrong)}")
    return problems


async def floor(lines: int, clients: int) -> Figures:
    """A plain websockets server broadcasting the records one message each, as fast as it can
    (the throughput case's floor)."""
    connected: set = set()
    ready = asyncio.Event()

    async def handler(websocket) -> None:
        connected.add(websocket)
        if len(connected) == clients:
            ready.set()
        await websocket.wait_closed()

    port = free_port()
    readers = [Client() for _ in range(clients)]
    logged: dict[int, float] = {}

    async def read(client: Client) -> None:
        async with connect(f"ws://127.0.0.1:{port}/", max_size=None) as websocket:
            async for raw in websocket:
                record = json.loads(raw)
                client.got(record["seq"], record["seq"])
                if record["seq"] == lines:
                    return

    async with serve(handler, "127.0.0.1", port, max_size=None):
        tasks = [asyncio.create_task(read(c)) for c in readers]
        await ready.wait()
        for seq in range(1, lines + 1):
            logged[seq] = time.time()
            broadcast(
                connected,
                json.dumps(
                    {
                        "seq": seq,
                        "level": "information",
                        "message": f"line {seq}",
                        "time": logged[seq],
                    }
                ),
            )
            if seq % 500 == 0:
                await asyncio.sleep(0)
        await asyncio.gather(*tasks)
    result = figures(readers, logged, 0)
    summary(f"plain websockets floor, {clients} client(s)", result)
    return result


class Batch(NamedTuple):
    """A frame the product's viewers got: its seqs, its text, and when its last line was logged."""

    first: int
    last: int
    text: str
    ready: float


def batches_of(client: Client, log: Log, logged: dict[int, float]) -> list[Batch]:
    """The batches one viewer got, in order, as the floor replays them."""
    return [
        Batch(first, last, log.texts[first, last], logged[last]) for first, last, _ in client.frames
    ]


def serve_batches(port: int, clients: int, batches: list[Batch], origin: float, started) -> None:
    """The same-batches floor's server, in a process of its own (as the product's server is
    not in the clients' process): once ``clients`` clients are connected, it broadcasts each
    batch at ``start`` plus when its last line was logged after ``origin`` in the product's
    run, and sends ``start`` on ``started``."""

    async def main() -> None:
        connected: set = set()
        ready = asyncio.Event()

        async def handler(websocket) -> None:
            connected.add(websocket)
            if len(connected) == clients:
                ready.set()
            await websocket.wait_closed()

        async with serve(handler, "127.0.0.1", port, max_size=None):
            await ready.wait()
            start = time.time() + 0.05
            started.send(start)
            for batch in batches:
                delay = start + (batch.ready - origin) - time.time()
                if delay > 0:
                    await asyncio.sleep(delay)
                broadcast(connected, batch.text)
            while connected and any(ws.state is State.OPEN for ws in connected):
                await asyncio.sleep(0.05)

    asyncio.run(main())


async def same_batches_floor(
    batches: list[Batch], clients: int, logged: dict[int, float], after: int
) -> tuple[list[Client], Figures]:
    """A plain websockets server, in a process of its own, broadcasting ``batches`` (the
    product's frames, as they are) to ``clients`` clients in this process, each at the moment
    its last line was logged in the product's run (the earliest the product could send it), on
    the product's timeline moved to now. Its lags are from the moved time stamps: what batching
    costs by itself, and the websocket transport."""
    port = free_port()
    origin = logged[after + 1]  # the product's first line of the loop
    theirs, ours = multiprocessing.Pipe(duplex=False)
    server = multiprocessing.get_context("spawn").Process(
        target=serve_batches, args=(port, clients, batches, origin, ours), daemon=True
    )
    server.start()
    readers = [Client() for _ in range(clients)]
    last_seq = batches[-1].last

    async def read(client: Client) -> None:
        for _ in range(200):  # until the server listens
            try:
                websocket = await connect(f"ws://127.0.0.1:{port}/", max_size=None)
                break
            except OSError:
                await asyncio.sleep(0.05)
        else:
            raise RuntimeError("the floor's server did not start")
        async with websocket:
            async for raw in websocket:
                assert isinstance(raw, str)
                first, last = seqs(raw)
                client.got(first, last)
                if last >= last_seq:
                    client.done = time.time()
                    return

    try:
        await asyncio.gather(*(read(c) for c in readers))
        start = theirs.recv()
    finally:
        server.join(5)
        if server.is_alive():
            server.kill()
    moved = {seq: start + (at - origin) for seq, at in logged.items()}
    return readers, figures(readers, moved, after)


class Viewers:
    """What a run's viewers had: their clients, the frames they got, when the loop's first line
    was logged, and how many lines were stored when late viewers set out to connect and once
    they all had."""

    def __init__(self, clients: list[Client], before: int) -> None:
        self.clients = clients
        self.before = before  # lines logged before the loop's
        self.log = Log()
        self.last_seq = 0  # "complete"'s
        self.backlog = (0, 0)
        self.set_out = 0.0  # when late viewers set out to connect
        self._logged: dict[int, float] | None = None

    @property
    def logged(self) -> dict[int, float]:
        if self._logged is None:
            self._logged = self.log.logged()
        return self._logged

    @property
    def started(self) -> float:
        """When the loop's first line was logged (its time stamp)."""
        return self.logged[self.before + 1]

    @property
    def end_to_end(self) -> float:
        """From the loop's first line logged to the last client's "complete"."""
        return max(c.done for c in self.clients) - self.started

    def figures(self) -> Figures:
        return figures(self.clients, self.logged, self.before)


async def otterweb(site: Site, lines: int, clients: int, *, late: bool = False) -> Viewers:
    """A run of ``lines`` lines watched by ``clients`` websocket clients. Early viewers connect
    during the run's first 2 s (a Sleep) and get every line live; late ones set out to connect
    once the loop's first line is stored, and get a backlog, then the live tail."""
    script = f"Sleep 2;\nforeach $i in @Range(1, {lines}) {{ Log-Information line $i; }}"
    before = 1  # lines logged before the loop's
    execution = site.api("POST", "/api/executions/", {"script": script, "servers": ["localhost"]})
    port, token = site.port, site.token
    viewers = Viewers([Client() for _ in range(clients)], before)
    connected = 0
    all_connected = asyncio.Event()

    def last_seq() -> int:
        return site.api("GET", f"/api/executions/{execution['id']}/")["last_seq"]

    async def read(client: Client) -> None:
        nonlocal connected
        url = f"ws://127.0.0.1:{port}/ws/executions/{execution['id']}/"
        async with connect(
            url, additional_headers={"Authorization": f"Token {token}"}, max_size=None
        ) as websocket:
            client.connected = time.time()
            connected += 1
            if connected == clients:
                all_connected.set()
            async for raw in websocket:
                assert isinstance(raw, str)
                kind = TYPE.match(raw).group(1)
                if kind == "log":
                    first, last = seqs(raw)
                    client.got(first, last)
                    viewers.log.keep(first, last, raw)
                elif kind == "complete":
                    viewers.last_seq = json.loads(raw)["last_seq"]
                    client.done = time.time()
                    return

    if late:
        while await asyncio.to_thread(last_seq) <= before:
            await asyncio.sleep(0.02)
        setting_out = await asyncio.to_thread(last_seq)
        viewers.set_out = time.time()
        readers = [asyncio.create_task(read(c)) for c in viewers.clients]
        await all_connected.wait()
        viewers.backlog = (setting_out, await asyncio.to_thread(last_seq))
        await asyncio.gather(*readers)
    else:
        await asyncio.gather(*(read(c) for c in viewers.clients))
    problems = exactly_once(viewers.clients, before + lines)
    assert not problems and viewers.last_seq == before + lines, (viewers.last_seq, problems)
    return viewers


def watched(site: Site, mode: str, lines: int, clients: int) -> tuple[Figures, Figures]:
    """The viewers case: ``clients`` viewers of one run of ``lines`` lines, connected before its
    first line, against the floor that broadcasts the same batches at the same moments."""
    viewers = asyncio.run(otterweb(site, lines, clients))
    ours = viewers.figures()
    sizes = [
        last - max(first, viewers.before + 1) + 1 for first, last, _ in viewers.clients[0].frames
    ]
    sizes = [size for size in sizes if size > 0]
    logged = viewers.logged
    spans = [  # from a batch's first line logged to its last, in ms
        (logged[last] - logged[max(first, viewers.before + 1)]) * 1000
        for first, last, _ in viewers.clients[0].frames
        if last > viewers.before
    ]
    logging_rate = lines / max(viewers.logged[viewers.before + lines] - viewers.started, 1e-9)
    batches = batches_of(viewers.clients[0], viewers.log, viewers.logged)
    readers, floor_figures = asyncio.run(
        same_batches_floor(batches, clients, viewers.logged, viewers.before)
    )
    floor_problems = exactly_once(readers, viewers.before + lines)
    summary(f"OtterWeb {mode}, {clients} viewers", ours)
    summary(f"floor: the same batches, {clients} clients", floor_figures)
    ok = ours.p99 < TARGET_P99_MS
    print(
        f"{'':<44} the run logged {logging_rate:,.0f} lines/s, in {len(sizes)} batches of"
        f" {statistics.median(sizes):.0f} lines (median), {max(sizes)} (largest), each logged over"
        f" {statistics.median(spans):.0f} ms (median), {max(spans):.0f} ms (longest)\n"
        f"{'':<44} every line exactly once to every viewer: yes"
        f"{'' if not floor_problems else f'; the floor: NO ({floor_problems[:2]})'}\n"
        f"{'':<44} p99 {ours.p99 / max(floor_figures.p99, 1e-9):.2f}x the floor's,"
        f" p50 {ours.p50 / max(floor_figures.p50, 1e-9):.2f}x, rate"
        f" {ours.rate / max(floor_figures.rate, 1e-9):.2f}x;"
        f" p99 target < {TARGET_P99_MS} ms: {'ok' if ok else 'MISSED'}"
    )
    return ours, floor_figures


def span(values: list[float], unit: str = " ms") -> str:
    return (
        f"{min(values):,.0f}{unit}"
        if len(values) == 1
        else f"{min(values):,.0f}-{max(values):,.0f}{unit}"
    )


def early_and_late(site: Site, mode: str, lines: int, clients: int) -> bool:
    """The late case: ``clients`` viewers who connect as the run starts (a backlog, then the
    live tail) against as many who connected before its first line, on the same server."""
    early = asyncio.run(otterweb(site, lines, clients))
    late = asyncio.run(otterweb(site, lines, clients, late=True))
    results = []
    for name, viewers in ((f"{clients} early viewers", early), (f"{clients} late viewers", late)):
        result = viewers.figures()
        print(
            f"{f'OtterWeb {mode}, {name}':<44} end to end {viewers.end_to_end:>6.2f} s"
            f"   p50 {result.p50:>7.1f} ms   p99 {result.p99:>7.1f} ms"
        )
        results.append(result.p99)
    ratio = late.end_to_end / early.end_to_end
    waits = [(c.connected - late.set_out) * 1000 for c in late.clients]
    ok = ratio <= 2 and results[1] < 1000
    print(
        f"{'':<44} late viewers set out at {late.backlog[0]:,} lines stored, all connected at"
        f" {late.backlog[1]:,}, in {statistics.median(waits):.0f} ms (median), {max(waits):.0f} ms"
        " (last)\n"
        f"{'':<44} {ratio:>5.2f}x the early viewers' time (target <= 2x), p99 target < 1000 ms:"
        f" {'ok' if ok else 'MISSED'}"
    )
    return ok


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument(
        "--cases", default="viewers,throughput,late", help="viewers, throughput, late, or several"
    )
    options.add_argument("--modes", default="embedded,distributed")
    options.add_argument("--repeat", type=int, default=1, help="runs of each case on each site")
    options.add_argument("--viewer-lines", type=int, default=20_000)
    options.add_argument("--viewers", type=int, default=20)
    options.add_argument("--lines", type=int, default=100_000)
    options.add_argument("--clients", default="1,20")
    options.add_argument("--late-lines", type=int, default=20_000)
    options.add_argument("--late-clients", type=int, default=20)
    args = options.parse_args()
    cases = args.cases.split(",")
    modes = args.modes.split(",")
    ok = True
    if "viewers" in cases:
        print(f"viewers: {args.viewer_lines:,} lines, {args.viewers} viewers\n")
        runs: dict[str, list[tuple[Figures, Figures]]] = {}
        for mode in modes:
            with site_for(mode) as site:
                for _ in range(args.repeat):
                    runs.setdefault(mode, []).append(
                        watched(site, mode, args.viewer_lines, args.viewers)
                    )
                    print()
        for mode, results in runs.items():
            ours = [result for result, _ in results]
            floors = [floor for _, floor in results]
            missed = sum(result.p99 >= TARGET_P99_MS for result in ours)
            ok = ok and not missed
            print(
                f"{mode}, {len(results)} run(s): p50 {span([r.p50 for r in ours])}, p99"
                f" {span([r.p99 for r in ours])}, {span([r.rate for r in ours], ' lines/s')};"
                f" floor p50 {span([r.p50 for r in floors])}, p99 {span([r.p99 for r in floors])};"
                f" p99 < {TARGET_P99_MS} ms in {len(results) - missed} of {len(results)}"
            )
        print()
    if "throughput" in cases:
        print(f"throughput: {args.lines:,} lines\n")
        for clients in [int(c) for c in args.clients.split(",")]:
            floor_rate = asyncio.run(floor(args.lines, clients)).rate
            for mode in modes:
                with site_for(mode) as site:
                    for _ in range(args.repeat):
                        result = asyncio.run(otterweb(site, args.lines, clients)).figures()
                        summary(f"OtterWeb {mode}, {clients} client(s)", result)
                        share = result.rate / floor_rate
                        verdict = "ok" if share >= 0.25 and result.p99 < TARGET_P99_MS else "MISSED"
                        print(
                            f"{'':<44} {share:>12.2f}x of the floor (target >= 0.25x),"
                            f" p99 target < {TARGET_P99_MS} ms: {verdict}"
                        )
                        ok = ok and verdict == "ok"
            print()
    if "late" in cases:
        print(f"late viewers: {args.late_lines:,} lines, {args.late_clients} clients\n")
        for mode in modes:
            with site_for(mode) as site:
                for _ in range(args.repeat):
                    ok = early_and_late(site, mode, args.late_lines, args.late_clients) and ok
        print()
    return 0 if ok else 1


@contextmanager
def site_for(mode: str) -> Iterator[Site]:
    """A fresh site in ``mode``, its processes logging to server.log in its data folder."""
    data = Path(tempfile.mkdtemp(prefix=f"otterweb-bench-{mode}-"))
    with open(data / "server.log", "wb") as log:
        site = make_site(mode, data)
        processes = site.up(log)
        try:
            yield site
        finally:
            for process in processes:
                stop(process)
            site.close()


if __name__ == "__main__":
    sys.exit(main())
