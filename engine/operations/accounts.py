"""Users, groups and cron jobs of a Linux server, with its own tools (getent, useradd, crontab...):
as root on the local server, or through sudo over SSH where the server says so."""

from __future__ import annotations

import re

from engine.operations.process import must_run, output_of, shell_command
from engine.registry import Kind, Operation, ParamType, operation, param
from engine.values import to_text


async def entry(run, database: str, name: str) -> tuple[str, ...] | None:
    """The fields of ``name`` (or id) in a getent database (passwd, group); None when absent."""
    code, output, errors = await output_of(run, ["getent", database, name])
    if code == 2:  # not found
        return None
    if code != 0:
        raise ValueError(f"getent {database} {name} failed on {run.server}: {' '.join(errors)}")
    return tuple(output.split(":"))


Accounts = dict[str, dict[str, tuple[str, ...]]]


async def listed_accounts(run) -> Accounts:
    """The server's users and groups as getent lists them ("passwd" and "group": name ->
    fields), read once for the operations of the run that ask until something changes the
    server (a run's facts): a check of 20 users asks the server once, not 20 times. Any user
    may list them, so they are listed without sudo."""

    async def load() -> Accounts:
        text = await must_run(run, ["/bin/sh", "-c", LIST_ACCOUNTS], privileged=False)
        users, _, groups = text.partition("\n\n")
        return {
            database: {
                line.split(":", 1)[0]: tuple(line.split(":")) for line in lines.splitlines() if line
            }
            for database, lines in (("passwd", users), ("group", groups))
        }

    return await run.fact("accounts", load)


async def account(run, database: str, name: str) -> tuple[str, ...] | None:
    """The fields of ``name`` in the server's passwd or group database, None when absent: from
    the listed accounts, or, for a name they lack, asked for alone (a directory's accounts, LDAP's
    say, need not be listed)."""
    fields = (await listed_accounts(run))[database].get(name)
    return fields if fields is not None else await entry(run, database, name)


@operation(
    "Ensure-Group",
    namespace="Linux",
    kind=Kind.ENSURE,
    description="Ensures a group exists (with its id) or does not, on the server in context.",
)
class EnsureGroup(Operation):
    name = param("Name", positional=True, required=True, description="The group's name.")
    exists = param(
        "Exists", ParamType.BOOLEAN, default=True, description="Whether the group should exist."
    )
    gid = param("Gid", ParamType.INTEGER, default=None, description="Its group id.")
    system = param(
        "System",
        ParamType.BOOLEAN,
        default=False,
        description="A system group (its id from the system range), when it is made.",
    )

    def desired(self) -> dict:
        wanted: dict = {"Exists": self.exists}
        if self.exists and self.gid is not None:
            wanted["Gid"] = self.gid
        return wanted

    async def collect(self, run) -> dict:
        fields = await account(run, "group", self.name)
        if fields is None:
            return {"Exists": False}
        return {"Exists": True, "Gid": int(fields[2])}

    async def execute(self, run) -> None:
        actual = await self.collect(run)
        if not self.exists:
            if actual["Exists"]:
                await must_run(run, ["groupdel", self.name])
                run.info(f"Deleted the group {self.name}.")
            return
        if not actual["Exists"]:
            options = ["-g", str(self.gid)] if self.gid is not None else []
            await must_run(run, ["groupadd", *options, *(["-r"] if self.system else []), self.name])
            run.info(f"Made the group {self.name}.")
        elif self.gid is not None and actual["Gid"] != self.gid:
            await must_run(run, ["groupmod", "-g", str(self.gid), self.name])
            run.info(f"Changed the id of the group {self.name} to {self.gid}.")


@operation(
    "Ensure-User",
    namespace="Linux",
    kind=Kind.ENSURE,
    description="Ensures a user exists (with its id, groups, shell, home, lock and SSH keys) or "
    "does not, on the server in context.",
)
class EnsureUser(Operation):
    name = param("Name", positional=True, required=True, description="The user's name.")
    exists = param(
        "Exists",
        ParamType.BOOLEAN,
        default=True,
        description="Whether the user should exist (false deletes the user, not the home).",
    )
    uid = param("Uid", ParamType.INTEGER, default=None, description="Its user id.")
    group = param(
        "Group", description="Its primary group (its own group, made with it, when not set)."
    )
    groups = param(
        "Groups",
        ParamType.LIST,
        default=None,
        description="Its other groups, exactly: it is taken out of any other.",
    )
    shell = param("Shell", description="Its login shell (/bin/bash).")
    home = param("Home", description="Its home directory (made with it).")
    locked = param(
        "Locked",
        ParamType.BOOLEAN,
        default=None,
        description="Whether its password is locked (no password login; keys still work).",
    )
    authorized_keys = param(
        "AuthorizedKeys",
        ParamType.LIST,
        default=None,
        description="Its SSH public keys, exactly (~/.ssh/authorized_keys).",
    )

    def desired(self) -> dict:
        wanted: dict = {"Exists": self.exists}
        if not self.exists:
            return wanted
        for key, value in (
            ("Uid", self.uid),
            ("Group", self.group),
            ("Shell", self.shell),
            ("Home", self.home),
            ("Locked", self.locked),
        ):
            if value is not None:
                wanted[key] = value
        if self.groups is not None:
            wanted["Groups"] = sorted({to_text(group) for group in self.groups})
        if self.authorized_keys is not None:
            wanted["AuthorizedKeys"] = self.keys()
        return wanted

    def keys(self) -> list[str]:
        return [to_text(key).strip() for key in self.authorized_keys or [] if to_text(key).strip()]

    async def collect(self, run) -> dict:
        fields = await account(run, "passwd", self.name)
        if fields is None:
            return {"Exists": False}
        home = fields[5]
        actual: dict = {"Exists": True, "Uid": int(fields[2]), "Home": home, "Shell": fields[6]}
        listed = await listed_accounts(run)
        primary = next((g for g in listed["group"].values() if g[2] == fields[3]), None)
        if primary is None:
            primary = await entry(run, "group", fields[3])
        actual["Group"] = primary[0] if primary else fields[3]
        if self.groups is not None:
            if self.name in listed["passwd"]:
                named = [g[0] for g in listed["group"].values() if self.name in g[3].split(",")]
            else:  # a directory's user: its groups as the server resolves them
                named = (await must_run(run, ["id", "-nG", self.name])).split()
            actual["Groups"] = sorted(set(named) - {actual["Group"]})
        if self.locked is not None:
            status = (await must_run(run, ["passwd", "-S", self.name])).split()
            actual["Locked"] = len(status) > 1 and status[1] == "L"
        if self.authorized_keys is not None:
            actual["AuthorizedKeys"] = await self.read_keys(run, home)
        return actual

    async def read_keys(self, run, home: str) -> list[str]:
        # through a command, not the agent's file access: over SSH, commands go through sudo
        text = await must_run(run, shell_command(READ_KEYS, [f"{home}/.ssh/authorized_keys"]))
        return [line.strip() for line in text.splitlines() if line.strip()]

    async def execute(self, run) -> None:
        actual = await self.collect(run)
        if not self.exists:
            if actual["Exists"]:
                await must_run(run, ["userdel", self.name])
                run.info(f"Deleted the user {self.name} (the home directory is kept).")
            return
        wanted = self.desired()
        if not actual["Exists"]:
            await must_run(run, ["useradd", "-m", *self.options(wanted), self.name])
            run.info(f"Made the user {self.name}.")
            actual = await self.collect(run)
        else:
            changed = {key: value for key, value in wanted.items() if actual.get(key) != value}
            options = self.options(changed)
            if options:
                await must_run(run, ["usermod", *options, self.name])
                named = sorted(key for key, _ in USER_OPTIONS if key in changed)
                run.info(f"Changed {', '.join(named)} of {self.name}.")
        if self.locked is not None and actual.get("Locked") != self.locked:
            await must_run(run, ["usermod", "-L" if self.locked else "-U", self.name])
            run.info(f"{'Locked' if self.locked else 'Unlocked'} the password of {self.name}.")
        if self.authorized_keys is not None and actual.get("AuthorizedKeys") != self.keys():
            await self.write_keys(run, actual["Home"])

    def options(self, wanted: dict) -> list[str]:
        """useradd's and usermod's options for the properties in ``wanted`` (not Locked)."""
        options: list[str] = []
        for key, option in USER_OPTIONS:
            if key in wanted:
                value = wanted[key]
                options += [option, ",".join(value) if key == "Groups" else str(value)]
        return options

    async def write_keys(self, run, home: str) -> None:
        keys = self.keys()
        await must_run(
            run,
            shell_command(WRITE_KEYS, [f"{home}/.ssh", self.name]),
            stdin="".join(f"{key}\n" for key in keys).encode(),
        )
        run.info(f"Wrote {len(keys)} authorized key(s) for {self.name}.")


# every user, an empty line, every group (getent's lists: /etc's files, and a directory's accounts
# where it lists them)
LIST_ACCOUNTS = "getent passwd; echo; getent group"
# useradd's and usermod's option for each property they set
USER_OPTIONS = (("Uid", "-u"), ("Group", "-g"), ("Groups", "-G"), ("Shell", "-s"), ("Home", "-d"))
READ_KEYS = 'test -f "$1" || exit 0; cat "$1"'
# ~/.ssh (700) and its authorized_keys (600), the user's, written from standard input
WRITE_KEYS = (
    'umask 077 && mkdir -p "$1" && cat > "$1/authorized_keys.new" && '
    'mv "$1/authorized_keys.new" "$1/authorized_keys" && chmod 700 "$1" && chown -R "$2": "$1"'
)


CRON_MARK = "# OtterWeb: "  # the line above each job this operation keeps: its name
CRON_FIELD = re.compile(r"[0-9A-Za-z*/,-]+")
UNKNOWN_USER = re.compile(r"user .* unknown")  # crontab's words (Debian's cron and cronie)


@operation(
    "Ensure-CronJob",
    namespace="Linux",
    kind=Kind.ENSURE,
    description="Ensures a job is in a user's crontab (with its schedule and command) or is not, "
    "on the server in context. The job is found by its name, in a comment line above it.",
)
class EnsureCronJob(Operation):
    name = param("Name", positional=True, required=True, description="The job's name.")
    schedule = param(
        "Schedule",
        description="When it runs: five cron fields (30 2 * * *) or a word, quoted ('@daily')",
    )
    command = param("Command", description="What it runs (one line).")
    user = param("User", description="Whose crontab (the agent's user when not set).")
    exists = param(
        "Exists", ParamType.BOOLEAN, default=True, description="Whether the job should exist."
    )

    def desired(self) -> dict:
        if not self.exists:
            return {"Exists": False}
        return {"Exists": True, "Schedule": self.normal_schedule(), "Command": self.command}

    def normal_schedule(self) -> str:
        fields = (self.schedule or "").split()
        if fields[:1] and fields[0].startswith("@") and len(fields) == 1:
            return fields[0]
        if len(fields) != 5 or not all(CRON_FIELD.fullmatch(field) for field in fields):
            raise ValueError(
                f"Ensure-CronJob's Schedule '{self.schedule}' is not five cron fields "
                "(30 2 * * *) or a word like @daily"
            )
        return " ".join(fields)

    def check(self) -> None:
        if "\n" in self.name or (self.command and "\n" in self.command):
            raise ValueError("Ensure-CronJob's Name and Command are one line each")
        if self.exists:
            if not self.command:
                raise ValueError("Ensure-CronJob needs Command (or Exists: false)")
            self.normal_schedule()

    def crontab(self, *arguments: str) -> list[str]:
        return ["crontab", *(["-u", self.user] if self.user else []), *arguments]

    async def read(self, run) -> list[str]:
        code, output, errors = await output_of(run, self.crontab("-l"))
        if code != 0:
            # no crontab yet; or no such user yet (collected before Ensure-User makes it)
            if any("no crontab" in line or UNKNOWN_USER.search(line) for line in errors):
                return []
            raise ValueError(f"crontab -l failed on {run.server}: {' '.join(errors)[:500]}")
        return output.splitlines()

    def find(self, lines: list[str]) -> int | None:
        """The position of the job's name line, when the job is there."""
        for position, line in enumerate(lines[:-1]):
            if line.strip() == f"{CRON_MARK}{self.name}":
                return position
        return None

    async def collect(self, run) -> dict:
        self.check()
        lines = await self.read(run)
        position = self.find(lines)
        if position is None:
            return {"Exists": False}
        line = lines[position + 1]
        cut = 1 if line.lstrip().startswith("@") else 5
        fields = line.split(maxsplit=cut)  # the schedule's fields, then the command as written
        return {
            "Exists": True,
            "Schedule": " ".join(fields[:cut]),
            "Command": fields[cut] if len(fields) > cut else "",
        }

    async def execute(self, run) -> None:
        self.check()
        lines = await self.read(run)
        position = self.find(lines)
        wanted = (
            [f"{CRON_MARK}{self.name}", f"{self.normal_schedule()} {self.command}"]
            if self.exists
            else []
        )
        if position is None and not self.exists:
            run.debug(f"There is no cron job {self.name}: nothing to remove.")
            return
        if position is not None:
            if lines[position : position + 2] == wanted:
                run.debug(f"The cron job {self.name} is already as declared.")
                return
            del lines[position : position + 2]
        lines += wanted
        await must_run(
            run, self.crontab("-"), stdin="".join(f"{line}\n" for line in lines).encode()
        )
        whose = f" of {self.user}" if self.user else ""
        run.info(f"{'Wrote' if self.exists else 'Removed'} the cron job {self.name}{whose}.")
