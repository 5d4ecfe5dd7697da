// The run's panel beside the editor (below it on narrow screens): the panel of panel.ts put in
// the editor's container, its heading focused, its live log drawn by the log viewer the execution
// page uses (compact: it follows the tail unless the user scrolled up to read), Cancel while the
// run goes on (cancel.ts), and Close, which stops watching (the run goes on) and gives the focus
// back. One panel at a time: a new run's replaces the last.

import type { Api } from "../api/http";
import { toDom } from "../drafts/view";
import { type LogWatch, showStatus, watchLog, type WatchOptions } from "../logs/viewer";
import type { Tone } from "../ui/status";
import { cancelRun } from "./cancel";
import type { RunAnswer } from "./client";
import { runPanel, TITLE_ID } from "./panel";

export interface BesideParts {
  /** Holds the editor; the panel is put in it. */
  container: HTMLElement;
  client: Api;
  /** The editor's width changed (the block editor redraws). */
  resized?(): void;
  /** Where the focus goes when the panel closes (Run). */
  closed?(): void;
  connect?: (url: string) => WebSocket;
  /** Draws the log (the log viewer's `watchLog`). */
  watch?: (options: WatchOptions) => LogWatch;
  /** Asks the user a yes-or-no question (the browser's `confirm`). */
  confirm?: (question: string) => boolean;
}

export class PanelBeside {
  /** The panel, while it shows. */
  panel: HTMLElement | null = null;
  private watch: LogWatch | null = null;

  constructor(private readonly parts: BesideParts) {}

  /** Shows the run `answer` started, in place of the last one. */
  open(answer: RunAnswer): void {
    const { parts } = this;
    this.stopWatching();
    this.panel?.remove();
    const execution = answer.execution;
    const made = toDom(runPanel(answer, { close: () => this.close(), cancel: () => void this.cancel(answer) }));
    this.panel = made;
    parts.container.append(made);
    parts.container.classList.add("has-run-panel");
    parts.resized?.();

    const state = made.querySelector<HTMLElement>("[data-run-state]");
    const badge = made.querySelector<HTMLElement>("[data-run-status]");
    this.watch = (parts.watch ?? watchLog)({
      root: made.querySelector<HTMLElement>(".otter-run-log")!,
      client: parts.client,
      execution: execution.id,
      compact: true,
      connect: parts.connect,
      onStatus: (view) => showStatus(view, state, badge),
      onComplete: () => {
        const cancelButton = made.querySelector<HTMLElement>("[data-run-cancel]");
        if (cancelButton) {
          const focused = made.ownerDocument.activeElement === cancelButton;
          cancelButton.remove();
          if (focused) this.heading()?.focus();
        }
        if (execution.mode !== "execute") this.note("What it found is on the execution page.");
      },
      onRefused: (reason) => this.note(reason, "bad"),
    });
    this.heading()?.focus();
  }

  close(): void {
    this.stopWatching();
    this.panel?.remove();
    this.panel = null;
    this.parts.container.classList.remove("has-run-panel");
    this.parts.resized?.();
    this.parts.closed?.();
  }

  /** Says `text` in the panel's note. */
  note(text: string, tone: Tone = ""): void {
    const element = this.panel?.querySelector<HTMLElement>(".otter-run-note");
    if (!element) return;
    element.textContent = text;
    element.dataset.tone = tone;
  }

  private heading(): HTMLElement | null {
    return this.panel?.querySelector<HTMLElement>(`#${TITLE_ID}`) ?? null;
  }

  private cancel(answer: RunAnswer): Promise<void> {
    const button = this.panel?.querySelector<HTMLElement>("[data-run-cancel]") ?? null;
    return cancelRun(this.parts.client, answer.execution.cancel_url, button, (text, tone) => this.note(text, tone), this.parts.confirm);
  }

  private stopWatching(): void {
    this.watch?.close();
    this.watch = null;
  }
}
