"""Live log delivery, end to end: a script logs 100,000 lines on OtterWeb; 1 and then 20
websocket clients read them. Compared with a plain `websockets` server in this process that
broadcasts the same records, one message each.

Run: .venv/bin/python bench/logs.py [--lines 100000] [--modes embedded,distributed] [--clients 1,20]

Prints lines per second delivered to each client (the median client) and the p50 and p99
latency from when a line is logged to when a client has it. Targets: at least a quarter of the
floor's throughput, and p99 under 250 ms, in the embedded mode (`manage.py serve`) and in the
distributed mode (daphne and a Celery worker on PostgreSQL and Redis, started by
scripts/services).
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


async def otterweb(site: Site, mode: str, lines: int, clients: int) -> tuple[float, float, float]:
    script = f"Sleep 2;\nforeach $i in @Range(1, {lines}) {{ Log-Information line $i; }}"
    before = 1  # lines logged before the loop's
    execution = site.api("POST", "/api/executions/", {"script": script, "servers": ["localhost"]})
    port, token = site.port, site.token
    readers = [Client() for _ in range(clients)]

    async def read(client: Client) -> None:
        """Frames are read without decoding every entry (the clients share a core with the
        server): each frame holds a run of seqs, and every entry in it counts as late as its
        first, oldest one, so the latencies are an upper bound."""
        url = f"ws://127.0.0.1:{port}/ws/executions/{execution['id']}/"
        async with connect(
            url, additional_headers={"Authorization": f"Token {token}"}, max_size=None
        ) as websocket:
            async for raw in websocket:
                kind = TYPE.match(raw).group(1)
                if kind == "log":
                    first = int(SEQ.search(raw).group(1))
                    last = int(SEQ.match(raw, raw.rfind('"seq"')).group(1))
                    assert first == client.seq + 1, f"seq {first} after {client.seq}"
                    client.seq = last
                    if first <= before:  # the line of the Sleep that lets every client connect
                        continue
                    logged = datetime.fromisoformat(TIME.search(raw).group(1)).timestamp()
                    client.got(logged, last - first + 1)
                elif kind == "complete":
                    assert client.seq == json.loads(raw)["last_seq"]
                    return

    await asyncio.gather(*(read(c) for c in readers))
    assert all(c.count == lines for c in readers), [c.count for c in readers]
    return summary(f"OtterWeb {mode}, {clients} client(s)", readers)


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--lines", type=int, default=100_000)
    options.add_argument("--modes", default="embedded,distributed")
    options.add_argument("--clients", default="1,20")
    args = options.parse_args()
    print(f"{args.lines:,} lines\n")
    ok = True
    for clients in [int(c) for c in args.clients.split(",")]:
        floor_rate, _p50, _p99 = asyncio.run(floor(args.lines, clients))
        for mode in args.modes.split(","):
            data = Path(tempfile.mkdtemp(prefix=f"otterweb-bench-{mode}-"))
            log = open(data / "server.log", "wb")  # noqa: SIM115 - closed below
            site = make_site(mode, data)
            processes = site.up(log)
            try:
                rate, _p50, p99 = asyncio.run(otterweb(site, mode, args.lines, clients))
            finally:
                for process in processes:
                    stop(process)
                log.close()
                site.close()
            share = rate / floor_rate
            verdict = "ok" if share >= 0.25 and p99 < 250 else "MISSED"
            print(
                f"{'':<44} {share:>12.2f}x of the floor (target >= 0.25x), p99 target < 250 ms: {verdict}"
            )
            ok = ok and verdict == "ok"
        print()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
