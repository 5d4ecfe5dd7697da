"""Configuration at scale: 50 packages, 20 users and 200 file lines ensured on 100 SSH servers
when nothing is left to change, against pyinfra ensuring the same, and collected against a plain
asyncssh script reading the same state.

Run (as root: the servers' user gets sudo while it runs): .venv/bin/python bench/ensure.py
[--servers 100] [--runs 3] [--without-pyinfra]. `make bench` installs pyinfra (the `bench`
extra) and runs it. pyinfra takes about 12 minutes a run on 100 servers: --without-pyinfra
measures OtterWeb's runs and the floor only (and holds to the collect ratio only).

The servers are real OpenSSH daemons on 127.0.0.1 (tests/sshd.py), one machine: the packages are
50 that it has installed, the users are made by the first run and removed at the end, and each
server has a file of its own in the servers' user's home. A first run of each tool makes the
state (and checks that the other then finds nothing to change); each run after it is timed:
- `python -m engine run --sudo` of a script that ensures it all on every server at once (the
  users are made before the first run: on one machine, 100 servers would race to make them);
- `pyinfra` with the same operations (apt.packages, server.user, files.line), 100 in parallel;
- `python -m engine run --mode collect` of the same script: the drift check;
- the floor: asyncssh in this process, connecting to every server and reading the same state with
  one command for the packages, one for the users and one SFTP read of the file.
Prints the medians and the ratios. Targets: ensuring within pyinfra's time (at most 1x), and
collecting within 1.5x the floor.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.sshd import SshdCluster  # noqa: E402

PACKAGES, USERS, LINES = 50, 20, 200
TARGETS = {"engine/pyinfra": 1.0, "collect/floor": 1.5}
PYINFRA = Path(sys.executable).parent / "pyinfra"


def installed_packages(count: int) -> list[str]:
    """``count`` Debian packages this machine has installed (every server is this machine)."""
    listed = subprocess.run(
        ["dpkg-query", "--show", "--showformat=${db:Status-Abbrev} ${Package}\\n"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    names = sorted(line.split()[1] for line in listed if line.startswith("ii ") and ":" not in line)
    return names[:: max(1, len(names) // count)][:count]


def line_of(number: int) -> str:
    return f"setting{number:03} = value {number}"


def otterscript(cluster: SshdCluster, count: int, packages: list[str], users: list[str]) -> str:
    names = ", ".join(server.name for server in cluster.servers[:count])
    body = [f"Ensure-DebianPackage {name};" for name in packages]
    body += [f"Ensure-User {user} (Shell: /bin/sh);" for user in users]
    body += [
        f"Ensure-FileLine ensure-bench/$ServerName.conf (Line: {line_of(n)});" for n in range(LINES)
    ]
    inner = "\n".join(f"        {line}" for line in body)
    return f"foreach server in @({names})\n{{\n    with async\n    {{\n{inner}\n    }}\n}}\n"


def engine_run(cluster: SshdCluster, script: Path, count: int, mode: str) -> None:
    servers = cluster.servers[:count]
    result = subprocess.run(
        [sys.executable, "-m", "engine", "run", str(script), f"--mode={mode}", "--sudo"]
        + [f"--server={s.name}={s.url}" for s in servers]
        + [f"--identity={cluster.client_key}", f"--known-hosts={cluster.known_hosts}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0 or "status: normal" not in result.stdout:
        errors = [line for line in result.stdout.splitlines() if "[error]" in line]
        raise SystemExit("python -m engine run failed:\n" + "\n".join(errors[:20]) + result.stderr)


def pyinfra_files(
    cluster: SshdCluster, folder: Path, count: int, packages: list[str], users: list[str]
) -> tuple[Path, Path]:
    home = Path(os.path.expanduser(f"~{cluster.user}"))
    inventory = folder / "inventory.py"
    hosts = [
        (
            server.name,
            {
                "ssh_hostname": server.address,
                "ssh_port": server.port,
                "ssh_user": server.user,
                "ssh_key": str(cluster.client_key),
                "ssh_known_hosts_file": str(cluster.known_hosts),
                "ssh_strict_host_key_checking": "yes",
            },
        )
        for server in cluster.servers[:count]
    ]
    inventory.write_text(f"servers = {hosts!r}\n")
    deploy = folder / "deploy.py"
    deploy.write_text(
        "from pyinfra import host\n"
        "from pyinfra.operations import apt, files, server\n"
        f"apt.packages(packages={packages!r}, _sudo=True)\n"
        f"for user in {users!r}:\n"
        "    server.user(user=user, shell='/bin/sh', _sudo=True)\n"
        f"for number in range({LINES}):\n"
        "    files.line(\n"
        f"        path=f'{home}/ensure-bench/{{host.name}}.conf',\n"
        f"        line=f'setting{{number:03}} = value {{number}}',\n"
        "    )\n"
    )
    return inventory, deploy


def pyinfra_run(inventory: Path, deploy: Path, count: int) -> str:
    result = subprocess.run(
        [
            *(PYINFRA, inventory, deploy, "-y"),
            *("--parallel", str(count), "--no-wait"),
        ],
        cwd=inventory.parent,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise SystemExit(f"pyinfra failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result.stdout + result.stderr


async def floor(cluster: SshdCluster, count: int, packages: list[str], users: list[str]) -> None:
    query = "dpkg-query --show --showformat='${Package} ${Version}\\n' " + " ".join(packages)

    async def one(server) -> None:
        async with cluster.connect(server) as connection:
            await connection.run(query, check=True)
            await connection.run("getent passwd " + " ".join(users), check=True)
            async with (
                connection.start_sftp_client() as sftp,
                sftp.open(f"ensure-bench/{server.name}.conf") as handle,
            ):
                await handle.read()

    await asyncio.gather(*(one(server) for server in cluster.servers[:count]))


def timed(action) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--servers", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--without-pyinfra", action="store_true", help="measure OtterWeb and the floor only"
    )
    args = parser.parse_args()
    if os.geteuid() != 0:
        raise SystemExit(
            "bench/ensure.py gives the servers' user sudo and makes users: run as root"
        )
    if not args.without_pyinfra and not PYINFRA.exists():
        raise SystemExit(f"{PYINFRA} is missing: `make bench` installs it (the `bench` extra)")
    count = args.servers
    folder = Path(tempfile.mkdtemp(prefix="otterweb-ensure-"))
    folder.chmod(0o755)  # the servers' user reads its keys and home in there
    packages = installed_packages(PACKAGES)
    users = [f"owbench{uuid.uuid4().hex[:6]}{n:02}" for n in range(USERS)]
    rule = Path("/etc/sudoers.d") / f"otterweb-bench-{uuid.uuid4().hex[:8]}"
    print(f"starting {count} sshd servers...", flush=True)
    with SshdCluster(count, folder / "sshd", max_sessions=64) as cluster:
        rule.write_text(f"{cluster.user} ALL=(root) NOPASSWD: ALL\n")
        rule.chmod(0o440)
        home = Path(os.path.expanduser(f"~{cluster.user}"))
        (home / "ensure-bench").mkdir(exist_ok=True)
        subprocess.run(["chown", cluster.user, str(home / "ensure-bench")], check=True)
        script = folder / "ensure.otter"
        script.write_text(otterscript(cluster, count, packages, users))
        inventory, deploy = pyinfra_files(cluster, folder, count, packages, users)
        try:
            print(f"first runs: making {USERS} users and {count} files of {LINES} lines...")
            # every server is this machine: the users are made once, not by 100 at once
            for user in users:
                subprocess.run(["useradd", "--shell", "/bin/sh", user], check=True)
            engine_run(cluster, script, count, "execute")
            if not args.without_pyinfra:
                first = pyinfra_run(inventory, deploy, count)
                if "Changed: 0" not in first and "No changes" not in first:
                    print("pyinfra's first run after OtterWeb's changed:\n" + first[-2000:])
            times: dict[str, list[float]] = {
                "engine": [],
                "pyinfra": [],
                "collect": [],
                "floor": [],
            }
            for _ in range(args.runs):
                times["engine"].append(timed(lambda: engine_run(cluster, script, count, "execute")))
                if not args.without_pyinfra:
                    times["pyinfra"].append(timed(lambda: pyinfra_run(inventory, deploy, count)))
                times["collect"].append(
                    timed(lambda: engine_run(cluster, script, count, "collect"))
                )
                times["floor"].append(
                    timed(lambda: asyncio.run(floor(cluster, count, packages, users)))
                )
        finally:
            rule.unlink()
            for user in users:
                subprocess.run(["userdel", "-r", user], capture_output=True)
            subprocess.run(["rm", "-rf", str(home / "ensure-bench"), str(folder)])
    medians = {name: statistics.median(values) for name, values in times.items() if values}
    operations = PACKAGES + USERS + LINES
    print(
        f"\n{count} servers, {operations} operations each ({PACKAGES} packages, {USERS} users, "
        f"{LINES} file lines), nothing to change; medians of {args.runs} runs"
    )
    for name, label in (
        ("engine", "OtterWeb ensure (python -m engine run --sudo)"),
        ("pyinfra", "pyinfra (--parallel, the same operations)"),
        ("collect", "OtterWeb collect (the drift check)"),
        ("floor", "floor: asyncssh reading the same state"),
    ):
        if name in medians:
            print(f"  {label:<48}{medians[name]:>8.2f} s")
    failed = False
    for ratio_name, (top, bottom) in {
        "engine/pyinfra": ("engine", "pyinfra"),
        "collect/floor": ("collect", "floor"),
    }.items():
        if bottom not in medians:
            continue
        ratio = medians[top] / medians[bottom]
        target = TARGETS[ratio_name]
        met = ratio <= target
        failed |= not met
        print(f"  {ratio_name:<48}{ratio:>8.2f}x  target {target}x  {'met' if met else 'MISSED'}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
