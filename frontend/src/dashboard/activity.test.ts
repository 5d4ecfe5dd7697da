// @vitest-environment jsdom
import { beforeEach, describe, expect, test, vi } from "vitest";
import { api, type Fetch } from "../api/http";
import { type Activity, type ActivityRow, ActivityView, mountActivity } from "./activity";

const row = (id: number, extra: Partial<ActivityRow> = {}): ActivityRow => ({
  id,
  name: "deploy web",
  url: `/executions/${id}/`,
  outcome: "executing",
  outcome_label: "Executing",
  started_label: "2 minutes ago",
  duration: "2 min",
  by: "ops",
  ...extra,
});

const activity = (extra: Partial<Activity> = {}): Activity => ({
  running: [row(7)],
  recent: [],
  failed: 0,
  failed_url: "/executions/?status=error",
  ...extra,
});

beforeEach(() => {
  document.body.innerHTML = `
    <div class="card" data-failed-card><a href="/old/" data-failed-link><span data-failed-count>0</span></a></div>
    <div class="panels" data-activity="/executions/activity/">
      <div data-rows="running" data-when="started" data-empty="Nothing runs now."><p class="empty">Nothing runs now.</p></div>
      <div data-rows="recent" data-when="duration" data-empty="Nothing ran yet."><p class="empty">Nothing ran yet.</p></div>
    </div>
    <p data-activity-note hidden></p>`;
});

const panels = () => document.querySelector<HTMLElement>("[data-activity]")!;
const panel = (key: string) => document.querySelector<HTMLElement>(`[data-rows=${key}]`)!;

describe("ActivityView", () => {
  test("test_activity_draws_the_rows_as_the_server_does", () => {
    new ActivityView(panels(), document).show(activity({ recent: [row(5, { outcome: "error", outcome_label: "Error", by: null })] }));
    const running = panel("running");
    expect([...running.querySelectorAll("th")].map((th) => th.textContent)).toEqual(["Execution", "Outcome", "Started", "By"]);
    const cells = [...running.querySelectorAll<HTMLElement>("tbody td")];
    expect(cells.map((td) => td.dataset.label)).toEqual(["Execution", "Outcome", "Started", "By"]);
    expect(cells.map((td) => td.textContent)).toEqual(["deploy web #7", "Executing", "2 minutes ago", "ops"]);
    expect(running.querySelector("a")!.getAttribute("href")).toBe("/executions/7/");
    expect(running.querySelector(".badge")!.className).toBe("badge executing");
    const recent = [...panel("recent").querySelectorAll("tbody td")].map((td) => td.textContent);
    expect(recent).toEqual(["deploy web #5", "Error", "2 min", "—"]);
  });

  test("test_activity_an_empty_panel_says_so_and_the_failed_card_follows", () => {
    const view = new ActivityView(panels(), document);
    view.show(activity({ running: [], failed: 2, failed_url: "/executions/?status=error&since=x" }));
    expect(panel("running").innerHTML).toBe('<p class="empty">Nothing runs now.</p>');
    expect(document.querySelector("[data-failed-count]")!.textContent).toBe("2");
    expect(document.querySelector("[data-failed-link]")!.getAttribute("href")).toBe("/executions/?status=error&since=x");
    expect(document.querySelector("[data-failed-card]")!.classList.contains("alert")).toBe(true);
    view.show(activity({ failed: 0 }));
    expect(document.querySelector("[data-failed-card]")!.classList.contains("alert")).toBe(false);
  });

  test("test_activity_redraws_only_what_changed_and_never_under_the_focus", () => {
    const view = new ActivityView(panels(), document);
    view.show(activity());
    const table = panel("running").querySelector("table");
    view.show(activity());
    expect(panel("running").querySelector("table")).toBe(table); // the same rows: not redrawn
    panel("running").querySelector("a")!.focus();
    view.show(activity({ running: [row(8)] }));
    expect(panel("running").textContent).toContain("#7"); // the keyboard is there: later
    (document.activeElement as HTMLElement).blur();
    view.show(activity({ running: [row(8)] }));
    expect(panel("running").textContent).toContain("#8");
  });
});

describe("mountActivity", () => {
  test("test_activity_asks_the_api_and_stops_with_a_note_when_the_session_ended", async () => {
    vi.useFakeTimers();
    try {
      const fetcher = vi.fn<Fetch>(async () => Response.json(activity({ running: [row(9)] })));
      const poller = mountActivity(api("", fetcher), document)!;
      await vi.advanceTimersByTimeAsync(5000);
      expect(fetcher.mock.calls[0][0]).toBe("/executions/activity/");
      expect(panel("running").textContent).toContain("#9");
      fetcher.mockResolvedValue(Response.json({ detail: "Log in first." }, { status: 403 }));
      await vi.advanceTimersByTimeAsync(5000);
      expect(poller.stopped).toBe(true);
      const note = document.querySelector<HTMLElement>("[data-activity-note]")!;
      expect([note.hidden, note.textContent]).toEqual([false, "Live updates stopped: log in again, then reload the page."]);
    } finally {
      vi.useRealTimers();
    }
  });

  test("test_activity_is_not_asked_for_without_its_panels", () => {
    document.body.innerHTML = "<main></main>"; // a user who may not see executions
    expect(mountActivity(api("", vi.fn()), document)).toBeNull();
  });
});
