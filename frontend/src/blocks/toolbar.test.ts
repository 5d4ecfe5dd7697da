// @vitest-environment jsdom
import { expect, test, vi } from "vitest";
import { blocksToolbar } from "./toolbar";

test("test_blocks_toolbar_has_the_search_then_the_commands", () => {
  const workspace = { undo: vi.fn(), zoomToFit: vi.fn(), cleanUp: vi.fn() };
  const search = document.createElement("input");
  const bar = blocksToolbar(workspace, search);
  expect([bar.getAttribute("role"), bar.getAttribute("aria-label")]).toEqual(["toolbar", "Block editor"]);
  expect(bar.firstElementChild).toBe(search);
  const buttons = Array.from(bar.querySelectorAll("button"));
  expect(buttons.map((button) => [button.textContent, button.type])).toEqual([
    ["Undo", "button"],
    ["Redo", "button"],
    ["Zoom to fit", "button"],
    ["Tidy", "button"],
  ]);
  for (const button of buttons) button.click();
  expect(workspace.undo.mock.calls).toEqual([[false], [true]]);
  expect(workspace.zoomToFit).toHaveBeenCalledOnce();
  expect(workspace.cleanUp).toHaveBeenCalledOnce();
});
