import * as Blockly from "blockly/core";
import { beforeAll, describe, expect, test } from "vitest";
import { Reference } from "../api/reference";
import { REFERENCE } from "../test/reference-data";
import { defineBlocks, useReference } from "./definitions";
import { FieldValue, LINE_BREAK, breakLine } from "./value-field";

const SWIM = ">>\nserver {\n    listen 80;\n}\n>>";

beforeAll(() => {
  defineBlocks();
  useReference(() => new Reference(REFERENCE));
});

function roundTrip(state: Record<string, unknown>): Record<string, unknown> {
  const workspace = new Blockly.Workspace();
  Blockly.serialization.workspaces.load({ blocks: { languageVersion: 0, blocks: [state] } }, workspace);
  const saved = Blockly.serialization.workspaces.save(workspace) as { blocks: { blocks: Record<string, unknown>[] } };
  workspace.dispose();
  return JSON.parse(JSON.stringify(saved.blocks.blocks[0])) as Record<string, unknown>;
}

describe("values of several lines", () => {
  test("test_value_field_keeps_line_breaks_of_set_and_of_arguments", () => {
    const set = roundTrip({ type: "otter_set_variable", id: "a", fields: { SCOPE: "", VARIABLE: "$Swim", VALUE: SWIM } });
    expect((set.fields as Record<string, string>).VALUE).toBe(SWIM);
    const call = roundTrip({
      type: "otter_operation_call",
      id: "b",
      fields: { NAMESPACE: "", NAME: "Ensure-File", POSITIONAL: "/etc/nginx/site" },
      extraState: { arguments: [{ name: "Text", value: SWIM }] },
    });
    expect((call.extraState as { arguments: { value: string }[] }).arguments[0].value).toBe(SWIM);
  });

  test("test_value_field_shows_each_line_break_as_a_mark", () => {
    const field = new FieldValue("a\nb");
    const shown = (field as unknown as { getDisplayText_(): string }).getDisplayText_();
    expect(shown).toBe(`a${Blockly.Field.NBSP}${LINE_BREAK}${Blockly.Field.NBSP}b`);
    expect(new FieldValue("plain").getValue()).toBe("plain");
  });

  test("test_break_line_inside_a_swim_string_keeps_its_quoting", () => {
    // ">>", a line break, "ab": a break between a and b
    expect(breakLine(">>\nab\n>>", 4)).toEqual({ value: ">>\na\nb\n>>", caret: 5 });
  });

  test("test_break_line_in_a_value_of_one_line_makes_it_a_swim_string", () => {
    const broken = breakLine("listen 80;", 6);
    expect(broken.value).toBe(">>\nlisten\n 80;\n>>");
    expect(broken.value.slice(0, broken.caret)).toBe(">>\nlisten\n");
  });
});
