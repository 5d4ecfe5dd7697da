// @vitest-environment jsdom
import { expect, test, vi } from "vitest";
import { ChangesPanel } from "./changes";

const DIFF = "--- version 3\n+++ on screen\n@@ -1 +1 @@\n-Log-Information a;\n+Log-Information b;\n";

test("test_changes_panel_opens_with_the_diff_and_closes_again", async () => {
  const said: string[] = [];
  const compare = vi.fn(async () => ({ from: null, to: null, diff: DIFF }));
  const changes = new ChangesPanel(document, { compare, base: () => 3, say: (text) => void said.push(text) });
  document.body.append(changes.button, changes.panel);
  expect([changes.panel.hidden, changes.button.getAttribute("aria-controls")]).toEqual([true, "otter-changes"]);
  await changes.toggle();
  expect(changes.open).toBe(true);
  expect(changes.panel.hidden).toBe(false);
  expect(changes.panel.querySelector("h2")!.textContent).toBe("Changes since version 3");
  expect(changes.panel.textContent).toContain("Log-Information b;");
  expect(said).toEqual(["Comparing…", ""]);
  await changes.toggle();
  expect([changes.open, changes.panel.hidden, changes.panel.childElementCount]).toEqual([false, true, 0]);
  expect(compare).toHaveBeenCalledTimes(1);
});

test("test_changes_panel_says_why_it_could_not_compare", async () => {
  const said: string[] = [];
  const changes = new ChangesPanel(document, { compare: async () => Promise.reject(new TypeError("Failed to fetch")), base: () => 1, say: (text) => void said.push(text) });
  await changes.toggle();
  expect(changes.open).toBe(false);
  expect(said.at(-1)).toBe("Could not compare: the server did not answer.");
});
