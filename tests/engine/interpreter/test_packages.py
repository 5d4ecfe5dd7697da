"""Ensure-DebianPackage and Collect-DebianPackages with this machine's apt and dpkg, as root (as
`make test` runs), through the local agent. The packages come from a repository the test makes:
two versions of a package of a unique name, built with dpkg-deb into a flat repository that apt
reads through APT_CONFIG (its own sources, lists and cache: the machine's are left alone). The
package is purged afterwards."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from engine.interpreter import Level
from engine.packages import Manager

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("apt-get"), reason="installs packages: needs root and apt"
)
VERSIONS = ("1.0-1", "2.0-1")


def build_package(folder: Path, name: str, version: str) -> Path:
    root = folder / f"{name}-{version}"
    (root / "DEBIAN").mkdir(parents=True)
    (root / "DEBIAN" / "control").write_text(
        f"Package: {name}\nVersion: {version}\nArchitecture: all\n"
        "Maintainer: OtterWeb tests <ops@example.org>\nDescription: a package the tests install\n"
    )
    (root / "usr" / "share" / "doc" / name).mkdir(parents=True)
    (root / "usr" / "share" / "doc" / name / "README").write_text(f"{name} {version}\n")
    deb = folder / f"{name}_{version}_all.deb"
    subprocess.run(
        ["dpkg-deb", "--root-owner-group", "--build", str(root), str(deb)],
        check=True,
        capture_output=True,
    )
    return deb


def index_entry(deb: Path) -> str:
    control = subprocess.run(
        ["dpkg-deb", "--field", str(deb)], check=True, capture_output=True, text=True
    ).stdout
    content = deb.read_bytes()
    return (
        f"{control.rstrip()}\nFilename: ./{deb.name}\nSize: {len(content)}\n"
        f"MD5sum: {hashlib.md5(content).hexdigest()}\n"
        f"SHA256: {hashlib.sha256(content).hexdigest()}\n\n"
    )


@pytest.fixture
def package(tmp_path, monkeypatch):
    """The name of a package in a repository apt is pointed at, in two versions (VERSIONS)."""
    name = f"otterweb-probe-{uuid.uuid4().hex[:10]}"
    repository = tmp_path / "repository"
    repository.mkdir()
    debs = [build_package(repository, name, version) for version in VERSIONS]
    (repository / "Packages").write_text("".join(index_entry(deb) for deb in debs))
    for folder in ("lists/partial", "cache/archives/partial", "sources.d"):
        (tmp_path / "apt" / folder).mkdir(parents=True)
    (tmp_path / "apt" / "sources.list").write_text(f"deb [trusted=yes] file:{repository} ./\n")
    config = tmp_path / "apt" / "apt.conf"
    config.write_text(
        f'Dir::Etc::SourceList "{tmp_path}/apt/sources.list";\n'
        f'Dir::Etc::SourceParts "{tmp_path}/apt/sources.d";\n'
        f'Dir::State::Lists "{tmp_path}/apt/lists";\n'
        f'Dir::Cache "{tmp_path}/apt/cache";\n'
    )
    monkeypatch.setenv("APT_CONFIG", str(config))
    yield name
    subprocess.run(["apt-mark", "unhold", name], capture_output=True)
    subprocess.run(["dpkg", "--purge", name], capture_output=True)


def installed(name: str) -> tuple[str, str] | None:
    """(dpkg's abbreviated status, version) of an installed package; None when it is not."""
    found = subprocess.run(
        ["dpkg-query", "--show", "--showformat=${db:Status-Abbrev}\t${Version}", name],
        capture_output=True,
        text=True,
    )
    status, _, version = found.stdout.partition("\t")
    return (status.strip(), version) if found.returncode == 0 and status[1:2] == "i" else None


def differences(ran) -> list[tuple]:
    return [
        (d.property, d.expected, d.actual)
        for drift in ran.result.drifted
        for d in drift.differences
    ]


async def test_ensure_debian_package_installs_pins_holds_and_removes_a_package(
    run, package
) -> None:
    script = f"Ensure-DebianPackage {package} (UpdateIndex: true);"
    collected = await run(script, mode="collect")
    assert differences(collected) == [("Exists", True, False)]
    assert installed(package) is None  # collecting changes nothing

    simulated = await run(script, simulate=True)
    assert simulated.status == "normal"
    assert installed(package) is None

    ran = await run(script)
    assert ran.status == "normal", ran.messages()
    assert installed(package) == ("ii", "2.0-1")  # the newest
    assert f"Installed the package {package} 2.0-1." in ran.info
    assert differences(await run(script, mode="collect")) == []

    pinned = f"Ensure-DebianPackage {package} (Version: 1.0-1, Held: true);"
    assert differences(await run(pinned, mode="collect")) == [
        ("Version", "1.0-1", "2.0-1"),
        ("Held", True, False),
    ]
    ran = await run(pinned, mode="collect-execute")
    assert ran.status == "normal", ran.messages()
    assert installed(package) == ("hi", "1.0-1")  # downgraded, and held
    assert f"Held the package {package}." in ran.info
    assert differences(await run(pinned, mode="collect")) == []

    removed = f"Ensure-DebianPackage {package} (Exists: false);"
    ran = await run(removed)
    assert ran.status == "normal", ran.messages()
    assert installed(package) is None
    assert f"Removed the package {package} 1.0-1." in ran.info
    assert differences(await run(removed, mode="collect")) == []


async def test_ensure_debian_package_says_what_apt_said_of_a_package_it_cannot_find(
    run, package
) -> None:
    ran = await run(f"Ensure-DebianPackage {package}-missing (UpdateIndex: true);")
    assert ran.status == "error"
    (error,) = [m for m in ran.messages(Level.ERROR) if "apt-get" in m]
    assert "apt-get exited with code 100 on localhost" in error
    assert f"Unable to locate package {package}-missing" in error


async def test_collect_debian_packages_keeps_every_installed_package_on_the_host(
    run, host, package
) -> None:
    await run(f"Ensure-DebianPackage {package} (UpdateIndex: true, Version: 1.0-1);")
    ran = await run("Collect-DebianPackages;", mode="collect")
    assert ran.status == "normal", ran.messages()
    packages = {p.name: p for p in host.collected_packages[("localhost", Manager.DEBIAN)]}
    assert (packages[package].version, packages[package].architecture) == ("1.0-1", "all")
    listed = subprocess.run(
        ["dpkg-query", "--show", "--showformat=${db:Status-Abbrev} ${Package}\n"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert set(packages) == {line.split()[1] for line in listed if line[1:2] == "i"}
    assert f"Collected {len(packages)} Debian packages on localhost." in ran.info


@pytest.fixture
def rpm_package(tmp_path):
    """A package in the rpm database (--justdb: no file is installed), of a unique name and
    version 1:1.2-3, noarch; removed afterwards. rpmbuild and rpm come from scripts/services."""
    assert shutil.which("rpmbuild"), "rpmbuild is missing: scripts/services start installs rpm"
    name = f"otterweb-probe-{uuid.uuid4().hex[:10]}"
    spec = tmp_path / f"{name}.spec"
    spec.write_text(
        f"Name: {name}\nVersion: 1.2\nRelease: 3\nEpoch: 1\nSummary: probe\nLicense: MIT\n"
        "BuildArch: noarch\n%description\nA package the tests record.\n%files\n"
    )
    subprocess.run(
        ["rpmbuild", "-bb", "--quiet", "--define", f"_topdir {tmp_path / 'rpmbuild'}", str(spec)],
        check=True,
        capture_output=True,
    )
    (built,) = (tmp_path / "rpmbuild" / "RPMS" / "noarch").glob("*.rpm")
    subprocess.run(
        ["rpm", "-i", "--justdb", "--nodeps", "--force-debian", str(built)],
        check=True,
        capture_output=True,
    )
    yield name
    subprocess.run(["rpm", "-e", "--justdb", "--nodeps", name], capture_output=True)


async def test_collect_rpm_packages_keeps_the_rpm_databases_packages(
    run, host, rpm_package
) -> None:
    ran = await run(
        f"Collect-RpmPackages;\nLog-Information version [$InstalledPackageVersion({rpm_package})];",
        mode="collect",
    )
    assert ran.status == "normal", ran.messages()
    packages = {p.name: p for p in host.collected_packages[("localhost", Manager.RPM)]}
    assert (packages[rpm_package].version, packages[rpm_package].architecture) == (
        "1:1.2-3",
        "noarch",
    )
    assert "version [1:1.2-3]" in ran.info


def rpm_installed(name: str) -> str | None:
    found = subprocess.run(
        ["rpm", "--query", "--queryformat=%{VERSION}-%{RELEASE}", name],
        capture_output=True,
        text=True,
    )
    return found.stdout if found.returncode == 0 else None


def rpm_locked(name: str) -> bool:
    listed = subprocess.run(
        ["dnf", "--quiet", "versionlock", "list"], capture_output=True, text=True, check=True
    ).stdout
    return any(line.startswith(f"{name}-0:") for line in listed.splitlines())


async def test_ensure_rpm_package_installs_pins_holds_and_removes_a_package(
    run, dnf_package
) -> None:
    name = dnf_package
    script = f"Ensure-RpmPackage {name} (UpdateIndex: true);"
    assert differences(await run(script, mode="collect")) == [("Exists", True, False)]
    assert rpm_installed(name) is None  # collecting changes nothing
    assert (await run(script, simulate=True)).status == "normal"
    assert rpm_installed(name) is None

    ran = await run(script)
    assert ran.status == "normal", ran.messages()
    assert rpm_installed(name) == "2.0-1"  # the newest
    assert f"Installed the package {name} 2.0-1." in ran.info
    assert Path(f"/usr/share/doc/{name}/README").read_text() == "2.0-1\n"
    assert differences(await run(script, mode="collect")) == []

    pinned = f"Ensure-RpmPackage {name} (Version: 1.0-1, Held: true);"
    assert differences(await run(pinned, mode="collect")) == [
        ("Version", "1.0-1", "2.0-1"),
        ("Held", True, False),
    ]
    ran = await run(pinned, mode="collect-execute")
    assert ran.status == "normal", ran.messages()
    assert (rpm_installed(name), rpm_locked(name)) == ("1.0-1", True)  # downgraded, and held
    assert f"Held the package {name}." in ran.info
    assert differences(await run(pinned, mode="collect")) == []

    # held, it moves only when told: the lock is lifted for the change and put back after
    ran = await run(f"Ensure-RpmPackage {name} (Version: 2.0-1);")
    assert ran.status == "normal", ran.messages()
    assert (rpm_installed(name), rpm_locked(name)) == ("2.0-1", True)

    released = f"Ensure-RpmPackage {name} (Held: false);"
    assert differences(await run(released, mode="collect")) == [("Held", False, True)]
    ran = await run(released)
    assert (ran.status, rpm_locked(name)) == ("normal", False)
    assert f"Released the package {name}." in ran.info

    removed = f"Ensure-RpmPackage {name} (Exists: false);"
    ran = await run(removed)
    assert ran.status == "normal", ran.messages()
    assert rpm_installed(name) is None
    assert f"Removed the package {name} 2.0-1." in ran.info
    assert differences(await run(removed, mode="collect")) == []


async def test_ensure_rpm_package_says_what_dnf_said_of_a_version_it_cannot_find(
    run, dnf_package
) -> None:
    ran = await run(f"Ensure-RpmPackage {dnf_package} (Version: 3.0-1);")
    assert ran.status == "error"
    (error,) = [m for m in ran.messages(Level.ERROR) if "dnf" in m]
    assert "dnf exited with code 1 on localhost" in error
    assert f"{dnf_package}-3.0-1" in error
