import * as Blockly from "blockly/core";
import { beforeAll, describe, expect, test } from "vitest";
import { Reference } from "../api/reference";
import { REFERENCE } from "../test/reference-data";
import type { BlockJson, WorkspaceJson } from "./client";
import { defineBlocks, useReference } from "./definitions";
import { statementsInOrder } from "./labels";
import { loadBlocks, updateBlocks } from "./load";
import { PART_SIZE } from "./parts";
import { readBlocks } from "./read";

beforeAll(() => {
  defineBlocks();
  useReference(() => new Reference(REFERENCE));
});

/** The server's JSON of log statements saying `messages`, one chain at (10, 20), ids b1, b2, …. */
function script(messages: string[]): WorkspaceJson {
  let next: BlockJson | undefined;
  for (let index = messages.length - 1; index >= 0; index--) {
    const block: BlockJson = { type: "otter_log", id: `b${index + 1}`, fields: { LEVEL: "information", MESSAGE: messages[index] } };
    if (next) block.next = { block: next };
    next = block;
  }
  return { blocks: { languageVersion: 0, blocks: next ? [{ ...next, x: 10, y: 20 }] : [] }, otterscript: { headers: [] } };
}

const numbers = (count: number) => Array.from({ length: count }, (_, index) => `line ${index + 1}`);
const said = (workspace: Blockly.Workspace) => statementsInOrder(workspace).map((block) => String(block.getFieldValue("MESSAGE")));

function loaded(messages: string[]): Blockly.Workspace {
  const workspace = new Blockly.Workspace();
  loadBlocks(workspace, script(messages)).load(); // every part at once
  return workspace;
}

describe("updateBlocks", () => {
  test("test_update_blocks_replaces_only_the_block_of_the_statement_changed", () => {
    const before = numbers(4 * PART_SIZE);
    const workspace = loaded(before);
    const blocks = statementsInOrder(workspace);
    const after = [...before];
    after[60] = "changed";
    expect(updateBlocks(workspace, script(after))).toBe(true);
    expect(said(workspace)).toEqual(after);
    const now = statementsInOrder(workspace);
    expect(now.filter((block, index) => block !== blocks[index]).map((block) => block.getFieldValue("MESSAGE"))).toEqual(["changed"]);
    expect(readBlocks(workspace, []).blocks.blocks).toHaveLength(1);
  });

  test("test_update_blocks_adds_and_removes_statements_at_either_end", () => {
    const workspace = loaded(numbers(10));
    expect(updateBlocks(workspace, script(["first", ...numbers(10).slice(2)]))).toBe(true);
    expect(said(workspace)).toEqual(["first", ...numbers(10).slice(2)]);
    expect(workspace.getTopBlocks(false)).toHaveLength(1);
    expect(workspace.getTopBlocks(false)[0].getRelativeToSurfaceXY()).toMatchObject({ x: 10, y: 20 });
    const longer = ["first", ...numbers(10).slice(2), "added", "and another"];
    expect(updateBlocks(workspace, script(longer))).toBe(true);
    expect(said(workspace)).toEqual(longer);
  });

  test("test_update_blocks_across_parts_leaves_no_empty_part", () => {
    const before = numbers(6 * PART_SIZE);
    const workspace = loaded(before);
    const after = [...before.slice(0, PART_SIZE - 1), ...before.slice(2 * PART_SIZE + 1)];
    expect(updateBlocks(workspace, script(after))).toBe(true);
    expect(said(workspace)).toEqual(after);
    expect(workspace.getBlocksByType("otter_part", false).every((part) => part.getInputTargetBlock("BODY"))).toBe(true);
  });

  test("test_update_blocks_keeps_nothing_of_a_block_edited_since_it_was_loaded", () => {
    const workspace = loaded(numbers(10));
    statementsInOrder(workspace)[4].setFieldValue("edited in blocks", "MESSAGE");
    const after = numbers(10);
    after[8] = "edited in text";
    expect(updateBlocks(workspace, script(after))).toBe(true);
    expect(said(workspace)).toEqual(after); // the text is the script now: line 5 is as it says
  });

  test("test_update_blocks_declines_a_script_mostly_changed", () => {
    const workspace = loaded(numbers(10));
    expect(updateBlocks(workspace, script(numbers(10).map((m) => `${m}!`)))).toBe(false);
    expect(said(workspace)).toEqual(numbers(10));
  });
});

describe("updateBlocks with edits apart", () => {
  test("test_update_blocks_keeps_every_block_between_two_edits_far_apart", () => {
    const before = numbers(10 * PART_SIZE);
    const workspace = loaded(before);
    const blocks = statementsInOrder(workspace);
    const after = ["edited first", ...before.slice(1), "added last"];
    expect(updateBlocks(workspace, script(after))).toBe(true);
    expect(said(workspace)).toEqual(after);
    const now = statementsInOrder(workspace);
    expect(now.slice(1, -1).every((block, index) => block === blocks[index + 1])).toBe(true);
  });
});
