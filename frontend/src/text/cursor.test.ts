// @vitest-environment jsdom
import { drawSelection } from "@codemirror/view";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { editorOf } from "../test/editor";
import { BLINK_MS, cursorBlink } from "./cursor";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

function focused() {
  const view = editorOf("Log-Information a;", [drawSelection({ cursorBlinkRate: 0 }), cursorBlink]);
  Object.defineProperty(view, "hasFocus", { get: () => true });
  const hidden = () => view.dom.querySelector(".cm-cursorLayer")!.classList.contains("otter-cursor-off");
  return { view, hidden };
}

describe("the cursor's blink", () => {
  test("test_cursor_blink_hides_and_shows_the_cursor_by_a_timer", () => {
    const { view, hidden } = focused();
    expect(hidden()).toBe(false);
    vi.advanceTimersByTime(BLINK_MS);
    expect(hidden()).toBe(true);
    vi.advanceTimersByTime(BLINK_MS);
    expect(hidden()).toBe(false);
    view.destroy();
  });

  test("test_cursor_blink_a_key_shows_the_cursor_at_once_and_starts_again", () => {
    const { view, hidden } = focused();
    vi.advanceTimersByTime(BLINK_MS);
    expect(hidden()).toBe(true);
    view.dispatch({ changes: { from: 0, insert: "x" }, selection: { anchor: 1 } });
    expect(hidden()).toBe(false);
    vi.advanceTimersByTime(BLINK_MS - 1); // a whole blink's time from the key, not from the last blink
    expect(hidden()).toBe(false);
    vi.advanceTimersByTime(1);
    expect(hidden()).toBe(true);
    view.destroy();
  });
});
