// @vitest-environment jsdom
import { beforeEach, describe, expect, test, vi } from "vitest";
import type { WorkspaceJson } from "../blocks/client";
import { LocalBlocksStore, offerLocalBlocks } from "./local";

const BLOCKS: WorkspaceJson = { blocks: { languageVersion: 0, blocks: [{ type: "otter_log", id: "b1" }] }, otterscript: { headers: [] } };
const KEY = "otterweb:blocks:/rafts/ops/deploy/";

beforeEach(() => {
  localStorage.clear();
  document.body.innerHTML = "<div id=field></div>";
});

function offered() {
  const store = new LocalBlocksStore(KEY, localStorage);
  store.keep(BLOCKS, new Date(2025, 4, 12, 12, 4));
  const said: [string, string | undefined][] = [];
  const shown: WorkspaceJson[] = [];
  const parts = {
    store,
    text: { showBlocks: vi.fn(async (workspace: WorkspaceJson) => void shown.push(workspace)) },
    field: document.getElementById("field")!,
    say: (text: string, tone?: string) => void said.push([text, tone]),
    focus: vi.fn(),
  };
  const notice = offerLocalBlocks(store.read()!, parts);
  return { store, said, shown, notice, button: (name: string) => [...notice.querySelectorAll("button")].find((b) => b.textContent === name)! };
}

describe("blocks kept in this browser", () => {
  test("test_local_blocks_are_offered_back_and_restored_as_blocks", async () => {
    const { notice, button, shown, said, store } = offered();
    expect(notice.textContent).toContain("You have unsaved blocks in this browser");
    expect(notice.nextElementSibling?.id).toBe("field");
    button("Restore the blocks").click();
    await vi.waitFor(() => expect(shown).toEqual([BLOCKS]));
    expect(notice.isConnected).toBe(false);
    expect(said.at(-1)?.[1]).toBe("ok");
    expect(store.read()).not.toBeNull(); // kept until they make a script
  });

  test("test_local_blocks_discarded_are_forgotten", () => {
    const { button, notice, store } = offered();
    button("Discard them").click();
    expect(notice.isConnected).toBe(false);
    expect(store.read()).toBeNull();
  });

  test("test_local_blocks_store_forgets_what_is_not_its_own", () => {
    localStorage.setItem(KEY, "{not json");
    const store = new LocalBlocksStore(KEY, localStorage);
    expect(store.read()).toBeNull();
    expect(localStorage.getItem(KEY)).toBeNull();
    expect(new LocalBlocksStore(KEY, null).keep(BLOCKS, new Date())).toBe(false);
  });
});
