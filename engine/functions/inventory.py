"""What the server in context is and has installed: the facts its last server check collected
(through the host), and a package's installed version, asked of the server itself."""

from __future__ import annotations

from engine.inventory import package_script, read_inventory
from engine.operations.process import shell_output
from engine.registry import function
from engine.values import to_text

BEFORE_CHECK = "; empty before the server's first check."


def _fact(call, name: str) -> str:
    value = call.host.server_facts(call.context.server).get(name)
    return "" if value is None else str(value)


@function(
    "ServerOS",
    returns="$",
    description="The operating system of the server in context, as its last check found it (Debian GNU/Linux "
    "12 (bookworm))" + BEFORE_CHECK,
)
def server_os(call):
    return _fact(call, "os_name")


@function(
    "ServerOSId",
    returns="$",
    description="The id of its operating system in /etc/os-release (debian, ubuntu, rhel)"
    + BEFORE_CHECK,
)
def server_os_id(call):
    return _fact(call, "os_id")


@function(
    "ServerOSVersion",
    returns="$",
    description="The version of its operating system in /etc/os-release (12, 24.04)" + BEFORE_CHECK,
)
def server_os_version(call):
    return _fact(call, "os_version")


@function(
    "ServerArchitecture",
    returns="$",
    description="Its architecture (x86_64, aarch64)" + BEFORE_CHECK,
)
def server_architecture(call):
    return _fact(call, "architecture")


@function(
    "ServerKernel",
    returns="$",
    description="Its kernel (Linux 6.1.0-28-amd64 x86_64)" + BEFORE_CHECK,
)
def server_kernel(call):
    return _fact(call, "kernel")


@function("ServerCPUs", returns="$", description="Its number of CPUs" + BEFORE_CHECK)
def server_cpus(call):
    return _fact(call, "cpus")


@function("ServerMemoryMB", returns="$", description="Its memory, in MiB" + BEFORE_CHECK)
def server_memory(call):
    return _fact(call, "memory_mb")


@function(
    "ServerAddresses",
    returns="@",
    description="Its global IP addresses" + BEFORE_CHECK,
)
def server_addresses(call):
    return [
        str(address) for address in call.host.server_facts(call.context.server).get("addresses", [])
    ]


@function(
    "InstalledPackageVersion",
    returns="$",
    params=("name",),
    description="The installed version of a package on the server in context, asked of its "
    "package manager now (dpkg, or rpm): empty when the package is not installed. "
    "$InstalledPackageVersion(openssl).",
)
async def installed_package_version(call, name):
    wanted = to_text(name).strip()
    if not wanted or wanted.startswith("-") or any(c in wanted for c in "*?[ "):
        raise ValueError(f"'{wanted}' is not a package name")
    code, output, errors = await shell_output(call, package_script(), [wanted])
    if code != 0:
        raise ValueError(
            f"the package managers of {call.server} could not be asked: {' '.join(errors)[:500]}"
        )
    for packages in read_inventory(output).packages.values():
        for package in packages:
            if package.name == wanted:
                return package.version
    return ""
