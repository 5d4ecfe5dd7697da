// @vitest-environment jsdom
import { describe, expect, test, vi } from "vitest";
import type { ConflictBody } from "../api/drafts";
import { ConflictPanel } from "./conflict-panel";

const BODY: ConflictBody = {
  detail: "ops::deploy has version 5, newer than version 3 that this change started from.",
  code: "conflict",
  base_version: 3,
  latest: { number: 5, author: "ana", created: "2025-05-12T12:04:00Z", message: "", content: "theirs" },
  diff: "",
  diff_to_submitted: "",
};

function page(replace: (text: string) => Promise<void> = async () => {}) {
  document.body.innerHTML = `<div class="otter-drafts-panels"></div>`;
  const said: [string, string | undefined][] = [];
  const parts = {
    panels: document.querySelector<HTMLElement>(".otter-drafts-panels")!,
    drafts: { forget: vi.fn(async () => {}) },
    autosaver: { reset: vi.fn() },
    text: { replace: vi.fn(replace) },
    rebase: vi.fn(),
    saveFrom: vi.fn(),
    say: (text: string, tone?: string) => void said.push([text, tone]),
    focus: vi.fn(),
  };
  return { parts, said, conflict: new ConflictPanel(parts) };
}

const button = (name: string) => Array.from(document.querySelectorAll("button")).find((b) => b.textContent === name)!;
const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("the conflict on the page", () => {
  test("test_conflict_panel_shows_one_panel_with_its_heading_focused", () => {
    const { conflict, parts } = page();
    conflict.show(BODY);
    conflict.show(BODY);
    expect(parts.panels.querySelectorAll(".otter-conflict")).toHaveLength(1);
    expect(document.activeElement).toBe(conflict.panel!.querySelector("h2"));
    conflict.close();
    expect([conflict.panel, parts.panels.childElementCount]).toEqual([null, 0]);
  });

  test("test_conflict_panel_load_theirs_puts_their_version_on_screen", async () => {
    const { conflict, parts, said } = page();
    conflict.show(BODY);
    button("Load their version").click();
    await settled();
    expect(parts.text.replace).toHaveBeenCalledWith("theirs");
    expect(parts.rebase).toHaveBeenCalledWith(5);
    expect(parts.autosaver.reset).toHaveBeenCalledWith("theirs");
    expect(parts.drafts.forget).toHaveBeenCalledOnce();
    expect(conflict.panel).toBeNull();
    expect(said).toEqual([["Loaded version 5. Undo (Ctrl+Z) in the editor brings your text back.", "ok"]]);
    expect(parts.focus).toHaveBeenCalled();
  });

  test("test_conflict_panel_save_mine_commits_from_their_version", () => {
    const { conflict, parts } = page();
    conflict.show(BODY);
    button("Save mine anyway").click();
    expect(parts.saveFrom).toHaveBeenCalledWith(5);
    expect(conflict.panel).toBeNull();
  });

  test("test_conflict_panel_stays_when_their_version_cannot_be_shown", async () => {
    const { conflict, parts, said } = page(async () => Promise.reject(new Error("the blocks could not be turned into text")));
    conflict.show(BODY);
    button("Load their version").click();
    await settled();
    expect(said).toEqual([["Not loaded: the blocks could not be turned into text", "bad"]]);
    expect(conflict.panel?.isConnected).toBe(true);
    expect(parts.rebase).not.toHaveBeenCalled();
  });
});
