// The server's diagnostics of a script it refused (a save, a run) marked in the text editor as
// the lint marks them, and the first error said in a sentence.

import { setDiagnostics } from "@codemirror/lint";
import type { EditorView } from "@codemirror/view";
import type { ServerDiagnostic } from "../api/scripts";
import { toCodeMirror } from "./lint";

/** Marks `diagnostics` in `view`; the first error (else the first diagnostic). */
export function markDiagnostics(view: EditorView, diagnostics: readonly ServerDiagnostic[]): ServerDiagnostic | undefined {
  const doc = view.state.doc;
  view.dispatch(setDiagnostics(view.state, diagnostics.map((d) => toCodeMirror(doc, d))));
  return diagnostics.find((d) => d.severity === "error") ?? diagnostics[0];
}

/** "line 3, column 8: expected …" */
export function wherePhrase(diagnostic: ServerDiagnostic): string {
  return `line ${diagnostic.line}, column ${diagnostic.column}: ${diagnostic.message}`;
}
