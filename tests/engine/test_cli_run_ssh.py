"""python -m engine run over SSH: servers from --server, keys, known hosts, trust on first use."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from engine.agents.ssh import known_host_keys

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = """\
foreach server in @(ssh1, ssh2, ssh3)
{
    with async
    {
        SHExec echo hi from $ServerName as `$USER;
        Ensure-File otter-cli-$ServerName.txt
        (
            Text: made for $ServerName
        );
    }
}
"""


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", "run", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", **(env or {})},
    )


def servers(cluster) -> list[str]:
    return [f"--server={s.name}={s.url}" for s in cluster.servers]


def script(tmp_path: Path, text: str) -> str:
    path = tmp_path / "fan.otter"
    path.write_text(text)
    return str(path)


def test_cli_run_ssh_runs_on_every_server_given(sshd, tmp_path: Path) -> None:
    result = run(
        script(tmp_path, SCRIPT),
        *servers(sshd),
        f"--identity={sshd.client_key}",
        f"--known-hosts={sshd.known_hosts}",
        "--log-format=jsonl",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    messages = [json.loads(line).get("message", "") for line in result.stdout.splitlines()]
    for server in sshd.servers:
        assert f"hi from {server.name} as {sshd.user}" in messages
    check = run(
        script(tmp_path, "SHExec cat otter-cli-ssh2.txt;"),
        f"--server=ssh2={sshd.servers[1].url}",
        f"--identity={sshd.client_key}",
        f"--known-hosts={sshd.known_hosts}",
    )
    assert "made for ssh2" in check.stdout


def test_cli_run_ssh_refuses_a_server_whose_key_is_not_known(sshd, tmp_path: Path) -> None:
    result = run(
        script(tmp_path, "SHExec echo never;"),
        f"--server=web1={sshd.servers[0].url}",
        f"--identity={sshd.client_key}",
        f"--known-hosts={tmp_path / 'empty'}",
    )
    assert result.returncode == 1
    assert "is not trusted yet" in result.stdout and "SHA256:" in result.stdout
    assert "never" not in result.stdout.replace("echo never", "")


def test_cli_run_ssh_trust_on_first_use_adds_the_key(sshd, tmp_path: Path) -> None:
    known = tmp_path / "known_hosts"
    server = sshd.servers[0]
    args = [
        f"--server=web1={server.url}",
        f"--identity={sshd.client_key}",
        f"--known-hosts={known}",
    ]
    first = run(script(tmp_path, "SHExec echo first;"), *args, "--trust-on-first-use")
    assert first.returncode == 0, first.stdout + first.stderr
    assert (
        known.read_text()
        == f"[127.0.0.1]:{server.port} {server.host_key.split()[0]} {server.host_key.split()[1]}\n"
    )
    again = run(script(tmp_path, "SHExec echo again;"), *args)  # trusted now, without the option
    assert again.returncode == 0 and "again" in again.stdout


def test_cli_run_ssh_password_comes_from_the_environment_never_the_output(
    sshd, tmp_path: Path
) -> None:
    assert sshd.password, "the SSH tests run as root, which gives the test user a password"
    args = [
        f"--server=web1={sshd.servers[0].url}",
        f"--known-hosts={sshd.known_hosts}",
        "--password-env=SSH_PASSWORD",
    ]
    good = run(script(tmp_path, "SHExec echo in;"), *args, env={"SSH_PASSWORD": sshd.password})
    assert good.returncode == 0 and "in" in good.stdout
    bad = run(script(tmp_path, "SHExec echo in;"), *args, env={"SSH_PASSWORD": "Wrong-Secret-9"})
    assert bad.returncode == 1
    assert f"failed for the user '{sshd.user}' with a password" in bad.stdout
    assert "Wrong-Secret-9" not in bad.stdout + bad.stderr


def test_cli_run_ssh_bad_options_are_usage_errors(tmp_path: Path) -> None:
    path = script(tmp_path, "Log-Information x;")
    assert "NAME=ssh://" in run(path, "--server=web1").stderr
    assert "NAME=ssh://" in run(path, "--server=web1=http://x").stderr
    missing = run(path, "--server=web1=ssh://a@b", "--password-env=NOPE_NOT_SET")
    assert missing.returncode == 2 and "NOPE_NOT_SET is not set" in missing.stderr


def test_known_host_keys_reads_plain_ported_and_hashed_names(tmp_path: Path) -> None:
    key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIwy0tCEb9O6jOBSXEtS5hNuz9sdhzBZDenAjfB/e23n"
    other = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILCNd4BQxWLdkTw1bkdSw/J1szJtrf2gEXCIGHGVwSoR"
    file = tmp_path / "known_hosts"
    file.write_text(
        f"web1,10.0.0.5 {key} a comment\n[web2]:2222 {other}\n# web3 {key}\n"
        f"@revoked web1 {other}\n[hashed]:2200 {key}\n"
    )
    subprocess.run(["ssh-keygen", "-H", "-f", str(file)], check=True, capture_output=True)
    text = file.read_text()
    assert "[hashed]" not in text and "|1|" in text  # every name hashed now
    assert known_host_keys(text, "web1", 22) == (key,)
    assert known_host_keys(text, "10.0.0.5", 22) == (key,)
    assert known_host_keys(text, "web2", 2222) == (other,)
    assert known_host_keys(text, "hashed", 2200) == (key,)
    assert known_host_keys(text, "web2", 22) == ()
    assert known_host_keys(text, "web3", 22) == ()
    os.remove(file.with_name("known_hosts.old"))


EVERY_OPERATION = """\
set $Root = otter-ops-$Tag;
Ensure-Directory $Root/src;
Create-File $Root/src/1.txt (Text: one);
Ensure-File $Root/src/2.txt (Text: two);
Copy-Files (From: $Root/src, To: $Root/dst);
Rename-File (Name: $Root/dst/1.txt, To: $Root/dst/uno.txt);
Replace-Text (Directory: $Root/dst, Include: @(*.txt), SearchText: two, ReplaceWith: dos);
Concatenate-Files (Directory: $Root/dst, OutputFile: $Root/all.txt);
Create-ZipFile (Name: $Root/a.zip, Directory: $Root/dst);
Extract-ZipFile $Root/a.zip (Directory: $Root/out);
Set-FileAttributes (Directory: $Root/out, Include: @(*.txt), FileMode: 600);
Apply-Template (Literal: 'on $ServerName', OutputFile: $Root/t.txt);
Exec ls (Arguments: $Root/out);
SHExec stat -c '%a %n' $Root/out/uno.txt;
PYExec >>print('python says', 6 * 7)>>;
Delete-Files @(*.zip) (Directory: $Root);
SHExec cat $Root/all.txt $Root/t.txt;
SHExec ls $Root;
"""


def test_cli_run_ssh_every_file_and_process_operation_works_there(sshd, tmp_path: Path) -> None:
    tag = os.urandom(4).hex()
    result = run(
        script(tmp_path, EVERY_OPERATION),
        f"--server=web1={sshd.servers[0].url}",
        f"--identity={sshd.client_key}",
        f"--known-hosts={sshd.known_hosts}",
        f"--var=Tag={tag}",
        "--log-format=jsonl",
    )
    records = [json.loads(line) for line in result.stdout.splitlines()]
    errors = [r["message"] for r in records if r.get("level") == "error"]
    assert result.returncode == 0 and errors == [], result.stdout
    messages = [r.get("message", "") for r in records]
    assert "600 otter-ops-" + tag + "/out/uno.txt" in messages
    assert "python says 42" in messages
    # all.txt: 2.txt then uno.txt (in name order, "two" replaced), then the template's output
    assert "dosoneon web1" in messages
    listed = messages[messages.index("dosoneon web1") + 2 :]  # ls of the root, after cat's end
    assert "a.zip" not in listed and "all.txt" in listed


def on_web1(sshd, tmp_path: Path, text: str, *options: str) -> list[dict]:
    """Run ``text`` on the cluster's first server (as web1), which must succeed: its records."""
    result = run(
        script(tmp_path, text),
        f"--server=web1={sshd.servers[0].url}",
        f"--identity={sshd.client_key}",
        f"--known-hosts={sshd.known_hosts}",
        "--log-format=jsonl",
        *options,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


SHELL_ENSURE = """\
set $Kernel = $SHEval(uname -s);
Log-Information kernel $Kernel;
SHEnsure
(
    Key: feature-$Tag,
    Value: on,
    Collect: >>cat otter-feature-$Tag 2>/dev/null || echo off>>,
    Configure: >>echo on > otter-feature-$Tag; echo configured as `$USER>>
);
"""


def test_cli_run_ssh_shensure_and_sheval_collect_and_configure_there(sshd, tmp_path: Path) -> None:
    tag = os.urandom(4).hex()

    def ran(*options: str) -> list[dict]:
        return on_web1(sshd, tmp_path, SHELL_ENSURE, f"--var=Tag={tag}", *options)

    collected = ran("--mode=collect")
    messages = [r.get("message", "") for r in collected]
    assert "kernel Linux" in messages
    assert f"Drift: feature-{tag} should be 'on', is 'off'." in messages
    assert collected[-1]["drifted"] == 1
    configured = [r.get("message", "") for r in ran()]
    assert f"configured as {sshd.user}" in configured  # on the server, as the login
    assert ran("--mode=collect")[-1]["drifted"] == 0
    again = [r.get("message", "") for r in ran()]
    assert not any(message.startswith("configured as") for message in again)


LINES = """\
Create-File otter-lines-$Tag/sshd_config (Text: >>Port 22
PermitRootLogin yes
>>);
Create-File otter-lines-$Tag/hosts (Text: >>127.0.0.1	localhost
>>);
Ensure-FileLine otter-lines-$Tag/sshd_config (Line: PermitRootLogin no, Match: ^PermitRootLogin\\s);
Ensure-HostsEntry db.internal (IP: 10.0.0.9, HostsFile: otter-lines-$Tag/hosts);
SHExec cat otter-lines-$Tag/sshd_config otter-lines-$Tag/hosts;
"""


def test_cli_run_ssh_file_lines_and_hosts_entries_are_changed_there(sshd, tmp_path: Path) -> None:
    records = on_web1(sshd, tmp_path, LINES, f"--var=Tag={os.urandom(4).hex()}")
    printed = [
        r["message"] for r in records if r.get("message") and r.get("level") == "information"
    ]
    cat = printed[printed.index("Port 22") :]
    assert cat == ["Port 22", "PermitRootLogin no", "127.0.0.1\tlocalhost", "10.0.0.9\tdb.internal"]


def test_cli_run_ssh_cron_job_in_the_logins_own_crontab(sshd, tmp_path: Path) -> None:
    name = f"otter-{os.urandom(4).hex()}"
    job = f"Ensure-CronJob {name} (Schedule: '@hourly', Command: echo {name});"
    listing = f"SHExec crontab -l;\nEnsure-CronJob {name} (Exists: false);\nSHExec crontab -l;"
    assert on_web1(sshd, tmp_path, job, "--mode=collect")[-1]["drifted"] == 1
    on_web1(sshd, tmp_path, job)
    assert on_web1(sshd, tmp_path, job, "--mode=collect")[-1]["drifted"] == 0
    messages = [r.get("message", "") for r in on_web1(sshd, tmp_path, listing)]
    first = messages.index(f"# OtterWeb: {name}")
    assert messages[first + 1] == f"@hourly echo {name}"
    assert messages.count(f"# OtterWeb: {name}") == 1  # removed before the second listing


GIT = """\
SHExec >>set -e
mkdir otter-git-$Tag && cd otter-git-$Tag
git init --quiet --bare -b main origin.git
git clone --quiet origin.git author 2>/dev/null && cd author && git checkout --quiet -b main
echo first > notes.txt && git add notes.txt
git -c user.name=Ops -c user.email=ops@example.org commit --quiet -m first
git push --quiet origin HEAD:main>>;
Checkout-Code (RepositoryUrl: otter-git-$Tag/origin.git, To: otter-git-$Tag/copy, CommitHash => $C);
Log-Information commit $C;
SHExec cat otter-git-$Tag/copy/notes.txt;
Ensure-GitRepository (RepositoryUrl: otter-git-$Tag/origin.git, To: otter-git-$Tag/copy);
"""


def test_cli_run_ssh_checkout_code_with_the_servers_git(sshd, tmp_path: Path) -> None:
    records = on_web1(sshd, tmp_path, GIT, f"--var=Tag={os.urandom(4).hex()}")
    messages = [r.get("message", "") for r in records]
    assert "first" in messages
    assert any(m.startswith("commit ") and len(m) == len("commit ") + 40 for m in messages)
    assert records[-1]["status"] == "normal"


def test_cli_run_ssh_collect_debian_packages_lists_the_servers_packages(
    sshd, tmp_path: Path
) -> None:
    listed = subprocess.run(
        ["dpkg-query", "--show", "--showformat=${db:Status-Abbrev}\n"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    installed = sum(1 for status in listed if status[1:2] == "i")
    messages = [r.get("message", "") for r in on_web1(sshd, tmp_path, "Collect-DebianPackages;")]
    # the loopback sshd is this machine, logged in to as the unprivileged test user
    assert f"Collected {installed} Debian packages on web1." in messages


def test_cli_run_ssh_sudo_runs_commands_as_root(sshd, sudo_rule, tmp_path: Path) -> None:
    options = [
        f"--server=ssh1={sshd.servers[0].url}",
        f"--identity={sshd.client_key}",
        f"--known-hosts={sshd.known_hosts}",
    ]
    whoami = script(tmp_path, "SHExec echo as `$USER;")
    assert f"as {sshd.user}" in run(whoami, *options).stdout
    result = run(whoami, *options, "--sudo")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "as root" in result.stdout
