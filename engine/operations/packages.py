"""Packages of a Linux server, with its own tools: one Debian package installed (at a pinned
version, held) or removed with apt, one RPM package the same way with dnf (or yum where there is
no dnf), and every installed package, Debian's or RPM's, collected into the server's inventory
(Otter's Collect-DebianPackages and Collect-RpmPackages)."""

from __future__ import annotations

import re
from functools import cmp_to_key

from engine.operations.process import must_run, output_of
from engine.packages import Manager, Package, compare_rpm, list_command, parse_list
from engine.registry import Kind, Operation, ParamType, operation, param

# apt-get without questions (and, with LockTimeout, waiting for another apt or dpkg, such as an
# unattended upgrade, rather than failing on its lock)
APT = ["env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "--yes", "--quiet"]
# dnf, or yum on a server too old for dnf (both wait for another one's lock by themselves)
DNF = ["sh", "-c", 'if command -v dnf >/dev/null; then exec dnf "$@"; fi; exec yum "$@"', "dnf"]


class EnsurePackage(Operation):
    """What Ensure-DebianPackage and Ensure-RpmPackage declare alike."""

    name = param("Name", positional=True, required=True, description="The package's name.")
    exists = param(
        "Exists",
        ParamType.BOOLEAN,
        default=True,
        description="Whether the package should be installed.",
    )
    version = param(
        "Version",
        description="The version it should have, exactly as the package manager writes it "
        "(apt: 2.36-9+deb12u4; rpm: 3.0.7-27.el9, its epoch first where it has one: "
        "1:3.0.7-27.el9); any version when not set.",
    )
    held = param(
        "Held",
        ParamType.BOOLEAN,
        default=None,
        description="Whether it is held at its version (apt-mark hold; dnf versionlock, from "
        "dnf's core plugins): upgrades leave it alone.",
    )
    update_index = param(
        "UpdateIndex",
        ParamType.BOOLEAN,
        default=False,
        description="Refresh the package index (apt-get update; dnf --refresh) before a "
        "package is installed or changes version.",
    )

    def summary(self) -> str:
        version = f" {self.version}" if self.version else ""
        return f"{self.spec.name} {self.name}{version}"

    def desired(self) -> dict:
        wanted: dict = {"Exists": self.exists}
        if self.exists:
            if self.version:
                wanted["Version"] = self.version
            if self.held is not None:
                wanted["Held"] = self.held
        return wanted


async def installed_packages(run, manager: Manager) -> dict[str, list[Package]]:
    """Every installed package of ``manager`` on the server, by name (one may be installed in
    several versions, such as the kernel, or architectures). Any user may read dpkg's list, so
    it is read without sudo; rpm's is read as root (rpm may keep a database of a user's own for
    a user other than root, as Debian's does)."""
    command = list_command(manager)
    code, output, errors = await output_of(run, command, privileged=manager is Manager.RPM)
    if code != 0:
        raise ValueError(
            f"{command[0]} could not list the {manager.label} packages of {run.server}: "
            f"{' '.join(errors) or output or f'exit code {code}'}"
        )
    found: dict[str, list[Package]] = {}
    for package in parse_list(manager, output):
        found.setdefault(package.name, []).append(package)
    return found


async def packages_of(run, manager: Manager) -> dict[str, list[Package]]:
    """`installed_packages`, read once for the operations that ask until the server changes."""
    return await run.fact(f"{manager} packages", lambda: installed_packages(run, manager))


@operation(
    "Ensure-DebianPackage",
    namespace="Linux",
    kind=Kind.ENSURE,
    description="Ensures a Debian package is installed (at a version, held) or not, with the "
    "server's apt.",
)
class EnsureDebianPackage(EnsurePackage):
    purge = param(
        "Purge",
        ParamType.BOOLEAN,
        default=False,
        description="When it is removed, remove its configuration files too.",
    )
    lock_timeout = param(
        "LockTimeout",
        ParamType.INTEGER,
        default=300,
        description="Seconds to wait for another apt or dpkg that holds the lock.",
    )

    async def collect(self, run) -> dict:
        found = (await packages_of(run, Manager.DEBIAN)).get(self.name)
        if not found:
            return {"Exists": False}
        return {"Exists": True, "Version": found[0].version, "Held": found[0].held}

    async def execute(self, run) -> None:
        actual = await self.collect(run)
        lock = [f"-o=DPkg::Lock::Timeout={self.lock_timeout}"]
        if not self.exists:
            if actual["Exists"]:
                verb = "purge" if self.purge else "remove"
                await must_run(run, [*APT, *lock, "--allow-change-held-packages", verb, self.name])
                run.info(f"Removed the package {self.name} {actual['Version']}.")
            return
        if not actual["Exists"] or (self.version and actual["Version"] != self.version):
            if self.update_index:
                await must_run(run, [*APT, *lock, "update"])
            wanted = f"{self.name}={self.version}" if self.version else self.name
            await must_run(
                run,
                [
                    *APT,
                    *lock,
                    "--allow-downgrades",
                    "--allow-change-held-packages",
                    "--no-install-recommends",
                    "install",
                    wanted,
                ],
            )
            actual = await self.collect(run)
            if not actual["Exists"]:
                raise ValueError(f"apt-get did not install {self.name} on {run.server}")
            run.info(f"Installed the package {self.name} {actual['Version']}.")
        if self.held is not None and actual["Held"] != self.held:
            await must_run(run, ["apt-mark", "hold" if self.held else "unhold", self.name])
            run.info(f"{'Held' if self.held else 'Released'} the package {self.name}.")


async def version_locks(run) -> str:
    """dnf's (or yum's) list of version locks on the server, a lock a line."""
    code, output, errors = await output_of(run, [*DNF, "--quiet", "versionlock", "list"])
    if code != 0:
        raise ValueError(
            f"the package manager of {run.server} cannot lock versions (dnf's versionlock "
            f"plugin): {' '.join(errors) or output or f'exit code {code}'}"
        )
    return output


@operation(
    "Ensure-RpmPackage",
    namespace="Linux",
    kind=Kind.ENSURE,
    description="Ensures an RPM package is installed (at a version, held) or not, with the "
    "server's dnf (or yum).",
)
class EnsureRpmPackage(EnsurePackage):
    async def collect(self, run) -> dict:
        versions = [p.version for p in (await packages_of(run, Manager.RPM)).get(self.name, [])]
        if not versions:
            return {"Exists": False}
        # the kernel, say, is installed in several versions: the newest is the one that counts
        found: dict = {"Exists": True, "Version": max(versions, key=cmp_to_key(compare_rpm))}
        if self.held is not None or self.version:
            found["Held"] = await self._locked(run)
        return found

    async def _locked(self, run) -> bool:
        """Whether the package has a version lock (dnf writes name-epoch:version-release.*,
        yum epoch:name-version-release.*)."""
        locks = await run.fact("rpm-version-locks", lambda: version_locks(run))
        name = re.escape(self.name)
        return bool(re.search(rf"^(?:\d+:)?{name}-(?:\d+:)?[^-\s]+-[^-\s]+$", locks, re.M))

    async def execute(self, run) -> None:
        actual = await self.collect(run)
        if not self.exists:
            if actual["Exists"]:
                await must_run(run, [*DNF, "--assumeyes", "--quiet", "remove", self.name])
                run.info(f"Removed the package {self.name} {actual['Version']}.")
            return
        held = actual.get("Held", False)
        if not actual["Exists"] or (self.version and actual["Version"] != self.version):
            if held:  # a lock keeps the version it names: lifted for the change
                await self._lock(run, False)
            await must_run(run, [*DNF, "--assumeyes", "--quiet", *self._change(actual)])
            actual = await self.collect(run)
            if not actual["Exists"] or (self.version and actual["Version"] != self.version):
                asked = f"{self.name} {self.version}" if self.version else self.name
                has = f"it has {actual['Version']}" if actual["Exists"] else "it is not installed"
                raise ValueError(f"dnf did not install {asked} on {run.server}: {has}")
            run.info(f"Installed the package {self.name} {actual['Version']}.")
        wanted = held if self.held is None else self.held  # a lock lifted is put back
        if actual.get("Held", False) != wanted:
            await self._lock(run, wanted)
            run.info(f"{'Held' if wanted else 'Released'} the package {self.name}.")

    def _change(self, actual: dict) -> list[str]:
        """The dnf command that installs the package at the version wanted, from where it is."""
        refresh = ["--refresh"] if self.update_index else []
        if not self.version:
            return [*refresh, "install", self.name]
        wanted = f"{self.name}-{self.version}"
        if not actual["Exists"]:
            return [*refresh, "install", wanted]
        verb = "upgrade" if compare_rpm(self.version, actual["Version"]) > 0 else "downgrade"
        return [*refresh, verb, wanted]

    async def _lock(self, run, held: bool) -> None:
        verb = "add" if held else "delete"
        await must_run(run, [*DNF, "--quiet", "versionlock", verb, self.name])


@operation(
    "Collect-DebianPackages",
    namespace="Linux",
    kind=Kind.COLLECT,
    description="Collects the names and versions of the Debian packages installed on the "
    "server into its inventory.",
)
class CollectDebianPackages(Operation):
    manager = Manager.DEBIAN

    def summary(self) -> str:
        return self.spec.name

    async def collect(self, run) -> dict:
        found = await packages_of(run, self.manager)
        packages = [package for same in found.values() for package in same]
        not_kept = await run.host.record_packages(run.server, self.manager, packages)
        run.info(f"Collected {len(packages)} {self.manager.label} packages on {run.server}.")
        if not_kept:
            run.warn(f"They are not kept: {not_kept}.")
        return {}


@operation(
    "Collect-RpmPackages",
    namespace="Linux",
    kind=Kind.COLLECT,
    description="Collects the names and versions of the RPM packages installed on the server "
    "into its inventory.",
)
class CollectRpmPackages(CollectDebianPackages):
    manager = Manager.RPM
