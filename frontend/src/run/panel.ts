// The panel of a run started from the item page, beside the editor: a region named by its
// heading (the execution, as its page names it), its outcome and state (the outcome a polite
// status), the link to its page, Cancel while it runs (for those who may), Close, and the log
// tree that logs/viewer.ts draws into `.otter-run-log`. Built as a description (drafts/view.ts),
// so it is tested without a DOM.

import { h, type Node } from "../drafts/view";
import { RUN_STATES } from "../logs/feed";
import type { RunAnswer } from "./client";

export const PANEL_ID = "otter-run";
export const TITLE_ID = "otter-run-title";

export interface PanelActions {
  close(): void;
  cancel(): void;
}

/** The panel of the run `run` answered. */
export function runPanel(run: RunAnswer, actions: PanelActions): Node {
  const execution = run.execution;
  const running = execution.run_state !== "completed";
  return h(
    "section",
    { class: "otter-run", id: PANEL_ID, "aria-labelledby": TITLE_ID, "data-execution": execution.id },
    h(
      "div",
      { class: "otter-run-head" },
      h("h2", { id: TITLE_ID, tabindex: -1 }, `Execution ${execution.id}: ${execution.name}`),
      h("button", { type: "button", class: "otter-run-close", title: "Close this log (the run goes on)", onClick: actions.close }, "Close"),
    ),
    h(
      "p",
      { class: "otter-run-state" },
      h("span", { class: `badge ${execution.outcome}`, "data-run-status": true, role: "status", "aria-live": "polite" }, execution.outcome_label),
      " ",
      h("span", { class: "visually-hidden" }, "State: "),
      h("span", { class: "muted", "data-run-state": execution.run_state }, RUN_STATES[execution.run_state] ?? execution.run_state),
      execution.mode !== "execute" || execution.simulate
        ? h("span", { class: "muted" }, ` · ${execution.mode_label}${execution.simulate ? ", simulated" : ""}`)
        : null,
    ),
    h("p", { class: "otter-run-said" }, run.message),
    h(
      "div",
      { class: "otter-run-actions" },
      h("a", { href: execution.url }, "Open the execution page"),
      running && execution.cancel_url
        ? h("button", { type: "button", class: "danger", "data-run-cancel": true, onClick: actions.cancel }, "Cancel")
        : null,
    ),
    h("p", { class: "otter-run-note", role: "status" }), // empty until there is something to say
    h("div", {
      class: "log otter-run-log",
      role: "region",
      "aria-label": `Log of execution ${execution.id}`,
      tabindex: 0, // it scrolls: keys scroll it too
    }),
  );
}

