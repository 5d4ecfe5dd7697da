"""A real OpenLDAP server (Debian's slapd) on 127.0.0.1 for the directory logins' tests.

``Slapd(folder)`` writes everything into ``folder``: a slapd.conf (the core, cosine,
inetOrgPerson and NIS schemas, one MDB database), an LDIF of people, groups and a service
account loaded with slapadd before the start, the database and the pid file. The server listens
on a free port of 127.0.0.1 and stops with the test process that started it. Anonymous clients
may only bind; the service account (``BIND_DN``) may read the directory, as OtterWeb's search
needs.

    python -m tests.slapd      # start one, print OtterWeb's settings for it, stop on Ctrl-C
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
from pathlib import Path

from tests.children import ChildServer, free_port

SLAPD = "/usr/sbin/slapd"
SLAPADD = "/usr/sbin/slapadd"
SLAPPASSWD = "/usr/sbin/slappasswd"
SCHEMAS = "/etc/ldap/schema"
MODULES = "/usr/lib/ldap"

BASE = "dc=otterweb,dc=test"
PEOPLE = f"ou=people,{BASE}"
GROUPS = f"ou=groups,{BASE}"
ROOT_DN = f"cn=admin,{BASE}"
BIND_DN = f"cn=otterweb,ou=services,{BASE}"
BIND_PASSWORD = "service-Password-1"
# username -> (password, given name, surname)
PEOPLE_ENTRIES = {
    "alice": ("alice-Password-1", "Alice", "Liddell"),
    "bob": ("bob-Password-1", "Bob", "Builder"),
    "carol": ("carol-Password-1", "Carol", "Danvers"),
}
# group cn -> member usernames
GROUP_ENTRIES = {
    "operators": ("alice", "bob"),
    "administrators": ("bob",),
    "auditors": ("carol",),
}


def group_dn(name: str) -> str:
    return f"cn={name},{GROUPS}"


def person_dn(username: str) -> str:
    return f"uid={username},{PEOPLE}"


def _hashed(password: str) -> str:
    return subprocess.run(
        [SLAPPASSWD, "-h", "{SSHA}", "-s", password], capture_output=True, text=True, check=True
    ).stdout.strip()


def ldif() -> str:
    entries = [
        f"dn: {BASE}\nobjectClass: dcObject\nobjectClass: organization\no: OtterWeb tests\n"
        "dc: otterweb\n",
        f"dn: {PEOPLE}\nobjectClass: organizationalUnit\nou: people\n",
        f"dn: {GROUPS}\nobjectClass: organizationalUnit\nou: groups\n",
        f"dn: ou=services,{BASE}\nobjectClass: organizationalUnit\nou: services\n",
        f"dn: {BIND_DN}\nobjectClass: organizationalRole\nobjectClass: simpleSecurityObject\n"
        f"cn: otterweb\nuserPassword: {_hashed(BIND_PASSWORD)}\n",
    ]
    for number, (username, (password, given, surname)) in enumerate(PEOPLE_ENTRIES.items()):
        entries.append(
            f"dn: {person_dn(username)}\nobjectClass: inetOrgPerson\nobjectClass: posixAccount\n"
            f"uid: {username}\ncn: {given} {surname}\ngivenName: {given}\nsn: {surname}\n"
            f"mail: {username}@otterweb.test\nuidNumber: {20001 + number}\ngidNumber: 20000\n"
            f"homeDirectory: /home/{username}\nuserPassword: {_hashed(password)}\n"
        )
    for name, members in GROUP_ENTRIES.items():
        lines = "".join(f"member: {person_dn(member)}\n" for member in members)
        entries.append(f"dn: {group_dn(name)}\nobjectClass: groupOfNames\ncn: {name}\n{lines}")
    return "\n".join(entries)


class Slapd(ChildServer):
    """One slapd on a free port of 127.0.0.1, its files in ``folder``; a context manager."""

    name = "slapd"

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.port = free_port()
        self.uri = f"ldap://127.0.0.1:{self.port}"

    def settings(self) -> dict[str, str]:
        """OtterWeb's environment for this directory: users searched by uid with the service
        account, groupOfNames groups."""
        return {
            "OTTERWEB_LDAP_URI": self.uri,
            "OTTERWEB_LDAP_BIND_DN": BIND_DN,
            "OTTERWEB_LDAP_BIND_PASSWORD": BIND_PASSWORD,
            "OTTERWEB_LDAP_USER_SEARCH_BASE": PEOPLE,
            "OTTERWEB_LDAP_USER_FILTER": "(uid=%(user)s)",
            "OTTERWEB_LDAP_GROUP_SEARCH_BASE": GROUPS,
            "OTTERWEB_LDAP_GROUP_TYPE": "groupOfNames",
            "OTTERWEB_LDAP_TIMEOUT_SECONDS": "5",
        }

    def write_config(self) -> Path:
        data = self.folder / "data"
        data.mkdir(parents=True, exist_ok=True)
        config = self.folder / "slapd.conf"
        schemas = "".join(
            f"include {SCHEMAS}/{name}.schema\n"
            for name in ("core", "cosine", "inetorgperson", "nis")
        )
        config.write_text(
            f"{schemas}"
            f"modulepath {MODULES}\nmoduleload back_mdb\n"
            f"pidfile {self.folder / 'slapd.pid'}\nargsfile {self.folder / 'slapd.args'}\n"
            "database mdb\nmaxsize 16777216\n"
            f'suffix "{BASE}"\nrootdn "{ROOT_DN}"\nrootpw {_hashed("root-Password-1")}\n'
            f"directory {data}\n"
            "index objectClass,uid,member eq\n"
            "access to attrs=userPassword by self write by anonymous auth by * none\n"
            "access to * by users read by * none\n"
        )
        (self.folder / "directory.ldif").write_text(ldif())
        subprocess.run(
            [SLAPADD, "-q", "-f", str(config), "-l", str(self.folder / "directory.ldif")],
            check=True,
            capture_output=True,
        )
        return config

    def start(self) -> Slapd:
        config = self.write_config()
        # -d 0: in the foreground, so it is our child and stops with us
        self.launch(
            [SLAPD, "-f", str(config), "-h", f"{self.uri}/", "-d", "0"],
            self.folder / "slapd.log",
            self.answers,
        )
        return self

    def answers(self) -> bool:
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
        except OSError:
            return False
        return True


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory(prefix="otterweb-slapd-") as folder, Slapd(folder) as server:
        for name, value in server.settings().items():
            print(f"{name}={value}")
        with contextlib.suppress(KeyboardInterrupt):
            server.process.wait()
