"""Fan-out over SSH: one command, or one file ensured, on N servers at once.

Run: .venv/bin/python bench/fanout.py [--sizes 1,10,50,100] [--runs 5] [--cases echo,ensure]

The servers are real OpenSSH daemons on 127.0.0.1 (tests/sshd.py: 15 ports a daemon, each port
a server). Each run, paired in the same loop, times:
- the floor: a plain asyncssh script in this process that connects to the N servers, runs the
  command (or stats and writes the file over SFTP) and closes, all at once;
- `python -m engine run` of a script that runs the same on the N servers asynchronously
  (interpreter start-up included);
- an OtterWeb job over the N servers in the embedded mode (`manage.py serve`), from the API call
  that makes it to the "complete" its websocket sends.
Prints the medians of --runs runs and the ratios to the floor. Targets: the job within 1.3x the
floor for `echo hi` on 100 servers, and within 1.5x for Ensure-File on 100 servers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from functools import partial
from pathlib import Path

from websockets.sync.client import connect

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.e2e.serving import Site, stop  # noqa: E402
from tests.sshd import SshdCluster  # noqa: E402

TARGETS = {("echo", 100): 1.3, ("ensure", 100): 1.5}


# ---- the floor


async def floor(cluster: SshdCluster, count: int, case: str, tag: str) -> None:
    async def one(server) -> None:
        async with cluster.connect(server) as connection:
            if case == "echo":
                result = await connection.run("echo hi", check=True)
                assert result.stdout == "hi\n"
            else:
                async with connection.start_sftp_client() as sftp:
                    path = f"fanout-{tag}-{server.name}.txt"
                    if not await sftp.exists(path):
                        async with sftp.open(path, "wb") as handle:
                            await handle.write(b"hello\n")

    await asyncio.gather(*(one(server) for server in cluster.servers[:count]))


# ---- OtterWeb


def body(case: str, tag: str) -> str:
    if case == "echo":
        return "Exec echo (Arguments: hi);"
    return f"Ensure-File fanout-{tag}-$ServerName.txt (Text: hello);"


def engine_cli(cluster: SshdCluster, count: int, case: str, tag: str) -> None:
    servers = cluster.servers[:count]
    script = Path(cluster.folder) / f"fanout-{tag}.otter"
    names = ", ".join(s.name for s in servers)
    script.write_text(
        f"foreach server in @({names})\n{{\n    with async\n    {{\n"
        f"        {body(case, tag)}\n    }}\n}}\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "engine", "run", str(script)]
        + [f"--server={s.name}={s.url}" for s in servers]
        + [f"--identity={cluster.client_key}", f"--known-hosts={cluster.known_hosts}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0 or "status: normal" not in result.stdout:
        raise SystemExit(f"python -m engine run failed:\n{result.stdout}\n{result.stderr}")


def prepare_site(site: Site, cluster: SshdCluster) -> None:
    site.api(
        "POST",
        "/api/credentials/",
        {
            "name": "fanout-key",
            "kind": "private_key",
            "username": cluster.user,
            "secret": cluster.client_key.read_text(),
        },
    )
    for server in cluster.servers:
        site.api(
            "POST",
            "/api/servers/",
            {
                "name": server.name,
                "host": server.address,
                "port": server.port,
                "agent_type": "ssh",
                "credential": "fanout-key",
                "host_keys": server.host_key,
            },
        )


def otterweb_job(site: Site, cluster: SshdCluster, count: int, case: str, tag: str) -> None:
    made = site.api(
        "POST",
        "/api/executions/",
        {"script": body(case, tag), "servers": [s.name for s in cluster.servers[:count]]},
    )
    # told "complete" over the execution's websocket, as a browser is: polling the API would
    # take the server's time from the run it measures
    with connect(
        f"ws://127.0.0.1:{site.port}/ws/executions/{made['id']}/",
        additional_headers={"Authorization": f"Token {site.token}"},
        max_size=None,
    ) as socket_:
        while json.loads(socket_.recv(timeout=120))["type"] != "complete":
            pass
    detail = site.api("GET", f"/api/executions/{made['id']}/")
    if detail["status"] != "normal":
        raise SystemExit(f"the job over {count} servers ended {detail['status']}: {detail}")


# ---- the table


def timed(action) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1,10,50,100")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cases", default="echo,ensure")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    cases = args.cases.split(",")
    rows = [(case, size) for case in cases for size in (sizes if case == "echo" else [max(sizes)])]
    folder = Path(tempfile.mkdtemp(prefix="otterweb-fanout-"))
    folder.chmod(0o755)  # the servers' test user reads its keys and home in there
    data = folder / "site"
    data.mkdir()
    print(f"starting {max(sizes)} sshd servers and an embedded site...", flush=True)
    with (
        SshdCluster(max(sizes), folder / "sshd") as cluster,
        open(data / "server.log", "wb") as log,
    ):
        site = Site(data)
        server = site.serve(log)
        failed = False
        try:
            prepare_site(site, cluster)
            print(
                f"\n{'case':<8}{'N':>5}{'floor':>9}{'engine CLI':>12}{'job':>9}"
                f"{'CLI/floor':>11}{'job/floor':>11}{'target':>8}"
            )
            for case, size in rows:
                times: dict[str, list[float]] = {"floor": [], "cli": [], "job": []}
                for _ in range(args.runs):
                    for name, run in (
                        ("floor", lambda *a: asyncio.run(floor(*a))),
                        ("cli", engine_cli),
                        ("job", partial(otterweb_job, site)),
                    ):
                        # a file of its own each run, so that Ensure-File writes
                        work = partial(run, cluster, size, case, uuid.uuid4().hex[:8])
                        times[name].append(timed(work))
                medians = {name: statistics.median(values) for name, values in times.items()}
                target = TARGETS.get((case, size))
                ratio = medians["job"] / medians["floor"]
                met = "" if target is None else (" met" if ratio <= target else " MISSED")
                failed |= met == " MISSED"
                print(
                    f"{case:<8}{size:>5}{medians['floor']:>8.2f}s{medians['cli']:>11.2f}s"
                    f"{medians['job']:>8.2f}s{medians['cli'] / medians['floor']:>10.2f}x"
                    f"{ratio:>10.2f}x{'' if target is None else f'{target:>7}x'}{met}",
                    flush=True,
                )
        finally:
            stop(server)
            site.close()
    print(
        "\nfloor: asyncssh in this process; engine CLI: python -m engine run (start-up "
        "included); job: an OtterWeb job, from the API call to complete (medians of "
        f"{args.runs} paired runs)"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
