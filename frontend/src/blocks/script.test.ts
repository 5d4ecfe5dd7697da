import * as Blockly from "blockly/core";
import { beforeAll, describe, expect, test } from "vitest";
import { eventsFired, withBlocks } from "../test/blocks";
import type { WorkspaceJson } from "./client";
import { loadBlocks } from "./load";
import { readBlocks } from "./read";
import { WorkspaceScript } from "./script";
import sample from "./testdata/sample.workspace.json";

// engine.blocks's workspace of testdata/sample.otter
const SAMPLE = sample as unknown as WorkspaceJson;
const copy = (json: WorkspaceJson): WorkspaceJson => JSON.parse(JSON.stringify(json)) as WorkspaceJson;
const LOG: WorkspaceJson = {
  blocks: { languageVersion: 0, blocks: [{ type: "otter_log", id: "l1", x: 0, y: 0, fields: { LEVEL: "information", MESSAGE: "hi" } }] },
  otterscript: { headers: [] },
};

beforeAll(withBlocks);

describe("loading a script's blocks", () => {
  test("test_load_blocks_replaces_the_workspace_without_edit_events_or_undo", async () => {
    const workspace = new Blockly.Workspace();
    loadBlocks(workspace, copy(LOG));
    const seen: string[] = [];
    workspace.addChangeListener((event) => void (event.isUiEvent || seen.push(event.type)));
    loadBlocks(workspace, copy(SAMPLE));
    await eventsFired();
    expect(seen).toEqual([]);
    expect(workspace.getBlockById("l1")).toBeNull();
    expect(workspace.getUndoStack()).toEqual([]);
  });

  test("test_load_blocks_gives_operation_blocks_their_argument_rows_at_once", () => {
    const workspace = new Blockly.Workspace();
    loadBlocks(workspace, copy(SAMPLE));
    // synchronously: the rows are not left to a later change that would look like an edit
    expect(workspace.getBlockById("b4")!.getFieldValue("POSITIONAL_LABEL")).toBe("Name:");
  });
});

describe("reading the workspace back", () => {
  test("test_read_blocks_gives_the_servers_form_with_the_headers", () => {
    const workspace = new Blockly.Workspace();
    loadBlocks(workspace, copy(SAMPLE));
    expect(JSON.parse(JSON.stringify(readBlocks(workspace, ["##AH:UseVisualMode"])))).toEqual(SAMPLE);
  });

  test("test_read_blocks_of_an_empty_workspace", () => {
    expect(readBlocks(new Blockly.Workspace(), [])).toEqual({ blocks: { languageVersion: 0, blocks: [] }, otterscript: { headers: [] } });
  });
});

describe("the script in the workspace", () => {
  test("test_script_keeps_its_headers_and_knows_when_it_changed", () => {
    const workspace = new Blockly.Workspace();
    const script = new WorkspaceScript(workspace);
    script.load(copy(SAMPLE));
    expect(script.headers).toEqual(["##AH:UseVisualMode"]);
    expect(script.loading).toBe(false);
    expect(script.changed).toBe(false);
    workspace.getBlockById("b4")!.setFieldValue("/srv/other.html", "POSITIONAL");
    expect(script.changed).toBe(true);
    expect(script.save().blocks).not.toEqual(SAMPLE.blocks);
    script.load(copy(LOG));
    expect([script.changed, script.headers]).toEqual([false, []]);
  });

  test("test_script_headers_given_since_are_saved", () => {
    const script = new WorkspaceScript(new Blockly.Workspace());
    script.load(copy(LOG));
    script.headers = ["##AH:UseTextMode"];
    expect(script.save().otterscript).toEqual({ headers: ["##AH:UseTextMode"] });
    expect(script.changed).toBe(false); // the headers are not the blocks
  });

  test("test_script_gives_back_the_source_it_was_loaded_with_and_each_blocks_own", () => {
    // engine.blocks.to_blocks(script, source=text): the workspace's pieces of the text, and
    // each statement's in its block's extraState; both go back to the server as they came
    const source = { head: "", lead: "", tail: "\n", indent: "\t" };
    const kept = { sign: "0123456789ab", depth: 0, text: "Log-Information hi;" };
    const json: WorkspaceJson = {
      blocks: { languageVersion: 0, blocks: [{ ...LOG.blocks.blocks[0], extraState: { source: kept } }] },
      otterscript: { headers: [], source },
    };
    const script = new WorkspaceScript(new Blockly.Workspace());
    script.load(copy(json));
    script.headers = ["##AH:UseVisualMode"];
    const saved = script.save();
    expect(saved.otterscript).toEqual({ headers: ["##AH:UseVisualMode"], source });
    expect(saved.blocks.blocks[0].extraState).toEqual({ source: kept });
    script.load(copy(LOG)); // a script made without its text gives none back
    expect(script.save().otterscript).toEqual({ headers: [] });
  });
});
