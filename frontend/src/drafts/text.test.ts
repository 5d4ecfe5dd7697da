// @vitest-environment jsdom
import { history, undo } from "@codemirror/commands";
import { describe, expect, test, vi } from "vitest";
import { editorOf } from "../test/editor";
import { ItemText, type ModeSwitch } from "./text";

function blocks(mode: "text" | "visual", shows = true, text = "from the blocks") {
  const switcher = {
    mode: mode as string,
    show: vi.fn(async (next: "text" | "visual") => {
      if (shows) switcher.mode = next;
      return shows;
    }),
    text: vi.fn(async () => text),
  };
  return switcher satisfies ModeSwitch;
}

describe("the item's text", () => {
  test("test_item_text_is_the_editors_without_a_mode_switch", async () => {
    const view = editorOf("Log-Information a;");
    const text = new ItemText(view);
    expect([text.onScreen(), await text.current(), text.visual]).toEqual(["Log-Information a;", "Log-Information a;", false]);
  });

  test("test_item_text_is_the_blocks_when_they_show", async () => {
    const switcher = blocks("visual");
    const text = new ItemText(editorOf("as text"), () => switcher);
    expect([await text.current(), text.onScreen(), text.visual]).toEqual(["from the blocks", "as text", true]);
  });

  test("test_item_text_replaced_is_an_undoable_change", async () => {
    const view = editorOf("Log-Information a;\nLog-Information b;\n", history());
    await new ItemText(view).replace("Log-Information a;\nLog-Information c;\n");
    expect(view.state.doc.toString()).toBe("Log-Information a;\nLog-Information c;\n");
    undo(view);
    expect(view.state.doc.toString()).toBe("Log-Information a;\nLog-Information b;\n");
  });

  test("test_item_text_replaced_under_the_blocks_goes_through_the_text_and_back", async () => {
    const switcher = blocks("visual");
    const view = editorOf("old");
    await new ItemText(view, () => switcher).replace("new");
    expect(view.state.doc.toString()).toBe("new");
    expect(switcher.show.mock.calls).toEqual([["text"], ["visual"]]);
  });

  test("test_item_text_not_replaced_when_the_blocks_do_not_become_text", async () => {
    const switcher = blocks("visual", false);
    const view = editorOf("old");
    await expect(new ItemText(view, () => switcher).replace("new")).rejects.toThrow("the blocks could not be turned into text");
    expect(view.state.doc.toString()).toBe("old");
  });
});
