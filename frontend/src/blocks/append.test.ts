import * as Blockly from "blockly/core";
import { beforeAll, expect, test } from "vitest";
import { withBlocks } from "../test/blocks";
import { addAtEnd } from "./append";
import { type BlockJson } from "./client";

beforeAll(withBlocks);

const log = (message: string): BlockJson => ({ type: "otter_log", fields: { LEVEL: "information", MESSAGE: message } });

test("test_add_at_end_connects_the_block_after_the_last_statement", () => {
  const workspace = new Blockly.Workspace();
  const first = addAtEnd(workspace, log("one"));
  const second = addAtEnd(workspace, log("two"));
  const third = addAtEnd(workspace, { kind: "block", ...log("three") });
  expect(workspace.getTopBlocks(true)).toEqual([first]);
  expect(second.getPreviousBlock()).toBe(first);
  expect(third.getPreviousBlock()).toBe(second);
  expect(third.getFieldValue("MESSAGE")).toBe("three");
});

test("test_add_at_end_of_an_empty_workspace_puts_the_block_in_from_the_corner", () => {
  const workspace = new Blockly.Workspace();
  const made = addAtEnd(workspace, log("alone"));
  expect(made.getRelativeToSurfaceXY()).toMatchObject({ x: 24, y: 24 });
});

test("test_add_at_end_goes_after_the_lowest_stack", () => {
  const workspace = new Blockly.Workspace();
  const upper = addAtEnd(workspace, log("upper"));
  const lower = Blockly.serialization.blocks.append({ ...log("lower"), x: 24, y: 400 } as Blockly.serialization.blocks.State, workspace);
  const made = addAtEnd(workspace, log("after"));
  expect(made.getPreviousBlock()).toBe(lower);
  expect(upper.getNextBlock()).toBeNull();
});
