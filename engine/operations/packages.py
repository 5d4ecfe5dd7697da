"""Packages of a Linux server, with its own tools: one Debian package installed (at a pinned
version, held) or removed with apt, and every installed package, Debian's or RPM's, collected
into the server's inventory (Otter's Collect-DebianPackages and Collect-RpmPackages)."""

from __future__ import annotations

from engine.operations.process import must_run, output_of
from engine.packages import Manager, list_command, parse_list
from engine.registry import Kind, Operation, ParamType, operation, param

# apt-get without questions (and, with LockTimeout, waiting for another apt or dpkg, such as an
# unattended upgrade, rather than failing on its lock)
APT = ["env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "--yes", "--quiet"]


@operation(
    "Ensure-DebianPackage",
    namespace="Linux",
    kind=Kind.ENSURE,
    description="Ensures a Debian package is installed (at a version, held) or not, with the "
    "server's apt.",
)
class EnsureDebianPackage(Operation):
    name = param("Name", positional=True, required=True, description="The package's name.")
    exists = param(
        "Exists",
        ParamType.BOOLEAN,
        default=True,
        description="Whether the package should be installed.",
    )
    version = param(
        "Version",
        description="The version it should have, exactly as apt writes it (2.36-9+deb12u4); any "
        "version when not set.",
    )
    held = param(
        "Held",
        ParamType.BOOLEAN,
        default=None,
        description="Whether it is held at its version (apt-mark hold): upgrades leave it alone.",
    )
    update_index = param(
        "UpdateIndex",
        ParamType.BOOLEAN,
        default=False,
        description="Run apt-get update before a package is installed or changes version.",
    )
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

    def summary(self) -> str:
        version = f" {self.version}" if self.version else ""
        return f"Ensure-DebianPackage {self.name}{version}"

    def desired(self) -> dict:
        wanted: dict = {"Exists": self.exists}
        if self.exists:
            if self.version:
                wanted["Version"] = self.version
            if self.held is not None:
                wanted["Held"] = self.held
        return wanted

    async def collect(self, run) -> dict:
        code, output, errors = await output_of(
            run,
            ["dpkg-query", "--show", "--showformat=${db:Status-Abbrev}\\t${Version}", self.name],
        )
        if code not in (0, 1):
            raise ValueError(f"dpkg-query failed on {run.server}: {' '.join(errors) or output}")
        status, _, version = output.partition("\t")
        # ii: wanted and installed; hi: held and installed; rc: removed (its configuration kept)
        if code == 1 or status[1:2] != "i":
            return {"Exists": False}
        return {"Exists": True, "Version": version, "Held": status[:1] == "h"}

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
        command = list_command(self.manager)
        code, output, errors = await output_of(run, command)
        if code != 0:
            raise ValueError(
                f"{command[0]} could not list the {self.manager.label} packages of "
                f"{run.server}: {' '.join(errors) or output or f'exit code {code}'}"
            )
        packages = parse_list(self.manager, output)
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
