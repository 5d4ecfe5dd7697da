// @vitest-environment jsdom
import * as Blockly from "blockly/core";
import { describe, expect, test } from "vitest";
import { drawnWorkspace, entries, withBlocks } from "../test/blocks";
import { firstTextField, foundPhrase, searchBox, searchResults } from "./search-box";

function page(readOnly = false) {
  const workspace = drawnWorkspace(readOnly);
  const said: [string, string | undefined][] = [];
  const input = searchBox(workspace, entries, { readOnly, say: (text, tone) => void said.push([text, tone]), delay: 0 });
  document.body.append(input);
  const type = async (text: string) => {
    input.value = text;
    input.dispatchEvent(new Event("input"));
    await new Promise((resolve) => setTimeout(resolve, 5));
  };
  const press = (key: string) => {
    const event = new KeyboardEvent("keydown", { key, cancelable: true });
    input.dispatchEvent(event);
    return event;
  };
  const toolbox = workspace.getToolbox() as Blockly.Toolbox;
  return { workspace, input, said, type, press, toolbox };
}

describe("the search category", () => {
  test("test_search_results_are_the_blocks_found_or_a_line_saying_why_none", () => {
    expect(searchResults(entries, " ")).toEqual([{ kind: "label", text: "Type in the search box above to find blocks." }]);
    expect(searchResults(entries, "nothing-like-this")).toEqual([{ kind: "label", text: "No block matches “nothing-like-this”." }]);
    expect(searchResults(entries, "ensure-file")[0]).toMatchObject({ kind: "block", type: "otter_operation_call", fields: { NAME: "Ensure-File" } });
  });

  test("test_search_found_phrase", () => {
    expect(foundPhrase(3, "log")).toBe("3 blocks found: Enter adds the first");
    expect(foundPhrase(1, "log")).toBe("1 block found: Enter adds the first");
    expect(foundPhrase(0, "zzz")).toBe("0 blocks found");
    expect(foundPhrase(0, "")).toBe("");
  });
});

describe("the search box", () => {
  test("test_search_box_typing_opens_the_results_and_says_how_many", async () => {
    const { input, said, type, toolbox } = page();
    expect([input.id, input.type, input.getAttribute("aria-label")]).toEqual([
      "otter-block-search",
      "search",
      "Search blocks by name or description (Enter adds the first)",
    ]);
    await type("ensure-file");
    expect(toolbox.getSelectedItem()).toBe(toolbox.getToolboxItemById("search"));
    expect(said.at(-1)).toEqual(["1 block found: Enter adds the first", undefined]);
    await type("");
    expect(toolbox.getSelectedItem()).toBeNull();
    expect(said.at(-1)).toEqual(["", undefined]);
  });

  test("test_search_box_enter_adds_the_first_block_found_at_the_end", async () => {
    const { workspace, input, said, press } = page();
    const log = workspace.newBlock("otter_log") as Blockly.BlockSvg;
    log.initSvg();
    log.render();
    input.value = "ensure-file";
    expect(press("Enter").defaultPrevented).toBe(true);
    const added = workspace.getBlocksByType("otter_operation_call", false)[0];
    expect(added.getFieldValue("NAME")).toBe("Ensure-File");
    expect(added.getPreviousBlock()).toBe(log);
    expect(input.value).toBe("");
    expect(said.at(-1)).toEqual(["Added Files::Ensure-File", "ok"]);
  });

  test("test_search_box_adds_nothing_read_only_or_without_a_match", () => {
    const readOnly = page(true);
    readOnly.input.value = "log";
    readOnly.press("Enter");
    expect(readOnly.workspace.getAllBlocks(false)).toEqual([]);
    const writable = page();
    writable.input.value = "nothing-like-this";
    writable.press("Enter");
    expect(writable.workspace.getAllBlocks(false)).toEqual([]);
  });

  test("test_search_box_escape_empties_it_and_closes_the_results", async () => {
    const { input, type, press, toolbox } = page();
    await type("log");
    press("Escape");
    expect(input.value).toBe("");
    expect(toolbox.getSelectedItem()).toBeNull();
  });
});

test("test_search_first_text_field_is_past_the_operation_name", () => {
  withBlocks();
  const workspace = new Blockly.Workspace();
  const operation = workspace.newBlock("otter_operation_call");
  expect(firstTextField(operation)?.name).toBe("POSITIONAL");
  const log = workspace.newBlock("otter_log");
  expect(firstTextField(log)?.name).toBe("MESSAGE");
});
