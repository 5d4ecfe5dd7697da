// @vitest-environment jsdom
import { beforeEach, expect, test, vi } from "vitest";
import { saveOnSubmit } from "./save";

let commit = vi.fn();
let leaving = vi.fn();

beforeEach(() => {
  document.body.innerHTML = `
    <form><fieldset data-run><button name="run">Run</button></fieldset>
    <div data-drafts><button name="save">Save</button></div></form>`;
  commit = vi.fn();
  leaving = vi.fn();
  const form = document.querySelector("form")!;
  saveOnSubmit(form, document.querySelector<HTMLElement>("[data-drafts]")!, commit, leaving);
  document.addEventListener("submit", (event) => event.preventDefault()); // jsdom does not navigate
});

const submit = (name: string) => document.querySelector("form")!.requestSubmit(document.querySelector<HTMLButtonElement>(`button[name=${name}]`));

test("test_save_commits_on_the_page", () => {
  let prevented: boolean | null = null;
  document.querySelector("form")!.addEventListener("submit", (event) => void (prevented = event.defaultPrevented));
  submit("save");
  expect([commit.mock.calls.length, leaving.mock.calls.length, prevented]).toEqual([1, 0, true]);
});

test("test_save_another_submit_leaves_the_page", () => {
  submit("run");
  expect([commit.mock.calls.length, leaving.mock.calls.length]).toEqual([0, 1]);
});

test("test_save_a_submit_handled_on_the_page_is_left_alone", () => {
  const form = document.querySelector("form")!;
  form.addEventListener("submit", (event) => event.preventDefault(), { capture: true });
  submit("run");
  submit("save");
  expect([commit.mock.calls.length, leaving.mock.calls.length]).toEqual([0, 0]);
});
