// @vitest-environment jsdom
import { expect, test } from "vitest";
import { saveRowStatus } from "./status";

test("test_save_row_status_has_a_quiet_line_and_a_polite_one", () => {
  const row = saveRowStatus();
  row.note("Draft saved 12:04");
  row.say("Saved as version 3.", "ok");
  expect([row.quiet.className, row.quiet.textContent, row.quiet.dataset.tone, row.quiet.getAttribute("role")]).toEqual([
    "otter-draft-saved", "Draft saved 12:04", "", null,
  ]);
  expect([row.status.className, row.status.textContent, row.status.dataset.tone, row.status.getAttribute("role")]).toEqual([
    "otter-commit-status", "Saved as version 3.", "ok", "status",
  ]);
});
