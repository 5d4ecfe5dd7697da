"""Command line: ``python -m engine check|format|blocks|unblocks|run FILE...`` (``-`` reads stdin)."""

from __future__ import annotations

import argparse
import codecs
import getpass
import json
import sys
from pathlib import Path

from engine import check, format_script, from_blocks, json_dumps, json_loads, parse, to_blocks
from engine.ast import Script
from engine.blocks import BlocksError
from engine.errors import Diagnostic, OtterSyntaxError
from engine.values import describe


class NotText(ValueError):
    """A file whose bytes are not UTF-8 text; the message names where."""


def _read(path: str) -> str:
    """A file, or standard input for ``-``, as UTF-8 text (a byte order mark is skipped)."""
    data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    skip = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    try:
        return data[skip:].decode("utf-8")
    except UnicodeDecodeError as error:
        offset = skip + error.start
        line = data.count(b"\n", 0, offset) + 1
        column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
        raise NotText(
            f"{path}:{line}:{column}: error: not UTF-8 text: byte 0x{data[offset]:02x} at "
            f"offset {offset} ({error.reason})"
        ) from None


def _diagnose(path: str) -> tuple[list[Diagnostic], str]:
    """Every diagnostic of one file: syntax errors, or the checks of a script that parses."""
    text = _read(path)
    try:
        return check(parse(text, name=path)), text
    except OtterSyntaxError as error:
        return error.diagnostics, text


def command_check(args: argparse.Namespace) -> int:
    failed = False
    report = []
    for path in args.files:
        try:
            diagnostics, _text = _diagnose(path)
        except OSError as error:
            print(f"{path}: error: {error.strerror}", file=sys.stderr)
            failed = True
            continue
        except NotText as error:
            print(error, file=sys.stderr)
            failed = True
            continue
        failed = failed or any(d.is_error for d in diagnostics)
        if args.json:
            report.append({"file": path, "diagnostics": [d.to_dict() for d in diagnostics]})
        else:
            for diagnostic in diagnostics:
                print(diagnostic.format(path))
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        print()
    return 1 if failed else 0


def _parse_or_report(path: str) -> tuple[Script, str] | None:
    text = _read(path)
    try:
        return parse(text, name=path), text
    except OtterSyntaxError as error:
        for diagnostic in error.diagnostics:
            print(diagnostic.format(path), file=sys.stderr)
        return None


def command_format(args: argparse.Namespace) -> int:
    parsed = _parse_or_report(args.file)
    if parsed is None:
        return 2
    script, text = parsed
    formatted = format_script(script)
    if args.check:
        if formatted != text:
            print(f"{args.file}: not in canonical form", file=sys.stderr)
            return 1
        return 0
    sys.stdout.write(formatted)
    return 0


def command_blocks(args: argparse.Namespace) -> int:
    parsed = _parse_or_report(args.file)
    if parsed is None:
        return 2
    try:
        workspace = to_blocks(*parsed)  # each block keeps its statement's text
    except OtterSyntaxError as error:
        for diagnostic in error.diagnostics:
            print(diagnostic.format(args.file), file=sys.stderr)
        return 2
    # compact: the JSON nests as deep as the script is long, and indentation would grow with the
    # square of its length (900 MB for 5,000 statements)
    print(json_dumps(workspace))
    return 0


def command_unblocks(args: argparse.Namespace) -> int:
    try:
        data = json_loads(_read(args.file), surrogates=False)
        script = from_blocks(data)
    except json.JSONDecodeError as error:
        print(
            f"{args.file}:{error.lineno}:{error.colno}: error: not JSON: {error.msg}",
            file=sys.stderr,
        )
        return 2
    except BlocksError as error:
        print(f"{args.file}: error: {error}", file=sys.stderr)
        return 2
    except OtterSyntaxError as error:
        for diagnostic in error.diagnostics:
            print(f"{args.file}: {diagnostic.severity}: {diagnostic.explained}", file=sys.stderr)
        return 2
    sys.stdout.write(format_script(script))
    return 0


class _TextSink:
    """Log records as lines indented by scope: `[level] message`."""

    def __init__(self, stream) -> None:
        self.stream = stream

    def scope_opened(self, scope) -> None:
        self.stream.write(f"{'  ' * (len(scope.path) - 1)}{scope.name}\n")

    def scope_closed(self, scope) -> None:
        pass

    def record(self, record) -> None:
        self.stream.write(f"{'  ' * len(record.scope)}[{record.level.label}] {record.message}\n")


class _JsonLinesSink:
    """One JSON object per log record."""

    def __init__(self, stream) -> None:
        self.stream = stream

    def scope_opened(self, scope) -> None:
        pass

    def scope_closed(self, scope) -> None:
        pass

    def record(self, record) -> None:
        line = {
            "type": "log",
            "seq": record.seq,
            "scope": list(record.scope),
            "level": record.level.label,
            "message": record.message,
            "line": record.line,
        }
        self.stream.write(json.dumps(line) + "\n")


def command_run(args: argparse.Namespace) -> int:
    import asyncio
    import gc
    import os
    import signal

    from engine.interpreter import ScriptRun, StandaloneHost

    text = _read(args.file)
    try:
        script = parse(text, name=args.file)
    except OtterSyntaxError as error:
        for diagnostic in error.diagnostics:
            print(diagnostic.format(args.file), file=sys.stderr)
        return 2
    variables = {}
    for item in args.var:
        name, equals, value = item.partition("=")
        if not equals or not name.strip():
            print(f"error: --var takes NAME=VALUE, not '{item}'", file=sys.stderr)
            return 2
        try:
            item.encode("utf-8")
        except UnicodeEncodeError:
            print(f"error: --var {name.strip()} is not UTF-8 text", file=sys.stderr)
            return 2
        variables[name.strip().lstrip("$")] = value
    try:
        ssh_servers = _ssh_targets(args)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    sink = _JsonLinesSink(sys.stdout) if args.log_format == "jsonl" else _TextSink(sys.stdout)
    script_directory = os.path.dirname(os.path.abspath(args.file)) if args.file != "-" else None
    host = StandaloneHost(
        sink=sink,
        script_directory=script_directory,
        ssh_servers=ssh_servers,
        max_connecting=args.max_connecting,
        on_new_host_key=_remember_host_key(args.known_hosts, ssh_servers),
    )
    execution = ScriptRun(
        script, host=host, mode=args.mode, simulate=args.simulate, variables=variables
    )

    async def main():
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, execution.cancel)
        return await execution.run()

    # what is loaded by now lives as long as the process: the collector need not walk it again
    # at every collection (a tenth of the CPU of a check of 27,000 operations)
    gc.freeze()
    result = asyncio.run(main())
    if args.log_format == "jsonl":
        summary = {
            "type": "result",
            "status": result.status.label,
            "drifted": len(result.drifted),
            "duration": round(result.duration, 3),
        }
        print(json.dumps(summary))
    else:
        for drift in result.drifted:
            changes = "; ".join(
                f"{d.property}: expected {describe(d.expected)}, actual {describe(d.actual)}"
                for d in drift.differences
            )
            print(f"drift: {drift.server}: {drift.operation} (line {drift.line}): {changes}")
        print(
            f"status: {result.status.label} ({result.duration:.2f}s, {len(result.drifted)} drifted)"
        )
    return 1 if result.status.label == "error" else 0


def _ssh_targets(args: argparse.Namespace) -> list:
    """The --server NAME=ssh://[USER@]HOST[:PORT] options as SSH targets, with the key,
    password and trusted host keys the other options give. ValueError says what is wrong."""
    import os
    from urllib.parse import urlsplit

    from engine.agents.ssh import SshTarget, known_host_keys

    if not args.server:
        return []
    private_key = Path(args.identity).expanduser().read_text() if args.identity else None
    password = passphrase = None
    for option, variable in (
        ("--password-env", args.password_env),
        ("--passphrase-env", args.passphrase_env),
    ):
        if variable and variable not in os.environ:
            raise ValueError(f"{option}: the environment variable {variable} is not set")
    if args.password_env:
        password = os.environ[args.password_env]
    if args.passphrase_env:
        passphrase = os.environ[args.passphrase_env]
    known_hosts = Path(args.known_hosts).expanduser()
    known = known_hosts.read_text() if known_hosts.is_file() else ""
    targets = []
    for item in args.server:
        name, equals, url = item.partition("=")
        try:
            parts = urlsplit(url)
            port = parts.port or 22
        except ValueError as error:
            raise ValueError(f"--server {item}: {error}") from None
        if not equals or not name.strip() or parts.scheme != "ssh" or not parts.hostname:
            raise ValueError(f"--server takes NAME=ssh://[USER@]HOST[:PORT], not '{item}'")
        targets.append(
            SshTarget(
                server=name.strip(),
                address=parts.hostname,
                port=port,
                user=parts.username or getpass.getuser(),
                password=password,
                private_key=private_key,
                passphrase=passphrase,
                trusted_host_keys=known_host_keys(known, parts.hostname, port),
                trust_on_first_use=args.trust_on_first_use,
                sudo=args.sudo,
            )
        )
    return targets


def _remember_host_key(known_hosts: str, targets: list):
    """With --trust-on-first-use, each key trusted is added to the known_hosts file."""
    from engine.agents.ssh import known_hosts_name

    where = {target.server: (target.address, target.port) for target in targets}

    def remember(server: str, key: str) -> None:
        path = Path(known_hosts).expanduser()
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as handle:
            handle.write(f"{known_hosts_name(*where[server])} {key}\n")
        print(f"trusted on first use: {server}'s host key, added to {path}", file=sys.stderr)

    return remember


def reference_markdown() -> str:
    """The operations and functions of the registry, as Markdown."""
    from engine.registry import REGISTRY
    from engine.values import to_text

    lines = [
        "# OtterScript reference: operations and functions",
        "",
        "Generated from the registry by `python -m engine reference`; do not edit by hand.",
        "",
        "## Operations",
        "",
    ]
    for operation in REGISTRY.all_operations():
        aliases = f" (also {', '.join(operation.aliases)})" if operation.aliases else ""
        lines += [
            f"### `{operation.namespace}::{operation.name}`{aliases}",
            "",
            f"{operation.description} Kind: {operation.kind.value}.",
            "",
        ]
        lines += ["| argument | type | notes |", "| --- | --- | --- |"]
        for p in operation.params:
            flags = [
                f
                for f, on in (
                    ("positional", p.positional),
                    ("required", p.required),
                    ("output", p.output),
                )
                if on
            ]
            if not p.expand:
                flags.append("not expanded")
            if p.default not in (None, "", False, []):
                flags.append(
                    f"default {to_text(p.default) if isinstance(p.default, list) else p.default}"
                )
            note = "; ".join(flags)
            lines.append(
                f"| `{p.name}` | {p.type.value} | {p.description}{' (' + note + ')' if note else ''} |"
            )
        lines.append("")
    lines += ["## Functions", "", "| function | description |", "| --- | --- |"]
    for function in REGISTRY.all_functions():
        aliases = f" (also {', '.join(function.aliases)})" if function.aliases else ""
        lines.append(f"| `{function.signature()}`{aliases} | {function.description} |")
    return "\n".join(lines) + "\n"


def command_reference(args: argparse.Namespace) -> int:
    sys.stdout.write(reference_markdown())
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m engine", description="OtterScript tools. FILE may be - for standard input."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    check_parser = commands.add_parser("check", help="report syntax errors and check problems")
    check_parser.add_argument("files", nargs="+", metavar="FILE")
    check_parser.add_argument(
        "--json", action="store_true", help='print [{"file": ..., "diagnostics": [...]}]'
    )
    check_parser.set_defaults(run=command_check)

    format_parser = commands.add_parser("format", help="print the canonical text")
    format_parser.add_argument("file", metavar="FILE")
    format_parser.add_argument(
        "--check", action="store_true", help="exit 1 when the file is not canonical"
    )
    format_parser.set_defaults(run=command_format)

    blocks_parser = commands.add_parser("blocks", help="print the Blockly workspace JSON")
    blocks_parser.add_argument("file", metavar="FILE")
    blocks_parser.set_defaults(run=command_blocks)

    unblocks_parser = commands.add_parser(
        "unblocks", help="print the text of a Blockly workspace JSON file"
    )
    unblocks_parser.add_argument("file", metavar="FILE.json")
    unblocks_parser.set_defaults(run=command_unblocks)

    run_parser = commands.add_parser(
        "run", help="run a script on this machine (the server 'localhost') or over SSH"
    )
    run_parser.add_argument("file", metavar="FILE")
    run_parser.add_argument(
        "--var",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set a runtime variable (repeatable)",
    )
    run_parser.add_argument(
        "--mode", choices=["execute", "collect", "collect-execute"], default="execute"
    )
    run_parser.add_argument(
        "--simulate",
        action="store_true",
        help="log what each operation would do, and change nothing",
    )
    run_parser.add_argument("--log-format", choices=["text", "jsonl"], default="text")
    ssh = run_parser.add_argument_group(
        "SSH servers", "run on servers over SSH instead of this machine (docs/ssh.md)"
    )
    ssh.add_argument(
        "--server",
        action="append",
        default=[],
        metavar="NAME=ssh://[USER@]HOST[:PORT]",
        help="a server over SSH (repeatable; the first is the default server)",
    )
    ssh.add_argument("--identity", metavar="KEYFILE", help="the private key to log in with")
    ssh.add_argument(
        "--passphrase-env", metavar="VAR", help="the environment variable holding its passphrase"
    )
    ssh.add_argument(
        "--password-env", metavar="VAR", help="the environment variable holding the password"
    )
    ssh.add_argument(
        "--known-hosts",
        default="~/.ssh/known_hosts",
        metavar="FILE",
        help="the host keys to trust, as OpenSSH writes them (default: %(default)s)",
    )
    ssh.add_argument(
        "--trust-on-first-use",
        action="store_true",
        help="trust a server with no known key and add its key to the known hosts file",
    )
    ssh.add_argument(
        "--sudo",
        action="store_true",
        help="run commands through 'sudo -n' (the user needs sudo without a password): "
        "packages, users and the like need root",
    )
    ssh.add_argument(
        "--max-connecting",
        type=int,
        default=100,
        metavar="N",
        help="how many servers connect at once (default: %(default)s)",
    )
    run_parser.set_defaults(run=command_run)

    reference_parser = commands.add_parser(
        "reference", help="print the operations and functions as Markdown"
    )
    reference_parser.set_defaults(run=command_reference)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except BrokenPipeError:  # pragma: no cover - the reader went away (| head)
        return 0
    except OSError as error:
        print(f"error: {error.filename or ''}: {error.strerror}", file=sys.stderr)
        return 2
    except NotText as error:
        print(error, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
