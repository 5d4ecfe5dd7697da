// @vitest-environment jsdom
import { expect, test } from "vitest";
import { ApiError } from "../api/http";
import { fakeApi } from "../test/api";
import { CANCEL_QUESTION, cancelRun } from "./cancel";

function page(answer: () => unknown) {
  const button = document.createElement("button");
  button.textContent = "Cancel";
  const notes: [string, string | undefined][] = [];
  return { button, notes, client: fakeApi(answer), note: (text: string, tone?: string) => void notes.push([text, tone]) };
}

test("test_cancel_asks_once_and_says_so", async () => {
  const { button, notes, client, note } = page(() => ({}));
  const questions: string[] = [];
  const yes = (question: string) => questions.push(question) > 0;
  const asked = cancelRun(client, "/api/executions/12/cancel/", button, note, yes);
  expect([button.textContent, button.getAttribute("aria-disabled")]).toEqual(["Stopping…", "true"]);
  await cancelRun(client, "/api/executions/12/cancel/", button, note, yes); // a second click meanwhile
  await asked;
  expect(client.calls).toEqual([{ method: "POST", url: "/api/executions/12/cancel/", body: {} }]);
  expect(notes).toEqual([["Asked the worker to stop the run.", undefined]]);
  expect(questions).toEqual([CANCEL_QUESTION]);
});

test("test_cancel_answered_no_leaves_the_run_alone", async () => {
  const { button, notes, client, note } = page(() => ({}));
  await cancelRun(client, "/api/executions/12/cancel/", button, note, () => false);
  expect(client.calls).toEqual([]);
  expect([button.textContent, button.hasAttribute("aria-disabled"), notes]).toEqual(["Cancel", false, []]);
});

test("test_cancel_refused_gives_the_button_back", async () => {
  const { button, notes, client, note } = page(() => Promise.reject(new ApiError(403, { detail: "You may not cancel it." })));
  await cancelRun(client, "/cancel/", button, note, () => true);
  expect([button.textContent, button.hasAttribute("aria-disabled")]).toEqual(["Cancel", false]);
  expect(notes).toEqual([["Not cancelled: You may not cancel it.", "bad"]]);
});

test("test_cancel_without_its_button_or_action_does_nothing", async () => {
  const { button, client, note } = page(() => ({}));
  await cancelRun(client, null, button, note, () => true);
  await cancelRun(client, "/cancel/", null, note, () => true);
  expect(client.calls).toEqual([]);
});
