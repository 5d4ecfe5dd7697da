import * as Blockly from "blockly/core";
import { beforeAll, describe, expect, test } from "vitest";
import { ApiError } from "../api/http";
import { ScriptProblem } from "../api/scripts";
import { Reference } from "../api/reference";
import { REFERENCE } from "../test/reference-data";
import { describeProblem } from "./client";
import { defineBlocks, useReference } from "./definitions";
import { blockName, nameBlocks, namerOf, statementsInOrder } from "./labels";

beforeAll(() => {
  defineBlocks();
  useReference(() => new Reference(REFERENCE));
});

// log, then if (with a set inside), then a set after it
function workspace(): Blockly.Workspace {
  const space = new Blockly.Workspace();
  Blockly.serialization.workspaces.load(
    {
      blocks: {
        languageVersion: 0,
        blocks: [
          {
            type: "otter_log",
            id: "b1",
            fields: { LEVEL: "information", MESSAGE: "starting" },
            next: {
              block: {
                type: "otter_if",
                id: "b2",
                fields: { IF0: "$Ready" },
                inputs: { DO0: { block: { type: "otter_set_variable", id: "b3", fields: { SCOPE: "", VARIABLE: "$Inner", VALUE: "1" } } } },
                next: { block: { type: "otter_set_variable", id: "b4", fields: { SCOPE: "", VARIABLE: "$Swim", VALUE: "ab" } } },
              },
            },
          },
        ],
      },
    },
    space,
  );
  return space;
}

const REFUSED = "block b4 (otter_set_variable): VALUE 'ab\ncd': expected the end of the script, found ';'";

describe("blocks named as their user knows them", () => {
  test("test_labels_statements_are_in_the_order_of_the_script", () => {
    expect(statementsInOrder(workspace()).map((block) => block.id)).toEqual(["b1", "b2", "b3", "b4"]);
  });

  test("test_labels_a_block_is_named_by_what_it_says_and_its_place", () => {
    const name = blockName(workspace().getBlockById("b4")!);
    expect(name).toMatch(/^“set .*\$Swim.* ab” \(statement 4\)$/);
  });

  test("test_labels_a_refusal_names_the_statement_never_its_id_or_type", () => {
    const space = workspace();
    const refusal = new ScriptProblem("the workspace does not convert", [
      { line: 1, column: 1, end_line: 1, end_column: 1, severity: "error", message: REFUSED, code: "blocks" },
    ]);
    const said = describeProblem(refusal, namerOf(space));
    expect(said).toMatch(/^“set .*” \(statement 4\): the value 'ab\ncd': expected the end of the script/);
    expect(said).not.toMatch(/b4|otter_/);
    expect(nameBlocks(REFUSED, () => null)).toMatch(/^a block: the value/);
    expect(nameBlocks(REFUSED)).toMatch(/^the value 'ab/);
  });

  test("test_describe_problem_a_refusal_is_not_said_to_be_no_answer", () => {
    expect(describeProblem(new ApiError(400, {}))).toBe("the server refused it (400): the server answered 400");
    expect(describeProblem(new ApiError(429, { detail: "Request was throttled." }))).toBe("the server refused it (429): Request was throttled.");
    expect(describeProblem(new TypeError("Failed to fetch"))).toBe("the server did not answer");
  });
});
