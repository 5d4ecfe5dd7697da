// The text editor of a raft item: CodeMirror over the page's textarea. The textarea stays the
// form's field (hidden, and given the text on screen whenever the form is sent), so Save and Run
// post what is on screen, and the page works as before without JavaScript.

import {
  autocompletion,
  closeBrackets,
  closeBracketsKeymap,
  completionKeymap,
} from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import {
  bracketMatching,
  foldGutter,
  foldKeymap,
  indentOnInput,
  indentUnit,
  StreamLanguage,
  syntaxHighlighting,
} from "@codemirror/language";
import { shell } from "@codemirror/legacy-modes/mode/shell";
import { lintGutter, lintKeymap } from "@codemirror/lint";
import { highlightSelectionMatches, openSearchPanel, searchKeymap } from "@codemirror/search";
import { EditorState, type Extension } from "@codemirror/state";
import {
  crosshairCursor,
  drawSelection,
  dropCursor,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
  rectangularSelection,
} from "@codemirror/view";
import type { Api } from "../api/http";
import { NamesClient } from "../api/names";
import { ReferenceClient } from "../api/reference";
import { ScriptProblem, ScriptsClient } from "../api/scripts";
import { otterscriptCompletions } from "./completion";
import { otterscriptHover } from "./hover";
import { otterscript } from "./language";
import { type LintReport, serverLint } from "./lint";
import { otterHighlight, otterTheme } from "./theme";
import { statusLine, toolbar } from "../ui/status";

export type EditorLanguage = "otterscript" | "shell" | "plain";

export interface EditorOptions {
  language: EditorLanguage;
  /** The page's API client. */
  client: Api;
  checkUrl: string;
  formatUrl: string;
  referenceUrl: string;
  /** GET /api/scripts/names/ and the item's raft: the names completion offers (none without) */
  namesUrl?: string;
  raft?: string;
}

/** The smallest change that turns `old` into `text`: the cursor outside it stays where it was. */
export function minimalChange(old: string, text: string) {
  let start = 0;
  while (start < old.length && start < text.length && old[start] === text[start]) start++;
  let end = 0;
  while (
    end < old.length - start &&
    end < text.length - start &&
    old[old.length - 1 - end] === text[text.length - 1 - end]
  )
    end++;
  return { from: start, to: old.length - end, insert: text.slice(start, text.length - end) };
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

function button(label: string, title: string, action: () => void): HTMLButtonElement {
  const made = document.createElement("button");
  made.type = "button"; // never submits the item's form
  made.textContent = label;
  made.title = title;
  made.addEventListener("click", action);
  return made;
}

export interface MountedEditor {
  view: EditorView;
  /** The reference of operations and functions (loaded once for the page). */
  reference: ReferenceClient;
  format(): Promise<void>;
}

/** CodeMirror in place of `textarea`, which stays the form's field. */
export function mountTextEditor(textarea: HTMLTextAreaElement, options: EditorOptions): MountedEditor {
  const { client } = options;
  const scripts = new ScriptsClient(client, { check: options.checkUrl, format: options.formatUrl });
  const reference = new ReferenceClient(client, options.referenceUrl);
  const names =
    options.namesUrl && options.raft ? new NamesClient(client, options.namesUrl, options.raft) : null;
  const isOtterScript = options.language === "otterscript";
  const readOnly = textarea.readOnly;

  const bar = toolbar("otter-editor-toolbar", "Text editor");
  const { element: status, say } = statusLine("otter-editor-status");
  const reportLint = ({ errors, warnings, failed }: LintReport) => {
    if (failed) say("Could not check the script: the server did not answer.", "warn");
    else if (errors) say(`${plural(errors, "error")}${warnings ? `, ${plural(warnings, "warning")}` : ""}`, "bad");
    else if (warnings) say(plural(warnings, "warning"), "warn");
    else say("No problems found", "ok");
  };

  let view: EditorView;
  const format = async () => {
    if (readOnly) return;
    const before = view.state.doc.toString();
    say("Formatting…");
    try {
      const formatted = await scripts.format(before);
      if (view.state.doc.toString() !== before) return say("Not formatted: the text changed meanwhile.", "warn");
      if (formatted === before) return say("Already formatted", "ok");
      view.dispatch({ changes: minimalChange(before, formatted), userEvent: "input.format", scrollIntoView: true });
      say("Formatted", "ok");
    } catch (error) {
      if (error instanceof ScriptProblem) {
        const first = error.diagnostics.find((d) => d.severity === "error") ?? error.diagnostics[0];
        say(
          first ? `Not formatted: line ${first.line}, column ${first.column}: ${first.message}` : "Not formatted: the script does not parse.",
          "bad",
        );
      } else say("Not formatted: the server did not answer.", "warn");
    }
  };

  // the reference once it has arrived; asking again after a failed load
  const currentReference = () => {
    if (!reference.current) reference.load().catch(() => {});
    return reference.current;
  };
  // the raft's names, asked for when completion first offers them; asked again after a failure
  const currentNames = () => names?.load().catch(() => null) ?? Promise.resolve(null);

  const language: Extension[] = isOtterScript
    ? [
        otterscript(),
        serverLint(scripts, reportLint),
        lintGutter(),
        autocompletion({ override: [otterscriptCompletions(currentReference, currentNames)], icons: true }),
        otterscriptHover(currentReference),
        keymap.of([{ key: "Shift-Alt-f", run: () => (void format(), true), preventDefault: true }]),
      ]
    : options.language === "shell"
      ? [StreamLanguage.define(shell)]
      : [];

  const extensions: Extension[] = [
    lineNumbers(),
    highlightActiveLineGutter(),
    highlightSpecialChars(),
    history(),
    foldGutter(),
    drawSelection(),
    dropCursor(),
    EditorState.allowMultipleSelections.of(true),
    EditorState.tabSize.of(4),
    indentUnit.of("    "),
    indentOnInput(),
    syntaxHighlighting(otterHighlight),
    bracketMatching(),
    closeBrackets(),
    rectangularSelection(),
    crosshairCursor(),
    highlightActiveLine(),
    highlightSelectionMatches(),
    keymap.of([
      ...closeBracketsKeymap,
      ...defaultKeymap,
      ...searchKeymap,
      ...historyKeymap,
      ...foldKeymap,
      ...completionKeymap,
      ...lintKeymap,
      indentWithTab,
    ]),
    otterTheme,
    EditorState.readOnly.of(readOnly),
    EditorView.contentAttributes.of(contentAttributes(textarea)),
    language,
  ];

  const wrapper = document.createElement("div");
  wrapper.className = "otter-editor";
  wrapper.dataset.language = options.language;
  textarea.insertAdjacentElement("afterend", wrapper);
  wrapper.append(bar);
  view = new EditorView({
    parent: wrapper,
    state: EditorState.create({ doc: textarea.value, extensions }),
  });
  textarea.hidden = true;

  if (isOtterScript && !readOnly)
    bar.append(button("Format", "Format the script (Shift+Alt+F)", () => void format()));
  bar.append(button("Find", "Find and replace (Ctrl+F)", () => openSearchPanel(view)));
  bar.append(status);
  if (isOtterScript) {
    say("Checking…");
    reference.load().catch(() => say("Could not load the reference of operations and functions.", "warn"));
  }

  // the form sends the textarea: give it the text on screen first
  const sync = () => {
    textarea.value = view.state.doc.toString();
  };
  textarea.form?.addEventListener("submit", sync, { capture: true });
  textarea.form?.addEventListener("formdata", sync, { capture: true });
  for (const label of document.querySelectorAll<HTMLLabelElement>(`label[for="${textarea.id}"]`))
    label.addEventListener("click", (event) => {
      event.preventDefault();
      view.focus();
    });
  return { view, format, reference };
}

/** The textarea's name for assistive technology, carried over to the editor's content. */
function contentAttributes(textarea: HTMLTextAreaElement): Record<string, string> {
  const attributes: Record<string, string> = { "aria-multiline": "true", spellcheck: "false" };
  const label = textarea.labels?.[0];
  if (label) {
    if (!label.id) label.id = `${textarea.id}-label`;
    attributes["aria-labelledby"] = label.id;
  }
  const described = textarea.getAttribute("aria-describedby");
  if (described) attributes["aria-describedby"] = described;
  if (textarea.getAttribute("aria-invalid")) attributes["aria-invalid"] = "true";
  if (textarea.readOnly) attributes["aria-readonly"] = "true";
  return attributes;
}
