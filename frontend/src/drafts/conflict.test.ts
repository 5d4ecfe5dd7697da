import { describe, expect, test, vi } from "vitest";
import type { ConflictBody, Draft } from "../api/drafts";
import { conflictView } from "./conflict";
import { draftNotice } from "./notice";
import { findAll, hasClass, type Node, textOf } from "./view";

// a 409 body as the server answers a commit from version 1 when version 2 is the newest
const CONFLICT: ConflictBody = {
  detail: "ops::deploy has version 2, newer than version 1 that this change started from.",
  code: "conflict",
  base_version: 1,
  latest: {
    number: 2,
    author: "alice",
    created: "2025-05-12T12:04:00Z",
    message: "restart nginx too",
    content: "Log-Information starting;\nExec restart;\n",
  },
  diff: "--- version 1\n+++ version 2\n@@ -1 +1,2 @@\n Log-Information starting;\n+Exec restart;\n",
  diff_to_submitted: "--- version 2\n+++ yours\n@@ -1,2 +1,2 @@\n Log-Information starting;\n-Exec restart;\n+Exec mine;\n",
};

const buttons = (node: Node) => findAll(node, (n) => n.tag === "button");

describe("conflictView", () => {
  test("test_conflict_panel_says_who_saved_the_newer_version_when_and_why", () => {
    const panel = conflictView(CONFLICT, { loadTheirs: () => {}, saveMine: () => {}, locale: "en-GB" });
    const heading = findAll(panel, (n) => n.tag === "h2")[0];
    expect(textOf(heading)).toBe("Not saved: alice saved version 2 meanwhile");
    expect(panel.attrs["aria-labelledby"]).toBe(heading.attrs.id);
    const text = textOf(panel);
    expect(text).toContain("Your text started from version 1.");
    expect(text).toContain("alice saved version 2 on ");
    expect(findAll(panel, (n) => n.tag === "time")[0].attrs.datetime).toBe("2025-05-12T12:04:00Z");
    expect(textOf(findAll(panel, (n) => n.tag === "q")[0])).toBe("restart nginx too");
  });

  test("test_conflict_panel_shows_their_changes_and_yours_as_diffs", () => {
    const panel = conflictView(CONFLICT, { loadTheirs: () => {}, saveMine: () => {} });
    const diffs = findAll(panel, hasClass("diff"));
    expect(diffs.map((d) => d.attrs["aria-label"])).toEqual([
      "Changes from version 1 to version 2",
      "Changes from version 2 to your text",
    ]);
    expect(findAll(diffs[0], hasClass("added")).map(textOf)).toEqual(["+Exec restart;"]);
    expect(findAll(diffs[1], hasClass("removed")).map(textOf)).toEqual(["-Exec restart;"]);
    expect(findAll(diffs[1], hasClass("added")).map(textOf)).toEqual(["+Exec mine;"]);
    expect(findAll(panel, (n) => n.tag === "h3").map(textOf)).toEqual([
      "Their changes since version 1",
      "Your text against version 2",
    ]);
  });

  test("test_conflict_panel_buttons_load_theirs_or_save_mine", () => {
    const loadTheirs = vi.fn();
    const saveMine = vi.fn();
    const panel = conflictView(CONFLICT, { loadTheirs, saveMine });
    const [load, save] = buttons(panel);
    expect([textOf(load), textOf(save)]).toEqual(["Load their version", "Save mine anyway"]);
    expect(load.attrs.type).toBe("button"); // never submits the item's form
    load.on.click(new Event("click"));
    expect(loadTheirs).toHaveBeenCalledOnce();
    save.on.click(new Event("click"));
    expect(saveMine).toHaveBeenCalledOnce();
    for (const button of [load, save]) {
      const help = findAll(panel, (n) => n.attrs.id === button.attrs["aria-describedby"]);
      expect(help).toHaveLength(1);
    }
  });

  test("test_conflict_panel_of_an_unnamed_author_and_no_message", () => {
    const body = { ...CONFLICT, latest: { ...CONFLICT.latest, author: null, message: "" }, diff: "" };
    const panel = conflictView(body, { loadTheirs: () => {}, saveMine: () => {} });
    const text = textOf(panel);
    expect(text).toContain("Not saved: someone saved version 2 meanwhile");
    expect(text).toContain("without saying why.");
    expect(text).toContain("No changes in the lines.");
  });
});

describe("draftNotice", () => {
  const draft: Draft = {
    content: "edited",
    base_version: 1,
    saved: "2025-05-12T12:04:00Z",
    latest_version: 1,
    moved_on: false,
    mode: "text",
  };

  test("test_draft_notice_offers_restore_and_discard", () => {
    const restore = vi.fn();
    const discard = vi.fn();
    const notice = draftNotice(draft, { restore, discard });
    expect(textOf(notice)).toContain("You have an unsaved draft from ");
    expect(textOf(notice)).not.toContain("Careful");
    const [first, second] = buttons(notice);
    expect([textOf(first), textOf(second)]).toEqual(["Restore draft", "Discard draft"]);
    first.on.click(new Event("click"));
    second.on.click(new Event("click"));
    expect(restore).toHaveBeenCalledOnce();
    expect(discard).toHaveBeenCalledOnce();
  });

  test("test_draft_notice_warns_when_the_item_moved_on", () => {
    const notice = draftNotice({ ...draft, latest_version: 3, moved_on: true }, { restore: () => {}, discard: () => {} });
    expect(notice.attrs.class).toContain("moved-on");
    expect(textOf(notice)).toContain("version 3 was saved since");
  });
});
