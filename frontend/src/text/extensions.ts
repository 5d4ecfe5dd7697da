// The editor's CodeMirror extensions: the common set (line numbers, history, folding, brackets,
// search, the keymaps, the theme), and by language: OtterScript's grammar with the server's lint,
// completion, hover docs and Shift+Alt+F, the shell's legacy mode, or nothing for plain text.

import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap } from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { bracketMatching, foldGutter, foldKeymap, indentOnInput, indentUnit, StreamLanguage, syntaxHighlighting } from "@codemirror/language";
import { shell } from "@codemirror/legacy-modes/mode/shell";
import { lintGutter, lintKeymap } from "@codemirror/lint";
import { highlightSelectionMatches, searchKeymap } from "@codemirror/search";
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
import type { ScriptNames } from "../api/names";
import type { Reference } from "../api/reference";
import type { ScriptsClient } from "../api/scripts";
import { otterscriptCompletions } from "./completion";
import { cursorBlink } from "./cursor";
import { otterscriptHover } from "./hover";
import { otterscript } from "./language";
import { type LintReport, serverLint } from "./lint";
import { otterHighlight, otterTheme } from "./theme";

export type EditorLanguage = "otterscript" | "shell" | "plain";

export interface OtterScriptParts {
  scripts: ScriptsClient;
  /** The reference once it has arrived (null before). */
  reference(): Reference | null;
  /** The raft's names for completion (null when there are none). */
  names(): Promise<ScriptNames | null>;
  report(summary: LintReport): void;
  format(): void;
}

/** OtterScript's extensions. */
export function otterscriptExtensions(parts: OtterScriptParts): Extension[] {
  return [
    otterscript(),
    serverLint(parts.scripts, parts.report),
    lintGutter(),
    autocompletion({ override: [otterscriptCompletions(parts.reference, parts.names)], icons: true }),
    otterscriptHover(parts.reference),
    keymap.of([{ key: "Shift-Alt-f", run: () => (parts.format(), true), preventDefault: true }]),
  ];
}

/** The extensions of `language` (OtterScript's made by `otterScript`). */
export function languageExtensions(language: EditorLanguage, otterScript: () => Extension[]): Extension[] {
  if (language === "otterscript") return otterScript();
  return language === "shell" ? [StreamLanguage.define(shell)] : [];
}

/** Every editor's extensions, then `language`'s; `content` names the editor's text for assistive
 * technology. */
export function editorExtensions(language: Extension[], readOnly: boolean, content: Record<string, string>): Extension[] {
  return [
    lineNumbers(),
    highlightActiveLineGutter(),
    highlightSpecialChars(),
    history(),
    foldGutter(),
    drawSelection({ cursorBlinkRate: 0 }), // it blinks by cursorBlink (cursor.ts)
    cursorBlink,
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
    EditorView.contentAttributes.of(content),
    language,
  ];
}
