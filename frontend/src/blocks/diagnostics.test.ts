import * as Blockly from "blockly/core";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { ApiError } from "../api/http";
import { ScriptsClient, type ServerDiagnostic } from "../api/scripts";
import { type Call, fakeApi } from "../test/api";
import { eventsFired, withBlocks } from "../test/blocks";
import { BlocksClient, type WorkspaceJson } from "./client";
import { blocksToCheck, checkBlocksAsEdited, findProblem } from "./diagnostics";
import { loadBlocks } from "./load";

beforeAll(withBlocks);

const diagnostic = (severity: ServerDiagnostic["severity"], message: string, hint?: string): ServerDiagnostic => ({
  line: 1, column: 1, end_line: 1, end_column: 2, severity, message, code: "check", ...(hint ? { hint } : {}),
});

/** The server: unblocks/ gives `text` (or throws), check/ gives `diagnostics`. */
function server(answers: { text?: () => string; diagnostics?: ServerDiagnostic[] } = {}) {
  const client = fakeApi((call: Call) => {
    if (call.url === "/unblocks/") return { script: (answers.text ?? (() => "Ensure-File x;"))() };
    if (call.url === "/check/") return { diagnostics: answers.diagnostics ?? [] };
    throw new Error(`unexpected ${call.url}`);
  });
  return {
    client,
    converter: new BlocksClient(client, { blocks: "/blocks/", unblocks: "/unblocks/" }),
    scripts: new ScriptsClient(client, { check: "/check/", format: "/format/" }),
  };
}

const SCRIPT: WorkspaceJson = {
  blocks: {
    languageVersion: 0,
    blocks: [
      {
        type: "otter_operation_call", id: "op", x: 0, y: 0,
        fields: { NAMESPACE: "", NAME: "Ensure-File", POSITIONAL: "/tmp/a" }, extraState: { arguments: [] },
        next: { block: { type: "otter_log", id: "log", fields: { LEVEL: "information", MESSAGE: "hi" } } },
      },
    ],
  },
  otterscript: { headers: [] },
};

function loaded(): Blockly.Workspace {
  const workspace = new Blockly.Workspace();
  loadBlocks(workspace, JSON.parse(JSON.stringify(SCRIPT)) as WorkspaceJson);
  return workspace;
}

describe("what the server finds in a block", () => {
  test("test_diagnostics_an_operation_is_made_text_alone_and_checked", async () => {
    const workspace = loaded();
    const found = server({ diagnostics: [diagnostic("error", "Name is required", "add Name"), diagnostic("info", "fine")] });
    expect(await findProblem(workspace.getBlockById("op")!, found)).toEqual({ message: "Name is required: add Name", tone: "bad" });
    const [unblocks, check] = found.client.calls;
    const sent = (unblocks.body as { workspace: WorkspaceJson }).workspace.blocks.blocks;
    expect(sent.map((block) => [block.type, block.next])).toEqual([["otter_operation_call", undefined]]); // not the log after it
    expect(check.body).toEqual({ script: "Ensure-File x;" });
  });

  test("test_diagnostics_warnings_only_are_a_warning_and_nothing_is_no_message", async () => {
    const block = loaded().getBlockById("op")!;
    expect(await findProblem(block, server({ diagnostics: [diagnostic("warning", "deprecated")] }))).toEqual({ message: "deprecated", tone: "warn" });
    expect(await findProblem(block, server({ diagnostics: [diagnostic("info", "fine")] }))).toEqual({ message: null, tone: "warn" });
  });

  test("test_diagnostics_other_blocks_are_only_made_text", async () => {
    const found = server();
    expect(await findProblem(loaded().getBlockById("log")!, found)).toEqual({ message: null, tone: "bad" });
    expect(found.client.calls.map((call) => call.url)).toEqual(["/unblocks/"]);
  });

  test("test_diagnostics_a_field_that_does_not_parse_is_said_without_the_block_id_or_field_name", async () => {
    const refused = new ApiError(400, {
      detail: "the workspace does not convert",
      diagnostics: [{ ...diagnostic("error", "block b3 (otter_log): MESSAGE 'a{': expected }"), code: "blocks" }],
    });
    const found = server({ text: () => { throw refused; } });
    expect(await findProblem(loaded().getBlockById("log")!, found)).toEqual({ message: "the message 'a{': expected }", tone: "bad" });
    const fields = server({ text: () => { throw new ApiError(400, { errors: { workspace: ["Too deep."] } }); } });
    expect(await findProblem(loaded().getBlockById("log")!, fields)).toEqual({ message: "Too deep.", tone: "bad" });
  });

  test("test_diagnostics_no_answer_says_nothing", async () => {
    const found = server({ text: () => { throw new TypeError("Failed to fetch"); } });
    expect(await findProblem(loaded().getBlockById("op")!, found)).toBeNull();
  });
});

describe("blocks checked as they are edited", () => {
  function watched(answers: Parameters<typeof server>[0], loading = () => false) {
    const workspace = loaded();
    const said: [string, string | undefined][] = [];
    const found = server(answers);
    checkBlocksAsEdited(workspace, { ...found, say: (text, tone) => void said.push([text, tone]), loading, delay: 5 });
    const op = workspace.getBlockById("op")!;
    const marked = vi.spyOn(op, "setWarningText");
    return { workspace, op, said, marked, calls: found.client.calls };
  }
  const settled = () => new Promise((resolve) => setTimeout(resolve, 30));

  test("test_diagnostics_an_edited_operation_is_marked_and_said_once_after_the_edits", async () => {
    const page = watched({ diagnostics: [diagnostic("error", "Unknown argument Txet")] });
    page.op.setFieldValue("/tmp/b", "POSITIONAL");
    page.op.setFieldValue("/tmp/c", "POSITIONAL");
    await eventsFired();
    await settled();
    expect(page.calls.filter((call) => call.url === "/unblocks/")).toHaveLength(1);
    expect(page.marked).toHaveBeenCalledWith("Unknown argument Txet");
    expect(page.said).toEqual([["Ensure-File: Unknown argument Txet", "bad"]]);
  });

  test("test_diagnostics_a_fixed_block_loses_its_mark_quietly", async () => {
    const page = watched({ diagnostics: [] });
    page.op.setFieldValue("/tmp/b", "POSITIONAL");
    await eventsFired();
    await settled();
    expect(page.marked).toHaveBeenCalledWith(null);
    expect(page.said).toEqual([]);
  });

  test("test_diagnostics_a_block_fixed_after_its_problem_was_said_says_so", async () => {
    const answers: { diagnostics: ServerDiagnostic[] } = { diagnostics: [diagnostic("error", "Unknown argument Txet")] };
    const page = watched(answers);
    page.op.setFieldValue("/tmp/b", "POSITIONAL");
    await eventsFired();
    await settled();
    answers.diagnostics = [];
    page.op.setFieldValue("/tmp/c", "POSITIONAL");
    await eventsFired();
    await settled();
    expect(page.marked).toHaveBeenLastCalledWith(null);
    expect(page.said).toEqual([
      ["Ensure-File: Unknown argument Txet", "bad"],
      ["Ensure-File: fixed.", "ok"],
    ]);
  });

  test("test_diagnostics_nothing_is_checked_while_a_script_loads", async () => {
    const page = watched({}, () => true);
    page.op.setFieldValue("/tmp/b", "POSITIONAL");
    await eventsFired();
    await settled();
    expect(page.calls).toEqual([]);
  });

  test("test_diagnostics_a_block_changed_during_its_check_waits_for_its_own", async () => {
    let op: Blockly.Block | null = null;
    let asked = 0;
    const page = watched({
      text: () => {
        if (!asked++) op?.setFieldValue("/tmp/changed", "POSITIONAL"); // the user goes on typing
        return "Ensure-File x;";
      },
      diagnostics: [diagnostic("error", "Text is required")],
    });
    op = page.op;
    page.op.setFieldValue("/tmp/b", "POSITIONAL");
    await eventsFired();
    await settled();
    await eventsFired();
    await settled();
    expect(asked).toBe(2);
    expect(page.marked).toHaveBeenCalledTimes(1); // by the second check only
    expect(page.said).toEqual([["Ensure-File: Text is required", "bad"]]);
  });

  test("test_diagnostics_which_events_ask_for_a_check", () => {
    const workspace = loaded();
    const log = workspace.getBlockById("log")!;
    const change = (element: string) => new Blockly.Events.BlockChange(log, element, "MESSAGE", "a", "b");
    expect(blocksToCheck(workspace, change("field"))).toEqual(["log"]);
    expect(blocksToCheck(workspace, change("comment"))).toEqual([]);
    const created = (block: Blockly.Block) => new Blockly.Events.BlockCreate(block);
    expect(blocksToCheck(workspace, created(workspace.getBlockById("op")!))).toEqual(["op"]);
    expect(blocksToCheck(workspace, created(log))).toEqual([]);
    expect(blocksToCheck(workspace, new Blockly.Events.BlockMove(log))).toEqual([]);
  });
});
