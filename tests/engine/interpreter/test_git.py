"""Checkout-Code and Ensure-GitRepository with the machine's git, against a bare repository the
test makes (a branch, a tag, commits), through the local agent (tests/engine/test_cli_run_ssh.py
checks one out over SSH)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from engine.interpreter import Level, RunCredential
from tests.git_http import GitHttp

TOKEN = "ghp-otter-0123456789"
IDENTITY = ["-c", "user.name=Ops", "-c", "user.email=ops@example.org"]


def git(*arguments: str, folder: Path) -> str:
    done = subprocess.run(
        ["git", *IDENTITY, "-C", str(folder), *arguments],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def commit(work: Path, name: str, text: str) -> str:
    (work / name).write_text(text)
    git("add", name, folder=work)
    git("commit", "--quiet", "-m", f"{name}: {text}", folder=work)
    git("push", "--quiet", "origin", "HEAD:main", folder=work)
    return git("rev-parse", "HEAD", folder=work)


@pytest.fixture
def origin(tmp_path):
    """A bare repository: main with two commits (the first tagged v1), and a branch release."""
    bare = tmp_path / "origin.git"
    subprocess.run(["git", "init", "--quiet", "--bare", "-b", "main", str(bare)], check=True)
    work = tmp_path / "author"
    subprocess.run(
        ["git", "clone", "--quiet", str(bare), str(work)], check=True, capture_output=True
    )
    git("checkout", "--quiet", "-b", "main", folder=work)
    first = commit(work, "app.conf", "port=8080\n")
    git("tag", "-a", "v1", "-m", "release 1", folder=work)
    git("push", "--quiet", "origin", "v1", folder=work)
    git("push", "--quiet", "origin", "HEAD:release", folder=work)
    second = commit(work, "app.conf", "port=9090\n")
    return {"url": str(bare), "work": work, "first": first, "second": second}


async def test_checkout_code_a_branch_a_tag_and_a_commit(run, origin, tmp_path) -> None:
    target = tmp_path / "site"
    script = (
        f"Git::Checkout-Code (RepositoryUrl: {origin['url']}, BranchOrCommit: {{ref}}, "
        f"To: {target}, CommitHash => $Commit);\nLog-Information commit $Commit;"
    )
    for ref, expected, text in (
        ("main", origin["second"], "port=9090\n"),
        ("v1", origin["first"], "port=8080\n"),
        ("release", origin["first"], "port=8080\n"),
        (origin["second"][:10], origin["second"], "port=9090\n"),
    ):
        ran = await run(script.format(ref=ref))
        assert ran.status == "normal", ran.messages()
        assert f"commit {expected}" in ran.info
        assert (target / "app.conf").read_text() == text


async def test_checkout_code_an_unknown_branch_is_a_clear_error(run, origin, tmp_path) -> None:
    ran = await run(
        f"Checkout-Code (RepositoryUrl: {origin['url']}, BranchOrCommit: nope, To: {tmp_path / 'x'});"
    )
    assert ran.messages(Level.ERROR) == [f"{origin['url']} has no branch, tag or commit 'nope'"]


async def test_ensure_git_repository_drifts_when_the_branch_or_the_copy_moves(
    run, origin, tmp_path
) -> None:
    target = tmp_path / "site"
    script = f"Ensure-GitRepository (RepositoryUrl: {origin['url']}, BranchOrCommit: main, To: {target});"
    (drift,) = (await run(script, mode="collect")).result.drifted
    assert ("Commit", origin["second"], None) in [
        (d.property, d.expected, d.actual) for d in drift.differences
    ]
    assert not target.exists()
    assert (await run(script)).status == "normal"
    assert not (await run(script, mode="collect")).result.drifted
    again = await run(script)
    assert f"{target} is already at {origin['second']} of {origin['url']}." in again.messages(
        Level.DEBUG
    )
    # the branch moves on: the working copy is behind
    third = commit(origin["work"], "app.conf", "port=7070\n")
    (drift,) = (await run(script, mode="collect")).result.drifted
    assert [(d.property, d.expected, d.actual) for d in drift.differences] == [
        ("Commit", third, origin["second"])
    ]
    await run(script)
    assert (target / "app.conf").read_text() == "port=7070\n"
    # someone edits the working copy: a local change drifts, and is discarded
    (target / "app.conf").write_text("port=1\n")
    (drift,) = (await run(script, mode="collect")).result.drifted
    assert [(d.property, d.expected, d.actual) for d in drift.differences] == [
        ("LocalChanges", False, True)
    ]
    await run(script)
    assert (target / "app.conf").read_text() == "port=7070\n"


@pytest.fixture
def served(origin, tmp_path):
    """The origin repository over git's smart HTTP, behind a login (user ops, a token)."""
    with GitHttp(Path(origin["url"]).parent, "ops", TOKEN) as server:
        yield server, server.url(Path(origin["url"]).name)


async def test_checkout_code_logs_in_to_an_http_repository_with_a_credential(
    run, host, origin, served, tmp_path
) -> None:
    _, url = served
    host.credentials["git-token"] = RunCredential(name="git-token", username="ops", secret=TOKEN)
    target = tmp_path / "site"
    ran = await run(
        f"Git::Checkout-Code (RepositoryUrl: {url}, BranchOrCommit: v1, To: {target}, "
        "Credentials: git-token);"
    )
    assert ran.status == "normal", ran.messages()
    assert (target / "app.conf").read_text() == "port=8080\n"
    # the token is in no file of the working copy, nor in any left behind
    assert TOKEN not in (target / ".git" / "config").read_text()
    assert TOKEN not in " ".join(ran.messages())
    ensured = f"Ensure-GitRepository (RepositoryUrl: {url}, To: {target}, Credentials: git-token);"
    (drift,) = (await run(ensured, mode="collect")).result.drifted
    assert [d.property for d in drift.differences] == ["Commit"]
    assert (await run(ensured)).status == "normal"
    assert (target / "app.conf").read_text() == "port=9090\n"


async def test_checkout_code_says_the_http_repository_refused_the_login(
    run, host, served, tmp_path
) -> None:
    server, url = served
    host.credentials["stale"] = RunCredential(name="stale", username="ops", secret="expired")
    for credentials in (", Credentials: stale", ""):
        ran = await run(f"Checkout-Code (RepositoryUrl: {url}, To: {tmp_path / 'x'}{credentials});")
        assert ran.status == "error"
        (error,) = [m for m in ran.messages(Level.ERROR) if "git exited" in m]
        assert f"Authentication failed for '{url}/'" in error or "could not read Username" in error
    assert server.refused >= 2
    ran = await run(f"Checkout-Code (RepositoryUrl: {tmp_path}, Credentials: stale);")
    assert any("Credentials are for http and https" in m for m in ran.messages(Level.ERROR))
