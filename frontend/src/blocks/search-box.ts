// The toolbox's search: a box over the workspace whose words fill the toolbox's "Search results"
// category (names first, then descriptions) a moment after typing stops; Enter adds the first
// block found after the script's last statement and opens its first text field, Escape empties
// the box.

import * as Blockly from "blockly/core";
import type { Tone } from "../ui/status";
import { addAtEnd } from "./append";
import type { BlockJson } from "./client";
import { type Entry, search, SEARCH_CATEGORY } from "./toolbox";

export interface SearchOptions {
  readOnly: boolean;
  say(text: string, tone?: Tone): void;
  /** Milliseconds after the last key before the results show. */
  delay?: number;
}

/** What the search category shows for `query`: the blocks found, or a line that says why none. */
export function searchResults(entries: Entry[], query: string): Blockly.utils.toolbox.FlyoutItemInfoArray {
  if (!query.trim()) return [{ kind: "label", text: "Type in the search box above to find blocks." }];
  const matches = search(entries, query);
  if (!matches.length) return [{ kind: "label", text: `No block matches “${query}”.` }];
  return matches.map((entry) => entry.block) as unknown as Blockly.utils.toolbox.FlyoutItemInfoArray;
}

/** "3 blocks found: Enter adds the first", or nothing for an empty query. */
export function foundPhrase(count: number, query: string): string {
  if (!query.trim()) return "";
  return `${count} block${count === 1 ? "" : "s"} found${count ? ": Enter adds the first" : ""}`;
}

/** The search box of `workspace`, whose toolbox has the search category, over `entries`. */
export function searchBox(workspace: Blockly.WorkspaceSvg, entries: Entry[], options: SearchOptions): HTMLInputElement {
  const input = document.createElement("input");
  input.type = "search";
  input.id = "otter-block-search";
  input.placeholder = "Search blocks: Ensure-File, log, retry…";
  input.setAttribute("aria-label", "Search blocks by name or description (Enter adds the first)");
  input.autocomplete = "off";

  let query = "";
  workspace.registerToolboxCategoryCallback(SEARCH_CATEGORY, () => searchResults(entries, query));
  const box = workspace.getToolbox() as Blockly.Toolbox | null;
  const clear = () => {
    input.value = "";
    query = "";
    box?.clearSelection();
  };

  let searching = 0;
  input.addEventListener("input", () => {
    clearTimeout(searching);
    searching = window.setTimeout(() => {
      query = input.value;
      const item = box?.getToolboxItemById("search") ?? null;
      if (!query.trim()) box?.clearSelection();
      else if (box?.getSelectedItem() === item) box?.refreshSelection();
      else box?.setSelectedItem(item);
      options.say(foundPhrase(search(entries, query).length, query));
    }, options.delay ?? 120);
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      clearTimeout(searching);
      query = input.value;
      const first = search(entries, query)[0];
      if (!first || options.readOnly) return;
      const made = addAtEnd(workspace, first.block as unknown as BlockJson);
      clear();
      options.say(`Added ${first.label}`, "ok");
      // straight on to its first text field (Enter or Tab ends it)
      setTimeout(() => firstTextField(made)?.showEditor(), 0);
    } else if (event.key === "Escape") clear();
  });
  return input;
}

/** The first text field of `block` that shows, but not an operation's name. */
export function firstTextField(block: Blockly.Block): Blockly.FieldTextInput | undefined {
  return block.inputList
    .flatMap((input) => input.fieldRow)
    .find((field): field is Blockly.FieldTextInput => field instanceof Blockly.FieldTextInput && field.isVisible() && field.name !== "NAME");
}
