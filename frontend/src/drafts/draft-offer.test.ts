// @vitest-environment jsdom
import { beforeEach, describe, expect, test, vi } from "vitest";
import type { Draft } from "../api/drafts";
import { ApiError } from "../api/http";
import { DraftOffer } from "./draft-offer";

const DRAFT: Draft = { content: "edited", base_version: 2, saved: "2025-05-12T12:04:00Z", latest_version: 2, moved_on: false, mode: "text" };

function page(draft: Draft | null | Error = DRAFT, replace: (text: string) => Promise<void> = async () => {}) {
  document.body.innerHTML = `<div id="field"></div>`;
  const said: [string, string | undefined][] = [];
  const notes: [string, string | undefined][] = [];
  const parts = {
    drafts: { draft: vi.fn(async () => (draft instanceof Error ? Promise.reject(draft) : draft)), forget: vi.fn(async () => {}) },
    autosaver: { pause: vi.fn(), resume: vi.fn(), reset: vi.fn() },
    text: { replace: vi.fn(replace) },
    rebase: vi.fn(),
    note: (text: string, tone?: string) => void notes.push([text, tone]),
    say: (text: string, tone?: string) => void said.push([text, tone]),
    focus: vi.fn(),
    field: document.getElementById("field")!,
  };
  return { parts, said, notes, offer: new DraftOffer(parts) };
}

const button = (name: string) => Array.from(document.querySelectorAll("button")).find((b) => b.textContent === name)!;
const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("a draft offered back", () => {
  beforeEach(() => void (document.body.innerHTML = ""));

  test("test_draft_offer_shows_the_notice_before_the_editor_and_stops_keeping_drafts", async () => {
    const { offer, parts, notes } = page();
    await offer.lookFor("as saved");
    expect(offer.notice?.nextElementSibling).toBe(parts.field);
    expect(parts.autosaver.pause).toHaveBeenCalledOnce();
    expect(notes).toEqual([["Your edits are not kept as a draft until you restore or discard the earlier one.", "warn"]]);
  });

  test("test_draft_offer_of_no_draft_or_the_text_on_screen_shows_nothing", async () => {
    const none = page(null);
    await none.offer.lookFor("as saved");
    const same = page();
    await same.offer.lookFor("edited");
    expect([none.offer.notice, same.offer.notice, document.querySelector("section")]).toEqual([null, null, null]);
    const down = page(new TypeError("Failed to fetch"));
    await down.offer.lookFor("as saved");
    expect(down.notes).toEqual([["Could not look for a draft: the server did not answer.", "warn"]]);
  });

  test("test_draft_offer_restore_puts_the_draft_on_screen_from_its_base", async () => {
    const { offer, parts, said } = page({ ...DRAFT, moved_on: true, latest_version: 3 });
    await offer.lookFor("as saved");
    button("Restore draft").click();
    await settled();
    expect(parts.text.replace).toHaveBeenCalledWith("edited");
    expect(parts.rebase).toHaveBeenCalledWith(2);
    expect(parts.autosaver.reset).toHaveBeenCalledWith("edited");
    expect(parts.autosaver.resume).toHaveBeenCalledOnce();
    expect([offer.notice, document.querySelector(".otter-draft-notice")]).toEqual([null, null]);
    expect(said).toEqual([["Draft restored. Version 3 was saved since it started: Save shows both versions' changes first.", "warn"]]);
    expect(parts.focus).toHaveBeenCalled();
  });

  test("test_draft_offer_discard_forgets_the_draft", async () => {
    const { offer, parts, said } = page();
    await offer.lookFor("as saved");
    button("Discard draft").click();
    await settled();
    expect(parts.drafts.forget).toHaveBeenCalledOnce();
    expect(parts.text.replace).not.toHaveBeenCalled();
    expect(offer.notice).toBeNull();
    expect(said).toEqual([["Draft discarded.", undefined]]);
  });

  test("test_draft_offer_keeps_the_notice_when_restore_or_discard_fails", async () => {
    const { offer, parts, said } = page(DRAFT, async () => Promise.reject(new Error("the blocks could not be turned into text")));
    await offer.lookFor("as saved");
    button("Restore draft").click();
    await settled();
    parts.drafts.forget.mockRejectedValueOnce(new ApiError(500, { detail: "the server answered 500" }));
    button("Discard draft").click();
    await settled();
    expect(said).toEqual([
      ["Not restored: the blocks could not be turned into text", "bad"],
      ["Not discarded: the server answered 500", "bad"],
    ]);
    expect(offer.notice?.isConnected).toBe(true);
    expect(parts.autosaver.resume).not.toHaveBeenCalled();
  });
});
