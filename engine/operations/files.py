"""Files and directories on the server in context, through its agent."""

from __future__ import annotations

import io
import posixpath
import zipfile

from engine.functions.files import masks, matches
from engine.registry import Kind, Operation, ParamType, operation, param


async def _refuse_to_overwrite(agent, path: str, server: str) -> None:
    if await agent.stat(path) is not None:
        raise ValueError(f"'{path}' already exists on {server}; set Overwrite: true to replace it")


def _octal(text: str | None, default: int) -> int:
    if not text:
        return default
    try:
        return int(text, 8)
    except ValueError:
        raise ValueError(f"'{text}' is not an octal file mode like 644") from None


@operation(
    "Create-File",
    namespace="Files",
    kind=Kind.EXECUTE,
    description="Creates a file on the server in context.",
)
class CreateFile(Operation):
    name = param(
        "Name", positional=True, required=True, description="The path of the file to create."
    )
    text = param("Text", default="", description="The file's text.")
    overwrite = param(
        "Overwrite",
        ParamType.BOOLEAN,
        default=False,
        description="Replace a file that is already there.",
    )
    file_mode = param("FileMode", default="644", description="The octal file mode.")

    async def execute(self, run) -> None:
        agent = await run.agent()
        path = run.resolve(self.name)
        if not self.overwrite:
            await _refuse_to_overwrite(agent, path, run.server)
        await agent.write_file(path, (self.text or "").encode(), mode=_octal(self.file_mode, 0o644))
        run.info(f"Created {path} ({len(self.text or '')} characters).")


@operation(
    "Ensure-File",
    namespace="Files",
    kind=Kind.ENSURE,
    description="Ensures a file exists (or not) with the given text on the server in context.",
)
class EnsureFile(Operation):
    name = param("Name", positional=True, required=True, description="The path of the file.")
    text = param(
        "Text",
        default=None,
        description="The file's text (none: an empty file, when it is created).",
    )
    exists = param(
        "Exists", ParamType.BOOLEAN, default=True, description="Whether the file should exist."
    )
    read_only = param(
        "ReadOnly",
        ParamType.BOOLEAN,
        default=None,
        description="Whether the file should be read-only for everyone.",
    )
    attributes = param(
        "Attributes", default=None, description="Accepted for compatibility (Windows attributes)."
    )
    modified = param("Modified", default=None, description="Accepted for compatibility.")

    def desired(self) -> dict:
        wanted: dict = {"Exists": self.exists}
        if self.exists:
            wanted["Text"] = self.text
            wanted["ReadOnly"] = self.read_only
        return wanted

    async def collect(self, run) -> dict:
        agent = await run.agent()
        path = run.resolve(self.name)
        info = await agent.stat(path)
        if info is None or info.is_directory:
            return {"Exists": False}
        actual: dict = {"Exists": True, "ReadOnly": not info.mode & 0o222}
        if self.text is not None:
            actual["Text"] = (await agent.read_file(path)).decode("utf-8", errors="replace")
        return actual

    async def execute(self, run) -> None:
        agent = await run.agent()
        path = run.resolve(self.name)
        if not self.exists:
            await agent.delete(path)
            run.info(f"Deleted {path}.")
            return
        info = await agent.stat(path)
        if info is None or self.text is not None:
            if info is not None and not info.mode & 0o200:
                await agent.set_mode(path, info.mode | 0o200)
            await agent.write_file(path, (self.text or "").encode())
            run.info(f"Wrote {path}.")
        if self.read_only is not None:
            current = (await agent.stat(path)).mode
            mode = current & ~0o222 if self.read_only else current | 0o200
            await agent.set_mode(path, mode)


@operation(
    "Ensure-Directory",
    namespace="Files",
    kind=Kind.ENSURE,
    description="Ensures a directory exists (or not) on the server in context.",
)
class EnsureDirectory(Operation):
    name = param("Name", positional=True, required=True, description="The path of the directory.")
    exists = param(
        "Exists", ParamType.BOOLEAN, default=True, description="Whether the directory should exist."
    )

    def desired(self) -> dict:
        return {"Exists": self.exists}

    async def collect(self, run) -> dict:
        info = await (await run.agent()).stat(run.resolve(self.name))
        return {"Exists": info is not None and info.is_directory}

    async def execute(self, run) -> None:
        agent = await run.agent()
        path = run.resolve(self.name)
        if self.exists:
            await agent.make_dirs(path)
            run.info(f"Directory {path} exists.")
        else:
            await agent.delete(path)
            run.info(f"Deleted directory {path}.")


def chosen_by_masks(root: str, entries: list, include, exclude) -> dict:
    """The entries (FileInfo) under ``root`` that the masks choose, by their path from it."""
    included, excluded = masks(include), masks(exclude or [])
    found = {}
    for entry in entries:
        relative = posixpath.relpath(entry.path, root)
        if matches(relative, included, excluded):
            found[relative] = entry
    return found


async def _selected(run, directory: str | None, include, exclude) -> tuple[str, list]:
    agent = await run.agent()
    root = run.resolve(directory or "")
    entries = await agent.list_dir(root, recursive=True)
    return root, list(chosen_by_masks(root, entries, include, exclude).values())


@operation(
    "Delete-Files",
    namespace="Files",
    kind=Kind.EXECUTE,
    description="Deletes files (and folders) matching masks on the server in context.",
)
class DeleteFiles(Operation):
    include = param(
        "Include",
        ParamType.LIST,
        positional=True,
        required=True,
        description="Masks of what to delete: *.log, **/tmp.",
    )
    exclude = param("Exclude", ParamType.LIST, default=None, description="Masks of what to keep.")
    directory = param(
        "Directory", default=None, description="Where to look (the working directory by default)."
    )
    verbose = param(
        "Verbose", ParamType.BOOLEAN, default=False, description="Log each deleted path."
    )

    async def execute(self, run) -> None:
        agent = await run.agent()
        _root, chosen = await _selected(run, self.directory, self.include, self.exclude)
        deleted = 0
        for entry in sorted(chosen, key=lambda e: e.path.count("/"), reverse=True):
            if await agent.stat(entry.path) is None:
                continue
            await agent.delete(entry.path)
            deleted += 1
            if self.verbose:
                run.debug(f"Deleted {entry.path}.")
        run.info(f"Deleted {deleted} item{'s' if deleted != 1 else ''}.")


@operation(
    "Copy-Files",
    namespace="Files",
    kind=Kind.EXECUTE,
    description="Copies files matching masks from one directory to another on the server in context.",
)
class CopyFiles(Operation):
    include = param("Include", ParamType.LIST, default=["*"], description="Masks of what to copy.")
    exclude = param("Exclude", ParamType.LIST, default=None, description="Masks of what to leave.")
    source = param(
        "From",
        aliases=("SourceDirectory",),
        default=None,
        description="The source directory (the working directory by default).",
    )
    target = param(
        "To", aliases=("TargetDirectory",), required=True, description="The target directory."
    )
    overwrite = param(
        "Overwrite",
        ParamType.BOOLEAN,
        default=False,
        description="Replace files already in the target.",
    )
    verbose = param(
        "Verbose", ParamType.BOOLEAN, default=False, description="Log each copied file."
    )

    async def execute(self, run) -> None:
        agent = await run.agent()
        root, chosen = await _selected(run, self.source, self.include, self.exclude)
        target = run.resolve(self.target)
        copied = 0
        for entry in chosen:
            if entry.is_directory:
                continue
            destination = posixpath.join(target, posixpath.relpath(entry.path, root))
            if not self.overwrite:
                await _refuse_to_overwrite(agent, destination, run.server)
            await agent.write_file(destination, await agent.read_file(entry.path), mode=entry.mode)
            copied += 1
            if self.verbose:
                run.debug(f"Copied {entry.path} to {destination}.")
        run.info(f"Copied {copied} file{'s' if copied != 1 else ''} to {target}.")


@operation(
    "Rename-File",
    namespace="Files",
    kind=Kind.EXECUTE,
    description="Renames (moves) a file on the server in context.",
)
class RenameFile(Operation):
    source = param(
        "Name", aliases=("From", "SourceFileName"), required=True, description="The file to rename."
    )
    target = param("To", aliases=("TargetFileName",), required=True, description="Its new path.")
    overwrite = param(
        "Overwrite",
        ParamType.BOOLEAN,
        default=False,
        description="Replace a file already at the new path.",
    )

    async def execute(self, run) -> None:
        agent = await run.agent()
        source, target = run.resolve(self.source), run.resolve(self.target)
        if await agent.stat(source) is None:
            raise ValueError(f"'{source}' does not exist on {run.server}")
        if not self.overwrite:
            await _refuse_to_overwrite(agent, target, run.server)
        await agent.delete(target)
        await agent.move(source, target)
        run.info(f"Renamed {source} to {target}.")


@operation(
    "Replace-Text",
    namespace="Files",
    kind=Kind.EXECUTE,
    description="Replaces text in files matching masks on the server in context.",
)
class ReplaceText(Operation):
    include = param(
        "Include", ParamType.LIST, default=["*"], description="Masks of the files to change."
    )
    exclude = param("Exclude", ParamType.LIST, default=None, description="Masks of files to leave.")
    directory = param(
        "Directory", default=None, description="Where to look (the working directory by default)."
    )
    search = param(
        "SearchText",
        aliases=("Search",),
        required=True,
        description="The text (or regular expression) to find.",
    )
    replace = param(
        "ReplaceWith", aliases=("Replace",), default="", description="What to put in its place."
    )
    regex = param(
        "UseRegex",
        ParamType.BOOLEAN,
        default=False,
        description="Treat SearchText as a regular expression.",
    )

    async def execute(self, run) -> None:
        from engine.patterns import compile as compile_pattern
        from engine.patterns import escape

        agent = await run.agent()
        _root, chosen = await _selected(run, self.directory, self.include, self.exclude)
        # each file is searched with the engine's time limit for a regular expression
        text = self.search if self.regex else escape(self.search)
        pattern = compile_pattern(text, dotnet=self.regex, name="SearchText")
        changed = 0
        for entry in chosen:
            if entry.is_directory:
                continue
            text = (await agent.read_file(entry.path)).decode("utf-8", errors="replace")
            updated, count = pattern.subn(lambda _m: self.replace, text)
            if count:
                await agent.write_file(entry.path, updated.encode(), mode=entry.mode)
                changed += 1
                run.debug(
                    f"Replaced {count} occurrence{'s' if count != 1 else ''} in {entry.path}."
                )
        run.info(f"Changed {changed} file{'s' if changed != 1 else ''}.")


@operation(
    "Concatenate-Files",
    namespace="Files",
    kind=Kind.EXECUTE,
    description="Joins files matching masks into one file on the server in context.",
)
class ConcatenateFiles(Operation):
    include = param(
        "Include",
        ParamType.LIST,
        default=["*"],
        description="Masks of the files to join, in name order.",
    )
    exclude = param(
        "Exclude", ParamType.LIST, default=None, description="Masks of files to leave out."
    )
    directory = param(
        "Directory", default=None, description="Where to look (the working directory by default)."
    )
    output = param(
        "OutputFile", aliases=("Output",), required=True, description="The file to write."
    )
    separator = param(
        "ContentSeparationText",
        aliases=("Separator",),
        default="",
        description="Text between the files.",
    )
    newline = param(
        "ForceLinuxNewlines",
        ParamType.BOOLEAN,
        default=False,
        description="Accepted for compatibility.",
    )

    async def execute(self, run) -> None:
        agent = await run.agent()
        _root, chosen = await _selected(run, self.directory, self.include, self.exclude)
        output = run.resolve(self.output)
        parts = [
            await agent.read_file(e.path) for e in chosen if not e.is_directory and e.path != output
        ]
        await agent.write_file(output, self.separator.encode().join(parts))
        run.info(f"Wrote {len(parts)} file{'s' if len(parts) != 1 else ''} into {output}.")


@operation(
    "Create-ZipFile",
    namespace="Files",
    kind=Kind.EXECUTE,
    description="Zips a directory on the server in context.",
)
class CreateZipFile(Operation):
    name = param(
        "Name", aliases=("FileName",), required=True, description="The zip file to create."
    )
    directory = param(
        "Directory",
        aliases=("SourceDirectory",),
        required=True,
        description="The directory to zip.",
    )
    overwrite = param(
        "Overwrite", ParamType.BOOLEAN, default=False, description="Replace an existing zip file."
    )

    async def execute(self, run) -> None:
        agent = await run.agent()
        source, target = run.resolve(self.directory), run.resolve(self.name)
        if not self.overwrite:
            await _refuse_to_overwrite(agent, target, run.server)
        buffer = io.BytesIO()
        count = 0
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for entry in await agent.list_dir(source, recursive=True):
                if entry.is_directory or entry.path == target:
                    continue
                archive.writestr(
                    posixpath.relpath(entry.path, source), await agent.read_file(entry.path)
                )
                count += 1
        await agent.write_file(target, buffer.getvalue())
        run.info(f"Zipped {count} file{'s' if count != 1 else ''} into {target}.")


@operation(
    "Extract-ZipFile",
    namespace="Files",
    kind=Kind.EXECUTE,
    description="Extracts a zip file on the server in context.",
)
class ExtractZipFile(Operation):
    name = param(
        "Name", aliases=("FileName",), positional=True, required=True, description="The zip file."
    )
    directory = param(
        "Directory", aliases=("TargetDirectory",), required=True, description="Where to extract it."
    )
    overwrite = param(
        "Overwrite", ParamType.BOOLEAN, default=False, description="Replace files already there."
    )
    clear = param(
        "ClearTargetDirectory",
        ParamType.BOOLEAN,
        default=False,
        description="Empty the target directory first.",
    )

    async def execute(self, run) -> None:
        agent = await run.agent()
        source, target = run.resolve(self.name), run.resolve(self.directory)
        data = await agent.read_file(source)
        if self.clear:
            await agent.delete(target)
        try:
            archive = zipfile.ZipFile(io.BytesIO(data))
        except zipfile.BadZipFile:
            raise ValueError(f"'{source}' on {run.server} is not a zip file") from None
        count = 0
        with archive:
            for item in archive.infolist():
                path = posixpath.normpath(posixpath.join(target, item.filename))
                if not path.startswith(target.rstrip("/") + "/"):
                    raise ValueError(
                        f"'{item.filename}' in {source} would be written outside {target}"
                    )
                if item.is_dir():
                    await agent.make_dirs(path)
                    continue
                if not self.overwrite:
                    await _refuse_to_overwrite(agent, path, run.server)
                await agent.write_file(path, archive.read(item))
                count += 1
        run.info(f"Extracted {count} file{'s' if count != 1 else ''} into {target}.")


@operation(
    "Set-FileAttributes",
    namespace="Files",
    kind=Kind.EXECUTE,
    description="Sets the mode (or read-only flag) of files matching masks on the server in context.",
)
class SetFileAttributes(Operation):
    include = param(
        "Include", ParamType.LIST, default=["*"], description="Masks of the files to change."
    )
    exclude = param("Exclude", ParamType.LIST, default=None, description="Masks of files to leave.")
    directory = param(
        "Directory", default=None, description="Where to look (the working directory by default)."
    )
    read_only = param(
        "ReadOnly",
        ParamType.BOOLEAN,
        default=None,
        description="Make the files read-only (or writable).",
    )
    mode = param("FileMode", default=None, description="An octal mode to set, like 755.")

    async def execute(self, run) -> None:
        agent = await run.agent()
        _root, chosen = await _selected(run, self.directory, self.include, self.exclude)
        changed = 0
        for entry in chosen:
            if entry.is_directory:
                continue
            mode = entry.mode
            if self.mode:
                mode = _octal(self.mode, mode)
            if self.read_only is not None:
                mode = mode & ~0o222 if self.read_only else mode | 0o200
            if mode != entry.mode:
                await agent.set_mode(entry.path, mode)
                changed += 1
        run.info(f"Changed the mode of {changed} file{'s' if changed != 1 else ''}.")
