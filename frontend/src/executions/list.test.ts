// @vitest-environment jsdom
import { beforeEach, describe, expect, test, vi } from "vitest";
import { api, type Fetch } from "../api/http";
import { ExecutionList, FAST_MS, mountExecutionList, SLOW_MS } from "./list";

const RUNNING = '<table><tr data-execution="7" data-running><td><a href="/executions/7/">deploy #7</a></td><td>12 lines</td></tr></table>';
const ENDED = '<table><tr data-execution="7"><td><a href="/executions/7/">deploy #7</a></td><td>40 lines</td></tr></table>';

beforeEach(() => {
  document.body.innerHTML = `<div id="execution-results" data-refresh="/executions/?q=deploy">${RUNNING}</div><p data-refresh-note hidden></p>`;
});

const results = () => document.getElementById("execution-results")!;

describe("ExecutionList", () => {
  test("test_execution_list_redraws_changed_rows_but_not_under_the_focus", () => {
    const list = new ExecutionList(results());
    expect(list.running).toBe(true);
    results().querySelector("a")!.focus();
    list.show({ html: ENDED, running: false });
    expect(results().textContent).toContain("12 lines");
    (document.activeElement as HTMLElement).blur();
    list.show({ html: ENDED, running: false });
    expect(results().textContent).toContain("40 lines");
    expect(list.running).toBe(false);
  });
});

describe("mountExecutionList", () => {
  test("test_execution_list_asks_often_while_a_run_runs_then_seldom", async () => {
    vi.useFakeTimers();
    try {
      const fetcher = vi.fn<Fetch>(async () => Response.json({ html: ENDED, running: false }));
      mountExecutionList(api("", fetcher), document);
      await vi.advanceTimersByTimeAsync(FAST_MS);
      expect(fetcher).toHaveBeenCalledTimes(1);
      const [url, init] = fetcher.mock.calls[0];
      expect(url).toBe("/executions/?q=deploy"); // with the page's filters
      expect(init?.headers).toMatchObject({ Accept: "application/json" }); // the view answers JSON then
      expect(results().textContent).toContain("40 lines");
      await vi.advanceTimersByTimeAsync(FAST_MS);
      expect(fetcher).toHaveBeenCalledTimes(1); // nothing runs now
      await vi.advanceTimersByTimeAsync(SLOW_MS - FAST_MS);
      expect(fetcher).toHaveBeenCalledTimes(2);
    } finally {
      vi.useRealTimers();
    }
  });

  test("test_execution_list_stops_when_the_session_ended", async () => {
    vi.useFakeTimers();
    try {
      const fetcher = vi.fn<Fetch>(async () => new Response("<h1>Forbidden</h1>", { status: 403 }));
      mountExecutionList(api("", fetcher), document);
      await vi.advanceTimersByTimeAsync(FAST_MS + SLOW_MS);
      expect(fetcher).toHaveBeenCalledTimes(1);
      expect(document.querySelector<HTMLElement>("[data-refresh-note]")!.hidden).toBe(false);
      expect(results().textContent).toContain("12 lines");
    } finally {
      vi.useRealTimers();
    }
  });
});
