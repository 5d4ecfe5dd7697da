// @vitest-environment jsdom
import { beforeEach, describe, expect, test, vi } from "vitest";
import { api, ApiError, type Fetch } from "../api/http";
import { mountTargetPreviews, previewSentence, targetQuery, WAIT_MS } from "./preview";

beforeEach(() => {
  document.body.innerHTML = `
    <form data-target-preview="/targets/preview/">
      <select name="servers" multiple><option value="web1">web1</option><option value="web2">web2</option></select>
      <select name="roles" multiple><option value="db">db</option></select>
      <input name="environments" value="" disabled>
      <input name="note" value="">
      <p data-target-preview-output>As the template says.</p>
    </form>
    <form data-target-preview=""><p data-target-preview-output></p></form>`;
});

const output = () => document.querySelector<HTMLElement>("[data-target-preview-output]")!;
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("targetQuery and previewSentence", () => {
  test("test_target_query_names_the_chosen_targets_only", () => {
    const data = new FormData();
    data.append("servers", "web1");
    data.append("servers", "");
    data.append("roles", "db");
    data.append("note", "x");
    expect(targetQuery(data)).toBe("servers=web1&roles=db");
  });

  test("test_preview_sentence_says_where_or_why_not", () => {
    expect(previewSentence({ summary: "Runs on 1 server: web1", count: 1 })).toEqual(["Runs on 1 server: web1", ""]);
    expect(previewSentence({ summary: "Choose servers or roles.", count: 0 })).toEqual(["Choose servers or roles.", "warning"]);
    expect(previewSentence(new ApiError(400, { detail: "No role named nope." }))).toEqual(["No role named nope.", "error"]);
    expect(previewSentence(new ApiError(502, {}))).toEqual(["Could not tell where the run goes (HTTP 502).", "error"]);
    expect(previewSentence(new TypeError("Failed to fetch"))[0]).toBe("Could not tell where the run goes: the server did not answer.");
  });
});

describe("mountTargetPreviews", () => {
  test("test_target_preview_says_where_the_run_goes_at_once_and_after_each_change", async () => {
    const fetcher = vi.fn<Fetch>(async (url) =>
      Response.json(String(url).includes("web1") ? { summary: "Runs on 1 server: web1", count: 1 } : { summary: "Choose servers or roles to run on.", count: 0 }),
    );
    const made = mountTargetPreviews(api("", fetcher), document);
    expect(made).toHaveLength(1); // the form without a preview URL is left alone
    expect(output().getAttribute("role")).toBe("status");
    await settle();
    expect(fetcher.mock.calls[0][0]).toBe("/targets/preview/");
    expect(output().textContent).toBe("Choose servers or roles to run on.");
    expect(output().classList.contains("muted")).toBe(true);

    vi.useFakeTimers();
    try {
      const servers = document.querySelector<HTMLSelectElement>("select[name=servers]")!;
      servers.options[0].selected = true;
      servers.dispatchEvent(new Event("change", { bubbles: true }));
      servers.dispatchEvent(new Event("change", { bubbles: true })); // a burst asks once
      document.querySelector<HTMLInputElement>("input[name=note]")!.dispatchEvent(new Event("input", { bubbles: true }));
      await vi.advanceTimersByTimeAsync(WAIT_MS);
    } finally {
      vi.useRealTimers();
    }
    await settle();
    expect(fetcher.mock.calls.map((call) => call[0])).toEqual(["/targets/preview/", "/targets/preview/?servers=web1"]);
    expect(output().textContent).toBe("Runs on 1 server: web1");
    expect(output().classList.contains("muted")).toBe(false);
  });

  test("test_target_preview_shows_the_servers_refusal_and_asks_again_after_silence", async () => {
    const fetcher = vi.fn<Fetch>(async () => {
      throw new TypeError("Failed to fetch");
    });
    const [preview] = mountTargetPreviews(api("", fetcher), document);
    await settle();
    expect(output().textContent).toBe("Could not tell where the run goes: the server did not answer.");
    expect(output().classList.contains("errors")).toBe(true);
    fetcher.mockResolvedValue(Response.json({ detail: "No server named web9.", code: "invalid" }, { status: 400 }));
    await preview.preview(); // the same targets are asked for again after silence
    expect(output().textContent).toBe("No server named web9.");
    await preview.preview(); // but not after an answer
    expect(fetcher).toHaveBeenCalledTimes(2);
  });

  test("test_target_preview_a_newer_question_replaces_the_one_under_way", async () => {
    const signals: AbortSignal[] = [];
    const fetcher = vi.fn<Fetch>(
      (_url, init) =>
        new Promise((resolve, reject) => {
          signals.push(init!.signal!);
          init!.signal!.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
          if (signals.length > 1) resolve(Response.json({ summary: "Runs on 1 server: web2", count: 1 }));
        }),
    );
    const [preview] = mountTargetPreviews(api("", fetcher), document);
    document.querySelector<HTMLSelectElement>("select[name=servers]")!.options[1].selected = true;
    await preview.preview();
    await settle();
    expect(signals.map((signal) => signal.aborted)).toEqual([true, false]);
    expect(output().textContent).toBe("Runs on 1 server: web2");
  });
});
