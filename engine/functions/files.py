"""Files and paths on the server in context, through its agent."""

from __future__ import annotations

import fnmatch
import posixpath

from engine.registry import function
from engine.values import Value, to_text


@function(
    "PathCombine",
    returns="$",
    params=("path1", "path2"),
    variadic=True,
    description="The parts joined into one path.",
)
def path_combine(call, *parts):
    return posixpath.join(*(to_text(part) for part in parts))


@function(
    "ResolvePath",
    returns="$",
    params=("path",),
    optional=1,
    description="The absolute path of a path relative to the working directory, with / for \\ "
    "and a / at the end: $ResolvePath(my\\dir) is {WorkingDirectory}/my/dir/.",
)
def resolve_path(call, path=""):
    resolved = call.resolve(to_text(path).replace("\\", "/"))
    return resolved if resolved.endswith("/") else resolved + "/"


@function(
    "FileExists",
    returns="$",
    params=("FileName",),
    description="true when the file exists on the server in context.",
)
async def file_exists(call, name):
    info = await (await call.agent()).stat(call.resolve(to_text(name)))
    return "true" if info is not None and not info.is_directory else "false"


@function(
    "DirectoryExists",
    returns="$",
    params=("DirectoryName",),
    description="true when the directory exists on the server in context.",
)
async def directory_exists(call, name):
    info = await (await call.agent()).stat(call.resolve(to_text(name)))
    return "true" if info is not None and info.is_directory else "false"


@function(
    "FileContents",
    returns="$",
    params=("FileName", "MaxLength"),
    optional=1,
    description="The text of a file on the server in context.",
)
async def file_contents(call, name, max_length=None):
    data = await (await call.agent()).read_file(call.resolve(to_text(name)))
    text = data.decode("utf-8", errors="replace")
    if max_length is not None:
        text = text[: int(to_text(max_length))]
    return text


def masks(value: Value) -> list[str]:
    return [to_text(v) for v in (value if isinstance(value, list) else [value]) if to_text(v)]


def matches(relative: str, includes: list[str], excludes: list[str]) -> bool:
    """Inedo masks: `*` within a folder, `**` across folders, a bare name anywhere."""

    def match(mask: str) -> bool:
        mask = mask.replace("\\", "/")
        if "/" not in mask:  # a bare mask (*.cs, **.csproj) matches file names in every folder
            return fnmatch.fnmatch(posixpath.basename(relative), mask)
        return fnmatch.fnmatch(relative, mask)

    return any(match(m) for m in includes) and not any(match(m) for m in excludes)


@function(
    "FilesOnDisk",
    "FileMask",
    returns="@",
    params=("Includes", "Excludes", "InDirectory"),
    optional=2,
    description="The files under a directory that match the masks.",
)
async def files_on_disk(call, includes, excludes=None, directory=None):
    root = call.resolve(
        to_text(directory[0] if isinstance(directory, list) and directory else directory or "")
    )
    agent = await call.agent()
    found = []
    for info in await agent.list_dir(root, recursive=True):
        if info.is_directory:
            continue
        relative = posixpath.relpath(info.path, root)
        if matches(relative, masks(includes), masks(excludes or [])):
            found.append(info.path)
    return found
