import * as Blockly from "blockly/core";
import { beforeAll, describe, expect, test } from "vitest";
import { Reference } from "../api/reference";
import { REFERENCE } from "../test/reference-data";
import { addAtEnd } from "./append";
import type { BlockJson, WorkspaceJson } from "./client";
import { defineBlocks, useReference } from "./definitions";
import { statementsInOrder } from "./labels";
import { loadBlocks } from "./load";
import { PART, PART_SIZE, cutIntoParts, withoutParts } from "./parts";
import { readBlocks } from "./read";
import { WorkspaceScript } from "./script";

beforeAll(() => {
  defineBlocks();
  useReference(() => new Reference(REFERENCE));
});

/** A chain of `count` log statements "1", "2", …, at (10, 20). */
function chain(count: number): BlockJson {
  let next: BlockJson | undefined;
  for (let index = count; index >= 1; index--) {
    const block: BlockJson = { type: "otter_log", fields: { LEVEL: "information", MESSAGE: String(index) } };
    if (next) block.next = { block: next };
    next = block;
  }
  return { ...next!, x: 10, y: 20 };
}

/** The messages of a chain, following `next`. */
function messages(block: BlockJson | undefined): string[] {
  const said: string[] = [];
  for (; block; block = block.next?.block) said.push(String(block.fields?.MESSAGE));
  return said;
}

const workspaceOf = (top: BlockJson): WorkspaceJson => ({ blocks: { languageVersion: 0, blocks: [top] }, otterscript: { headers: [] } });

describe("cutIntoParts", () => {
  test("test_cut_into_parts_cuts_a_long_chain_into_parts_of_the_size", () => {
    const parts = cutIntoParts(chain(2 * PART_SIZE + 10));
    expect(parts.map((part) => part.type)).toEqual([PART, PART, PART]);
    expect(parts.map((part) => messages(part.inputs!.BODY.block).length)).toEqual([PART_SIZE, PART_SIZE, 10]);
    expect(parts.map((part) => part.next)).toEqual([undefined, undefined, undefined]);
    expect([parts[0].x, parts[0].y, parts[1].x]).toEqual([10, 20, undefined]);
  });

  test("test_cut_into_parts_leaves_a_chain_of_two_parts_whole", () => {
    const top = chain(2 * PART_SIZE);
    expect(cutIntoParts(top)).toEqual([top]);
  });
});

describe("withoutParts", () => {
  test("test_without_parts_gives_back_the_chain_that_was_cut", () => {
    const count = 3 * PART_SIZE + 1;
    const parts = cutIntoParts(chain(count));
    for (let index = 1; index < parts.length; index++) parts[index - 1].next = { block: parts[index] };
    const [top] = withoutParts([parts[0]]);
    expect(messages(top)).toEqual(Array.from({ length: count }, (_, index) => String(index + 1)));
    expect([top.x, top.y, top.type]).toEqual([10, 20, "otter_log"]);
  });

  test("test_without_parts_removes_an_empty_part_and_one_inside_a_statement", () => {
    const inner: BlockJson = { type: PART, inputs: { BODY: { block: chain(2) } } };
    const [top] = withoutParts([
      { type: PART, x: 5, y: 6, next: { block: { type: "otter_if", fields: { IF0: "true" }, inputs: { DO0: { block: inner } } } } },
    ]);
    expect([top.type, top.x, top.y]).toEqual(["otter_if", 5, 6]);
    expect(messages(top.inputs!.DO0.block)).toEqual(["1", "2"]);
    expect(withoutParts([{ type: PART }])).toEqual([]);
  });
});

describe("loading in parts", () => {
  test("test_load_blocks_loads_the_first_screen_at_once_and_the_rest_after", async () => {
    const workspace = new Blockly.Workspace();
    const loading = loadBlocks(workspace, workspaceOf(chain(10 * PART_SIZE)));
    expect(statementsInOrder(workspace)).toHaveLength(PART_SIZE);
    await loading.done;
    expect(statementsInOrder(workspace)).toHaveLength(10 * PART_SIZE);
    expect(workspace.getTopBlocks(false)).toHaveLength(1); // the parts in one chain
    const labels: string[] = [];
    for (let part: Blockly.Block | null = workspace.getTopBlocks(false)[0]; part; part = part.getNextBlock()) labels.push(part.getFieldValue("LABEL"));
    expect(labels.slice(0, 2)).toEqual([`statements 1–${PART_SIZE}`, `statements ${PART_SIZE + 1}–${2 * PART_SIZE}`]);
    expect(labels).toHaveLength(10);
  });

  test("test_read_blocks_reads_the_whole_script_while_it_is_being_loaded", () => {
    const workspace = new Blockly.Workspace();
    const script = new WorkspaceScript(workspace);
    void script.load(workspaceOf(chain(4 * PART_SIZE)));
    const read = script.save().blocks.blocks;
    expect(read).toHaveLength(1);
    expect(messages(read[0])).toHaveLength(4 * PART_SIZE);
    expect(read[0].type).toBe("otter_log");
    expect(readBlocks(workspace, []).blocks.blocks[0].type).toBe("otter_log");
  });

  test("test_workspace_script_is_unchanged_once_loaded_and_changed_by_an_edit_while_loading", async () => {
    const workspace = new Blockly.Workspace();
    const script = new WorkspaceScript(workspace);
    await script.load(workspaceOf(chain(4 * PART_SIZE)));
    expect(script.changed).toBe(false);

    const loading = script.load(workspaceOf(chain(4 * PART_SIZE)));
    expect(script.changed).toBe(false); // still the script as it came
    statementsInOrder(workspace)[0].setFieldValue("edited", "MESSAGE");
    await new Promise((resolve) => setTimeout(resolve, 0)); // Blockly fires its events after a tick
    await loading;
    expect(script.changed).toBe(true);
  });

  test("test_add_at_end_adds_after_the_last_statement_of_the_last_part", () => {
    const workspace = new Blockly.Workspace();
    loadBlocks(workspace, workspaceOf(chain(3 * PART_SIZE + 2)));
    addAtEnd(workspace, { type: "otter_log", fields: { LEVEL: "information", MESSAGE: "added" } });
    const [top] = readBlocks(workspace, []).blocks.blocks;
    expect(messages(top).slice(-3)).toEqual([String(3 * PART_SIZE + 1), String(3 * PART_SIZE + 2), "added"]);
    expect(workspace.getTopBlocks(false)).toHaveLength(1);
  });
});
