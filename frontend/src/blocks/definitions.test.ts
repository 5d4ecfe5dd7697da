import * as Blockly from "blockly/core";
import { beforeAll, describe, expect, test } from "vitest";
import { Reference } from "../api/reference";
import { REFERENCE } from "../test/reference-data";
import { BLOCK_TYPES, defineBlocks, definedBlockTypes, useReference } from "./definitions";
import { type ArgumentsBlock, FieldOperationName } from "./rows";
import sample from "./testdata/sample.workspace.json";

// engine.blocks's workspace of testdata/sample.otter (tests/web/editor/test_block_types.py keeps
// the file equal to what the engine writes)

type Json = Record<string, unknown>;

function load(json: Json): Blockly.Workspace {
  const workspace = new Blockly.Workspace();
  Blockly.serialization.workspaces.load(json.blocks ? { blocks: json.blocks } : json, workspace);
  return workspace;
}

function save(workspace: Blockly.Workspace): Json {
  // as JSON, the way it is sent to the server
  return JSON.parse(JSON.stringify(Blockly.serialization.workspaces.save(workspace))) as Json;
}

function typesIn(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => typesIn(v, found));
  else if (value && typeof value === "object") {
    const object = value as Json;
    if (typeof object.type === "string") found.add(object.type);
    Object.values(object).forEach((v) => typesIn(v, found));
  }
  return found;
}

beforeAll(() => {
  defineBlocks();
  useReference(() => new Reference(REFERENCE));
});

describe("block definitions", () => {
  test("test_definitions_define_every_block_type_once", () => {
    expect(definedBlockTypes()).toEqual([...BLOCK_TYPES]);
    expect(new Set(BLOCK_TYPES).size).toBe(BLOCK_TYPES.length);
  });

  test("test_definitions_sample_uses_every_statement_block", () => {
    const used = typesIn(sample.blocks);
    expect([...BLOCK_TYPES].filter((type) => !used.has(type))).toEqual(["otter_raw"]);
  });

  test("test_definitions_engine_workspace_loads_and_saves_back_equal", () => {
    const workspace = load(sample as Json);
    expect(workspace.getAllBlocks(false).length).toBeGreaterThan(30);
    expect(save(workspace)).toEqual({ blocks: sample.blocks });
  });

  test("test_definitions_raw_block_keeps_its_text_and_unknown_state", () => {
    const raw = {
      blocks: {
        languageVersion: 0,
        blocks: [
          {
            type: "otter_raw",
            id: "r1",
            x: 20,
            y: 20,
            fields: { TEXT: "Log-Information one;\nLog-Information two;" },
            extraState: { description: ["# two logs"], blankLineBefore: true },
            icons: { comment: { text: "two logs", pinned: false, height: 80, width: 240 } },
          },
        ],
      },
    };
    const workspace = load(raw);
    expect(save(workspace)).toEqual(raw);
    expect(workspace.getBlockById("r1")!.getInput("LINE1")).toBeTruthy();
  });

  test("test_definitions_if_block_grows_and_shrinks_its_branches", () => {
    const workspace = new Blockly.Workspace();
    const block = workspace.newBlock("otter_if") as Blockly.Block & { reshape(n: number, e: boolean): void };
    block.reshape(2, true);
    expect(block.inputList.map((input) => input.name)).toEqual(["", "DO0", "IF1", "DO1", "IF2", "DO2", "ELSE"]);
    block.reshape(1, false);
    const saved = Blockly.serialization.blocks.save(block) as unknown as Json;
    expect(saved.extraState).toEqual({ elseIfCount: 1, hasElse: false });
    expect(saved.fields).toEqual({ IF0: "true", IF1: "true" });
  });
});

describe("the operation block", () => {
  test("test_operation_block_adds_required_arguments_from_the_reference", () => {
    const workspace = new Blockly.Workspace();
    const block = workspace.newBlock("otter_operation_call") as ArgumentsBlock;
    block.setFieldValue("Ensure-File", "NAME");
    block.syncArguments();
    expect(block.getFieldValue("POSITIONAL_LABEL")).toBe("Name:");
    // nothing required beside the positional Name: no rows yet; empty rows are not written
    expect(block.rows).toEqual([]);
    block.setFieldValue("Exec", "NAME");
    block.syncArguments();
    expect(block.getFieldValue("POSITIONAL_LABEL")).toBe("FileName:");
    expect(Blockly.serialization.blocks.save(block)).toMatchObject({
      fields: { NAMESPACE: "", NAME: "Exec", POSITIONAL: "" },
      extraState: { arguments: [] },
    });
  });

  test("test_operation_block_in_the_toolbox_has_its_required_rows_as_it_is_made", () => {
    const [ensureFile] = REFERENCE.operations;
    const zip = {
      ...ensureFile,
      name: "Create-ZipFile",
      parameters: [{ ...ensureFile.parameters[1], name: "Directory", required: true }],
    };
    useReference(() => new Reference({ ...REFERENCE, operations: [...REFERENCE.operations, zip] }));
    try {
      const flyout = new Blockly.Workspace();
      flyout.internalIsFlyout = true; // as the toolbox's: it lays the block out at once
      const block = Blockly.serialization.blocks.append(
        { type: "otter_operation_call", fields: { NAMESPACE: "", NAME: "Create-ZipFile", POSITIONAL: "" }, extraState: { arguments: [] } },
        flyout,
      ) as ArgumentsBlock;
      // before any microtask: the rows are there when the flyout measures the block
      expect(block.rows.map((row) => row.data.name)).toEqual(["Directory"]);
    } finally {
      useReference(() => new Reference(REFERENCE));
    }
  });

  test("test_operation_block_writes_arguments_in_their_order_keeping_comments", () => {
    const workspace = new Blockly.Workspace();
    const block = workspace.newBlock("otter_operation_call") as ArgumentsBlock;
    block.loadExtraState!({
      arguments: [
        { name: "Text", value: "hello", comments: ["# why"], trailingComment: "// later" },
        { name: "Exists", value: "true" },
      ],
    });
    block.setFieldValue("Files", "NAMESPACE");
    block.setFieldValue("Ensure-File", "NAME");
    block.setFieldValue("/tmp/x", "POSITIONAL");
    block.syncArguments();
    block.rows[1].field.setValue("false");
    const added = block.addRow({ name: "Name" }, false);
    added.field.setValue("ignored-when-empty");
    added.field.setValue("");
    expect(Blockly.serialization.blocks.save(block)).toMatchObject({
      fields: { NAMESPACE: "Files", NAME: "Ensure-File", POSITIONAL: "/tmp/x" },
      extraState: {
        arguments: [
          { name: "Text", value: "hello", comments: ["# why"], trailingComment: "// later" },
          { name: "Exists", value: "false" },
        ],
      },
    });
  });

  test("test_operation_block_splits_a_picked_namespace_and_name", () => {
    const workspace = new Blockly.Workspace();
    const block = workspace.newBlock("otter_operation_call");
    (block.getField("NAME") as FieldOperationName).onFinishEditing_("Files::Ensure-File");
    expect(block.getFieldValue("NAMESPACE")).toBe("Files");
    expect(block.getFieldValue("NAME")).toBe("Ensure-File");
  });
});
