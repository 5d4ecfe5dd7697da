"""Operations against real files, real processes and a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import http.server
import threading
import zipfile

import pytest

from engine.interpreter import Level


async def test_exec_streams_output_lines_to_the_log(run) -> None:
    ran = await run("Exec printf (Arguments: \"'one\\ntwo\\n'\");")
    assert ran.info[-2:] == ["one", "two"]


async def test_exec_positional_holds_program_and_arguments(run) -> None:
    assert (await run('Exec "echo hello world" (LogArguments: false);')).info == ["hello world"]


async def test_exec_nonzero_exit_code_fails_with_a_clear_error(run) -> None:
    ran = await run("Exec false;\nLog-Information never;")
    assert ran.status == "error" and "never" not in ran.info
    assert "false exited with code 1 on localhost; expected an exit code == 0." in ran.messages(
        Level.ERROR
    )


async def test_exec_success_exit_code_rules(run) -> None:
    assert (
        await run("Exec sh (Arguments: -c 'exit 3', SuccessExitCode: >= 0);")
    ).status == "normal"
    assert (await run("Exec sh (Arguments: -c 'exit 3', SuccessExitCode: 3);")).status == "normal"
    assert (
        await run("Exec sh (Arguments: -c 'exit 3', SuccessExitCode: ignored);")
    ).status == "normal"
    assert (await run("Exec sh (Arguments: -c 'exit 3', SuccessExitCode: != 3);")).status == "error"


async def test_exec_log_levels_and_regexes(run) -> None:
    ran = await run(
        "Exec sh (Arguments: -c 'echo WARN: disk; echo note; echo oops >&2', WarnRegex: ^WARN, ErrorOutputLogLevel: Debug);"
    )
    assert ran.messages(Level.WARNING) == ["WARN: disk"]
    assert "oops" in ran.messages(Level.DEBUG)
    assert ran.status == "warning"


async def test_exec_missing_program_is_a_clear_error(run) -> None:
    ran = await run("Exec /no/such/program;")
    assert ran.messages(Level.ERROR) == [
        "cannot run '/no/such/program' on localhost: no such program or directory (/no/such/program)"
    ]


async def test_exec_import_variables_passes_text_variables(run) -> None:
    ran = await run(
        "set $Greeting = hi there;\nExec sh (Arguments: '-c \"echo $$Greeting\"', ImportVariables: true, LogArguments: false);".replace(
            "$$", "`$"
        )
    )
    assert ran.info == ["hi there"]


async def test_shexec_variables_in_and_out(run) -> None:
    ran = await run(
        'SHExec >>result="$a-$b"; echo running>> (Variables: %(a: 1, b: 2), OutVariables: @(result));\nLog-Information $result;'.replace(
            "$a", "`$a"
        ).replace("$b", "`$b")
    )
    assert ran.info == ["running", "1-2"]


async def test_shcall_runs_a_raft_script(run, host) -> None:
    host.rafts[("script", "hello.sh")] = 'echo "hello $1"'
    assert (await run("SHCall hello.sh (Arguments: ops);")).info == ["hello ops"]


async def test_pyexec_runs_python_with_variables(run) -> None:
    ran = await run(
        "PYExec >>total = int(a) + 1\nprint('total', total)>> (Variables: %(a: 41), OutVariables: @(total));\nLog-Information got $total;"
    )
    assert ran.info == ["total 42", "got 42"]


async def test_sleep_waits_and_rejects_negative(run) -> None:
    assert (await run("Sleep 0;")).status == "normal"
    assert "not negative" in (await run("Sleep -1;")).messages(Level.ERROR)[0]


async def test_create_file_writes_and_refuses_to_overwrite(run, tmp_path) -> None:
    path = tmp_path / "a.txt"
    await run(f"Create-File {path} (Text: hello);")
    assert path.read_text() == "hello"
    ran = await run(f"Create-File {path} (Text: again);")
    assert ran.status == "error" and path.read_text() == "hello"
    await run(f"Create-File {path} (Text: again, Overwrite: true);")
    assert path.read_text() == "again"


async def test_ensure_file_and_directory_create_and_remove(run, tmp_path) -> None:
    await run(f"Ensure-File {tmp_path}/d/f.txt (Text: x);\nEnsure-Directory {tmp_path}/e;")
    assert (tmp_path / "d" / "f.txt").read_text() == "x" and (tmp_path / "e").is_dir()
    await run(
        f"Ensure-File {tmp_path}/d/f.txt (Exists: false);\nEnsure-Directory {tmp_path}/e (Exists: false);"
    )
    assert not (tmp_path / "d" / "f.txt").exists() and not (tmp_path / "e").exists()


async def test_delete_files_with_masks(run, tmp_path) -> None:
    for name in ("a.log", "b.log", "keep.txt", "sub/c.log"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("x")
    await run(f"Delete-Files @(*.log) (Directory: {tmp_path}, Exclude: @(b.log));")
    assert sorted(
        p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()
    ) == ["b.log", "keep.txt"]


async def test_copy_rename_replace_concatenate(run, tmp_path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "1.txt").write_text("one\n")
    (tmp_path / "src" / "2.txt").write_text("two\n")
    await run(
        f"Copy-Files (From: {tmp_path}/src, To: {tmp_path}/dst);\n"
        f"Rename-File (Name: {tmp_path}/dst/1.txt, To: {tmp_path}/dst/uno.txt);\n"
        f"Replace-Text (Directory: {tmp_path}/dst, Include: @(*.txt), SearchText: two, ReplaceWith: dos);\n"
        f"Concatenate-Files (Directory: {tmp_path}/dst, OutputFile: {tmp_path}/all.txt);"
    )
    assert (tmp_path / "dst" / "uno.txt").read_text() == "one\n"
    assert (tmp_path / "dst" / "2.txt").read_text() == "dos\n"
    assert (tmp_path / "all.txt").read_text() == "dos\none\n"


async def test_zip_create_and_extract(run, tmp_path) -> None:
    (tmp_path / "in" / "deep").mkdir(parents=True)
    (tmp_path / "in" / "deep" / "f.txt").write_text("zipped")
    await run(
        f"Create-ZipFile (Name: {tmp_path}/a.zip, Directory: {tmp_path}/in);\nExtract-ZipFile {tmp_path}/a.zip (Directory: {tmp_path}/out);"
    )
    assert zipfile.ZipFile(tmp_path / "a.zip").namelist() == ["deep/f.txt"]
    assert (tmp_path / "out" / "deep" / "f.txt").read_text() == "zipped"


async def test_set_file_attributes_mode(run, tmp_path) -> None:
    (tmp_path / "s.sh").write_text("x")
    await run(f"Set-FileAttributes (Directory: {tmp_path}, Include: @(*.sh), FileMode: 755);")
    assert oct((tmp_path / "s.sh").stat().st_mode & 0o777) == "0o755"


async def test_apply_template_if_foreach_and_literal_not_pre_expanded(run, tmp_path) -> None:
    template = "<% foreach $s in @servers { %>server $s<% if $s == b { %> (main)<% } else { %>!<% } %>;<% } %>"
    ran = await run(
        f"set @servers = @(a, b);\nApply-Template (Literal: '{template}', OutputFile: {tmp_path}/out.txt, OutputVariable => $text);\nLog-Information $text;"
    )
    assert (tmp_path / "out.txt").read_text() == "server a!;server b (main);"
    assert ran.info[-1] == "server a!;server b (main);"


async def test_apply_template_from_input_file_and_additional_variables(run, tmp_path) -> None:
    (tmp_path / "t.txt").write_text("Hello $name, <`% escaped %>")
    ran = await run(
        f"Apply-Template (InputFile: {tmp_path}/t.txt, AdditionalVariables: %(name: Steve), OutputVariable => $out);\nLog-Information $out;"
    )
    assert ran.info[-1] == "Hello Steve, <% escaped %>"


@pytest.fixture
def http_server():
    received = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path == "/missing":
                self.send_error(404)
                return
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"hello from " + self.path.encode())

        def do_POST(self):
            length = int(self.headers["Content-Length"])
            received.append((self.headers["Content-Type"], self.rfile.read(length)))
            self.send_response(201)
            self.end_headers()
            self.wfile.write(b"created")

        do_PUT = do_POST

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", received
    server.shutdown()


async def test_get_http_response_body_and_error_codes(run, http_server) -> None:
    url, _received = http_server
    ran = await run(f"Get-Http {url}/page (ResponseBody => $body);\nLog-Information $body;")
    assert ran.info[-1] == "hello from /page"
    assert (await run(f"Get-Http {url}/missing;")).status == "error"
    assert (await run(f"Get-Http {url}/missing (ErrorStatusCodes: 500:599);")).status == "normal"


async def test_post_http_form_and_text(run, http_server) -> None:
    url, received = http_server
    await run(
        f"Post-Http {url}/api (FormData: %(a: 1, b: two));\nPost-Http {url}/api (TextData: raw body, ContentType: text/plain);"
    )
    assert received == [
        ("application/x-www-form-urlencoded", b"a=1&b=two"),
        ("text/plain", b"raw body"),
    ]


async def test_download_and_upload_http(run, http_server, tmp_path) -> None:
    url, received = http_server
    await run(
        f"Download-Http {url}/file (FileName: {tmp_path}/got.txt);\nUpload-Http {tmp_path}/got.txt (Url: {url}/up);"
    )
    assert (tmp_path / "got.txt").read_text() == "hello from /file"
    assert received[-1] == ("application/octet-stream", b"hello from /file")


async def test_http_unreachable_url_is_a_clear_error(run) -> None:
    ran = await run("Get-Http http://127.0.0.1:9/;")
    assert ran.status == "error"
    assert ran.messages(Level.ERROR)[0].startswith("cannot reach http://127.0.0.1:9/:")


async def test_operation_unknown_and_bad_arguments_are_errors_at_run_time(run) -> None:
    assert "unknown operation 'Frobnicate'" in (await run("Frobnicate x;")).messages(Level.ERROR)[0]
    assert (
        "Sleep: argument 'Seconds' takes a whole number, not 'soon'"
        in (await run("Sleep soon;")).messages(Level.ERROR)[0]
    )
    assert (
        "Create-File needs 'Name'" in (await run("Create-File (Text: x);")).messages(Level.ERROR)[0]
    )


async def test_operation_missing_file_is_a_clear_error(run, tmp_path) -> None:
    ran = await run(f"Extract-ZipFile {tmp_path}/none.zip (Directory: {tmp_path}/x);")
    assert ran.messages(Level.ERROR) == [f"file '{tmp_path}/none.zip' does not exist on localhost"]


async def test_operation_summary_cuts_long_arguments_with_an_ellipsis(run) -> None:
    from engine.registry import SUMMARY_CHARACTERS

    path = "/tmp/" + "a" * 500
    ran = await run(f"Exec touch {path};\nExec touch /tmp/short;", simulate=True)
    long, short = ran.info
    summary = long.removeprefix("Simulation: would execute ").removesuffix(" on localhost.")
    assert summary == "Exec " + f"touch {path}"[: SUMMARY_CHARACTERS - 1] + "…"
    assert short == "Simulation: would execute Exec touch /tmp/short on localhost."


async def test_operation_summary_of_a_script_is_its_first_line_that_is_not_blank(run) -> None:
    ran = await run("SHExec >>\n\n   echo one\necho two>>;", simulate=True)
    assert ran.info == ["Simulation: would execute SHExec echo one on localhost."]
