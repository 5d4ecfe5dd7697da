// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { ApiError } from "../api/http";
import { ScriptProblem } from "../api/scripts";
import type { WorkspaceJson } from "../blocks/client";
import { editorOf } from "../test/editor";
import { keepDrafts } from "./keep";
import { LocalBlocksStore } from "./local";
import { ItemText } from "./text";

const BLOCKS: WorkspaceJson = { blocks: { languageVersion: 0, blocks: [{ type: "otter_set_variable", id: "b3" }] }, otterscript: { headers: [] } };

function page(keep: (content: string) => Promise<unknown> = async () => ({}), blocksText?: () => Promise<string>, local?: LocalBlocksStore) {
  const view = editorOf("Log-Information a;");
  const field = document.createElement("div");
  document.body.append(field);
  let mode = "text";
  const fromBlocks = blocksText ?? (async () => "from the blocks");
  const names = {
    name: (id: string) => (id === "b3" ? "“set $Swim = ab” (statement 3)" : null),
    save: () => BLOCKS,
    load: () => {},
  };
  const text = new ItemText(view, () => ({
    mode,
    show: async () => true,
    text: async () => (mode === "visual" ? fromBlocks() : view.state.doc.toString()),
    blocks: () => names,
  }));
  const notes: [string, string | undefined][] = [];
  const said: [string, string | undefined][] = [];
  const kept = vi.fn(keep);
  const autosaver = keepDrafts({ text, view, field, keep: kept, note: (t, tone) => void notes.push([t, tone]), say: (t, tone) => void said.push([t, tone]), delay: 100, local });
  return { view, field, autosaver, kept, notes, said, show: (next: string) => void (mode = next) };
}

describe("the draft kept while editing", () => {
  beforeEach(() => vi.useFakeTimers({ now: new Date(2025, 4, 12, 12, 4) }));
  afterEach(() => vi.useRealTimers());

  test("test_keep_a_change_of_the_text_is_kept_after_the_delay", async () => {
    const { view, kept, notes } = page();
    view.dispatch({ changes: { from: 0, insert: "# " } });
    await vi.advanceTimersByTimeAsync(99);
    expect(kept).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(kept).toHaveBeenCalledWith("# Log-Information a;");
    expect(notes.at(-1)?.[0]).toMatch(/^Draft saved 12.04/); // in the locale's clock
  });

  test("test_keep_the_blocks_are_kept_as_they_are_edited_with_the_mouse_and_keys", async () => {
    const { field, kept, show } = page();
    field.dispatchEvent(new Event("pointerup"));
    await vi.advanceTimersByTimeAsync(100);
    expect(kept).not.toHaveBeenCalled(); // the text showed: its changes are the editor's
    show("visual");
    field.dispatchEvent(new Event("keyup"));
    await vi.advanceTimersByTimeAsync(100);
    expect(kept).toHaveBeenCalledWith("from the blocks");
  });

  test("test_keep_a_hidden_tab_keeps_the_draft_at_once", async () => {
    const { view, kept } = page();
    view.dispatch({ changes: { from: 0, insert: "# " } });
    vi.spyOn(document, "visibilityState", "get").mockReturnValue("hidden");
    document.dispatchEvent(new Event("visibilitychange"));
    await vi.advanceTimersByTimeAsync(0);
    expect(kept).toHaveBeenCalledWith("# Log-Information a;");
  });

  test("test_keep_a_refused_draft_is_said_and_an_unanswered_one_noted", async () => {
    const refused = page(async () => Promise.reject(new ApiError(400, { detail: "Too long." })));
    refused.view.dispatch({ changes: { from: 0, insert: "# " } });
    await vi.advanceTimersByTimeAsync(100);
    expect(refused.notes.at(-1)).toEqual(["Draft not kept: Too long.", "bad"]);
    expect(refused.said.at(-1)).toEqual(["Draft not kept: Too long.", "bad"]);
    const down = page(async () => Promise.reject(new TypeError("Failed to fetch")));
    down.view.dispatch({ changes: { from: 0, insert: "# " } });
    await vi.advanceTimersByTimeAsync(100);
    expect(down.notes.at(-1)).toEqual(["Draft not kept: the server did not answer. Trying again.", "warn"]);
    expect(down.said).toEqual([]);
  });

  test("test_keep_blocks_that_make_no_script_are_named_never_said_unanswered", async () => {
    const broken = new ScriptProblem("the workspace does not convert", [
      { line: 1, column: 1, end_line: 1, end_column: 1, severity: "error", code: "blocks", message: "block b3 (otter_set_variable): VALUE 'a{': expected }" },
    ]);
    const blocks = page(undefined, async () => Promise.reject(broken));
    blocks.show("visual");
    blocks.field.dispatchEvent(new Event("keyup"));
    await vi.advanceTimersByTimeAsync(100);
    expect(blocks.kept).not.toHaveBeenCalled();
    expect(blocks.notes.at(-1)).toEqual([
      "Draft not kept: the blocks do not make a script: “set $Swim = ab” (statement 3): the value 'a{': expected }.",
      "bad",
    ]);
  });

  test("test_keep_blocks_that_make_no_script_are_kept_in_this_browser_until_they_do", async () => {
    const broken = new ScriptProblem("the workspace does not convert", [
      { line: 1, column: 1, end_line: 1, end_column: 1, severity: "error", code: "blocks", message: "block b3 (otter_set_variable): VALUE 'a{': expected }" },
    ]);
    let fromBlocks: () => Promise<string> = async () => Promise.reject(broken);
    const local = new LocalBlocksStore("otterweb:blocks:/rafts/ops/deploy/", localStorage);
    const blocks = page(undefined, () => fromBlocks(), local);
    blocks.show("visual");
    blocks.field.dispatchEvent(new Event("keyup"));
    await vi.advanceTimersByTimeAsync(100);
    expect(blocks.notes.at(-1)?.[0]).toMatch(/^Kept in this browser only: the blocks do not make a script: “set/);
    expect(local.read()).toEqual({ workspace: BLOCKS, saved: new Date(2025, 4, 12, 12, 4, 0, 100).toISOString() }); // after the delay
    fromBlocks = async () => "set $Swim = fixed;"; // fixed: its draft is kept, the blocks forgotten
    blocks.field.dispatchEvent(new Event("keyup"));
    await vi.advanceTimersByTimeAsync(100);
    expect(blocks.kept).toHaveBeenCalledWith("set $Swim = fixed;");
    expect(local.read()).toBeNull();
  });
});
