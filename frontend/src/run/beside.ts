// Run beside the editor, put together from its parts: with JavaScript, the item form's Run starts
// the run without leaving the page (start.ts) and opens its live log in a panel beside the editor
// (beside-panel.ts). What runs is what the form sends: the text on screen (the mode switch has
// turned blocks into text before this listener sees the submit, and the text editor fills the
// textarea when the form's data is read). Without JavaScript Run posts the form and the execution
// page opens.

import type { EditorView } from "@codemirror/view";
import type { Api } from "../api/http";
import { statusLine } from "../ui/status";
import { PanelBeside } from "./beside-panel";
import "./run.css";
import { RunStart, runOnSubmit } from "./start";

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
  const { form, fieldset, container, client } = options;
  const runButton = fieldset.querySelector<HTMLButtonElement>("button[name=run]");
  if (!runButton) return null;
  const { element: status, say } = statusLine("otter-run-status");
  runButton.insertAdjacentElement("afterend", status);

  const beside = new PanelBeside({ container, client, connect: options.connect, resized: options.resized, closed: () => runButton.focus() });
  const start = new RunStart({ client, form, fieldset, say, view: options.view, saved: options.saved, started: (answer) => beside.open(answer) });
  runOnSubmit(form, runButton, (submitter) => void start.run(submitter));

  return {
    close: () => beside.close(),
    get panel() {
      return beside.panel;
    },
  };
}
