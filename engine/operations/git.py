"""Git working copies on the server in context, with the server's own git: a branch, a tag or a
commit of a repository checked out into a folder, once (Checkout-Code) or as a declared state
that drifts when the working copy moves (Ensure-GitRepository)."""

from __future__ import annotations

import re
import shlex
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from engine.interpreter.host import PASSWORD, TOKEN
from engine.operations.process import must_run, output_of
from engine.registry import Kind, Operation, ParamType, operation, param

COMMIT = re.compile(r"[0-9a-f]{7,40}")
REMOTE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://|^[^/]+:")  # a URL, or user@host:path


class WorkingCopy(Operation):
    """What both operations take: the repository, what to check out, and where."""

    url = param(
        "RepositoryUrl",
        aliases=("Url",),
        required=True,
        description="The repository: a URL git takes (https://, ssh://, user@host:path) or a path.",
    )
    branch_or_commit = param(
        "BranchOrCommit",
        aliases=("Branch",),
        description="A branch, a tag or a commit (the repository's default branch when not set).",
    )
    to = param(
        "To",
        aliases=("DiskPath",),
        description="The working copy's folder (the working directory when not set).",
    )
    recurse_submodules = param(
        "RecurseSubmodules",
        ParamType.BOOLEAN,
        default=False,
        description="Check the submodules out too.",
    )
    credentials = param(
        "Credentials",
        default=None,
        description="A credential for a repository over http or https: a user name and "
        "password, or a token (sent as the password). Over SSH, the login's key is used.",
    )
    # git's options that hand it the credential (see `login`), while one is handed
    helper: tuple[str, ...] = ()

    @asynccontextmanager
    async def login(self, run) -> AsyncIterator[None]:
        """While inside, git asks the credential helper that reads Credentials from a file only
        the user running git can read (mktemp's), removed afterwards: the secret is never in a
        command line, an environment or the repository's configuration."""
        if not self.credentials:
            yield
            return
        if not self.url.lower().startswith(("http://", "https://")):
            raise ValueError(
                f"Credentials are for http and https repositories; {self.url} is reached "
                "with the login's own keys"
            )
        credential = run.credential(self.credentials, kinds=(PASSWORD, TOKEN), use=self.spec.name)
        run.add_secret(credential.secret)
        path = await must_run(run, ["mktemp"])
        try:
            answer = f"username={credential.username or 'git'}\npassword={credential.secret}\n"
            await must_run(run, ["sh", "-c", 'cat > "$1"', "sh", path], stdin=answer.encode())
            helper = f'!f() {{ test "$1" = get && cat {shlex.quote(path)}; }}; f'
            self.helper = ("-c", "credential.helper=", "-c", f"credential.helper={helper}")
            yield
        finally:
            self.helper = ()
            await must_run(run, ["rm", "-f", path])

    def summary(self) -> str:
        return f"{self.spec.name} {self.url} {self.branch_or_commit or ''}".rstrip()

    async def repository(self, run) -> str:
        """The URL, or the repository's absolute path on the server: git runs in the working
        copy's folder, where a relative path would mean something else."""
        if REMOTE.match(self.url):
            return self.url
        code, output, errors = await output_of(
            run, ["sh", "-c", 'cd "$1" && pwd -P', "sh", run.resolve(self.url)]
        )
        if code != 0:
            raise ValueError(
                f"the repository {self.url} is not on {run.server}: {' '.join(errors)}"
            )
        return output

    def folder(self, run) -> str:
        return run.resolve(self.to or "") or "."

    async def git(self, run, *arguments: str, folder: str | None = None) -> str:
        # never a prompt for a login: a missing or refused one is an error that says so
        return await must_run(
            run,
            [
                "env",
                "GIT_TERMINAL_PROMPT=0",
                "git",
                *self.helper,
                *(["-C", folder] if folder else []),
                *arguments,
            ],
        )

    async def is_working_copy(self, run) -> bool:
        agent = await run.agent()
        return await agent.stat(agent.join(self.folder(run), ".git")) is not None

    async def remote_commit(self, run, repository: str) -> str:
        """The commit BranchOrCommit names in ``repository``, read without fetching: a branch
        or a tag's (a tag's commit, not the tag), or the commit given."""
        wanted = self.branch_or_commit or "HEAD"
        refs = (
            [wanted]
            if wanted == "HEAD"
            else [f"refs/heads/{wanted}", f"refs/tags/{wanted}", f"refs/tags/{wanted}^{{}}"]
        )
        listed = await self.git(run, "ls-remote", repository, *refs)
        found: dict[str, str] = {}  # ref -> commit
        for line in listed.splitlines():
            commit, _, ref = line.partition("\t")
            found[ref] = commit
        for ref in reversed(refs):  # the peeled tag first, then the tag, then the branch
            if ref in found:
                return found[ref]
        if COMMIT.fullmatch(wanted):
            return wanted
        raise ValueError(f"{self.url} has no branch, tag or commit '{wanted}'")

    async def check_out(self, run, repository: str, commit: str) -> str:
        """Clone ``repository`` or fetch it, then check ``commit`` out, local changes discarded;
        the commit checked out, in full."""
        folder = self.folder(run)
        if await self.is_working_copy(run):
            await self.git(run, "remote", "set-url", "origin", repository, folder=folder)
            await self.git(run, "fetch", "--quiet", "--tags", "--force", "origin", folder=folder)
        else:
            await (await run.agent()).make_dirs(folder)
            await self.git(run, "clone", "--quiet", "--no-checkout", repository, folder)
        await self.git(run, "checkout", "--quiet", "--force", "--detach", commit, folder=folder)
        if self.recurse_submodules:
            await self.git(
                run, "submodule", "update", "--quiet", "--init", "--recursive", folder=folder
            )
        return await self.git(run, "rev-parse", "HEAD", folder=folder)


@operation(
    "Checkout-Code",
    "Get-GitRepository",
    namespace="Git",
    kind=Kind.EXECUTE,
    description="Checks a branch, a tag or a commit of a git repository out into a folder on the "
    "server in context (cloned the first time, fetched after), with the server's git.",
)
class CheckoutCode(WorkingCopy):
    commit_hash = param(
        "CommitHash", output=True, description="The commit checked out, for CommitHash => $var."
    )
    preserve_last_modified = param(
        "PreserveLastModified",
        ParamType.BOOLEAN,
        default=False,
        description="Accepted for compatibility (files get the checkout's time).",
    )

    async def execute(self, run) -> None:
        repository = await self.repository(run)
        async with self.login(run):
            commit = await self.remote_commit(run, repository)
            self.commit_hash = await self.check_out(run, repository, commit)
        run.info(f"Checked out {self.commit_hash[:12]} of {self.url}.")


@operation(
    "Ensure-GitRepository",
    namespace="Git",
    kind=Kind.ENSURE,
    description="Ensures a folder on the server in context is a working copy of a git repository "
    "at the commit a branch, a tag or a commit names, with no local changes.",
)
class EnsureGitRepository(WorkingCopy):
    # found by collect: the repository (a path made absolute) and the commit BranchOrCommit names
    wanted_url: str | None = None
    wanted_commit: str | None = None

    def desired(self) -> dict:
        return {
            "RepositoryUrl": self.wanted_url,
            "Commit": self.wanted_commit,
            "LocalChanges": False,
        }

    async def collect(self, run) -> dict:
        self.wanted_url = await self.repository(run)
        async with self.login(run):
            self.wanted_commit = await self.remote_commit(run, self.wanted_url)
        if not await self.is_working_copy(run):
            return {"RepositoryUrl": None, "Commit": None, "LocalChanges": None}
        folder = self.folder(run)
        head = await self.git(run, "rev-parse", "HEAD", folder=folder)
        url = await self.git(run, "remote", "get-url", "origin", folder=folder)
        changes = await self.git(
            run, "status", "--porcelain", "--untracked-files=no", folder=folder
        )
        return {
            "RepositoryUrl": url,
            "Commit": self.wanted_commit if head.startswith(self.wanted_commit) else head,
            "LocalChanges": bool(changes.strip()),
        }

    async def execute(self, run) -> None:
        folder = self.folder(run)
        actual = await self.collect(run)
        wanted = self.desired()
        if actual == wanted:
            run.debug(f"{folder} is already at {wanted['Commit']} of {self.url}.")
            return
        async with self.login(run):
            commit = await self.check_out(run, wanted["RepositoryUrl"], wanted["Commit"])
        run.info(f"{folder} is now at {commit[:12]} of {self.url}.")
