"""Installed packages of a server, as its package manager lists them, and how two versions of a
package compare (dpkg's order for Debian packages, rpm's for RPM packages), so that an inventory
can be searched for "every server with openssl older than 3.0.11"."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from itertools import zip_longest


class Manager(StrEnum):
    """A package manager: its packages' kind."""

    DEBIAN = "deb"
    RPM = "rpm"

    @property
    def label(self) -> str:
        return "Debian" if self is Manager.DEBIAN else "RPM"


@dataclass(frozen=True, slots=True)
class Package:
    """One installed package."""

    name: str
    version: str
    architecture: str = ""
    held: bool = False  # held at its version (dpkg's "hi": apt-mark hold)


# dpkg-query's line for each package: its status abbreviated ("ii ": wanted and installed,
# "hi ": held and installed, "rc ": removed, its configuration files left), name, version,
# architecture
DEBIAN_LIST = [
    "dpkg-query",
    "--show",
    "--showformat=${db:Status-Abbrev}\\t${Package}\\t${Version}\\t${Architecture}\\n",
]
# rpm's line for each package; an epoch of 0 ("(none)") is left out as rpm itself writes it
RPM_LIST = [
    "rpm",
    "--query",
    "--all",
    "--queryformat=%{NAME}\\t%|EPOCH?{%{EPOCH}:}:{}|%{VERSION}-%{RELEASE}\\t%{ARCH}\\n",
]


def list_command(manager: Manager) -> list[str]:
    """The command that prints the installed packages of ``manager``, one per line."""
    return list(DEBIAN_LIST if manager is Manager.DEBIAN else RPM_LIST)


def parse_list(manager: Manager, output: str) -> list[Package]:
    """The installed packages in what ``list_command`` printed, by name (a Debian package that
    was removed but left its configuration files is not installed)."""
    packages = []
    for line in output.splitlines():
        fields = line.split("\t")
        held = False
        if manager is Manager.DEBIAN:
            if len(fields) != 4 or fields[0][1:2] != "i":
                continue
            held = fields[0][:1] == "h"
            fields = fields[1:]
        if len(fields) == 3 and fields[0]:
            packages.append(Package(fields[0], fields[1], fields[2], held))
    return sorted(packages, key=lambda p: (p.name, p.architecture))


# ---- comparing versions


def _digit(c: str) -> bool:
    return "0" <= c <= "9"


def _dpkg_order(c: str) -> int:
    """dpkg's weight of a character in the non-digit parts: ~ before anything (the end too),
    letters before the other characters."""
    if c == "~":
        return -1
    if "a" <= c.lower() <= "z":
        return ord(c)
    return ord(c) + 256


def _dpkg_part(a: str, b: str) -> int:
    """dpkg's comparison of an upstream version or a revision (verrevcmp)."""
    i = j = 0
    while i < len(a) or j < len(b):
        first_diff = 0
        while (i < len(a) and not _digit(a[i])) or (j < len(b) and not _digit(b[j])):
            ac = _dpkg_order(a[i]) if i < len(a) and not _digit(a[i]) else 0
            bc = _dpkg_order(b[j]) if j < len(b) and not _digit(b[j]) else 0
            if ac != bc:
                return -1 if ac < bc else 1
            i += 1
            j += 1
        while i < len(a) and a[i] == "0":
            i += 1
        while j < len(b) and b[j] == "0":
            j += 1
        while i < len(a) and _digit(a[i]) and j < len(b) and _digit(b[j]):
            if not first_diff:
                first_diff = ord(a[i]) - ord(b[j])
            i += 1
            j += 1
        if i < len(a) and _digit(a[i]):
            return 1
        if j < len(b) and _digit(b[j]):
            return -1
        if first_diff:
            return -1 if first_diff < 0 else 1
    return 0


def _split(version: str) -> tuple[int, str, str]:
    """``[epoch:]version[-revision]`` as (epoch, version, revision): dpkg's form and rpm's
    (its release in place of the revision)."""
    epoch, colon, rest = version.partition(":")
    if not colon:
        epoch, rest = "0", version
    upstream, dash, revision = rest.rpartition("-")
    if not dash:
        upstream, revision = rest, ""
    return (int(epoch) if epoch.isdigit() else 0), upstream, revision


def compare_debian(a: str, b: str) -> int:
    """-1, 0 or 1 as Debian version ``a`` is older than, the same as or newer than ``b``
    (dpkg --compare-versions): the epoch, then the upstream version, then the revision."""
    epoch_a, upstream_a, revision_a = _split(a.strip())
    epoch_b, upstream_b, revision_b = _split(b.strip())
    if epoch_a != epoch_b:
        return -1 if epoch_a < epoch_b else 1
    return _dpkg_part(upstream_a, upstream_b) or _dpkg_part(revision_a, revision_b)


_RPM_SEGMENT = re.compile(r"~|\^|[0-9]+|[A-Za-z]+")


def _rpm_part(a: str, b: str) -> int:
    """rpmvercmp: alphanumeric segments, numbers newer than letters, ~ older than anything and
    ^ newer than the end."""
    segments_a, segments_b = _RPM_SEGMENT.findall(a), _RPM_SEGMENT.findall(b)
    for x, y in zip_longest(segments_a, segments_b):
        if x == y:
            continue
        if x == "~" or y == "~":
            return -1 if x == "~" else 1
        if x == "^" or y == "^":
            if x is None:
                return -1
            if y is None:
                return 1
            return -1 if x == "^" else 1
        if x is None or y is None:
            return -1 if x is None else 1
        if x.isdigit() != y.isdigit():
            return 1 if x.isdigit() else -1
        if x.isdigit():
            if int(x) != int(y):
                return -1 if int(x) < int(y) else 1
        elif x != y:
            return -1 if x < y else 1
    return 0


def compare_rpm(a: str, b: str) -> int:
    """-1, 0 or 1 as RPM version ``a`` (``[epoch:]version[-release]``) is older than, the same
    as or newer than ``b``; a release left out of either is not compared."""
    epoch_a, version_a, release_a = _split(a.strip())
    epoch_b, version_b, release_b = _split(b.strip())
    if epoch_a != epoch_b:
        return -1 if epoch_a < epoch_b else 1
    found = _rpm_part(version_a, version_b)
    if found or not (release_a and release_b):
        return found
    return _rpm_part(release_a, release_b)


def compare_versions(manager: Manager, a: str, b: str) -> int:
    """-1, 0 or 1 as ``a`` is older than, the same as or newer than ``b`` for ``manager``."""
    return (compare_debian if manager is Manager.DEBIAN else compare_rpm)(a, b)
