"""Transfer-Files: files from a folder on one server to a folder on another (or the same),
streamed a piece at a time through OtterWeb, so that a file of any size takes the same memory."""

from __future__ import annotations

import posixpath

from engine.agents import Agent
from engine.agents.base import FileInfo
from engine.operations.files import chosen_by_masks
from engine.registry import Kind, Operation, ParamType, operation, param

CHUNK = 1 << 20  # bytes of a file in memory at a time


async def stream(source: Agent, path: str, target: Agent, destination: str) -> int:
    """Copy the file ``path`` of ``source`` to ``destination`` on ``target`` a CHUNK at a time;
    the bytes copied."""
    offset = 0
    while True:
        data = await source.read_chunk(path, offset, CHUNK)
        if data or offset == 0:
            await target.write_chunk(destination, data, offset)
        offset += len(data)
        if len(data) < CHUNK:
            return offset


@operation(
    "Transfer-Files",
    namespace="Files",
    kind=Kind.EXECUTE,
    description="Copies files from a folder on one server to a folder on another (or the same), "
    "streamed; files the target already has with the same size and time are left alone.",
)
class TransferFiles(Operation):
    include = param("Include", ParamType.LIST, default=["*"], description="Masks of what to copy.")
    exclude = param("Exclude", ParamType.LIST, default=None, description="Masks of what to leave.")
    source_directory = param(
        "FromDirectory",
        aliases=("SourceDirectory",),
        default=None,
        description="The source folder (the working directory by default).",
    )
    source_server = param(
        "FromServer",
        aliases=("SourceServer",),
        default=None,
        description="The source server (the server in context by default).",
    )
    target_directory = param(
        "ToDirectory", aliases=("TargetDirectory",), required=True, description="The target folder."
    )
    target_server = param(
        "ToServer",
        aliases=("TargetServer",),
        default=None,
        description="The target server (the server in context by default).",
    )
    delete_target = param(
        "DeleteTarget",
        ParamType.BOOLEAN,
        default=False,
        description="Delete what the target folder has that the source does not (within the masks).",
    )
    set_last_modified = param(
        "SetLastModifiedDate",
        ParamType.BOOLEAN,
        default=True,
        description="Give each file its source's modified time (so that the next transfer skips it).",
    )
    batch_size = param(
        "BatchSize", ParamType.INTEGER, default=1, description="Accepted for compatibility."
    )
    verbose = param("Verbose", ParamType.BOOLEAN, default=False, description="Log each file.")

    def summary(self) -> str:
        source = f"{self.source_server}:" if self.source_server else ""
        target = f"{self.target_server}:" if self.target_server else ""
        return f"Transfer-Files {source}{self.source_directory or '.'} to {target}{self.target_directory}"

    async def execute(self, run) -> None:
        source = run.elsewhere(self.source_server) if self.source_server else run
        target = run.elsewhere(self.target_server) if self.target_server else run
        source_agent, target_agent = await source.agent(), await target.agent()
        # an SSH server's login folder is "": "." there
        root = source.resolve(self.source_directory or "") or "."
        into = target.resolve(self.target_directory) or "."
        chosen = self.chosen(root, await source_agent.list_dir(root, recursive=True))
        existing = (
            {
                posixpath.relpath(e.path, into): e
                for e in await target_agent.list_dir(into, recursive=True)
            }
            if await target_agent.stat(into) is not None
            else {}
        )
        await target_agent.make_dirs(into)
        copied = skipped = size = 0
        for relative, entry in sorted(chosen.items()):
            destination = posixpath.join(into, relative)
            if entry.is_directory:
                await target_agent.make_dirs(destination)
                continue
            there = existing.get(relative)
            if (
                there is not None
                and there.size == entry.size
                and int(there.modified) == int(entry.modified)
            ):
                skipped += 1
                continue
            # beside it under another name, then renamed over it: never half a file
            parked = posixpath.join(
                posixpath.dirname(destination), f".{posixpath.basename(destination)}.otter-transfer"
            )
            size += await stream(source_agent, entry.path, target_agent, parked)
            await target_agent.set_mode(parked, entry.mode)
            if self.set_last_modified:
                await target_agent.set_modified(parked, entry.modified)
            await target_agent.move(parked, destination)
            copied += 1
            if self.verbose:
                run.debug(f"Transferred {relative} ({entry.size:,} bytes).")
        deleted = (
            await self.delete_extra(run, target_agent, into, chosen, existing)
            if self.delete_target
            else 0
        )
        run.info(
            f"Transferred {copied} file{'s' if copied != 1 else ''} ({size:,} bytes) from "
            f"{source.server}:{root} to {target.server}:{into}"
            + (f"; {skipped} already there" if skipped else "")
            + (f"; deleted {deleted}" if deleted else "")
            + "."
        )

    def chosen(self, root: str, entries: list[FileInfo]) -> dict[str, FileInfo]:
        """The entries the masks choose, by their path from ``root``."""
        return chosen_by_masks(root, entries, self.include, self.exclude)

    async def delete_extra(self, run, agent: Agent, into: str, chosen: dict, existing: dict) -> int:
        there = chosen_by_masks(into, list(existing.values()), self.include, self.exclude)
        extra = [relative for relative in there if relative not in chosen]
        for relative in sorted(extra, key=lambda r: r.count("/"), reverse=True):
            await agent.delete(posixpath.join(into, relative))
            if self.verbose:
                run.debug(f"Deleted {relative} from the target.")
        return len(extra)
