import { describe, expect, test, vi } from "vitest";
import { api, ApiError } from "../api/http";
import { RUN_ANSWER as ANSWER } from "../test/run-answer";
import { describeRunError, RunRefused, startRun } from "./client";

function answering(status: number, body: unknown) {
  return vi.fn(async (_url: RequestInfo | URL, _init?: RequestInit) => new Response(typeof body === "string" ? body : JSON.stringify(body), { status }));
}

describe("startRun", () => {
  test("test_start_run_posts_the_form_asking_for_json_with_the_csrf_token", async () => {
    const fetcher = answering(201, ANSWER);
    const data = new FormData();
    data.append("run", "");
    data.append("servers", "web1");
    expect(await startRun(api("tok", fetcher), "/rafts/ops/deploy/", data)).toEqual(ANSWER);
    const [url, init] = fetcher.mock.calls[0];
    expect(url).toBe("/rafts/ops/deploy/");
    expect(init?.method).toBe("POST");
    expect(init?.body).toBe(data);
    expect(init?.headers).toEqual({ Accept: "application/json", "X-CSRFToken": "tok" }); // the browser sets the form's type
  });

  test("test_start_run_refused_gives_the_form_errors_first_then_the_fields", async () => {
    const body = {
      detail: "Choose servers or roles to run on.",
      code: "invalid",
      errors: { servers: ["Select a valid choice. nope is not one of the available choices."], non_field_errors: ["Choose servers or roles to run on."] },
    };
    const refused = await startRun(api("", answering(400, body)), "/x/", new FormData()).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RunRefused);
    expect((refused as RunRefused).messages).toEqual([
      "Choose servers or roles to run on.",
      "Select a valid choice. nope is not one of the available choices.",
    ]);
    expect((refused as RunRefused).diagnostics).toEqual([]);
    expect(describeRunError(refused)).toBe("Choose servers or roles to run on.");
  });

  test("test_start_run_of_a_script_that_does_not_parse_carries_its_diagnostics", async () => {
    const diagnostic = { line: 1, column: 8, end_line: 1, end_column: 9, severity: "error", message: "expected =", code: "syntax" };
    const body = { detail: "the script does not parse: line 1, column 8: expected =", code: "script", errors: { content: ["ops::deploy:1:8: error: expected ="] }, diagnostics: [diagnostic] };
    const refused = (await startRun(api("", answering(400, body)), "/x/", new FormData()).catch((error: unknown) => error)) as RunRefused;
    expect(refused.diagnostics).toEqual([diagnostic]);
    expect(refused.messages).toEqual(["ops::deploy:1:8: error: expected ="]);
  });

  test("test_start_run_other_refusals_and_silence_are_said_plainly", async () => {
    const forbidden = await startRun(api("", answering(403, { detail: "You may not run scripts." })), "/x/", new FormData()).catch((error: unknown) => error);
    expect(forbidden).toBeInstanceOf(ApiError);
    expect(describeRunError(forbidden)).toBe("You may not run scripts.");
    const html = await startRun(api("", answering(500, "<h1>oops</h1>")), "/x/", new FormData()).catch((error: unknown) => error);
    expect(describeRunError(html)).toBe("the server answered 500 with something other than JSON");
    expect(describeRunError(new TypeError("Failed to fetch"))).toBe("the server did not answer.");
  });
});
