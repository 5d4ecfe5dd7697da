"""The SSH agent on real OpenSSH servers (the ``sshd`` fixture): commands streamed, cancelled
with their children, files over SFTP, one connection shared by many operations, host keys, the
errors of each way a connection fails, the server probe and HTTP from the server."""

from __future__ import annotations

import asyncio
import http.server
import secrets
import socket
import threading
from dataclasses import replace

import pytest

from engine.agents import AgentError
from engine.agents.base import HttpRequest
from engine.agents.ssh import (
    HostKeyChanged,
    HostKeyUntrusted,
    SshConnections,
    SshTarget,
    fingerprint,
    probe,
)


def target(cluster, number: int = 0, **changes) -> SshTarget:
    server = cluster.servers[number]
    made = SshTarget(
        server=server.name,
        address=server.address,
        port=server.port,
        user=server.user,
        private_key=cluster.client_key.read_text(),
        trusted_host_keys=(server.host_key,),
        connect_timeout=5,
    )
    return replace(made, **changes)


@pytest.fixture
async def agent(sshd):
    connections = SshConnections()
    yield await connections.agent(target(sshd))
    await connections.close()


async def lines_of(agent, command, **options) -> tuple[int, list[tuple[str, bool]]]:
    seen: list[tuple[str, bool]] = []
    code = await agent.run(
        command, on_output=lambda line, error: seen.append((line, error)), **options
    )
    return code, seen


async def test_ssh_agent_run_streams_both_streams_with_input_folder_and_environment(agent) -> None:
    code, seen = await lines_of(
        agent,
        ["sh", "-c", 'echo out; echo err >&2; pwd; echo "$GREETING"; cat; exit 3'],
        cwd="/tmp",
        env={"GREETING": 'it\'s "quoted" $HOME'},
        stdin=b"one\ntwo\n",
    )
    assert code == 3
    assert [line for line, error in seen if not error] == [
        "out",
        "/tmp",
        'it\'s "quoted" $HOME',
        "one",
        "two",
    ]
    assert [line for line, error in seen if error] == ["err"]


async def test_ssh_agent_run_reports_a_missing_program_and_folder(agent) -> None:
    code, seen = await lines_of(agent, ["no-such-program-here"])
    assert code == 127 and any("no-such-program-here" in line for line, _ in seen)
    code, seen = await lines_of(agent, ["true"], cwd="/no/such/folder")
    assert code == 127 and any("/no/such/folder" in line for line, _ in seen)


async def test_ssh_agent_cancel_kills_the_remote_process_tree(sshd, agent) -> None:
    marker = f"otter-{secrets.token_hex(4)}"
    running = asyncio.ensure_future(
        agent.run(["sh", "-c", f"sleep 300 & sleep 301; : {marker}"], on_output=lambda *_: None)
    )
    await asyncio.sleep(0.5)
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    other = SshConnections()
    try:
        watcher = await other.agent(target(sshd, 1))
        code, seen = await lines_of(watcher, ["pgrep", "-u", sshd.user, "-f", "sleep 30[01]"])
    finally:
        await other.close()
    assert code == 1 and seen == [], seen  # pgrep found nothing left


async def test_ssh_agent_files_over_sftp(agent) -> None:
    root = f"/tmp/otter-sftp-{secrets.token_hex(4)}"
    path = agent.join(root, "a", "b.txt")
    assert path == f"{root}/a/b.txt"
    await agent.write_file(path, b"first", mode=0o640)
    await agent.write_file(path, b"second")  # keeps the mode
    assert await agent.read_file(path) == b"second"
    info = await agent.stat(path)
    assert info is not None and (info.size, info.mode, info.is_directory) == (6, 0o640, False)
    listed = await agent.list_dir(root, recursive=True)
    assert [i.path for i in listed] == [f"{root}/a", path]  # no temporary file left beside it
    await agent.make_dirs(f"{root}/c/d")
    await agent.move(path, f"{root}/c")
    assert await agent.stat(f"{root}/c/b.txt") is not None and await agent.stat(path) is None
    await agent.set_mode(f"{root}/c/b.txt", 0o600)
    assert (await agent.stat(f"{root}/c/b.txt")).mode == 0o600
    with pytest.raises(AgentError, match="a file is in the way"):
        await agent.make_dirs(f"{root}/c/b.txt")
    with pytest.raises(AgentError, match=f"'{root}/nothing' on ssh1: it does not exist"):
        await agent.read_file(f"{root}/nothing")
    with pytest.raises(AgentError, match="is a directory"):
        await agent.read_file(root)
    await agent.delete(root)
    await agent.delete(root)  # nothing there is no error
    assert await agent.stat(root) is None


async def test_ssh_connections_share_one_connection_beyond_max_sessions(sshd) -> None:
    connections = SshConnections()
    try:
        agents = [await connections.agent(target(sshd)) for _ in range(3)]
        results = await asyncio.gather(
            *(lines_of(agents[n % 3], ["sh", "-c", f"sleep 0.2; echo {n}"]) for n in range(25))
        )
        assert [seen for _, seen in results] == [[(str(n), False)] for n in range(25)]
        assert len(connections._servers) == 1
        assert len({id(a._connection) for a in agents}) == 1
    finally:
        await connections.close()


async def test_ssh_connections_connect_a_few_servers_at_a_time(sshd) -> None:
    connections = SshConnections(max_connecting=1)
    try:
        agents = await asyncio.gather(*(connections.agent(target(sshd, n)) for n in range(3)))
        results = await asyncio.gather(*(lines_of(a, ["echo", a.server]) for a in agents))
        assert [seen for _, seen in results] == [
            [("ssh1", False)],
            [("ssh2", False)],
            [("ssh3", False)],
        ]
    finally:
        await connections.close()


async def test_ssh_connect_failures_name_server_address_and_cause(sshd) -> None:
    free = socket.socket()
    free.bind(("127.0.0.1", 0))
    port = free.getsockname()[1]
    free.close()
    silent = socket.socket()  # accepts, and never says a word
    silent.bind(("127.0.0.1", 0))
    silent.listen()
    try:
        cases = [
            (target(sshd, port=port), f"ssh1 (127.0.0.1:{port}): connection refused"),
            (
                target(sshd, port=silent.getsockname()[1], connect_timeout=0.5),
                "timed out after 0.5 s",
            ),
            (target(sshd, address="no-such-host.invalid"), "'no-such-host.invalid' was not found"),
            (
                target(sshd, private_key=None, password="Wrong-Password-3"),
                f"failed for the user '{sshd.user}' with a password",
            ),
            (target(sshd, user=""), "no user to log in to ssh1"),
        ]
        for wrong, message in cases:
            with pytest.raises(AgentError) as failure:
                await probe(wrong)
            assert message in str(failure.value)
            assert "Wrong-Password-3" not in str(failure.value)
    finally:
        silent.close()


async def test_ssh_host_keys_untrusted_changed_and_trusted_on_first_use(sshd) -> None:
    offered = " ".join(sshd.servers[0].host_key.split()[:2])
    with pytest.raises(HostKeyUntrusted) as untrusted:
        await probe(target(sshd, trusted_host_keys=()))
    assert untrusted.value.offered == offered
    assert untrusted.value.fingerprint == fingerprint(offered)
    other = sshd.client_key.with_suffix(".pub").read_text().strip()
    with pytest.raises(HostKeyChanged) as changed:
        await probe(target(sshd, trusted_host_keys=(other,)))
    assert fingerprint(other) in str(changed.value) and fingerprint(offered) in str(changed.value)
    heard = []
    connections = SshConnections(on_new_host_key=lambda server, key: heard.append((server, key)))
    try:
        agent = await connections.agent(target(sshd, trusted_host_keys=(), trust_on_first_use=True))
        assert (await lines_of(agent, ["true"]))[0] == 0
    finally:
        await connections.close()
    assert heard == [("ssh1", offered)]


def test_fingerprint_is_what_ssh_keygen_shows(sshd) -> None:
    import subprocess

    shown = subprocess.run(
        ["ssh-keygen", "-lf", str(sshd.client_key.with_suffix(".pub"))],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()[1]
    assert fingerprint(sshd.client_key.with_suffix(".pub").read_text()) == shown


async def test_ssh_probe_reads_latency_key_kernel_and_os(sshd) -> None:
    facts = await probe(target(sshd))
    assert facts.latency_ms > 0 and facts.kernel.startswith("Linux ")
    assert facts.host_key == " ".join(sshd.servers[0].host_key.split()[:2])
    assert facts.os_name


async def test_ssh_agent_http_is_made_on_the_server(agent) -> None:
    class Hello(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(201, "Made")
            self.end_headers()
            self.wfile.write(b"got " + body + b" " + self.headers["X-Otter"].encode())

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hello)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/x"
        answer = await agent.http(HttpRequest("POST", url, {"X-Otter": "yes"}, b"data"))
        assert (answer.status, answer.reason, answer.body) == (201, "Made", b"got data yes")
    finally:
        server.shutdown()
        server.server_close()
    with pytest.raises(AgentError, match="cannot reach"):
        await agent.http(HttpRequest("GET", url, {}))
