"""How two versions of a package compare: Debian's order checked against dpkg itself, RPM's
against rpm's own examples; and the installed packages read from what dpkg-query and rpm
print."""

from __future__ import annotations

import shutil
import subprocess
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.packages import (
    Manager,
    Package,
    compare_debian,
    compare_rpm,
    compare_versions,
    parse_list,
)

DEBIAN_ORDER = [  # oldest first
    "0.9",
    "1.0~rc1",
    "1.0~rc1-1",
    "1.0",
    "1.0-1~bpo1",
    "1.0-1",
    "1.0-1.1",
    "1.0-2",
    "1.0a",  # letters before the other characters
    "1.0+dfsg-1",
    "1.0.1",
    "2.36-9+deb12u4",
    "2.36-9+deb12u10",
    "3.0.11-1~deb12u2",
    "3.0.15-1~deb12u1",
    "10",
    "1:0.9",
    "1:1.0-1",
]


def test_compare_debian_orders_versions_as_dpkg_does() -> None:
    for (i, a), (j, b) in product(enumerate(DEBIAN_ORDER), repeat=2):
        assert compare_debian(a, b) == (i > j) - (i < j), (a, b)
    assert compare_debian("1.0", "1.00") == 0
    assert compare_debian("0:1.0", "1.0") == 0


def dpkg_says(a: str, b: str) -> int:
    for operator, answer in (("lt", -1), ("gt", 1)):
        if subprocess.run(["dpkg", "--compare-versions", a, operator, b]).returncode == 0:
            return answer
    return 0


# versions as dpkg takes them: an optional epoch, an upstream part starting with a digit, an
# optional revision
_UPSTREAM = st.from_regex(r"[0-9][0-9a-z.+~]{0,8}", fullmatch=True)
_REVISION = st.from_regex(r"[0-9a-z.+~]{1,6}", fullmatch=True)
_VERSION = st.builds(
    lambda epoch, upstream, revision: f"{epoch}{upstream}{revision}",
    st.sampled_from(["", "1:", "2:"]),
    _UPSTREAM,
    st.one_of(st.just(""), _REVISION.map(lambda r: f"-{r}")),
)


@pytest.mark.skipif(not shutil.which("dpkg"), reason="compares with dpkg")
@settings(max_examples=150, deadline=None)
@given(_VERSION, _VERSION)
def test_compare_debian_agrees_with_dpkg_on_random_versions(a: str, b: str) -> None:
    assert compare_debian(a, b) == dpkg_says(a, b)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [  # rpm's own test cases (tests/rpmvercmp.at)
        ("1.0", "1.0", 0),
        ("1.0", "2.0", -1),
        ("2.0.1", "2.0", 1),
        ("2.0.1a", "2.0.1", 1),
        ("5.5p1", "5.5p2", -1),
        ("5.5p10", "5.5p1", 1),
        ("10xyz", "10.1xyz", -1),
        ("xyz10", "xyz10.1", -1),
        ("xyz.4", "8", -1),
        ("5.5p1", "5.5.p1", 0),
        ("6.0.rc1", "6.0", 1),
        ("10b2", "10a1", 1),
        ("1.0aa", "1.0a", 1),
        ("10.0001", "10.1", 0),
        ("20101121", "20101122", -1),
        ("2_0", "2.0", 0),
        ("a+", "a_", 0),
        ("1.0~rc1", "1.0", -1),
        ("1.0~rc1", "1.0~rc2", -1),
        ("1.0~rc1~git123", "1.0~rc1", -1),
        ("1.0^", "1.0", 1),
        ("1.0^git1", "1.0", 1),
        ("1.0^git1", "1.0^git2", -1),
        ("1.0^git1", "1.01", -1),
        ("1.0^20160101", "1.0.1", -1),
        ("1.0~rc1^git1", "1.0~rc1", 1),
        ("1.0^git1~pre", "1.0^git1", -1),
        ("1:1.0-1", "2.0-1", 1),
        ("1.0-2.el9", "1.0-10.el9", -1),
        ("3.0.7-24.el9", "3.0.7", 0),  # a release left out is not compared
    ],
)
def test_compare_rpm_orders_versions_as_rpm_does(a: str, b: str, expected: int) -> None:
    assert compare_rpm(a, b) == expected
    assert compare_rpm(b, a) == -expected
    assert compare_versions(Manager.RPM, a, b) == expected


def test_parse_list_reads_installed_packages_of_dpkg_and_rpm() -> None:
    dpkg = "ii \tzlib1g\t1:1.2.13.dfsg-1\tamd64\nrc \told\t1.0\tall\nhi \topenssl\t3.0.15-1~deb12u1\tamd64\n"
    assert parse_list(Manager.DEBIAN, dpkg) == [
        Package("openssl", "3.0.15-1~deb12u1", "amd64", held=True),
        Package("zlib1g", "1:1.2.13.dfsg-1", "amd64"),
    ]
    rpm = "openssl\t1:3.0.7-24.el9\tx86_64\nbash\t5.1.8-9.el9\tx86_64\ngpg-pubkey\t8483c65d-5ccc5b19\t(none)\n"
    assert parse_list(Manager.RPM, rpm) == [
        Package("bash", "5.1.8-9.el9", "x86_64"),
        Package("gpg-pubkey", "8483c65d-5ccc5b19", "(none)"),
        Package("openssl", "1:3.0.7-24.el9", "x86_64"),
    ]
