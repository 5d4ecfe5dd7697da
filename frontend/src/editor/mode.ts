// One script, two modes: the item's OtterScript in blocks (visual) or as text, switched through
// the server only (text → POST /api/scripts/blocks/ → workspace; workspace → /unblocks/ →
// text). Text that does not parse stays text, its errors marked. A workspace nobody changed
// gives back the exact text it came from. The script opens in the mode its header names
// (##AH:UseTextMode / ##AH:UseVisualMode), else visual; saving in the other mode writes that
// mode's header. Save and Run always post the text: from the blocks, converted first. The block
// editor (and Blockly, in a chunk of its own) is loaded the first time the visual mode opens.
// Here the parts are put together: the bar (bar.ts), the switch's state (switcher.ts) and the
// conversion before a submit (submit.ts).

import type { EditorView } from "@codemirror/view";
import type { Api } from "../api/http";
import type { ReferenceClient } from "../api/reference";
import { ScriptProblem, type ScriptsClient } from "../api/scripts";
import { BlocksClient, type WorkspaceJson } from "../blocks/client";
import { type EditorMode, openingMode } from "../blocks/header";
import type { BlockEditor } from "../blocks/workspace";
import { minimalChange } from "../text/change";
import { modeBar } from "./bar";
import "./mode.css";
import { convertOnSubmit } from "./submit";
import { ModeSwitcher } from "./switcher";

/** Asks the server for the blocks of `textarea`'s script when it opens as blocks, before the
 * page's editors are made, and starts loading the block editor's code: both arrive sooner. The
 * answer goes to mountModes (`early`). */
export function openEarly(textarea: HTMLTextAreaElement, options: Pick<ModeOptions, "client" | "blocksUrl" | "unblocksUrl" | "fallback">): ModeOptions["early"] {
  const text = textarea.value;
  if (openingMode(text, options.fallback) !== "visual") return undefined;
  void import("../blocks/workspace");
  const workspace = new BlocksClient(options.client, { blocks: options.blocksUrl, unblocks: options.unblocksUrl }).toBlocks(text);
  workspace.catch(() => {}); // a refusal is said when the blocks are shown
  return { text, workspace };
}

export interface ModeOptions {
  /** The page's API client. */
  client: Api;
  blocksUrl: string;
  unblocksUrl: string;
  /** The script endpoints (the text editor's). */
  scripts: ScriptsClient;
  reference: ReferenceClient;
  fallback: EditorMode;
  /** The blocks asked for early (openEarly). */
  early?: { text: string; workspace: Promise<WorkspaceJson> };
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
  const { client } = options;
  const converter = new BlocksClient(client, { blocks: options.blocksUrl, unblocks: options.unblocksUrl });
  const readOnly = textarea.readOnly;
  const textEditor = view.dom.closest<HTMLElement>(".otter-editor") ?? view.dom;

  const bar = modeBar(document, (mode) => void switcher.choose(mode));
  textEditor.insertAdjacentElement("beforebegin", bar.bar);
  const blocksHost = document.createElement("div");
  blocksHost.className = "otter-blocks otter-mode-shelved";
  textEditor.insertAdjacentElement("afterend", blocksHost);

  const current = () => view.state.doc.toString();
  let loadingEditor: Promise<BlockEditor> | null = null;
  const switcher: ModeSwitcher = new ModeSwitcher({
    current,
    setText(text) {
      const before = current();
      if (before !== text) view.dispatch({ changes: minimalChange(before, text), userEvent: "input.mode" });
    },
    pointAt: (error) => pointAt(view, error),
    converter,
    blockEditor: () =>
      (loadingEditor ??= import("../blocks/workspace")
        .then(({ mountBlockEditor }) =>
          mountBlockEditor(blocksHost, {
            converter,
            scripts: options.scripts,
            reference: options.reference,
            readOnly,
            say: bar.say,
          }),
        )
        .catch((error: unknown) => {
          loadingEditor = null;
          throw error;
        })),
    preload: () => void import("../blocks/workspace"),
    early: options.early,
    display(mode) {
      textEditor.classList.toggle("otter-mode-hidden", mode !== "text");
      blocksHost.classList.toggle("otter-mode-shelved", mode !== "visual");
      bar.press(mode);
      textarea.form?.setAttribute("data-editor-mode", mode);
      if (mode === "visual") switcher.editor?.resize();
    },
    say: bar.say,
    readOnly,
    fallback: options.fallback,
  });

  if (textarea.form && !readOnly) convertOnSubmit(textarea.form, switcher, bar.say);
  switcher.showing("text");
  if (switcher.opening === "visual") void switcher.show("visual");

  return {
    get mode() {
      return switcher.mode;
    },
    show: (mode) => switcher.show(mode),
    text: () => switcher.textToSave(),
    shownText: current,
    blocks: () => switcher.editor as BlockEditor | null,
  };
}

/** The cursor on the first error of text that does not parse (it is marked by the lint). */
function pointAt(view: EditorView, error: unknown): void {
  if (!(error instanceof ScriptProblem)) return;
  const first = error.diagnostics.find((d) => d.severity === "error");
  if (!first || first.line > view.state.doc.lines) return;
  const line = view.state.doc.line(first.line);
  view.dispatch({ selection: { anchor: Math.min(line.from + first.column - 1, line.to) }, scrollIntoView: true });
}
