"""Lines of text files on the server in context: one line present or absent, and the entries of
a hosts file. The file is read and written whole through the agent, and written only when a line
changes."""

from __future__ import annotations

import contextlib
import time

from engine.agents import AgentError
from engine.operations.process import must_run, shell_command
from engine.patterns import compile as compile_pattern
from engine.registry import Kind, Operation, ParamType, operation, param


async def read_lines(run, path: str) -> list[str] | None:
    """The lines of the file at ``path`` without their line breaks; None when there is no such
    file. The file is read once for the operations that read it until something changes the
    server (a run's facts): each caller gets a list of its own to change."""
    agent = await run.agent()

    async def load() -> tuple[str, ...] | None:
        try:
            data = await agent.read_file(path)
        except AgentError:  # asked why only then: a check of 100 servers reads 100 files
            info = await agent.stat(path)
            if info is None or info.is_directory:
                return None
            raise
        return tuple(data.decode("utf-8", errors="replace").splitlines())

    lines = await run.fact(f"lines of {path}", load)
    return None if lines is None else list(lines)


async def write_lines(agent, path: str, lines: list[str]) -> None:
    await agent.write_file(path, "".join(line + "\n" for line in lines).encode())


@operation(
    "Ensure-FileLine",
    namespace="Files",
    kind=Kind.ENSURE,
    description="Ensures a line is in a text file (in place of the lines that Match finds, or "
    "at its end), or that no line Match finds is there, on the server in context.",
)
class EnsureFileLine(Operation):
    name = param("Name", positional=True, required=True, description="The path of the file.")
    line = param("Line", description="The line the file should hold (required when it exists).")
    match = param(
        "Match",
        description="A regular expression finding the lines that stand for it "
        "(^PermitRootLogin\\s); the Line itself by default.",
    )
    exists = param(
        "Exists",
        ParamType.BOOLEAN,
        default=True,
        description="Whether the line should be there; false removes every line Match finds.",
    )
    create = param(
        "Create",
        ParamType.BOOLEAN,
        default=True,
        description="Make the file, with the line, when there is none (false: an error).",
    )

    def summary(self) -> str:
        return f"Ensure-FileLine {self.name}: {self.match or self.line}"

    def desired(self) -> dict:
        return {"Lines": [self.line] if self.exists else []}

    def check(self) -> None:
        if self.exists and self.line is None:
            raise ValueError("Ensure-FileLine needs Line (or Exists: false)")
        if self.match is None and self.line is None:
            raise ValueError("Ensure-FileLine needs Line or Match")
        if self.line is not None and "\n" in self.line:
            raise ValueError("Ensure-FileLine's Line is one line: it holds a line break")

    def found(self, lines: list[str]) -> list[int]:
        """The positions of the lines Match finds (without Match: the lines equal to Line);
        every search of the file together is held to the engine's time limit for a regular
        expression."""
        if self.match is None:  # list.index's scans: a check of 200 lines of a file is 200 scans
            positions: list[int] = []
            with contextlib.suppress(ValueError):
                while True:
                    positions.append(lines.index(self.line, positions[-1] + 1 if positions else 0))
            return positions
        pattern = compile_pattern(self.match, name="Match")
        deadline = time.monotonic() + pattern.seconds
        return [
            position
            for position, line in enumerate(lines)
            if pattern.search(line, seconds=deadline - time.monotonic())
        ]

    async def collect(self, run) -> dict:
        self.check()
        lines = await read_lines(run, run.resolve(self.name))
        if lines is None:
            return {"Lines": None}
        return {"Lines": [lines[position] for position in self.found(lines)]}

    async def execute(self, run) -> None:
        self.check()
        agent = await run.agent()
        path = run.resolve(self.name)
        lines = await read_lines(run, path)
        if lines is None:
            if not self.exists:
                run.debug(f"{path} does not exist: no line to remove.")
                return
            if not self.create:
                raise ValueError(f"'{path}' does not exist on {run.server}; set Create: true")
            await write_lines(agent, path, [self.line])
            run.info(f"Created {path} with the line.")
            return
        positions = self.found(lines)
        if not self.exists:
            if positions:
                await write_lines(
                    agent, path, [x for i, x in enumerate(lines) if i not in positions]
                )
                run.info(f"Removed {len(positions)} line(s) from {path}.")
            return
        if [lines[position] for position in positions] == [self.line]:
            run.debug(f"{path} already holds the line.")
            return
        if positions:
            first, *others = positions
            lines[first] = self.line
            lines = [x for i, x in enumerate(lines) if i not in others]
            run.info(
                f"Replaced line {first + 1} of {path}"
                + (f" and removed {len(others)} other(s) like it." if others else ".")
            )
        else:
            lines.append(self.line)
            run.info(f"Added the line at the end of {path}.")
        await write_lines(agent, path, lines)


def hosts_fields(line: str) -> tuple[str, list[str]] | None:
    """A hosts file line's address and names (its comment left out); None for no entry."""
    fields = line.split("#", 1)[0].split()
    return (fields[0], fields[1:]) if len(fields) >= 2 else None


@operation(
    "Ensure-HostsEntry",
    namespace="Network",
    kind=Kind.ENSURE,
    description="Ensures a host name resolves to an address in the hosts file (or is not in it) "
    "on the server in context.",
)
class EnsureHostsEntry(Operation):
    host = param("Host", positional=True, required=True, description="The host name.")
    ip = param("IP", description="Its address (required when it exists).")
    exists = param(
        "Exists", ParamType.BOOLEAN, default=True, description="Whether the entry should exist."
    )
    hosts_file = param(
        "HostsFile", default="/etc/hosts", description="The hosts file (/etc/hosts by default)."
    )

    def desired(self) -> dict:
        return {"IP": self.ip} if self.exists else {"IP": None}

    def check(self) -> None:
        if self.exists and not self.ip:
            raise ValueError("Ensure-HostsEntry needs IP (or Exists: false)")
        if any(
            character.isspace() or character == "#" for character in self.host + (self.ip or "")
        ):
            raise ValueError("Ensure-HostsEntry's Host and IP hold no spaces and no #")

    async def collect(self, run) -> dict:
        self.check()
        lines = await read_lines(run, run.resolve(self.hosts_file)) or []
        for line in lines:
            entry = hosts_fields(line)
            if entry is not None and self.host in entry[1]:
                return {"IP": entry[0]}  # the first entry is the one the resolver takes
        return {"IP": None}

    async def execute(self, run) -> None:
        self.check()
        path = run.resolve(self.hosts_file)
        lines = await read_lines(run, path)
        if lines is None:
            raise ValueError(f"'{path}' does not exist on {run.server}")
        kept, changed, present = [], False, False
        for line in lines:
            entry = hosts_fields(line)
            if entry is None or self.host not in entry[1]:
                kept.append(line)
            elif self.exists and entry[0] == self.ip and not present:
                kept.append(line)
                present = True
            else:  # another address, or a second entry: the name goes from this line
                changed = True
                others = [name for name in entry[1] if name != self.host]
                if others:
                    kept.append("\t".join([entry[0], *others]))
        if self.exists and not present:
            kept.append(f"{self.ip}\t{self.host}")
            changed = True
        if not changed:
            run.debug(f"{path} already has {self.host} as it should.")
            return
        # in place, through a command: over SSH it goes through sudo where the server says so,
        # and a hosts file a container mounts cannot be replaced, only written
        text = "".join(line + "\n" for line in kept).encode()
        await must_run(run, shell_command('cat > "$1"', [path]), stdin=text)
        if self.exists:
            run.info(f"{self.host} resolves to {self.ip} in {path}.")
        else:
            run.info(f"Removed {self.host} from {path}.")
