// The dashboard's live executions: the running and recently ended tables and the failed count,
// from GET /executions/activity/ (ExecutionActivityView) every few seconds. The server formats
// every value (execution_row), so a redrawn row says what a server-rendered one says.

import type { Api } from "../api/http";
import { Poller, showNote } from "../live/poll";

export const EVERY_MS = 5000;

/** One execution as execution_row gives it (the fields the dashboard shows). */
export interface ActivityRow {
  id: number;
  name: string;
  url: string;
  outcome: string;
  outcome_label: string;
  started_label?: string | null;
  duration?: string | null;
  by?: string | null;
}

export interface Activity {
  running: ActivityRow[];
  recent: ActivityRow[];
  failed: number;
  failed_url: string;
  [panel: string]: unknown;
}

/** What the last column of a panel shows: when the execution started, or how long it ran. */
export type When = "started" | "duration";

function cell(document: Document, label: string, content: string | globalThis.Node): HTMLTableCellElement {
  const td = document.createElement("td");
  td.dataset.label = label;
  td.append(content);
  return td;
}

export function activityRow(document: Document, data: ActivityRow, when: When): HTMLTableRowElement {
  const tr = document.createElement("tr");
  const link = document.createElement("a");
  link.href = data.url;
  const number = document.createElement("span");
  number.className = "muted";
  number.textContent = `#${data.id}`;
  link.append(`${data.name} `, number);
  const badge = document.createElement("span");
  badge.className = `badge ${data.outcome}`;
  badge.textContent = data.outcome_label;
  tr.append(cell(document, "Execution", link), cell(document, "Outcome", badge));
  if (when === "started") tr.append(cell(document, "Started", data.started_label || "not yet"));
  else tr.append(cell(document, "Duration", data.duration ?? ""));
  tr.append(cell(document, "By", data.by || "—"));
  return tr;
}

/** The table of `rows`, as home.html draws it. */
export function activityTable(document: Document, rows: ActivityRow[], when: When): HTMLDivElement {
  const wrap = document.createElement("div");
  wrap.className = "table-wrap";
  const grid = document.createElement("table");
  grid.className = "grid stack";
  const head = grid.createTHead().insertRow();
  for (const title of ["Execution", "Outcome", when === "started" ? "Started" : "Duration", "By"]) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = title;
    head.append(th);
  }
  const body = grid.createTBody();
  for (const data of rows) body.append(activityRow(document, data, when));
  wrap.append(grid);
  return wrap;
}

/** Draws the answer in the dashboard under `panels` ([data-activity]): each [data-rows] panel
 * that changed (never one holding the keyboard's focus: it waits for the next answer), and the
 * failed card. */
export class ActivityView {
  private readonly drawn = new Map<Element, string>(); // panel → the JSON of the rows it shows

  constructor(
    private readonly panels: HTMLElement,
    private readonly document: Document = panels.ownerDocument,
  ) {}

  show(data: Activity): void {
    for (const container of this.panels.querySelectorAll<HTMLElement>("[data-rows]")) {
      const rows = data[container.dataset.rows ?? ""];
      if (!Array.isArray(rows)) continue;
      const text = JSON.stringify(rows);
      if (this.drawn.get(container) === text || container.contains(this.document.activeElement)) continue;
      this.drawn.set(container, text);
      this.draw(container, rows as ActivityRow[]);
    }
    const count = this.document.querySelector("[data-failed-count]");
    if (count) {
      count.textContent = String(data.failed);
      this.document.querySelector<HTMLAnchorElement>("[data-failed-link]")?.setAttribute("href", data.failed_url);
      this.document.querySelector("[data-failed-card]")?.classList.toggle("alert", data.failed > 0);
    }
  }

  private draw(container: HTMLElement, rows: ActivityRow[]): void {
    const when: When = container.dataset.when === "started" ? "started" : "duration";
    if (rows.length) {
      container.replaceChildren(activityTable(this.document, rows, when));
    } else {
      const empty = this.document.createElement("p");
      empty.className = "empty";
      empty.textContent = container.dataset.empty ?? "";
      container.replaceChildren(empty);
    }
  }
}

/** The dashboard's poll, when the page has its panels (users who may see executions). */
export function mountActivity(client: Api, document: Document = globalThis.document): Poller | null {
  const panels = document.querySelector<HTMLElement>("[data-activity]");
  const url = panels?.dataset.activity;
  if (!panels || !url) return null;
  const view = new ActivityView(panels, document);
  return new Poller({
    tick: async () => view.show(await client.get<Activity>(url)),
    every: () => EVERY_MS,
    stopped: (reason) => showNote(document.querySelector("[data-activity-note]"), reason),
    document,
  }).start();
}
