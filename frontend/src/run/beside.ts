// Run beside the editor: with JavaScript, the item form's Run starts the run without leaving the
// page (run/client.ts) and opens its live log in a panel beside the editor (below it on narrow
// screens), drawn by the log viewer the execution page uses. What runs is what the form sends:
// the text on screen (the mode switch has turned blocks into text before this listener sees
// the submit, and the text editor fills the textarea when the form's data is read). A refused
// run shows why in the Run fieldset (beside the field it names) and marks a script's problems
// in the editor (refusal.ts). Without JavaScript Run posts the form and the execution page opens.

import type { EditorView } from "@codemirror/view";
import { type Api, ApiError } from "../api/http";
import { toDom } from "../drafts/view";
import { type LogWatch, showStatus, watchLog } from "../logs/viewer";
import { markDiagnostics, wherePhrase } from "../text/problems";
import { statusLine } from "../ui/status";
import { describeRunError, type RunAnswer, RunRefused, startRun } from "./client";
import { runPanel, TITLE_ID } from "./panel";
import { clearRefusal, showRefusal } from "./refusal";
import "./run.css";

export interface RunBesideOptions {
  form: HTMLFormElement;
  /** The Run fieldset: its Run button, its fields, where refusals are shown. */
  fieldset: HTMLElement;
  /** Holds the editor; the panel is put in it, beside (or below) the editor. */
  container: HTMLElement;
  /** The page's API client. */
  client: Api;
  /** The text editor, to mark the problems of a script that does not parse. */
  view?: EditorView | null;
  /** A run saved the text as `version` (the drafts start from it, the page shows it). */
  saved?(version: number, content: string): void;
  /** The editor's width changed (the block editor redraws). */
  resized?(): void;
  connect?: (url: string) => WebSocket;
}

export interface RunBeside {
  close(): void;
  readonly panel: HTMLElement | null;
}

export function mountRunBeside(options: RunBesideOptions): RunBeside | null {
  const { form, fieldset, container } = options;
  const runButton = fieldset.querySelector<HTMLButtonElement>("button[name=run]");
  if (!runButton) return null;
  const { element: status, say } = statusLine("otter-run-status");
  runButton.insertAdjacentElement("afterend", status);

  let starting = false;
  let panel: HTMLElement | null = null;
  let watch: LogWatch | null = null;

  // after the mode switch (on the document, capturing) and before the drafts' listener, which
  // sees the submit handled and knows the page stays
  form.addEventListener(
    "submit",
    (event) => {
      const submitter = (event as SubmitEvent).submitter;
      if (!(submitter instanceof HTMLButtonElement) || submitter !== runButton) return;
      event.preventDefault();
      void run(submitter);
    },
    { capture: true },
  );

  async function run(submitter: HTMLButtonElement): Promise<void> {
    if (starting) return;
    starting = true;
    fieldset.setAttribute("aria-busy", "true");
    say("Starting the run…");
    const data = new FormData(form, submitter); // the text editor fills the textarea first
    const content = String(data.get("content") ?? "");
    try {
      const answer = await startRun(options.client, form.action || location.href, data);
      clearRefusal(fieldset);
      say("");
      if (answer.saved) options.saved?.(answer.version, content);
      open(answer);
    } catch (error) {
      if (error instanceof RunRefused) showRefusal(fieldset, error);
      say(`Not run: ${error instanceof RunRefused ? refusal(error) : describeRunError(error)}`, "bad");
    } finally {
      starting = false;
      fieldset.removeAttribute("aria-busy");
    }
  }

  function refusal(refused: RunRefused): string {
    const first = options.view ? markDiagnostics(options.view, refused.diagnostics) : undefined;
    return first ? wherePhrase(first) : refused.messages[0];
  }

  // ---- the panel

  function open(answer: RunAnswer): void {
    stopWatching();
    panel?.remove();
    const execution = answer.execution;
    const made = toDom(runPanel(answer, { close, cancel: () => void cancel(answer) }));
    panel = made;
    container.append(made);
    container.classList.add("has-run-panel");
    options.resized?.();

    const state = made.querySelector<HTMLElement>("[data-run-state]");
    const badge = made.querySelector<HTMLElement>("[data-run-status]");
    const log = made.querySelector<HTMLElement>(".otter-run-log")!;
    // the compact viewer follows the tail unless the user scrolled up to read
    watch = watchLog({
      root: log,
      client: options.client,
      execution: execution.id,
      compact: true,
      connect: options.connect,
      onStatus: (view) => showStatus(view, state, badge),
      onComplete: () => {
        const cancelButton = made.querySelector<HTMLElement>("[data-run-cancel]");
        if (cancelButton) {
          const focused = document.activeElement === cancelButton;
          cancelButton.remove();
          if (focused) heading()?.focus();
        }
        if (execution.mode !== "execute") note("What it found is on the execution page.");
      },
      onRefused: (reason) => note(reason, "bad"),
    });
    heading()?.focus();
  }

  const heading = () => panel?.querySelector<HTMLElement>(`#${TITLE_ID}`) ?? null;

  function note(text: string, tone = ""): void {
    const element = panel?.querySelector<HTMLElement>(".otter-run-note");
    if (!element) return;
    element.textContent = text;
    element.dataset.tone = tone;
  }

  async function cancel(answer: RunAnswer): Promise<void> {
    const button = panel?.querySelector<HTMLElement>("[data-run-cancel]");
    const url = answer.execution.cancel_url;
    if (!button || !url || button.getAttribute("aria-disabled") === "true") return;
    button.setAttribute("aria-disabled", "true"); // stays focusable, unlike disabled
    button.textContent = "Stopping…";
    try {
      await options.client.post(url, {});
      note("Asked the worker to stop the run.");
    } catch (error) {
      button.removeAttribute("aria-disabled");
      button.textContent = "Cancel";
      note(`Not cancelled: ${error instanceof ApiError ? error.message : describeRunError(error)}`, "bad");
    }
  }

  function stopWatching(): void {
    watch?.close();
    watch = null;
  }

  function close(): void {
    stopWatching();
    panel?.remove();
    panel = null;
    container.classList.remove("has-run-panel");
    options.resized?.();
    runButton?.focus();
  }

  return {
    close,
    get panel() {
      return panel;
    },
  };
}
