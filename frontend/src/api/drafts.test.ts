import { describe, expect, test, vi } from "vitest";
import { CommitRefused, Conflict, DraftsClient } from "./drafts";
import { api, ApiError, type Fetch } from "./http";

const urls = { draft: "/api/raft-items/7/draft/", commit: "/api/raft-items/7/commit/", diff: "/api/raft-items/7/diff/" };

function answering(status: number, body?: unknown) {
  return vi.fn<Fetch>(async () => new Response(body === undefined ? null : JSON.stringify(body), { status }));
}

describe("DraftsClient", () => {
  test("test_drafts_client_gives_no_draft_for_a_404", async () => {
    const fetcher = answering(404, { detail: "You have no draft of ops::deploy.", code: "not_found" });
    expect(await new DraftsClient(api("t", fetcher), urls).draft()).toBeNull();
    expect(fetcher.mock.calls[0][0]).toBe(urls.draft);
  });

  test("test_drafts_client_keeps_and_forgets_the_draft_with_the_csrf_token", async () => {
    const fetcher = answering(200, { content: "x", base_version: 3 });
    const client = new DraftsClient(api("csrf-1", fetcher), urls);
    await client.keep("x", 3);
    const [url, init] = fetcher.mock.calls[0];
    expect([url, init?.method]).toEqual([urls.draft, "PUT"]);
    expect(JSON.parse(String(init?.body))).toEqual({ content: "x", base_version: 3 });
    expect(init?.headers).toMatchObject({ "X-CSRFToken": "csrf-1", "Content-Type": "application/json" });
    fetcher.mockResolvedValueOnce(new Response(null, { status: 204 }));
    await client.forget();
    expect(fetcher.mock.calls[1][1]?.method).toBe("DELETE");
  });

  test("test_drafts_client_passes_a_too_large_draft_refusal_on", async () => {
    const fetcher = answering(400, { detail: "The script is larger than 1 MiB.", code: "invalid" });
    await expect(new DraftsClient(api("t", fetcher), urls).keep("x", 1)).rejects.toMatchObject({
      status: 400,
      message: "The script is larger than 1 MiB.",
    });
  });

  test("test_drafts_client_commit_from_a_stale_base_is_a_conflict", async () => {
    const body = {
      code: "conflict", detail: "newer", base_version: 1, diff: "d", diff_to_submitted: "e",
      latest: { number: 2, author: "alice", created: "2025-05-12T12:04:00Z", message: "m", content: "c" },
    };
    const fetcher = answering(409, body);
    const failure = new DraftsClient(api("t", fetcher), urls).commit("mine", "why", 1);
    await expect(failure).rejects.toBeInstanceOf(Conflict);
    await expect(failure).rejects.toMatchObject({ body });
    expect(JSON.parse(String(fetcher.mock.calls[0][1]?.body))).toEqual({ content: "mine", message: "why", base_version: 1 });
  });

  test("test_drafts_client_commit_of_a_script_that_does_not_parse_gives_its_diagnostics", async () => {
    const diagnostic = { line: 1, column: 1, end_line: 1, end_column: 2, severity: "error", message: "bad", code: "syntax" };
    const fetcher = answering(400, { detail: "the script does not parse", code: "script", diagnostics: [diagnostic] });
    const failure = new DraftsClient(api("t", fetcher), urls).commit("(", "", 1, "text");
    await expect(failure).rejects.toBeInstanceOf(CommitRefused);
    await expect(failure).rejects.toMatchObject({ diagnostics: [diagnostic] });
    expect(JSON.parse(String(fetcher.mock.calls[0][1]?.body)).mode).toBe("text");
  });

  test("test_drafts_client_commit_passes_other_refusals_on", async () => {
    const fetcher = answering(403, { detail: "You may not change raft items.", code: "permission_denied" });
    await expect(new DraftsClient(api("t", fetcher), urls).commit("x", "", 1)).rejects.toBeInstanceOf(ApiError);
  });

  test("test_drafts_client_diffs_versions_and_the_text_on_screen", async () => {
    const fetcher = answering(200, { from: 1, to: 2, diff: "" });
    const client = new DraftsClient(api("t", fetcher), urls);
    await client.versions(1, 2);
    expect(fetcher.mock.calls[0][0]).toBe(`${urls.diff}?from=1&to=2`);
    await client.versions();
    expect(fetcher.mock.calls[1][0]).toBe(urls.diff);
    await client.toText("text");
    expect(fetcher.mock.calls[2][1]?.method).toBe("POST");
    expect(JSON.parse(String(fetcher.mock.calls[2][1]?.body))).toEqual({ content: "text" });
  });
});
