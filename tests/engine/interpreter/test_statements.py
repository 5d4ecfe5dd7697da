"""Statement semantics, one rule a test (the formal specification, with the 2023 changes)."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from engine import check, parse
from engine.interpreter import Host, Level, ListSink, RunCredential, ScriptRun

# ---- status ----------------------------------------------------------------------------------


async def test_status_starts_normal_and_log_warning_makes_it_warning(run) -> None:
    assert (await run("Log-Information ok;")).status == "normal"
    assert (await run("Log-Warning careful;")).status == "warning"


async def test_status_log_error_fails_but_does_not_stop(run) -> None:
    ran = await run("Log-Error bad;\nLog-Information still running;")
    assert ran.status == "error" and "still running" in ran.info


async def test_status_error_statement_fails_and_continues(run) -> None:
    ran = await run("error;\nLog-Information after;")
    assert ran.status == "error" and ran.info == ["after"]


async def test_status_warn_does_not_lower_an_error_but_force_warn_does(run) -> None:
    assert (await run("error;\nwarn;")).status == "error"
    assert (await run("error;\nforce warn;")).status == "warning"
    assert (await run("warn;")).status == "warning"


async def test_status_force_normal_resets(run) -> None:
    assert (await run("Log-Error bad;\nforce normal;")).status == "normal"


async def test_status_throw_is_caught_by_the_nearest_catch(run) -> None:
    ran = await run(
        "try { try { throw inner problem; } catch { Log-Information inner caught; } } catch { Log-Information outer; }"
    )
    assert ran.info == ["inner caught"]
    assert "inner problem" in ran.messages(Level.ERROR)
    assert ran.status == "error"


async def test_status_throw_without_message(run) -> None:
    ran = await run("try { throw; } catch { Log-Information caught; force normal; }")
    assert ran.info == ["caught"] and ran.status == "normal"


async def test_status_fail_is_not_catchable_and_ends_the_run(run) -> None:
    ran = await run("try { fail; } catch { Log-Information caught; }\nLog-Information after;")
    assert ran.info == [] and ran.status == "error"


async def test_status_error_outside_try_ends_the_run(run) -> None:
    ran = await run("throw stop here;\nLog-Information never;")
    assert ran.status == "error" and ran.info == []
    assert ran.result.error == "stop here"


# ---- variables and scopes ------------------------------------------------------------------


async def test_scopes_set_assigns_the_variable_where_it_exists(run) -> None:
    ran = await run("set local $x = outer;\n{ set $x = changed; }\nLog-Information $x;")
    assert ran.info == ["changed"]


async def test_scopes_set_creates_a_missing_variable_globally(run) -> None:
    ran = await run("{ { set $x = made deep; } }\nLog-Information $x;")
    assert ran.info == ["made deep"]


async def test_scopes_set_local_stays_in_its_block(run) -> None:
    ran = await run(
        "set $x = global;\n{ set local $x = local; Log-Information $x; }\nLog-Information $x;"
    )
    assert ran.info == ["local", "global"]


async def test_scopes_set_global_always_writes_the_global_scope(run) -> None:
    ran = await run(
        "{ set local $x = local; set global $x = global; Log-Information $x; }\nLog-Information $x;"
    )
    assert ran.info == ["local", "global"]


async def test_scopes_names_are_case_insensitive(run) -> None:
    assert (await run("set $IsEnabled = yes;\nLog-Information $isenabled;")).info == ["yes"]


async def test_scopes_indexed_assignment_of_lists_and_maps(run) -> None:
    ran = await run(
        "set @l = @(a, b);\nset @l[1] = B;\nset @l[2] = c;\nset %m = %();\nset %m[k] = v;\nLog-Information $(@l) $(%m);"
    )
    assert ran.info == ["@(a, B, c) %(k: v)"]


async def test_scopes_configuration_variables_are_shadowed_not_changed(run, host) -> None:
    host.config["env"] = "Production"
    ran = await run(
        "Log-Information $env;\n{ set local $env = Test; Log-Information $env; }\nLog-Information $env;"
    )
    assert ran.info == ["Production", "Test", "Production"]
    assert host.config["env"] == "Production"


async def test_scopes_wrong_kind_is_an_error(run) -> None:
    ran = await run("set @l = @(a);\nLog-Information $l;")
    assert ran.status == "error"
    assert any("$l is a list: write @l" in m for m in ran.messages(Level.ERROR))


async def test_scopes_undefined_variable_names_it_and_its_position(run) -> None:
    ran = await run("Log-Information ok;\nLog-Information $missing;")
    assert ran.messages(Level.ERROR) == [
        "$missing is not defined: no variable or function has that name (line 2, column 17)"
    ]


async def test_scopes_set_value_of_the_wrong_kind_is_an_error(run) -> None:
    ran = await run("set @x = @(1);\nset @x = $ToUpper(a);")
    assert (
        ran.status == "error"
        and "@x holds a list, but the value is a text" in ran.messages(Level.ERROR)[0]
    )


async def test_scopes_function_called_without_parentheses_unless_a_variable_shadows_it(run) -> None:
    ran = await run(
        "Log-Information $ExecutionState;\nset $ExecutionState = mine;\nLog-Information $ExecutionState $ExecutionState();"
    )
    assert ran.info == ["normal", "mine normal"]


# ---- iteration, predicates, loop control ------------------------------------------------------


async def test_foreach_creates_the_variable_in_the_loop_and_never_assigns_outer(run) -> None:
    ran = await run(
        "set $x = outer;\nforeach $x in @(1, 2) { Log-Information $x; }\nLog-Information $x;"
    )
    assert ran.info == ["1", "2", "outer"]


async def test_foreach_source_must_be_a_list(run) -> None:
    ran = await run("set $s = text;\nforeach $x in $s { }")
    assert "foreach needs a list, but the source is a text" in ran.messages(Level.ERROR)[0]


async def test_foreach_with_description_opens_outer_and_item_scopes(run) -> None:
    ran = await run("# Each item\nforeach $x in @(a, b) { Log-Information $x; }")
    assert [r.scope for r in ran.sink.records] == [("Each item", "a"), ("Each item", "b")]


async def test_loop_control_break_and_continue(run) -> None:
    ran = await run(
        "foreach $i in @Range(1, 5) { if $i == 2 { continue; } if $i == 4 { break; } Log-Information $i; }"
    )
    assert ran.info == ["1", "3"]


async def test_loop_control_outside_a_loop_only_warns(run) -> None:
    ran = await run("break;\ncontinue;\nLog-Information after;")
    assert ran.status == "warning" and ran.info == ["after"]


async def test_predicate_equality_is_case_sensitive_truth_test_is_not(run) -> None:
    ran = await run(
        "if a == A { Log-Information eq; }\nif a != A { Log-Information ne; }\nif TRUE { Log-Information true; }\nif yes { Log-Information yes; }"
    )
    assert ran.info == ["ne", "true"]


async def test_predicate_and_or_not_short_circuit(run) -> None:
    ran = await run(
        "if false && $undefined { }\nif true || $undefined { Log-Information or; }\nif !false { Log-Information not; }"
    )
    assert ran.info == ["or", "not"] and ran.status == "normal"


async def test_if_else_if_else_chain(run) -> None:
    ran = await run(
        "set $n = 2;\nif $n == 1 { Log-Information one; } else if $n == 2 { Log-Information two; } else { Log-Information other; }"
    )
    assert ran.info == ["two"]


# ---- modules ------------------------------------------------------------------------------------


async def test_module_found_in_current_then_parent_scopes(run) -> None:
    ran = await run(
        "module Hello<$who> { Log-Information hello $who; }\n{ { call Hello(who: world); } }"
    )
    assert ran.info == ["hello world"]


async def test_module_from_the_raft_through_the_host(run, host) -> None:
    host.rafts[("module", "Greet")] = "module Greet<$name> { Log-Information hi $name; }"
    ran = await run("call Greet(name: ops);")
    assert ran.info == ["hi ops"]


async def test_module_missing_required_argument_is_an_error(run) -> None:
    ran = await run("module M<$a, $b = 2> { }\ncall M(b: 3);")
    assert "module 'M' needs the argument 'a', which has no default" in ran.messages(Level.ERROR)[0]


async def test_module_defaults_applied_and_out_parameters_mapped_back(run) -> None:
    ran = await run(
        "module M<$a, $b = two, out $c> { set $c = $a-$b; }\ncall M(a: one, c => $result);\nLog-Information $result;"
    )
    assert ran.info == ["one-two"]


async def test_module_return_leaves_the_module(run) -> None:
    ran = await run(
        "module M { Log-Information before; return; Log-Information after; }\ncall M;\nLog-Information back;"
    )
    assert ran.info == ["before", "back"]


async def test_module_unknown_is_an_error(run) -> None:
    ran = await run("call Nowhere;")
    assert "module 'Nowhere' was not found" in ran.messages(Level.ERROR)[0]


async def test_return_at_top_level_ends_the_script(run) -> None:
    assert (await run("Log-Information a;\nreturn;\nLog-Information b;")).info == ["a"]


async def test_global_declaration_after_a_statement_is_fatal(run) -> None:
    ran = await run("global $a = 1;\nLog-Information $a;\nglobal $b = 2;")
    assert (
        ran.status == "error"
        and "global declaration must come before" in ran.messages(Level.ERROR)[0]
    )


@pytest.mark.parametrize(
    ("text", "accepted"),
    [
        ("module M { Log-Information m; }\nglobal $a = 1;\ncall M;", True),
        ("global $a = 1;\nmodule M { }\n# a note\nglobal $b = 2;\nLog-Information $b;", True),
        ("module M { }\nset global $a = 1;\nglobal $b = 2;", False),
        ("module M { }\nLog-Information a;\nglobal $b = 2;", False),
    ],
)
async def test_global_declaration_placement_is_judged_alike_by_check_and_run(
    run, text: str, accepted: bool
) -> None:
    misplaced = [d for d in check(parse(text)) if d.code == "global-position"]
    ran = await run(text)
    assert (misplaced == [], ran.status != "error") == (accepted, accepted)


# ---- context -------------------------------------------------------------------------------------


async def test_context_for_server_switches_and_unknown_server_is_an_error(run) -> None:
    ran = await run("for server db1 { Log-Information $ServerName; }\nfor server nowhere { }")
    assert ran.info == ["db1"]
    assert "server 'nowhere' is not one this execution may use" in ran.messages(Level.ERROR)[0]


async def test_context_for_role_skips_a_server_without_it(run) -> None:
    ran = await run(
        "for role web { Log-Information web $RoleName; }\nfor role database { Log-Information db; }"
    )
    assert ran.info == ["web web"]


async def test_context_foreach_server_sets_each(run) -> None:
    ran = await run("foreach server in @AllServers { Log-Information $ServerName; }")
    assert ran.info == ["localhost", "db1"]


async def test_context_for_directory_sets_the_working_directory(run, tmp_path) -> None:
    (tmp_path / "sub").mkdir()
    ran = await run(
        "for directory sub { Log-Information $WorkingDirectory; Exec pwd (LogArguments: false); }"
    )
    assert ran.info == [str(tmp_path / "sub"), str(tmp_path / "sub")]


# ---- with directives ------------------------------------------------------------------------------


async def test_async_copies_variables_and_shares_only_globals(run) -> None:
    ran = await run(
        "set global $g = before;\n{ set local $l = parent;\n"
        "  with async { set global $g = from child; set local $l = child; Log-Information child sees $l; }\n"
        "  await;\n  Log-Information parent sees $l;\n}\nLog-Information $g;"
    )
    assert ran.info == ["child sees child", "parent sees parent", "from child"]


async def test_async_blocks_run_concurrently_and_await_token_waits_for_its_own(run) -> None:
    start = time.monotonic()
    ran = await run(
        "with async=A { Sleep 1; Log-Information a; }\nwith async=B { Sleep 1; Log-Information b; }\nawait A;\nLog-Information after a;\nawait B;"
    )
    assert time.monotonic() - start < 1.8
    assert ran.info.index("after a") > ran.info.index("a")


async def test_async_failure_is_raised_at_await_and_catchable(run) -> None:
    ran = await run(
        "with async { throw child broke; }\ntry { await; } catch { Log-Information caught; force normal; }\nLog-Information after;"
    )
    assert ran.info == ["caught", "after"] and ran.status == "normal"


async def test_async_failure_without_await_fails_the_run_at_its_end(run) -> None:
    ran = await run("with async { throw child broke; }\nLog-Information parent done;")
    assert ran.status == "error" and "parent done" in ran.info
    assert ran.result.error == "an async block failed: child broke"


async def test_async_await_with_nothing_to_wait_for_warns(run) -> None:
    assert (await run("await;")).status == "warning"


async def test_retry_reruns_the_body_and_resets_the_status(run, tmp_path) -> None:
    marker = tmp_path / "attempts"
    ran = await run(
        f"with retry=3 {{ SHExec >->echo x >> {marker}; test `$(wc -l < {marker}) -ge 3>-> (SuccessExitCode: 0); }}\n"
        "Log-Information done;"
    )
    assert marker.read_text().count("x") == 3
    assert ran.status == "normal" and "done" in ran.info


async def test_retry_gives_up_after_the_count(run) -> None:
    ran = await run("with retry=2 { Log-Information attempt; throw no luck; }")
    assert ran.info.count("attempt") == 3 and ran.status == "error"


async def test_timeout_cancels_the_body_with_a_catchable_error(run) -> None:
    start = time.monotonic()
    ran = await run(
        "try { with timeout=1 { Exec sleep 30; } } catch { Log-Information timed out; }"
    )
    assert time.monotonic() - start < 5
    assert "timed out" in ran.info
    assert any("timeout of 1 seconds" in m for m in ran.messages(Level.ERROR))


async def test_lock_serializes_blocks_within_the_execution(run) -> None:
    ran = await run(
        "with async { with lock=Shared { Log-Information a start; Sleep 1; Log-Information a end; } }\n"
        "with async { with lock=Shared { Log-Information b start; Sleep 1; Log-Information b end; } }\nawait;"
    )
    order = ran.info
    first = order[0][0]
    assert order[:2] == [f"{first} start", f"{first} end"]


async def test_lock_a_block_that_waits_long_says_so(run, monkeypatch) -> None:
    from engine.interpreter import strands

    monkeypatch.setattr(strands, "LOCK_WAIT_NOTICE_SECONDS", 0.3)
    ran = await run(
        "with async { with lock=!Deploy { Sleep 1; } }\n"
        "with async { with lock=!Deploy { Log-Information second; } }\nawait;"
    )
    assert ran.info == ["Waiting for the lock !Deploy: another block holds it.", "second"]


async def test_lock_global_serializes_across_executions(host) -> None:
    script = parse("with lock=!Deploy { Log-Information start; Sleep 1; Log-Information end; }")
    sinks = [ListSink(), ListSink()]
    hosts = [Host(sink=sink, working_directory=host.working_directory) for sink in sinks]
    start = time.monotonic()
    await asyncio.gather(*(ScriptRun(script, host=h).run() for h in hosts))
    assert time.monotonic() - start >= 1.9


async def test_lock_inside_a_lock_is_fatal(run) -> None:
    ran = await run("with lock=a { try { with lock=b { } } catch { Log-Information caught; } }")
    assert ran.status == "error" and ran.info == []


async def test_credentials_are_looked_up_and_their_secret_masked(run, host) -> None:
    host.credentials["Deploy"] = RunCredential("Deploy", "deployer", "hunter2-secret")
    ran = await run(
        "with credentials=Deploy { Log-Information the password is hunter2-secret; }\nwith credentials=Missing { }"
    )
    assert ran.info == ["the password is ********"]
    assert "credential 'Missing' does not exist" in ran.messages(Level.ERROR)[0]


async def test_credentials_limited_to_environments_are_refused_outside_them(run, host) -> None:
    host.credentials["Deploy"] = RunCredential("Deploy", "deployer", "hunter2-secret")
    host.credential_environments["Deploy"] = {"Production"}
    host.environments_of["db1"] = "Test"
    # no target: in no environment, although the default server is in Production
    ran = await run("with credentials=Deploy { Log-Information untargeted; }")
    assert ran.messages() == ["credential 'Deploy' may not be used on None (line 1, column 1)"]
    ran = await run("for server db1 { with credentials=Deploy { Log-Information on db1; } }")
    assert ran.info == [] and ran.status == "error"
    assert ran.messages(Level.ERROR)[0].startswith("credential 'Deploy' may not be used on db1")
    ran = await run("for server localhost { with credentials=Deploy { Log-Information here; } }")
    assert ran.info == ["here"]


async def test_isolation_gives_the_block_its_own_agent(run, host) -> None:
    await run("Exec true;\nwith isolation { Exec true; }\nExec true;")
    assert host.agents_made == 2


# ---- logs -------------------------------------------------------------------------------------------


async def test_logs_seq_increases_and_records_carry_line_and_scope(run) -> None:
    ran = await run("# Outer\n{\n    Log-Information one;\n    Exec echo two;\n}")
    records = ran.sink.records
    assert [r.seq for r in records] == list(range(1, len(records) + 1))
    assert records[0].scope == ("Outer",) and records[0].line == 3
    assert records[1].scope == ("Outer", "Exec echo two")


async def test_logs_sensitive_values_are_masked_before_the_sink(run, host) -> None:
    host.config["dbpassword"] = "p4ss-w0rd!"
    host.secrets.append("p4ss-w0rd!")
    ran = await run("Log-Information connecting with $dbpassword;\nExec echo $dbpassword;")
    assert all("p4ss-w0rd!" not in m for m in ran.messages())
    assert "connecting with ********" in ran.info


async def test_logs_sensitive_list_and_map_leaves_are_masked_in_every_form(run, host) -> None:
    leaves = ["alpha-s3cret", 'qu"ote\\d-s3cret', "ünï-s3cret"]
    host.config["list"] = leaves[:2]
    host.config["map"] = {"a": {"deep": leaves[2]}}
    host.secrets.extend([leaves[:2], {"a": {"deep": leaves[2]}}])
    ran = await run(
        "Log-Information $Join(',', @list);\n"
        "Log-Information $ToJson(@list) $ToJson(%map);\n"
        "foreach $x in @list { Log-Information item $x; }\n"
        "SHExec >>printf '%s\\n' \"`$l\" \"`$m\">> (Variables: %(l: $Join(' ', @list), m: $ToJson(%map)));\n"
        "PYExec >>import json; print(l); print(json.dumps(m), json.dumps(l, ensure_ascii=True))>>"
        " (Variables: %(l: $Join(' ', @list), m: $ToJson(%map)));"
    )
    assert ran.status == "normal", ran.messages()
    assert "********,********" in ran.info
    for message in ran.messages():
        for leaf in leaves:
            assert leaf not in message and leaf.encode("unicode_escape").decode() not in message
            assert json.dumps(leaf)[1:-1] not in message


async def test_logs_scope_status_is_its_worst_record(run) -> None:
    ran = await run("# Block\n{ Log-Warning careful; }")
    assert ran.sink.scopes[0].status == "warning"


# ---- cancellation -----------------------------------------------------------------------------------


async def test_cancel_kills_the_running_process_and_skips_the_rest(host, tmp_path) -> None:
    pid_file = tmp_path / "pid"
    execution = ScriptRun(
        parse(f"SHExec >>echo $$ > {pid_file}; exec sleep 30>>;\nLog-Information never;"), host=host
    )
    task = asyncio.create_task(execution.run())
    for _ in range(100):
        if pid_file.exists() and pid_file.read_text().strip():
            break
        await asyncio.sleep(0.05)
    start = time.monotonic()
    execution.cancel()
    result = await task
    assert time.monotonic() - start < 3
    assert result.status.label == "error" and result.cancelled
    # someone asked: said as information, so the run counts no error of its own
    assert "The execution was cancelled." in host.sink.messages(Level.INFORMATION)
    assert host.sink.messages(Level.ERROR) == []
    assert "never" not in host.sink.messages()
    import os

    pid = int(pid_file.read_text())
    await asyncio.sleep(0.2)
    try:
        os.kill(pid, 0)
        alive = True
    except ProcessLookupError:
        alive = False
    assert not alive


# ---- step lists of the specification ------------------------------------------------------------


async def test_engine_run_is_the_public_entry_point(host) -> None:
    import engine

    result = await engine.run(engine.parse("Log-Warning hi;"), host=host, mode="execute")
    assert result.status.label == "warning" and result.drifted == [] and result.duration >= 0


async def test_await_inherits_a_child_warning(run) -> None:
    ran = await run("with async { Log-Warning from child; }\nforce normal;\nawait;")
    assert ran.status == "warning"


async def test_action_statement_scope_is_the_description_else_the_summary(run) -> None:
    ran = await run("# Say hello\nExec echo hi;\nExec echo there;")
    assert {r.scope for r in ran.sink.records if r.message in ("hi", "there")} == {
        ("Say hello",),
        ("Exec echo there",),
    }


async def test_action_statement_outputs_are_created_or_assigned(run, tmp_path) -> None:
    (tmp_path / "t.txt").write_text("Hi $who")
    ran = await run(
        f"set $text = old;\n{{ Apply-Template (InputFile: {tmp_path}/t.txt, AdditionalVariables: %(who: you), OutputVariable => $text); }}\n"
        "Log-Information $text;"
    )
    assert ran.info[-1] == "Hi you"


async def test_action_statement_unknown_operation_raises_before_anything_runs(run) -> None:
    ran = await run("try { Nope-Operation x; } catch { Log-Information caught; }")
    assert ran.info == ["caught"]
    assert "unknown operation 'Nope-Operation'" in ran.messages(Level.ERROR)[0]


async def test_action_statement_disabled_expansion_keeps_variables_as_written(run) -> None:
    ran = await run(
        "set $who = late;\nApply-Template (Literal: 'value: $who', OutputVariable => $out);\nLog-Information $out;"
    )
    assert ran.info == ["value: late"]


async def test_call_module_creates_arguments_in_its_own_scope(run) -> None:
    ran = await run(
        "module M<$a> { Log-Information in $a; }\ncall M(a: x);\nLog-Information $IsVariableDefined(a);"
    )
    assert ran.info == ["in x", "false"]


def test_for_targets_wraps_in_a_described_context_iteration_with_async_body() -> None:
    from engine import ast
    from engine.interpreter import for_targets

    script = parse("Log-Information hi;")
    wrapped = for_targets(script, ["a", "b"])
    [loop] = wrapped.body
    assert isinstance(loop, ast.ContextIteration) and loop.context == "server"
    assert loop.source == ast.Vector(
        items=(ast.Scalar(parts=(ast.Text(value="a"),)), ast.Scalar(parts=(ast.Text(value="b"),)))
    )
    assert loop.body == (ast.With(directives=(ast.Directive(name="async"),), body=script.body),)
    assert loop.description == ("# Servers",)


async def test_targets_run_at_once_each_server_with_its_own_globals(run) -> None:
    """A job's servers never see each other's variables, even those `set` creates globally; each
    starts from the job's variables."""
    start = time.monotonic()
    ran = await run(
        "set $Root = /srv/$ServerName;\nset global $Seen = $Seen,$ServerName;\nSleep 1;\n"
        "Log-Information $ServerName: $Root $Seen;",
        targets=["localhost", "db1"],
        variables={"Seen": "job"},
    )
    assert time.monotonic() - start < 1.8
    assert sorted(ran.info) == ["db1: /srv/db1 job,db1", "localhost: /srv/localhost job,localhost"]
    assert ran.status == "normal"


async def test_async_blocks_outside_targets_share_globals_set_creates(run) -> None:
    ran = await run(
        "with async { set $Made = child; }\nawait;\nLog-Information $Made;",
    )
    assert ran.info == ["child"]


async def test_async_block_keeps_its_enclosing_log_scopes_open_until_it_ends(run) -> None:
    """A job's server scopes last as long as the server's run, and show its worst level."""
    ran = await run(
        "Sleep 1;\nif $ServerName == db1 { Log-Warning slow; }", targets=["localhost", "db1"]
    )
    scopes = {scope.name: scope for scope in ran.sink.scopes}
    for name in ("Servers", "localhost", "db1"):
        assert scopes[name].ended - scopes[name].started >= 0.9, name
    assert (scopes["localhost"].status, scopes["db1"].status) == ("normal", "warning")
    assert scopes["Servers"].status == "warning"
