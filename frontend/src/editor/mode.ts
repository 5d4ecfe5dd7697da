// One script, two modes: the item's OtterScript in blocks (visual) or as text, switched through
// the server only (text → POST /api/scripts/blocks/ → workspace; workspace → /unblocks/ →
// text). Text that does not parse stays text, its errors marked. A workspace nobody changed
// gives back the exact text it came from. The script opens in the mode its header names
// (##AH:UseTextMode / ##AH:UseVisualMode), else visual; saving in the other mode writes that
// mode's header. Save and Run always post the text: from the blocks, converted first. The block
// editor (and Blockly, in a chunk of its own) is loaded the first time the visual mode opens.

import type { EditorView } from "@codemirror/view";
import { api } from "../api/http";
import type { ReferenceClient } from "../api/reference";
import { ScriptProblem } from "../api/scripts";
import { BlocksClient, describeProblem } from "../blocks/client";
import { type EditorMode, openingMode, withMode } from "../blocks/header";
import type { BlockEditor } from "../blocks/workspace";
import { minimalChange } from "../text/editor";
import "./mode.css";
import { statusLine } from "../ui/status";

export interface ModeOptions {
  csrfToken: string;
  blocksUrl: string;
  unblocksUrl: string;
  checkUrl: string;
  formatUrl: string;
  reference: ReferenceClient;
  fallback: EditorMode;
}

export interface Modes {
  readonly mode: EditorMode;
  show(mode: EditorMode): Promise<boolean>;
  /** The script's text to save, from whichever mode shows (blocks converted by the server),
   * with the header of the mode the user chose when it differs from the script's. */
  text(): Promise<string>;
  /** The text editor's text (as it was when the blocks were shown). */
  shownText(): string;
  blocks(): BlockEditor | null;
}

/** The mode switch over the text editor `view` of `textarea` (the form's field). */
export function mountModes(textarea: HTMLTextAreaElement, view: EditorView, options: ModeOptions): Modes {
  const client = api(options.csrfToken);
  const converter = new BlocksClient(client, { blocks: options.blocksUrl, unblocks: options.unblocksUrl });
  const readOnly = textarea.readOnly;
  const textEditor = view.dom.closest<HTMLElement>(".otter-editor") ?? view.dom;

  const bar = document.createElement("div");
  bar.className = "otter-modes";
  const group = document.createElement("div");
  group.className = "otter-modes-switch";
  group.setAttribute("role", "group");
  group.setAttribute("aria-label", "Edit the script as");
  const { element: status, say } = statusLine("otter-modes-status");
  const switches: Record<EditorMode, HTMLButtonElement> = {
    visual: modeButton("Blocks", "visual", "Edit the script as blocks (visual mode)"),
    text: modeButton("Text", "text", "Edit the script as OtterScript text"),
  };
  group.append(switches.visual, switches.text);
  bar.append(group, status);
  textEditor.insertAdjacentElement("beforebegin", bar);
  const blocksHost = document.createElement("div");
  blocksHost.className = "otter-blocks otter-mode-hidden";
  textEditor.insertAdjacentElement("afterend", blocksHost);

  let mode: EditorMode = "text";
  let editor: BlockEditor | null = null;
  let loadingEditor: Promise<BlockEditor> | null = null;
  let loadedFrom = ""; // the text the blocks on screen were made from
  let busy = false;
  let chosen = false; // the user picked a mode: saving writes its header

  function modeButton(label: string, value: EditorMode, title: string): HTMLButtonElement {
    const made = document.createElement("button");
    made.type = "button";
    made.textContent = label;
    made.title = title;
    made.dataset.mode = value;
    made.setAttribute("aria-pressed", "false");
    made.addEventListener("click", () => {
      chosen = true;
      void show(value);
    });
    return made;
  }

  const current = () => view.state.doc.toString();
  const setText = (text: string) => {
    const before = current();
    if (before !== text) view.dispatch({ changes: minimalChange(before, text), userEvent: "input.mode" });
  };

  const blockEditor = () =>
    (loadingEditor ??= import("../blocks/workspace").then(({ mountBlockEditor }) =>
      mountBlockEditor(blocksHost, {
        client,
        reference: options.reference,
        checkUrl: options.checkUrl,
        formatUrl: options.formatUrl,
        blocksUrl: options.blocksUrl,
        unblocksUrl: options.unblocksUrl,
        readOnly,
        say,
      }),
    ).catch((error: unknown) => {
      loadingEditor = null;
      throw error;
    }));

  function showing(next: EditorMode): void {
    mode = next;
    textEditor.classList.toggle("otter-mode-hidden", next !== "text");
    blocksHost.classList.toggle("otter-mode-hidden", next !== "visual");
    for (const [value, made] of Object.entries(switches)) made.setAttribute("aria-pressed", String(value === next));
    textarea.form?.setAttribute("data-editor-mode", next);
    if (next === "visual") editor?.resize();
  }

  /** The text of the blocks on screen: the text they came from when nobody changed them. */
  async function blocksText(): Promise<string> {
    if (!editor) return current();
    return editor.changed ? converter.toText(editor.save()) : loadedFrom;
  }

  async function show(next: EditorMode): Promise<boolean> {
    if (next === mode || busy) return next === mode;
    busy = true;
    try {
      if (next === "visual") {
        const text = current();
        if (editor && text === loadedFrom && !editor.changed) {
          showing("visual"); // the blocks on screen are still this text
          say(readOnly ? "Read only" : "");
          return true;
        }
        say("Opening as blocks…");
        void import("../blocks/workspace"); // Blockly's chunks arrive while the server converts
        let workspace;
        try {
          workspace = await converter.toBlocks(text);
        } catch (error) {
          pointAt(error);
          say(`Stays as text: ${describeProblem(error)}. Fix the errors marked in the text to see it as blocks.`, "bad");
          return false;
        }
        showing("visual"); // Blockly measures its place when it starts
        try {
          editor = await blockEditor();
        } catch (error) {
          console.error("the block editor did not start", error);
          showing("text");
          say("Could not load the block editor.", "bad");
          return false;
        }
        editor.resize();
        editor.load(workspace);
        loadedFrom = text;
        say(readOnly ? "Read only" : "");
      } else {
        say("Converting to text…");
        let text: string;
        try {
          text = await blocksText();
        } catch (error) {
          say(`Stays as blocks: ${describeProblem(error)}`, "bad");
          return false;
        }
        setText(text);
        showing("text");
        say("");
      }
      return true;
    } finally {
      busy = false;
    }
  }

  /** The cursor on the first error of text that does not parse (it is marked by the lint). */
  function pointAt(error: unknown): void {
    if (!(error instanceof ScriptProblem)) return;
    const first = error.diagnostics.find((d) => d.severity === "error");
    if (!first || first.line > view.state.doc.lines) return;
    const line = view.state.doc.line(first.line);
    view.dispatch({ selection: { anchor: Math.min(line.from + first.column - 1, line.to) }, scrollIntoView: true });
  }

  /** The text to save: the mode's header written when the user chose the other mode. */
  async function textToSave(): Promise<string> {
    const text = mode === "visual" ? await blocksText() : current();
    return !chosen || openingMode(text, options.fallback) === mode ? text : withMode(text, mode);
  }

  // Save and Run post the text of the mode on screen, with the header of that mode when the
  // script asked for the other one (before the text editor copies its text to the textarea)
  let passing = false;
  const form = textarea.form;
  document.addEventListener(
    "submit",
    (event) => {
      if (event.target !== form || !form || passing || readOnly) return;
      const submitter = (event as SubmitEvent).submitter;
      if (mode === "text") {
        if (chosen && openingMode(current(), options.fallback) !== mode) setText(withMode(current(), mode));
        return;
      }
      event.preventDefault();
      event.stopImmediatePropagation();
      say("Converting the blocks to text…");
      textToSave().then(
        (text) => {
          setText(text);
          if (editor && !editor.changed) loadedFrom = text; // the blocks are still this text
          // in a task of its own: text of unchanged blocks is known at once, and this callback
          // then runs while the browser is still dispatching the first submit event, when it
          // ignores another (Chromium's requestSubmit returns without a word)
          setTimeout(() => {
            passing = true;
            try {
              form.requestSubmit(submitter instanceof HTMLButtonElement ? submitter : null);
            } finally {
              passing = false;
            }
          });
        },
        (error: unknown) => say(`Not sent: ${describeProblem(error)}`, "bad"),
      );
    },
    { capture: true },
  );

  showing("text");
  const opening = openingMode(current(), options.fallback);
  if (opening === "visual") void show("visual");

  return {
    get mode() {
      return mode;
    },
    show,
    text: textToSave,
    shownText: current,
    blocks: () => editor,
  };
}
