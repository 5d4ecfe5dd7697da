// @vitest-environment jsdom
import { describe, expect, test, vi } from "vitest";
import { MAX_HEIGHT, VirtualWindow, type WindowSource } from "./window";

// jsdom lays nothing out: the window is told its height, and scroll events are sent by hand
const VIEW = 400; // 20 rows of 20 px

function numbers(count: () => number) {
  const drawn: number[] = [];
  const source: WindowSource & { drawn: number[] } = {
    drawn,
    count,
    key: (row) => `r${row}`,
    draw: (row, reuse) => {
      drawn.push(row);
      const element = reuse ?? document.createElement("div");
      element.className = "row";
      element.textContent = `row ${row}`;
      return element;
    },
  };
  return source;
}

function windowOf(source: WindowSource, extra: Partial<ConstructorParameters<typeof VirtualWindow>[2]> = {}) {
  const scroller = document.createElement("div");
  document.body.append(scroller);
  const view = new VirtualWindow(scroller, source, { rowHeight: 20, viewport: () => VIEW, overscan: 5, frame: (draw) => draw(), ...extra });
  return { scroller, view };
}

const shown = (view: VirtualWindow) => [...view.rows.children].map((row) => row.textContent);
const scrollTo = (scroller: HTMLElement, top: number) => {
  scroller.scrollTop = top;
  scroller.dispatchEvent(new Event("scroll"));
};

describe("VirtualWindow", () => {
  test("test_virtual_window_puts_only_the_rows_on_screen_in_the_dom", () => {
    const { scroller, view } = windowOf(numbers(() => 1_000_000));
    view.draw();
    expect(view.spacer.style.height).toBe(`${MAX_HEIGHT}px`); // 20,000,000 px of rows: scaled
    expect(shown(view)).toEqual(Array.from({ length: 25 }, (_, row) => `row ${row}`)); // 20 on screen, 5 below
    scrollTo(scroller, 20 * 1000); // without scale, row 1000; here a little further
    const [first, last] = view.visible();
    expect(last - first).toBeGreaterThanOrEqual(19); // 20 rows, or 21 when two are cut
    expect(last - first).toBeLessThanOrEqual(20);
    expect(view.rows.children.length).toBe(last - first + 1 + 10);
    expect(shown(view)[5]).toBe(`row ${first}`);
    expect(first).toBeGreaterThan(1000);
  });

  test("test_virtual_window_scrolls_through_a_million_rows_to_the_last_one", () => {
    const { scroller, view } = windowOf(numbers(() => 1_000_000));
    view.draw();
    scrollTo(scroller, MAX_HEIGHT - VIEW);
    expect(view.visible()).toEqual([999_980, 999_999]);
    expect(shown(view).at(-1)).toBe("row 999999");
    expect(view.atEnd()).toBe(true);
    view.scrollToRow(500_000, "top");
    expect(view.visible()[0]).toBe(500_000);
    // the rows are placed where the scroll position shows them, within a row
    const offset = Number(/translateY\((\d+(?:\.\d+)?)px\)/.exec(view.rows.style.transform)![1]);
    expect(Math.abs(offset + 5 * 20 - scroller.scrollTop)).toBeLessThan(20);
  });

  test("test_virtual_window_scrolls_to_a_row_before_its_first_frame", () => {
    // as a browser does: the scroll position stays within the content
    const { scroller, view } = windowOf(numbers(() => 1000));
    let top = 0;
    Object.defineProperty(scroller, "scrollTop", {
      get: () => top,
      set: (value: number) => (top = Math.max(0, Math.min(value, (parseFloat(view.spacer.style.height) || 0) - VIEW))),
    });
    view.scrollToRow(500, "top");
    expect(view.visible()[0]).toBe(500);
    expect(shown(view)).toContain("row 500");
  });

  test("test_virtual_window_draws_again_only_the_rows_that_came_on_screen", () => {
    const source = numbers(() => 1000);
    const { scroller, view } = windowOf(source);
    view.draw();
    const before = new Map([...view.rows.children].map((element) => [element.textContent, element]));
    source.drawn.length = 0;
    scrollTo(scroller, 3 * 20); // three rows down
    expect(source.drawn).toEqual([25, 26, 27]);
    expect(view.rows.children[0].textContent).toBe("row 0"); // still in the overscan above
    expect(view.rows.children[5].textContent).toBe("row 5");
    expect([...view.rows.children].find((element) => element.textContent === "row 10")).toBe(before.get("row 10"));
    view.refresh(); // the look changed: everything on screen again
    expect(source.drawn.length).toBe(3 + 28);
    expect(view.rows.children.length).toBeLessThanOrEqual(20 + 2 * 5);
  });

  test("test_virtual_window_tells_the_users_scrolling_from_its_own", () => {
    let count = 100;
    const onUserScroll = vi.fn();
    const { scroller, view } = windowOf(numbers(() => count), { onUserScroll });
    view.scrollToEnd();
    scroller.dispatchEvent(new Event("scroll")); // the event of its own scrolling
    expect(onUserScroll).not.toHaveBeenCalled();
    expect(view.atEnd()).toBe(true);
    scrollTo(scroller, 500);
    expect(onUserScroll).toHaveBeenLastCalledWith(false, true); // up, not at the end
    count = 200;
    view.draw();
    expect(view.atEnd()).toBe(false);
    scrollTo(scroller, 200 * 20 - VIEW);
    expect(onUserScroll).toHaveBeenLastCalledWith(true, false);
  });

  test("test_virtual_window_keeps_the_first_row_on_screen_when_rows_come_above_it", () => {
    let rows = Array.from({ length: 200 }, (_, i) => `line ${i}`);
    const source: WindowSource = {
      count: () => rows.length,
      key: (row) => rows[row],
      draw: (row, reuse) => {
        const element = reuse ?? document.createElement("div");
        element.textContent = rows[row];
        return element;
      },
      find: (key) => rows.indexOf(key),
    };
    const { scroller, view } = windowOf(source);
    scrollTo(scroller, 100 * 20 + 7);
    expect(view.visible()[0]).toBe(100);
    rows = [...rows.slice(0, 10), "new a", "new b", "new c", ...rows.slice(10)];
    view.draw();
    expect(scroller.scrollTop).toBe(103 * 20 + 7);
    expect(view.rows.children[5].textContent).toBe("line 100");
  });
});
