import { describe, expect, test, vi } from "vitest";
import type { WorkspaceJson } from "../blocks/client";
import { ScriptProblem } from "../api/scripts";
import { type Blocks, ModeSwitcher, type SwitcherParts } from "./switcher";

const workspace = (name: string): WorkspaceJson => ({
  blocks: { languageVersion: 0, blocks: [{ type: "otter_log", fields: { TEXT: name } }] },
  otterscript: { headers: [] },
});

/** A switch over a text editor holding `text`, a converter and a block editor the test sees. */
function switcher(text: string, overrides: Partial<SwitcherParts> = {}) {
  const said: string[] = [];
  const shown: string[] = [];
  const editor: Blocks & { changed: boolean } = { changed: false, load: vi.fn(), save: vi.fn(() => workspace("changed")), resize: vi.fn() };
  const converter = {
    toBlocks: vi.fn(async (script: string) => workspace(script)),
    toText: vi.fn(async () => "Log-Information changed;"),
  };
  const parts: SwitcherParts = {
    current: () => text,
    setText: (next) => void (text = next),
    pointAt: vi.fn(),
    converter,
    blockEditor: vi.fn(async () => editor),
    display: (mode) => void shown.push(mode),
    say: (line) => void said.push(line),
    readOnly: false,
    fallback: "visual",
    ...overrides,
  };
  const made = new ModeSwitcher(parts);
  return { made, parts, editor, converter, said, shown, text: () => text };
}

describe("ModeSwitcher", () => {
  test("test_switch_opens_the_blocks_from_the_servers_workspace", async () => {
    const { made, editor, converter, shown } = switcher("Log-Information hi;");
    expect(await made.show("visual")).toBe(true);
    expect(converter.toBlocks).toHaveBeenCalledWith("Log-Information hi;");
    expect(editor.load).toHaveBeenCalledWith(workspace("Log-Information hi;"));
    expect([made.mode, shown]).toEqual(["visual", ["visual"]]);
  });

  test("test_switch_opens_with_the_blocks_asked_for_early_only_while_the_text_is_theirs", async () => {
    const early = { text: "Log-Information hi;", workspace: Promise.resolve(workspace("early")) };
    const { made, editor, converter } = switcher("Log-Information hi;", { early });
    await made.show("visual");
    expect(converter.toBlocks).not.toHaveBeenCalled();
    expect(editor.load).toHaveBeenCalledWith(workspace("early"));

    const other = switcher("Log-Information changed;", { early });
    await other.made.show("visual");
    expect(other.converter.toBlocks).toHaveBeenCalledWith("Log-Information changed;");
    expect(other.editor.load).toHaveBeenCalledWith(workspace("Log-Information changed;"));
  });

  test("test_switch_keeps_text_that_does_not_parse_as_text_and_points_at_its_error", async () => {
    const problem = new ScriptProblem("does not parse", [
      { line: 1, column: 5, end_line: 1, end_column: 6, severity: "error", message: "expected ;", code: "syntax" },
    ]);
    const { made, parts, said } = switcher("set x", { converter: { toBlocks: async () => Promise.reject(problem), toText: async () => "" } });
    expect(await made.show("visual")).toBe(false);
    expect(made.mode).toBe("text");
    expect(parts.pointAt).toHaveBeenCalledWith(problem);
    expect(said.at(-1)).toBe("Stays as text: line 1, column 5: expected ;. Fix the errors marked in the text to see it as blocks.");
  });

  test("test_switch_back_to_text_gives_the_exact_text_of_unchanged_blocks", async () => {
    const { made, converter, text } = switcher("Log-Information   hi;");
    await made.show("visual");
    expect(await made.show("text")).toBe(true);
    expect(converter.toText).not.toHaveBeenCalled();
    expect(text()).toBe("Log-Information   hi;");
  });

  test("test_switch_back_to_text_converts_changed_blocks", async () => {
    const { made, editor, text } = switcher("Log-Information hi;");
    await made.show("visual");
    editor.changed = true;
    await made.show("text");
    expect(text()).toBe("Log-Information changed;");
  });

  test("test_switch_a_block_editor_that_does_not_load_leaves_the_text", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const { made, said, shown } = switcher("x;", { blockEditor: async () => Promise.reject(new Error("chunk")) });
    expect(await made.show("visual")).toBe(false);
    expect([made.mode, shown, said.at(-1)]).toEqual(["text", ["visual", "text"], "Could not load the block editor."]);
    error.mockRestore();
  });

  test("test_switch_saving_in_the_chosen_mode_writes_its_header", async () => {
    const { made, text } = switcher("##AH:UseTextMode\nLog-Information hi;");
    expect(made.opening).toBe("text");
    expect(await made.textToSave()).toBe("##AH:UseTextMode\nLog-Information hi;"); // nobody chose
    await made.choose("visual");
    expect(await made.textToSave()).not.toContain("##AH:UseTextMode");
    await made.choose("text");
    made.headerForText();
    expect(text()).toContain("##AH:UseTextMode");
  });

  test("test_switch_before_a_submit_from_the_blocks_gives_the_text_editor_their_text", async () => {
    const { made, editor, text } = switcher("Log-Information hi;", { fallback: "text" });
    await made.show("visual");
    editor.changed = true;
    await made.textFromBlocks();
    expect(text()).toBe("Log-Information changed;");
  });

  test("test_switch_ignores_a_second_switch_while_one_is_under_way", async () => {
    let release: (value: WorkspaceJson) => void = () => {};
    const { made } = switcher("x;", { converter: { toBlocks: () => new Promise((resolve) => (release = resolve)), toText: async () => "" } });
    const first = made.show("visual");
    expect(await made.show("visual")).toBe(false);
    release(workspace("x;"));
    expect(await first).toBe(true);
  });
});
