"""Live log delivery, end to end, in the embedded mode (`manage.py serve`) and in the
distributed mode (daphne and a Celery worker on PostgreSQL and Redis, started by
scripts/services).

Run: .venv/bin/python bench/logs.py [--cases throughput,late] [--modes embedded,distributed]
         [--lines 100000] [--clients 1,20] [--late-lines 20000] [--late-clients 20]

throughput: a script logs 100,000 lines; 1 and then 20 websocket clients, connected before its
first line, read them. Compared with a plain `websockets` server in this process that broadcasts
the same records, one message each. Prints lines per second delivered to each client (the
median client) and the p50 and p99 latency from when a line is logged to when a client has it.
Targets: at least a quarter of the floor's throughput, and p99 under 250 ms.

late: a script logs 20,000 lines, watched by 20 clients who connected before its first line
(early viewers), then another run by 20 who set out to connect once its first line is stored
(late viewers: a backlog, then the live tail; the usual case, colleagues opening a running job's
page). Prints the time from the first line logged to the last client's "complete", and the
latencies. Targets: the late viewers within 2x the early viewers' time, and their p99 under 1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from websockets.asyncio.client import connect
from websockets.asyncio.server import broadcast, serve

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.e2e.serving import Site, free_port, make_site, stop  # noqa: E402

TYPE = re.compile(r'\{"type":\s*"(\w+)"')
SEQ = re.compile(r'"seq":\s*(\d+)')
TIME = re.compile(r'"time":\s*"([^"]+)"')


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


class Client:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.first = 0.0
        self.last = 0.0
        self.count = 0
        self.seq = 0  # the last seq received
        self.done = 0.0  # when "complete" came
        self.connected = 0.0  # when the websocket handshake was over

    def got(self, logged_at: float, count: int = 1) -> None:
        now = time.time()
        if not self.count:
            self.first = now
        self.last = now
        self.count += count
        self.latencies.extend([now - logged_at] * count)

    @property
    def rate(self) -> float:
        return self.count / max(self.last - self.first, 1e-9)


def summary(name: str, clients: list[Client]) -> tuple[float, float, float]:
    rate = statistics.median(c.rate for c in clients)
    latencies = [x for c in clients for x in c.latencies]
    p50, p99 = percentile(latencies, 0.5) * 1000, percentile(latencies, 0.99) * 1000
    print(f"{name:<44} {rate:>12,.0f} lines/s per client   p50 {p50:>7.1f} ms   p99 {p99:>7.1f} ms")
    return rate, p50, p99


async def floor(lines: int, clients: int) -> tuple[float, float, float]:
    """A plain websockets server broadcasting the records one message each."""
    connected: set = set()
    ready = asyncio.Event()

    async def handler(websocket) -> None:
        connected.add(websocket)
        if len(connected) == clients:
            ready.set()
        await websocket.wait_closed()

    port = free_port()
    readers = [Client() for _ in range(clients)]

    async def read(client: Client) -> None:
        async with connect(f"ws://127.0.0.1:{port}/", max_size=None) as websocket:
            async for raw in websocket:
                record = json.loads(raw)
                client.got(record["time"])
                if record["seq"] == lines:
                    return

    async with serve(handler, "127.0.0.1", port, max_size=None):
        tasks = [asyncio.create_task(read(c)) for c in readers]
        await ready.wait()
        for seq in range(1, lines + 1):
            broadcast(
                connected,
                json.dumps(
                    {
                        "seq": seq,
                        "level": "information",
                        "message": f"line {seq}",
                        "time": time.time(),
                    }
                ),
            )
            if seq % 500 == 0:
                await asyncio.sleep(0)
        await asyncio.gather(*tasks)
    return summary(f"plain websockets floor, {clients} client(s)", readers)


class Viewers:
    """What a run's viewers had: their clients, when the loop's first line was logged, and how
    many lines were stored when late viewers set out to connect and once they all had."""

    def __init__(self, clients: list[Client]) -> None:
        self.clients = clients
        self.started = 0.0  # when the loop's first line was logged (its time stamp)
        self.backlog = (0, 0)
        self.set_out = 0.0  # when late viewers set out to connect

    @property
    def end_to_end(self) -> float:
        """From the loop's first line logged to the last client's "complete"."""
        return max(c.done for c in self.clients) - self.started


async def otterweb(site: Site, lines: int, clients: int, *, late: bool = False) -> Viewers:
    """A run of ``lines`` lines watched by ``clients`` websocket clients. Early viewers connect
    during the run's first 2 s (a Sleep) and get every line live; late ones set out to connect
    once the loop's first line is stored, and get a backlog, then the live tail."""
    script = f"Sleep 2;\nforeach $i in @Range(1, {lines}) {{ Log-Information line $i; }}"
    before = 1  # lines logged before the loop's
    execution = site.api("POST", "/api/executions/", {"script": script, "servers": ["localhost"]})
    port, token = site.port, site.token
    viewers = Viewers([Client() for _ in range(clients)])
    connected = 0
    all_connected = asyncio.Event()

    def last_seq() -> int:
        return site.api("GET", f"/api/executions/{execution['id']}/")["last_seq"]

    async def read(client: Client) -> None:
        """Frames are read without decoding every entry (the clients share a core with the
        server): each frame holds a run of seqs, and every entry in it counts as late as its
        first, oldest one, so the latencies are an upper bound. A backlog frame read from the
        database may start with the lines before the loop: that one is decoded."""
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
                kind = TYPE.match(raw).group(1)
                if kind == "log":
                    first = int(SEQ.search(raw).group(1))
                    last = int(SEQ.match(raw, raw.rfind('"seq"')).group(1))
                    assert first == client.seq + 1, f"seq {first} after {client.seq}"
                    client.seq = last
                    if last <= before:  # the line of the Sleep that lets early clients connect
                        continue
                    if first <= before:
                        entries = [e for e in json.loads(raw)["entries"] if e["seq"] > before]
                        logged = datetime.fromisoformat(entries[0]["time"]).timestamp()
                    else:
                        logged = datetime.fromisoformat(TIME.search(raw).group(1)).timestamp()
                    if first <= before + 1:
                        viewers.started = logged
                    client.got(logged, last - max(first, before + 1) + 1)
                elif kind == "complete":
                    assert client.seq == json.loads(raw)["last_seq"]
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
    assert all(c.count == lines for c in viewers.clients), [c.count for c in viewers.clients]
    return viewers


def early_and_late(site: Site, mode: str, lines: int, clients: int) -> bool:
    """The third case: ``clients`` viewers who connect as the run starts (a backlog, then the
    live tail) against as many who connected before its first line, on the same server."""
    early = asyncio.run(otterweb(site, lines, clients))
    late = asyncio.run(otterweb(site, lines, clients, late=True))
    results = []
    for name, viewers in ((f"{clients} early viewers", early), (f"{clients} late viewers", late)):
        latencies = [x for c in viewers.clients for x in c.latencies]
        p50, p99 = percentile(latencies, 0.5) * 1000, percentile(latencies, 0.99) * 1000
        print(
            f"{f'OtterWeb {mode}, {name}':<44} end to end {viewers.end_to_end:>6.2f} s"
            f"   p50 {p50:>7.1f} ms   p99 {p99:>7.1f} ms"
        )
        results.append(p99)
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
    options.add_argument("--lines", type=int, default=100_000)
    options.add_argument("--modes", default="embedded,distributed")
    options.add_argument("--clients", default="1,20")
    options.add_argument("--cases", default="throughput,late", help="throughput, late or both")
    options.add_argument("--late-lines", type=int, default=20_000)
    options.add_argument("--late-clients", type=int, default=20)
    args = options.parse_args()
    cases = args.cases.split(",")
    modes = args.modes.split(",")
    ok = True
    if "throughput" in cases:
        print(f"{args.lines:,} lines\n")
        for clients in [int(c) for c in args.clients.split(",")]:
            floor_rate, _p50, _p99 = asyncio.run(floor(args.lines, clients))
            for mode in modes:
                with site_for(mode) as site:
                    viewers = asyncio.run(otterweb(site, args.lines, clients))
                rate, _p50, p99 = summary(f"OtterWeb {mode}, {clients} client(s)", viewers.clients)
                share = rate / floor_rate
                verdict = "ok" if share >= 0.25 and p99 < 250 else "MISSED"
                print(
                    f"{'':<44} {share:>12.2f}x of the floor (target >= 0.25x), p99 target < 250 ms: {verdict}"
                )
                ok = ok and verdict == "ok"
            print()
    if "late" in cases:
        print(f"late viewers: {args.late_lines:,} lines, {args.late_clients} clients\n")
        for mode in modes:
            with site_for(mode) as site:
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
