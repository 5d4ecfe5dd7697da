"""What a server is and what it has installed, as the server check collects it: one shell script,
run on the server (over SSH, or here for the local server), whose output `read_inventory`
reads."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

from engine.packages import Manager, Package, list_command, parse_list

# Facts as `key=value` lines. Every command may be missing or fail on some system (BusyBox's df
# has no -x, a container no `ip`): what it would have said is then left out, never an error.
_FACTS = r"""
echo "architecture=$(uname -m)"
if [ -r /etc/os-release ]; then
    ( . /etc/os-release; echo "os_id=$ID"; echo "os_version=$VERSION_ID" )
fi
echo "cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc 2>/dev/null)"
sed -n 's/^MemTotal: *\([0-9]*\) kB$/memory_kb=\1/p' /proc/meminfo 2>/dev/null
if command -v ip >/dev/null 2>&1; then
    ip -o addr show scope global 2>/dev/null | awk '{ split($4, a, "/"); print "address=" a[1] }'
else
    for a in $(hostname -I 2>/dev/null); do echo "address=$a"; done
fi
df -kP -x tmpfs -x devtmpfs -x overlay -x squashfs 2>/dev/null |
    awk 'NR > 1 { print "disk=" $6 "\t" $2 "\t" $3 }'
"""
SECTION = "@@ "  # a line that starts what follows it: the facts, or a package manager's list


def _package_lists(names: str = "") -> list[str]:
    """Shell script: the installed packages (``names``: only these) of each package manager
    the server has, each list after a line naming the manager."""
    parts = []
    for manager in Manager:
        command = list_command(manager)
        parts.append(
            f"if command -v {command[0]} >/dev/null 2>&1; then\n"
            f'    echo "{SECTION}{manager}"; {shlex.join(command)}{names} 2>/dev/null\nfi'
        )
    return parts


def inventory_script() -> str:
    """The POSIX shell script that prints a server's facts, then its installed packages (see
    `read_inventory`)."""
    return "\n".join([f'echo "{SECTION}facts"', _FACTS.strip(), *_package_lists()]) + "\n"


def package_script() -> str:
    """The POSIX shell script that prints the installed packages called ``$1`` (see
    `read_inventory`: no facts). It exits 0 whatever the package managers say: a package not
    found, or a database the user cannot read (Debian's rpm keeps a non-root user's in its
    home), lists nothing."""
    return "\n".join([*_package_lists(' "$1"'), "exit 0"]) + "\n"


@dataclass(frozen=True)
class Disk:
    mount: str
    size_kb: int
    used_kb: int


@dataclass(frozen=True)
class Inventory:
    """A server's facts and installed packages. ``packages`` holds the package managers the
    server has, each with its list (which may be empty)."""

    os_id: str = ""  # ID of /etc/os-release: debian, ubuntu, rhel...
    os_version: str = ""  # VERSION_ID: 12, 24.04, 9.4...
    architecture: str = ""
    cpus: int | None = None
    memory_mb: int | None = None
    addresses: tuple[str, ...] = ()
    disks: tuple[Disk, ...] = ()
    packages: dict[Manager, list[Package]] = field(default_factory=dict)

    @property
    def system(self) -> str:
        """The operating system as searches name it: ``debian-12`` (``""``: unknown)."""
        if self.os_id and self.os_version:
            return f"{self.os_id}-{self.os_version}"
        return self.os_id

    def facts(self) -> dict:
        """The facts as JSON keeps them."""
        return {
            "os_id": self.os_id,
            "os_version": self.os_version,
            "architecture": self.architecture,
            "cpus": self.cpus,
            "memory_mb": self.memory_mb,
            "addresses": list(self.addresses),
            "disks": [
                {"mount": d.mount, "size_kb": d.size_kb, "used_kb": d.used_kb} for d in self.disks
            ],
        }


def _number(text: str) -> int | None:
    text = text.strip()
    return int(text) if text.isdigit() else None


def read_inventory(output: str) -> Inventory:
    """The inventory in what ``inventory_script`` printed."""
    sections: dict[str, list[str]] = {}
    lines: list[str] | None = None
    for line in output.splitlines():
        if line.startswith(SECTION):
            lines = sections.setdefault(line[len(SECTION) :].strip(), [])
        elif lines is not None:
            lines.append(line)
    facts: dict[str, str] = {}
    addresses: list[str] = []
    disks: list[Disk] = []
    for line in sections.get("facts", []):
        key, _, value = line.partition("=")
        if key == "address" and value and value not in addresses:
            addresses.append(value)
        elif key == "disk":
            mount, *sizes = value.split("\t")
            if len(sizes) == 2 and all(_number(s) is not None for s in sizes):
                disks.append(Disk(mount, int(sizes[0]), int(sizes[1])))
        elif key:
            facts[key] = value.strip()
    memory_kb = _number(facts.get("memory_kb", ""))
    return Inventory(
        os_id=facts.get("os_id", ""),
        os_version=facts.get("os_version", ""),
        architecture=facts.get("architecture", ""),
        cpus=_number(facts.get("cpus", "")),
        memory_mb=memory_kb // 1024 if memory_kb is not None else None,
        addresses=tuple(addresses),
        disks=tuple(disks),
        packages={
            manager: parse_list(manager, "\n".join(sections[manager]))
            for manager in Manager
            if manager in sections
        },
    )
