// A page kept up to date by asking the server again every so often: the dashboard's executions
// and the executions list. One request at a time; none while the tab is hidden (it asks again
// as soon as the tab shows); a dropped connection or a restarting server is tried again at the
// next tick; a 403 (the session ended) stops it with a sentence for the page.
//
// Why a poll and not the executions' websockets (/ws/executions/<id>/): those pages show many
// executions, and new ones must appear. A websocket per row would send each running execution's
// whole log (the socket has no status-only form) and would still not say that a new execution
// started or that one failed; one small JSON request every few seconds says all of it. The pages
// that show one live execution (the execution page, the run panel beside the editor) follow it
// over its websocket (logs/connection.ts).

import { ApiError } from "../api/http";

export const SESSION_ENDED = "Live updates stopped: log in again, then reload the page.";

export interface PollOptions {
  /** One round: ask and show. Its ApiError 403 stops the poll; any other error waits a tick. */
  tick(): Promise<void>;
  /** Milliseconds until the next round, asked after each one. */
  every(): number;
  /** The poll stopped for good (a 403): why, for the page. */
  stopped(reason: string): void;
  document?: Pick<Document, "hidden" | "addEventListener">;
  timers?: { set(run: () => void, ms: number): unknown; clear(timer: unknown): void };
}

const realTimers = {
  set: (run: () => void, ms: number): unknown => setTimeout(run, ms),
  clear: (timer: unknown) => clearTimeout(timer as ReturnType<typeof setTimeout>),
};

export class Poller {
  private timer: unknown = null;
  private busy = false;
  private done = false;
  private readonly document: Pick<Document, "hidden" | "addEventListener">;
  private readonly timers: NonNullable<PollOptions["timers"]>;

  constructor(private readonly options: PollOptions) {
    this.document = options.document ?? globalThis.document;
    this.timers = options.timers ?? realTimers;
  }

  /** The first round comes after `every()` (the page was drawn with the data of now). */
  start(): this {
    this.document.addEventListener("visibilitychange", () => {
      if (!this.document.hidden && this.timer === null && !this.busy && !this.done) void this.poll();
    });
    this.schedule();
    return this;
  }

  get stopped(): boolean {
    return this.done;
  }

  /** One round now (the timer's, or the tab showing again). */
  async poll(): Promise<void> {
    this.timer = null;
    if (this.busy || this.done || this.document.hidden) return; // a hidden tab resumes when shown
    this.busy = true;
    try {
      await this.options.tick();
    } catch (error) {
      if (error instanceof ApiError && error.status === 403) {
        this.done = true;
        this.options.stopped(SESSION_ENDED);
      }
      // otherwise the server restarts or the network dropped: again at the next tick
    } finally {
      this.busy = false;
    }
    if (!this.done) this.schedule();
  }

  private schedule(): void {
    if (this.timer !== null) this.timers.clear(this.timer);
    this.timer = this.timers.set(() => void this.poll(), this.options.every());
  }
}

/** Shows `reason` in the page's note (a hidden paragraph until then). */
export function showNote(note: HTMLElement | null, reason: string): void {
  if (!note) return;
  note.textContent = reason;
  note.hidden = false;
}
