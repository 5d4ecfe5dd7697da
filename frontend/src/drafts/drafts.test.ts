// @vitest-environment jsdom
import { beforeEach, expect, test } from "vitest";
import { ApiError } from "../api/http";
import { type Call, fakeApi } from "../test/api";
import { editorOf } from "../test/editor";
import { mountDrafts } from "./drafts";

beforeEach(() => {
  document.body.innerHTML = `
    <form><div id="field"><textarea name="content"></textarea></div>
    <div data-drafts><input name="message" value="why"><button name="save">Save</button></div></form>`;
  document.addEventListener("submit", (event) => event.preventDefault()); // jsdom does not navigate
});

function mount(answer: (call: Call) => unknown, hasDraft = false) {
  const client = fakeApi(answer);
  const actions = document.querySelector<HTMLElement>("[data-drafts]")!;
  const drafts = mountDrafts(actions, {
    client,
    urls: { draft: "/draft/", commit: "/commit/", diff: "/diff/" },
    baseVersion: 3,
    view: editorOf("Log-Information a;"),
    textarea: document.querySelector("textarea")!,
    field: document.getElementById("field")!,
    hasDraft,
    delay: 10_000,
  });
  return { client, actions, drafts };
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 0));
const save = () => document.querySelector("form")!.requestSubmit(document.querySelector<HTMLButtonElement>("button[name=save]"));

test("test_drafts_are_put_together_around_the_save_row", async () => {
  const { actions, drafts, client } = mount((call) => (call.url === "/commit/" ? { id: 1, version: 4, content: "Log-Information a;", mode: "text" } : {}));
  expect(actions.previousElementSibling?.className).toBe("otter-drafts-panels");
  expect(Array.from(actions.children).map((child) => child.className || child.textContent)).toEqual([
    "", "Save", "Changes since the newest version", "otter-commit-status", "otter-draft-saved",
  ]);
  save();
  await settled();
  expect(client.calls.at(-1)).toEqual({ method: "POST", url: "/commit/", body: { content: "Log-Information a;", message: "why", base_version: 3 } });
  expect(actions.querySelector(".otter-commit-status")!.textContent).toBe("Saved as version 4.");
  expect(drafts.baseVersion).toBe(4);
  expect(actions.querySelector("input")!.value).toBe("");
});

test("test_drafts_a_conflict_opens_its_panel_and_an_earlier_draft_is_offered", async () => {
  const latest = { number: 5, author: "ana", created: "", message: "", content: "theirs" };
  const { client } = mount((call) => {
    if (call.url === "/draft/") return { content: "mine", base_version: 3, saved: "", latest_version: 3, moved_on: false, mode: "text" };
    throw new ApiError(409, { code: "conflict", detail: "newer", base_version: 3, latest, diff: "", diff_to_submitted: "" } as never);
  }, true);
  await settled();
  expect(document.querySelector(".otter-draft-notice")?.nextElementSibling?.id).toBe("field");
  save();
  await settled();
  expect(client.calls.map((call) => `${call.method} ${call.url}`)).toEqual(["GET /draft/", "POST /commit/"]);
  expect(document.querySelector(".otter-drafts-panels .otter-conflict")).toBeTruthy();
  expect(document.querySelector(".otter-draft-notice")).toBeTruthy(); // still offered
});

test("test_drafts_a_run_that_saved_moves_the_base_on", () => {
  const { drafts } = mount(() => ({}));
  drafts.saved(7, "Log-Information a;");
  expect(drafts.baseVersion).toBe(7);
  expect(drafts.autosaver.baseline).toBe("Log-Information a;");
  expect(document.querySelector("input")!.value).toBe("");
});
