// Run's submit on the item page: the form's data (Run's name, the text on screen, the targets,
// the mode) posted to the form's address (the item's `-/run/`) without leaving the page
// (client.ts), one start at a time and one a burst of clicks, the fieldset busy meanwhile. A run that saved the text says so; a refused run shows why in the Run
// fieldset (refusal.ts) and marks a script's problems in the editor.

import type { EditorView } from "@codemirror/view";
import type { Api } from "../api/http";
import { markDiagnostics, wherePhrase } from "../text/problems";
import type { Tone } from "../ui/status";
import { describeRunError, type RunAnswer, RunRefused, startRun } from "./client";
import { clearRefusal, showRefusal } from "./refusal";

export interface StartParts {
  client: Api;
  form: HTMLFormElement;
  /** The Run fieldset: where refusals are shown, busy while a run starts. */
  fieldset: HTMLElement;
  say(text: string, tone?: Tone): void;
  /** The text editor, to mark the problems of a script that does not parse. */
  view?: EditorView | null;
  /** The run saved the text as `version`. */
  saved?(version: number, content: string): void;
  /** The run started. */
  started(answer: RunAnswer): void;
}

/** Clicks on Run this soon after a run started are the same burst: they start nothing more. */
export const BURST_MS = 1500;

export class RunStart {
  private starting = false;
  private startedAt = -Infinity;

  constructor(
    private readonly parts: StartParts,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Starts the run `submitter` (the Run button) asks for: one a burst of clicks. */
  async run(submitter: HTMLButtonElement): Promise<void> {
    const { parts } = this;
    if (this.starting || this.now() - this.startedAt < BURST_MS) return;
    this.starting = true;
    parts.fieldset.setAttribute("aria-busy", "true");
    parts.say("Starting the run…");
    const data = new FormData(parts.form, submitter); // the text editor fills the textarea first
    const content = String(data.get("content") ?? "");
    try {
      const answer = await startRun(parts.client, parts.form.action || location.href, data);
      clearRefusal(parts.fieldset);
      parts.say("");
      if (answer.saved) parts.saved?.(answer.version, content);
      this.startedAt = this.now();
      parts.started(answer);
    } catch (error) {
      if (error instanceof RunRefused) showRefusal(parts.fieldset, error);
      parts.say(`Not run: ${error instanceof RunRefused ? this.refusal(error) : describeRunError(error)}`, "bad");
    } finally {
      this.starting = false;
      parts.fieldset.removeAttribute("aria-busy");
    }
  }

  private refusal(refused: RunRefused): string {
    const first = this.parts.view ? markDiagnostics(this.parts.view, refused.diagnostics) : undefined;
    return first ? wherePhrase(first) : refused.messages[0];
  }
}

/** Run's submit of `form` handled on the page: after the mode switch (on the document,
 * capturing) and before the drafts' listener, which sees the submit handled and knows the page
 * stays. */
export function runOnSubmit(form: HTMLFormElement, runButton: HTMLButtonElement, run: (submitter: HTMLButtonElement) => void): void {
  form.addEventListener(
    "submit",
    (event) => {
      const submitter = (event as SubmitEvent).submitter;
      if (!(submitter instanceof HTMLButtonElement) || submitter !== runButton) return;
      event.preventDefault();
      run(submitter);
    },
    { capture: true },
  );
}
