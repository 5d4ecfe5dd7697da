"""Transfer-Files between servers of one run: this machine's local agent and the loopback
sshd's servers (tests/sshd.py), masks, times, DeleteTarget, and a file of 100 MB streamed
through, the run's memory flat."""

from __future__ import annotations

import hashlib
import os
import tracemalloc
import uuid
from pathlib import Path

import pytest

from engine import SshTarget
from engine.interpreter import ListSink, ScriptRun, StandaloneHost
from engine.parser import parse

BIG = 100 * 1024 * 1024


class Servers(StandaloneHost):
    """The sshd fixture's servers and this machine (localhost) in one run."""

    def servers(self) -> list[str]:
        return ["localhost", *super().servers()]

    async def agent(self, server, *, credential=None):
        if server.casefold() == "localhost":
            return await super(StandaloneHost, self).agent(server, credential=credential)
        return await super().agent(server, credential=credential)

    def working_directory_of(self, server: str) -> str:
        return self.working_directory if server.casefold() == "localhost" else ""


def targets(cluster) -> list[SshTarget]:
    return [cluster.target(index) for index in range(len(cluster.servers))]


async def run(cluster, tmp_path: Path, text: str) -> tuple[str, list[str]]:
    sink = ListSink()
    host = Servers(sink=sink, working_directory=str(tmp_path), ssh_servers=targets(cluster))
    host.default_server = "localhost"
    result = await ScriptRun(parse(text), host=host).run()
    return result.status.label, sink.messages()


def digest(path: Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            sha.update(chunk)
    return sha.hexdigest()


def home_of(cluster) -> Path:
    return Path(os.path.expanduser(f"~{cluster.servers[0].user}"))


@pytest.mark.slow
async def test_transfer_files_streams_a_large_file_across_servers_in_flat_memory(
    sshd, tmp_path
) -> None:
    tag = uuid.uuid4().hex[:8]
    source = tmp_path / "release"
    (source / "bin").mkdir(parents=True)
    with (source / "bin" / "image.bin").open("wb") as handle:
        for _ in range(BIG // (1 << 20)):
            handle.write(os.urandom(1 << 20))
    (source / "app.conf").write_text("port=8080\n")
    expected = digest(source / "bin" / "image.bin")
    ssh1, ssh2 = sshd.servers[0].name, sshd.servers[1].name
    script = f"""
Transfer-Files (FromDirectory: {source}, ToServer: {ssh1}, ToDirectory: otter-transfer-{tag}/a);
Transfer-Files (FromServer: {ssh1}, FromDirectory: otter-transfer-{tag}/a, ToServer: {ssh2}, ToDirectory: otter-transfer-{tag}/b);
Transfer-Files (FromServer: {ssh2}, FromDirectory: otter-transfer-{tag}/b, ToDirectory: {tmp_path / "back"});
"""
    tracemalloc.start()
    try:
        status, messages = await run(sshd, tmp_path, script)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert status == "normal", messages
    back = tmp_path / "back"
    assert digest(back / "bin" / "image.bin") == expected
    assert (back / "app.conf").read_text() == "port=8080\n"
    # the source's times went along, each hop
    assert int((back / "bin" / "image.bin").stat().st_mtime) == int(
        (source / "bin" / "image.bin").stat().st_mtime
    )
    assert peak < 20 * 1024 * 1024, f"{peak:,} bytes at the peak for a {BIG:,}-byte file"
    sent = [m for m in messages if m.startswith("Transferred 2 files")]
    assert len(sent) == 3 and f"({BIG + 10:,} bytes)" in sent[0]
    assert f"to {ssh1}:otter-transfer-{tag}/a" in sent[0]
    # the sshd's servers are this machine's test user: its home holds what they were sent
    for folder in ("a", "b"):
        assert (
            digest(home_of(sshd) / f"otter-transfer-{tag}" / folder / "bin" / "image.bin")
            == expected
        )


async def test_transfer_files_skips_what_is_there_and_deletes_what_the_source_lacks(
    sshd, tmp_path
) -> None:
    source, target = tmp_path / "site", tmp_path / "copy"
    (source / "css").mkdir(parents=True)
    (source / "index.html").write_text("<h1>hi</h1>")
    (source / "css" / "site.css").write_text("h1 {}")
    (source / "notes.tmp").write_text("scratch")
    script = (
        f"Transfer-Files (FromDirectory: {source}, ToDirectory: {target}, "
        "Exclude: @(*.tmp), DeleteTarget: true);"
    )
    status, messages = await run(sshd, tmp_path, script)
    assert status == "normal", messages
    assert sorted(str(p.relative_to(target)) for p in target.rglob("*")) == [
        "css",
        "css/site.css",
        "index.html",
    ]
    (target / "old.html").write_text("gone soon")
    (target / "notes.tmp").write_text("excluded: kept")
    (source / "index.html").write_text("<h1>hello</h1>")
    status, messages = await run(sshd, tmp_path, script)
    assert status == "normal", messages
    assert any(
        m.startswith("Transferred 1 file (") and "; 1 already there; deleted 1." in m
        for m in messages
    ), messages
    assert (target / "index.html").read_text() == "<h1>hello</h1>"
    assert not (target / "old.html").exists() and (target / "notes.tmp").exists()


async def test_transfer_files_refuses_a_server_the_run_does_not_have(sshd, tmp_path) -> None:
    status, messages = await run(
        sshd,
        tmp_path,
        f"Transfer-Files (FromDirectory: {tmp_path}, ToServer: nowhere, ToDirectory: x);",
    )
    assert status == "error"
    assert any("server 'nowhere' is not one this execution may use" in m for m in messages)
