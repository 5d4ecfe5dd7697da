// The executions list, live: while an execution on the page runs, its rows are asked for again
// every FAST_MS (state, duration so far, counts of lines, warnings and errors); otherwise every
// SLOW_MS, so that new executions show up. The server draws the rows with the page's own
// template (ExecutionListView answers {"html", "running"} to a JSON request), so a refreshed row
// says what a loaded one says. Why a poll and not the executions' websockets: live/poll.ts.

import type { Api } from "../api/http";
import { Poller, showNote } from "../live/poll";

export const FAST_MS = 2000;
export const SLOW_MS = 15000;

export interface ListAnswer {
  html: string;
  running: boolean;
}

/** The rows under `results` (#execution-results, its data-refresh the list's address with its
 * filters): redrawn when the answer changed, never under the keyboard's focus. */
export class ExecutionList {
  private drawn: string | null = null; // the HTML last drawn from an answer

  constructor(private readonly results: HTMLElement) {}

  /** Whether an execution on the page runs (the rows say so: data-running). */
  get running(): boolean {
    return this.results.querySelector("[data-running]") !== null;
  }

  show(answer: ListAnswer): void {
    if (answer.html === this.drawn || this.results.contains(this.results.ownerDocument.activeElement)) return;
    this.results.innerHTML = answer.html;
    this.drawn = answer.html;
  }
}

export function mountExecutionList(client: Api, document: Document = globalThis.document): Poller | null {
  const results = document.querySelector<HTMLElement>("[data-refresh]");
  const url = results?.dataset.refresh;
  if (!results || !url) return null;
  const list = new ExecutionList(results);
  return new Poller({
    tick: async () => list.show(await client.get<ListAnswer>(url)),
    every: () => (list.running ? FAST_MS : SLOW_MS),
    stopped: (reason) => showNote(document.querySelector("[data-refresh-note]"), reason),
    document,
  }).start();
}
