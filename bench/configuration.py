"""Configuration management at scale (issue 14): the configuration matrix over many recorded
checks, and a routine check over SSH servers against an ad hoc collect run over them.

Run: .venv/bin/python bench/configuration.py [--cases pages,check] [--servers 1000]
         [--small 100] [--rounds 3] [--requests 20] [--ssh-servers 100] [--runs 3] [--profile]

pages: a fresh data folder, migrated, in this process (the production settings, as
bench/log_api.py), with 5 roles, each a raft script of its desired state, 3 environments (one
inside another) and servers of 2 or 3 roles and one environment each, with --rounds rounds of
recorded checks made in bulk as services._record_check makes them (runs, checks, drift items
in the roles' parts, the servers' states): 70% current, 20% drifted (1 to 3 drift items), 5%
error, 5% unknown (half of them never checked). With Django's test client, logged in as a
superuser: the median and p95 of --requests requests each to /configuration/,
/configuration/?state=drifted and /api/configuration/?limit=1000 (after one warm-up request),
and each one's number of queries, at --small servers and at --servers servers of the same
shape. Targets: each median under 300 ms at --servers servers, and the same number of queries
at both sizes. --profile prints where selectors.matrix spends its time at --servers servers.

check: --ssh-servers real OpenSSH servers on 127.0.0.1 (tests/sshd.py), an embedded site
(`manage.py serve`) where they are servers of one role whose configuration is an Ensure-File in
the test user's home (missing: every server drifted). Times, --runs times each, alternating:
an ad hoc job of the same script over the same servers in collect mode, from the API call to
the "complete" its websocket sends; and a check of the role (POST /api/configuration/check/),
from the API call until every server's new check is recorded (its execution's "complete",
then the rollup API showing each server's new check). Target: the check's median within 2x
the ad hoc run's.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PAGE_TARGET_MS = 300
CHECK_TARGET_RATIO = 2.0
ROLES = ("app", "base", "cache", "db", "web")
OPERATIONS_PER_ROLE = 4
ROW = b'<th scope="row">'  # a server's row in the matrix page
PAGES = (
    ("GET /configuration/", "/configuration/"),
    ("GET /configuration/?state=drifted", "/configuration/?state=drifted"),
    ("GET /api/configuration/?limit=1000", "/api/configuration/?limit=1000"),
)


def percentile(values: list[float], share: float) -> float:
    """Nearest rank: of 20 values, the 95th percentile is the 19th smallest."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


# ---- pages: the matrix over recorded checks -----------------------------------------------------


def state_of(index: int) -> str:
    """The last state of server ``index``: of every 40, 28 current, 8 drifted, 2 error, 1
    unknown and 1 never checked (the same shares at 100 servers as at 1,000)."""
    bucket = index % 40
    if bucket < 28:
        return "current"
    if bucket < 36:
        return "drifted"
    if bucket < 38:
        return "error"
    return "unknown" if bucket == 38 else "never"


class Inventory:
    """The roles, environments and superuser, made once; servers and their checks added in
    batches of the same shape."""

    def __init__(self, rounds: int) -> None:
        from django.contrib.auth import get_user_model

        from otterweb.inventory import services as inventory
        from otterweb.rafts import services as rafts
        from otterweb.rafts.models import RaftItem

        self.rounds = rounds
        raft = rafts.create_raft(name="desired")
        self.roles = []
        for name in ROLES:
            script = "".join(
                f"Ensure-File /srv/{name}/part{n}.conf (Text: {name}-{n});\n"
                for n in range(1, OPERATIONS_PER_ROLE + 1)
            )
            item = rafts.create_item(
                raft=raft, name=f"{name}-config", kind=RaftItem.Kind.SCRIPT, content=script
            )
            self.roles.append(inventory.save_role(name=name, configuration=item))
        production = inventory.save_environment(name="production")
        self.environments = [
            production,
            inventory.save_environment(name="production-eu", parent=production),
            inventory.save_environment(name="staging"),
        ]
        self.user = get_user_model().objects.create_superuser(
            "bench", "bench@example.org", "bench-password-123"
        )
        self.count = 0

    def add_servers(self, upto: int) -> None:
        """Servers ``count`` .. ``upto`` - 1, with roles, an environment and their checks."""
        from django.utils import timezone

        from otterweb.configuration import selectors
        from otterweb.configuration.models import (
            Check,
            ConfigurationRun,
            DriftItem,
            ServerState,
        )
        from otterweb.executions.models import Execution, Job, Mode
        from otterweb.inventory.models import Server

        indexes = range(self.count, upto)
        servers = Server.objects.bulk_create(
            Server(
                name=f"srv{index:04d}",
                host=f"10.{index // 250}.{index % 250}.10",
                agent_type=Server.AgentType.SSH,
            )
            for index in indexes
        )
        role_links, env_links = [], []
        for index, server in zip(indexes, servers, strict=True):
            rng = random.Random(index)
            for role in rng.sample(self.roles, rng.choice((2, 3))):
                role_links.append(Server.roles.through(server_id=server.pk, role_id=role.pk))
            env = self.environments[rng.randrange(len(self.environments))]
            env_links.append(
                Server.environments.through(server_id=server.pk, environment_id=env.pk)
            )
        Server.roles.through.objects.bulk_create(role_links)
        Server.environments.through.objects.bulk_create(env_links)

        index_of = {server.pk: index for index, server in zip(indexes, servers, strict=True)}
        checked = [s for s in servers if state_of(index_of[s.pk]) != "never"]
        skipped: dict[str, str] = {}
        groups = selectors.plan_groups(servers=checked, skipped=skipped)
        assert not skipped, skipped
        now = timezone.now()
        last: dict[int, tuple] = {}  # server pk: (state, check, checked, since, drift count)
        for round_ in range(self.rounds):
            ended = now - timedelta(hours=self.rounds - 1 - round_)
            latest = round_ == self.rounds - 1
            for group in groups:
                origins = group.origins()
                lines_of: dict[int, list[int]] = {}  # role pk: the plan's lines in its part
                for line, (role_id, _item, _line) in origins.items():
                    lines_of.setdefault(role_id, []).append(line)
                states, drift = {}, {}
                for server in group.servers:
                    index = index_of[server.pk]
                    rng = random.Random(f"{index}-{round_}")
                    state = (
                        state_of(index) if latest else rng.choice(("current",) * 3 + ("drifted",))
                    )
                    states[server.pk] = state
                    if state == "drifted":
                        chosen = rng.sample(
                            sorted(line for lines in lines_of.values() for line in lines),
                            rng.randint(1, 3),
                        )
                        drift[server.pk] = [
                            {
                                "server": server.name,
                                "operation": f"Ensure-File /srv/part{line}.conf",
                                "line": line,
                                "differences": [
                                    {"property": "Exists", "expected": True, "actual": False}
                                ],
                            }
                            for line in sorted(chosen)
                        ]
                job = Job.objects.create(
                    name="Configuration check: " + ", ".join(p.role_name for p in group.parts),
                    script=group.plan.text,
                    targets=[server.name for server in group.servers],
                )
                execution = Execution.objects.create(
                    job=job,
                    run_state=Execution.RunState.COMPLETED,
                    status=(
                        Execution.Status.ERROR
                        if "error" in states.values()
                        else Execution.Status.NORMAL
                    ),
                    mode=Mode.COLLECT,
                    started=ended - timedelta(seconds=20),
                    ended=ended,
                    drift=[d for found in drift.values() for d in found],
                )
                run = ConfigurationRun.objects.create(
                    execution=execution,
                    purpose=ConfigurationRun.Purpose.CHECK,
                    routine=True,
                    origins={str(line): origin for line, origin in origins.items()},
                    parts=[part.as_json() for part in group.parts],
                )
                checks = Check.objects.bulk_create(
                    Check(
                        server=server,
                        run=run,
                        state=states[server.pk],
                        finished=True,
                        checked=ended,
                        drift_count=len(drift.get(server.pk, ())),
                        error={
                            "error": "Ensure-File failed: permission denied",
                            "unknown": "The check did not reach this server.",
                        }.get(states[server.pk], ""),
                        changed=last.get(server.pk, (None,))[0] != states[server.pk],
                    )
                    for server in group.servers
                )
                items = []
                for check in checks:
                    for found in drift.get(check.server_id, ()):
                        role_id, item_id, item_line = origins[found["line"]]
                        items.append(
                            DriftItem(
                                server_check=check,
                                key=found["operation"],
                                role_id=role_id,
                                raft_item_id=item_id,
                                line=item_line,
                                plan_line=found["line"],
                                differences=found["differences"],
                            )
                        )
                    before = last.get(check.server_id)
                    since = before[3] if before and before[0] == check.state else ended
                    last[check.server_id] = (check.state, check, ended, since, check.drift_count)
                DriftItem.objects.bulk_create(items)
        ServerState.objects.bulk_create(
            ServerState(
                server_id=pk,
                state=state,
                last_check=check,
                checked=checked_at,
                state_since=since,
                drift_count=count,
            )
            for pk, (state, check, checked_at, since, count) in last.items()
        )
        self.count = upto


def measure_pages(client, requests: int) -> dict[str, dict]:
    """Per page: its times (ms), number of queries and what it showed."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    found = {}
    for label, path in PAGES:
        response = client.get(path)  # warm-up, and the check that it answers
        assert response.status_code == 200, (path, response.status_code, response.content[:300])
        with CaptureQueriesContext(connection) as queries:
            client.get(path)
        # counted now: the next request's start clears the log the capture reads lazily
        count = len(queries.captured_queries)
        times = []
        for _ in range(requests):
            began = time.perf_counter()
            response = client.get(path)
            times.append((time.perf_counter() - began) * 1000)
            assert response.status_code == 200
        if path.startswith("/api/"):
            body = response.json()
            shown = f"{len(body['servers'])} of {body['count']} servers"
        else:
            shown = f"{response.content.count(ROW)} server rows"
        found[label] = {"times": times, "queries": count, "shown": shown}
    return found


def pages_case(args) -> bool:
    data = Path(tempfile.mkdtemp(prefix="otterweb-bench-configuration-"))
    os.environ["OTTERWEB_DATA_DIR"] = str(data)
    os.environ["DJANGO_SETTINGS_MODULE"] = "otterweb.settings.prod"
    import django

    django.setup()
    import logging

    logging.getLogger("axes").setLevel(logging.WARNING)  # a line a login otherwise
    from django.core.management import call_command
    from django.db.models import Count
    from django.test import Client

    from otterweb.configuration import selectors
    from otterweb.configuration.models import Check, DriftItem, ServerState

    call_command("migrate", verbosity=0)
    inventory = Inventory(args.rounds)
    client = Client(HTTP_HOST="localhost")  # one of the default ALLOWED_HOSTS
    client.force_login(inventory.user)

    results = {}
    for size in (args.small, args.servers):
        began = time.perf_counter()
        inventory.add_servers(size)
        made = time.perf_counter() - began
        states = dict(ServerState.objects.values_list("state").annotate(n=Count("pk")))
        print(
            f"{size:,} servers: {Check.objects.count():,} checks, "
            f"{DriftItem.objects.count():,} drift items, states {states} "
            f"(never checked: {size - sum(states.values())}); made in {made:.1f} s",
            flush=True,
        )
        results[size] = measure_pages(client, args.requests)

    small, big = results[args.small], results[args.servers]
    print(
        f"\n{'':<36}{'median':>9}{'p95':>9}{'queries':>9}{f'at {args.small}':>9}"
        f"   shown at {args.servers:,}{'':<10}target"
    )
    ok = True
    for label, _path in PAGES:
        times = big[label]["times"]
        median, p95 = statistics.median(times), percentile(times, 0.95)
        fixed = big[label]["queries"] == small[label]["queries"]
        met = median < PAGE_TARGET_MS and fixed
        ok &= met
        print(
            f"{label:<36}{median:>6.0f} ms{p95:>6.0f} ms{big[label]['queries']:>9}"
            f"{small[label]['queries']:>9}   {big[label]['shown']:<26}"
            f"median < {PAGE_TARGET_MS} ms ({median / PAGE_TARGET_MS:.2f}x of it), queries "
            f"fixed: {'met' if met else 'MISSED'}"
        )
    print(
        f"(at {args.small} servers, medians: "
        + ", ".join(
            f"{label.split()[1]} {statistics.median(small[label]['times']):.0f} ms"
            for label, _ in PAGES
        )
        + f"; {args.requests} requests each after a warm-up; queries of one request, the "
        "session's included)"
    )
    if args.profile:
        import cProfile
        import pstats

        began = time.perf_counter()
        selectors.matrix(limit=1000)
        print(
            f"\nselectors.matrix(limit=1000) alone: {(time.perf_counter() - began) * 1000:.0f} ms"
        )
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(3):
            selectors.matrix(limit=1000)
        profile.disable()
        pstats.Stats(profile).sort_stats("cumulative").print_stats(25)
    return ok


# ---- check: a routine check against an ad hoc collect run over SSH -------------------------------


def check_case(args) -> bool:
    from websockets.sync.client import connect

    from tests.e2e.serving import Site, stop
    from tests.sshd import SshdCluster

    folder = Path(tempfile.mkdtemp(prefix="otterweb-bench-configuration-ssh-"))
    folder.chmod(0o755)  # the servers' test user reads its keys and home in there
    data = folder / "site"
    data.mkdir()
    print(f"\nstarting {args.ssh_servers} sshd servers and an embedded site...", flush=True)
    with (
        SshdCluster(args.ssh_servers, folder / "sshd") as cluster,
        open(data / "server.log", "wb") as log,
    ):
        site = Site(data)
        # the default hourly routine check would check these servers too, were it to fall due
        site.manage(
            "shell",
            "-c",
            "from otterweb.schedules.models import Schedule; Schedule.objects.update(enabled=False)",
        )
        server = site.serve(log)
        try:
            names = [s.name for s in cluster.servers]
            script = (
                f"Ensure-File {cluster.home}/otterweb-bench-{uuid.uuid4().hex[:8]}/$ServerName.txt"
                " (Text: hello);\n"
            )
            prepare_ssh_site(site, cluster, script)

            def wait_complete(execution_id: int) -> dict:
                # told "complete" over the execution's websocket, as a browser is (bench/fanout.py)
                with connect(
                    f"ws://127.0.0.1:{site.port}/ws/executions/{execution_id}/",
                    additional_headers={"Authorization": f"Token {site.token}"},
                    max_size=None,
                ) as socket_:
                    while json.loads(socket_.recv(timeout=300))["type"] != "complete":
                        pass
                return site.api("GET", f"/api/executions/{execution_id}/")

            def ad_hoc() -> str:
                made = site.api(
                    "POST",
                    "/api/executions/",
                    {"script": script, "servers": names, "mode": "collect"},
                )
                detail = wait_complete(made["id"])
                if detail["status"] != "normal":
                    raise SystemExit(f"the ad hoc collect run ended {detail['status']}: {detail}")
                drifted = {d["server"] for d in detail["drift"]}
                if drifted != set(names):  # as the check finds: every server drifted
                    raise SystemExit(f"the ad hoc run found {len(drifted)} servers drifted")
                return f"execution {made['id']}, {len(drifted)} drifted"

            def rows() -> dict[str, dict]:
                found = site.api("GET", "/api/configuration/?limit=1000")["servers"]
                return {row["name"]: row for row in found if row["name"] in set(names)}

            def check() -> str:
                before = max((row["check"] or 0 for row in rows().values()), default=0)
                began = time.perf_counter()
                started = site.api("POST", "/api/configuration/check/", {"role": "bench-file"})
                if started["skipped"]:
                    raise SystemExit(f"servers left out of the check: {started['skipped']}")
                details = [wait_complete(e["id"]) for e in started["executions"]]
                polls = 0
                while True:
                    now = rows()
                    if all((row["check"] or 0) > before for row in now.values()):
                        break
                    polls += 1
                    if time.perf_counter() - began > 300:
                        raise SystemExit(f"checks not recorded after 300 s: {now}")
                    time.sleep(0.05)
                states = {row["state"] for row in now.values()}
                if states != {"drifted"} or len(now) != len(names):
                    raise SystemExit(f"the check recorded {states} for {len(now)} servers")
                ids = ",".join(str(d["id"]) for d in details)
                return f"execution {ids}, recorded {'at complete' if not polls else f'after {polls} polls'}"

            print(f"\n{'run':<5}{'ad hoc collect':>16}{'routine check':>16}   notes", flush=True)
            times: dict[str, list[float]] = {"ad hoc": [], "check": []}
            for run in range(args.runs):
                order = [("ad hoc", ad_hoc), ("check", check)]
                if run % 2:
                    order.reverse()
                notes = []
                for name, action in order:
                    began = time.perf_counter()
                    note = action()
                    times[name].append(time.perf_counter() - began)
                    notes.append(f"{name}: {note}")
                print(
                    f"{run + 1:<5}{times['ad hoc'][-1]:>15.2f}s{times['check'][-1]:>15.2f}s   "
                    + "; ".join(notes),
                    flush=True,
                )
        finally:
            stop(server)
            site.close()
    adhoc, checked = statistics.median(times["ad hoc"]), statistics.median(times["check"])
    ratio = checked / adhoc
    met = ratio <= CHECK_TARGET_RATIO
    print(
        f"{'median':<5}{adhoc:>15.2f}s{checked:>15.2f}s   check / ad hoc {ratio:.2f}x "
        f"(target <= {CHECK_TARGET_RATIO:g}x): {'met' if met else 'MISSED'}\n"
        f"({args.ssh_servers} SSH servers; ad hoc: POST /api/executions/ in collect mode to its "
        "websocket's complete; check: POST /api/configuration/check/ until every server's new "
        f"check is recorded; server log in {data / 'server.log'})"
    )
    return met


def prepare_ssh_site(site, cluster, script: str) -> None:
    """The key credential, a raft script of the desired state, its role, and the servers (their
    host keys trusted) with that role."""
    site.api(
        "POST",
        "/api/credentials/",
        {
            "name": "bench-key",
            "kind": "private_key",
            "username": cluster.user,
            "secret": cluster.client_key.read_text(),
        },
    )
    site.api("POST", "/api/rafts/", {"name": "bench"})
    item = site.api(
        "POST",
        "/api/raft-items/",
        {"raft": "bench", "name": "file-config", "kind": "script", "content": script},
    )
    site.api("POST", "/api/roles/", {"name": "bench-file", "configuration": item["id"]})
    for server in cluster.servers:
        site.api(
            "POST",
            "/api/servers/",
            {
                "name": server.name,
                "host": server.address,
                "port": server.port,
                "agent_type": "ssh",
                "credential": "bench-key",
                "host_keys": server.host_key,
                "roles": ["bench-file"],
            },
        )


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--cases", default="pages,check")
    options.add_argument("--servers", type=int, default=1000)
    options.add_argument("--small", type=int, default=100)
    options.add_argument("--rounds", type=int, default=3, help="rounds of recorded checks")
    options.add_argument("--requests", type=int, default=20)
    options.add_argument("--ssh-servers", type=int, default=100)
    options.add_argument("--runs", type=int, default=3)
    options.add_argument("--profile", action="store_true", help="profile selectors.matrix")
    args = options.parse_args()
    cases = args.cases.split(",")
    ok = True
    # the SSH case first: it starts its own site, and this process then becomes one (pages)
    if "check" in cases:
        ok &= check_case(args)
    if "pages" in cases:
        print()
        ok &= pages_case(args)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
