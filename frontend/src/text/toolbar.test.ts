// @vitest-environment jsdom
import { expect, test, vi } from "vitest";
import { textToolbar } from "./toolbar";

const labels = (bar: HTMLElement) => Array.from(bar.children).map((child) => child.textContent || child.className);

test("test_text_toolbar_has_format_find_and_the_status", () => {
  const status = document.createElement("span");
  status.className = "status";
  const actions = { format: vi.fn(), find: vi.fn() };
  const bar = textToolbar(actions, status);
  expect([bar.getAttribute("role"), bar.getAttribute("aria-label")]).toEqual(["toolbar", "Text editor"]);
  expect(labels(bar)).toEqual(["Format", "Find", "status"]);
  for (const button of bar.querySelectorAll("button")) {
    expect(button.type).toBe("button");
    button.click();
  }
  expect(actions.format).toHaveBeenCalledOnce();
  expect(actions.find).toHaveBeenCalledOnce();
});

test("test_text_toolbar_without_format", () => {
  expect(labels(textToolbar({ find: () => {} }, document.createElement("span")))).toEqual(["Find", ""]);
});
