// @vitest-environment jsdom
import { beforeEach, describe, expect, test, vi } from "vitest";
import type { WatchOptions } from "../logs/viewer";
import { fakeApi } from "../test/api";
import { RUN_ANSWER } from "../test/run-answer";
import { PanelBeside } from "./beside-panel";

let watched: WatchOptions[] = [];
let closed = 0;

beforeEach(() => {
  document.body.innerHTML = `<div data-run-beside><div class="otter-editor"></div></div>`;
  watched = [];
  closed = 0;
});

function page() {
  const parts = {
    container: document.querySelector<HTMLElement>("[data-run-beside]")!,
    client: fakeApi(() => ({})),
    resized: vi.fn(),
    closed: vi.fn(),
    watch: (options: WatchOptions) => {
      watched.push(options);
      return { close: () => void closed++, done: false };
    },
    confirm: () => true,
  };
  return { parts, beside: new PanelBeside(parts) };
}

describe("the run's panel beside the editor", () => {
  test("test_beside_panel_opens_with_the_live_log_and_its_heading_focused", () => {
    const { beside, parts } = page();
    beside.open(RUN_ANSWER);
    expect(parts.container.classList.contains("has-run-panel")).toBe(true);
    expect(parts.container.lastElementChild).toBe(beside.panel);
    expect(document.activeElement?.id).toBe("otter-run-title");
    expect(parts.resized).toHaveBeenCalledOnce();
    const [watch] = watched;
    expect([watch.execution, watch.compact, watch.root.className]).toEqual([12, true, "log otter-run-log"]);
    watch.onStatus!({ state: "Running", runState: "executing", label: "Running", outcome: "running" } as never);
    expect(beside.panel!.querySelector("[data-run-status]")!.className).toBe("badge running");
  });

  test("test_beside_panel_a_finished_run_loses_cancel_and_gives_its_focus_to_the_heading", () => {
    const { beside } = page();
    beside.open({ ...RUN_ANSWER, execution: { ...RUN_ANSWER.execution, mode: "collect" } });
    beside.panel!.querySelector<HTMLElement>("[data-run-cancel]")!.focus();
    watched[0].onComplete!();
    expect(beside.panel!.querySelector("[data-run-cancel]")).toBeNull();
    expect(document.activeElement?.id).toBe("otter-run-title");
    expect(beside.panel!.querySelector(".otter-run-note")!.textContent).toBe("What it found is on the execution page.");
    watched[0].onRefused!("You may not see this log.");
    expect(beside.panel!.querySelector<HTMLElement>(".otter-run-note")!.dataset.tone).toBe("bad");
  });

  test("test_beside_panel_a_new_run_replaces_the_last_and_close_stops_watching", () => {
    const { beside, parts } = page();
    beside.open(RUN_ANSWER);
    beside.open({ ...RUN_ANSWER, execution: { ...RUN_ANSWER.execution, id: 13 } });
    expect(parts.container.querySelectorAll(".otter-run")).toHaveLength(1);
    expect(closed).toBe(1);
    beside.panel!.querySelector<HTMLButtonElement>(".otter-run-close")!.click();
    expect([beside.panel, closed, parts.container.classList.contains("has-run-panel")]).toEqual([null, 2, false]);
    expect(parts.closed).toHaveBeenCalledOnce();
    expect(parts.resized).toHaveBeenCalledTimes(3);
  });

  test("test_beside_panel_cancel_asks_the_runs_cancel_action", async () => {
    const { beside, parts } = page();
    beside.open(RUN_ANSWER);
    beside.panel!.querySelector<HTMLButtonElement>("[data-run-cancel]")!.click();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(parts.client.calls).toEqual([{ method: "POST", url: "/api/executions/12/cancel/", body: {} }]);
    expect(beside.panel!.querySelector(".otter-run-note")!.textContent).toBe("Asked the worker to stop the run.");
  });
});
