// @vitest-environment jsdom
import { beforeEach, describe, expect, test, vi } from "vitest";
import { ApiError } from "../api/http";
import { type Call, fakeApi } from "../test/api";
import { editorOf } from "../test/editor";
import { RUN_ANSWER } from "../test/run-answer";
import { BURST_MS, RunStart, runOnSubmit } from "./start";

beforeEach(() => {
  document.body.innerHTML = `
    <form action="/rafts/ops/deploy/"><textarea name="content">Log-Information a;</textarea>
      <fieldset data-run><legend>Run</legend><p id="run-help">help</p>
        <div class="field"><select name="servers"><option selected>web1</option></select></div>
        <button name="run">Run</button></fieldset>
      <button name="save">Save</button></form>`;
});

function page(answer: (call: Call) => unknown) {
  const client = fakeApi(answer);
  const said: [string, string | undefined][] = [];
  const parts = {
    client,
    form: document.querySelector("form")!,
    fieldset: document.querySelector<HTMLElement>("[data-run]")!,
    say: (text: string, tone?: string) => void said.push([text, tone]),
    saved: vi.fn(),
    started: vi.fn(),
    view: editorOf("Log-Information a;"),
  };
  return { client, said, parts, start: new RunStart(parts) };
}

const runButton = () => document.querySelector<HTMLButtonElement>("button[name=run]")!;

describe("starting a run", () => {
  test("test_start_posts_the_form_with_runs_name_and_opens_the_run", async () => {
    const { start, client, parts, said } = page(() => RUN_ANSWER);
    const running = start.run(runButton());
    expect(parts.fieldset.getAttribute("aria-busy")).toBe("true");
    await running;
    const [call] = client.calls;
    expect(call.url).toBe(new URL("/rafts/ops/deploy/", location.href).href);
    expect([...(call.body as FormData).entries()]).toEqual([["content", "Log-Information a;"], ["servers", "web1"], ["run", ""]]);
    expect(parts.saved).toHaveBeenCalledWith(3, "Log-Information a;");
    expect(parts.started).toHaveBeenCalledWith(RUN_ANSWER);
    expect(parts.fieldset.hasAttribute("aria-busy")).toBe(false);
    expect(said).toEqual([["Starting the run…", undefined], ["", undefined]]);
  });

  test("test_start_one_run_at_a_time", async () => {
    const { start, client } = page(() => ({ ...RUN_ANSWER, saved: false }));
    await Promise.all([start.run(runButton()), start.run(runButton())]);
    expect(client.calls).toHaveLength(1);
  });

  test("test_start_a_burst_of_clicks_starts_one_run", async () => {
    let clock = 0;
    const client = fakeApi(() => ({ ...RUN_ANSWER, saved: false }));
    const parts = { client, form: document.querySelector("form")!, fieldset: document.querySelector<HTMLElement>("[data-run]")!, say: () => {}, started: vi.fn() };
    const start = new RunStart(parts, () => clock);
    for (const at of [0, 200, 400, 1400]) {
      clock = at;
      await start.run(runButton());
    }
    expect(client.calls).toHaveLength(1);
    clock = 400 + BURST_MS; // a click well after the burst is a run of its own
    await start.run(runButton());
    expect(client.calls).toHaveLength(2);
  });

  test("test_start_refused_shows_why_in_the_fieldset", async () => {
    const { start, parts, said } = page(() => Promise.reject(new ApiError(400, { detail: "Not run", errors: { non_field_errors: ["Choose servers or roles to run on."] } })));
    await start.run(runButton());
    expect(parts.fieldset.querySelector(".errorlist")!.textContent).toBe("Choose servers or roles to run on.");
    expect(said.at(-1)).toEqual(["Not run: Choose servers or roles to run on.", "bad"]);
    expect(parts.started).not.toHaveBeenCalled();
  });

  test("test_start_refused_script_is_marked_in_the_editor", async () => {
    const diagnostics = [{ line: 1, column: 5, end_line: 1, end_column: 6, severity: "error", message: "expected ;", code: "syntax" }];
    const { start, said } = page(() => Promise.reject(new ApiError(400, { detail: "does not parse", errors: { content: ["does not parse"] }, diagnostics })));
    await start.run(runButton());
    expect(said.at(-1)).toEqual(["Not run: line 1, column 5: expected ;", "bad"]);
  });

  test("test_start_without_an_answer_says_so", async () => {
    const { start, said } = page(() => Promise.reject(new TypeError("Failed to fetch")));
    await start.run(runButton());
    expect(said.at(-1)).toEqual(["Not run: the server did not answer.", "bad"]);
  });
});

test("test_start_only_runs_submit_is_handled_on_the_page", () => {
  const form = document.querySelector("form")!;
  const run = vi.fn();
  runOnSubmit(form, runButton(), run);
  const seen: boolean[] = [];
  form.addEventListener("submit", (event) => {
    seen.push(event.defaultPrevented);
    event.preventDefault();
  });
  form.requestSubmit(runButton());
  form.requestSubmit(document.querySelector<HTMLButtonElement>("button[name=save]"));
  expect(run.mock.calls).toEqual([[runButton()]]);
  expect(seen).toEqual([true, false]);
});
