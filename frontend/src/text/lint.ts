// The server's diagnostics in the editor: POST /api/scripts/check/ a moment after typing stops,
// each diagnostic drawn on its exact range with its severity, message and hint, and counted in
// the status line.

import type { Text } from "@codemirror/state";
import { type Diagnostic, forceLinting, linter } from "@codemirror/lint";
import type { EditorView } from "@codemirror/view";
import type { ScriptsClient, ServerDiagnostic } from "../api/scripts";
import type { Tone } from "../ui/status";

/** The UTF-16 offset of a 1-based `column` (counted in characters, as the server counts them)
 * on a 1-based `line`, kept inside the document. */
export function offsetOf(doc: Text, line: number, column: number): number {
  if (line < 1) return 0;
  if (line > doc.lines) return doc.length;
  const { from, to, text } = doc.line(line);
  let offset = 0;
  let characters = 1;
  for (; characters < column && offset < text.length; characters++) {
    const code = text.charCodeAt(offset);
    offset += code >= 0xd800 && code <= 0xdbff && offset + 1 < text.length ? 2 : 1;
  }
  // past the end of the line: its line break, which the server counts as a character
  return characters < column ? Math.min(to + 1, doc.length) : from + offset;
}

const SEVERITIES: Record<string, Diagnostic["severity"]> = {
  error: "error",
  warning: "warning",
  info: "info",
};

/** One server diagnostic as CodeMirror draws it. An empty range is widened to the character
 * it stands before (or after, at the end), so it shows. */
export function toCodeMirror(doc: Text, diagnostic: ServerDiagnostic): Diagnostic {
  let from = offsetOf(doc, diagnostic.line, diagnostic.column);
  let to = Math.max(from, offsetOf(doc, diagnostic.end_line, diagnostic.end_column));
  if (from === to) {
    if (to < doc.length && doc.sliceString(to, to + 1) !== "\n") to += 1;
    else if (from > 0 && doc.sliceString(from - 1, from) !== "\n") from -= 1;
  }
  const severity = SEVERITIES[diagnostic.severity] ?? "info";
  return {
    from,
    to,
    severity,
    message: diagnostic.hint ? `${diagnostic.message}\n${diagnostic.hint}` : diagnostic.message,
    source: diagnostic.code,
  };
}

export interface LintReport {
  errors: number;
  warnings: number;
  /** The check could not be made (the server did not answer). */
  failed: boolean;
}

/** The linter: the server's diagnostics of the text on screen, `delay` ms after the last change.
 * `report` hears how many problems there are, or that the check failed (it is tried again
 * `retry` ms later). A text editor that is not shown (the script shows as blocks) is not
 * checked until it shows. */
export function serverLint(
  scripts: ScriptsClient,
  report: (summary: LintReport) => void = () => {},
  delay = 400,
  retry = 5000,
) {
  return linter(
    async (view: EditorView) => {
      const doc = view.state.doc;
      if (!view.dom.getClientRects().length) {
        checkOnceShown(view);
        return [];
      }
      try {
        const found = (await scripts.check(doc.toString())).map((d) => toCodeMirror(doc, d));
        report({
          errors: found.filter((d) => d.severity === "error").length,
          warnings: found.filter((d) => d.severity === "warning").length,
          failed: false,
        });
        return found;
      } catch {
        report({ errors: 0, warnings: 0, failed: true });
        // the server may be back in a moment: check the same text again
        setTimeout(() => {
          if (view.state.doc === doc) forceLinting(view);
        }, retry);
        return [];
      }
    },
    { delay },
  );
}

/** The views waiting to show before their text is checked. */
const waiting = new WeakSet<EditorView>();

/** Checks the text of `view` once it shows (it is given a size). */
function checkOnceShown(view: EditorView): void {
  if (typeof ResizeObserver !== "function" || waiting.has(view)) return;
  waiting.add(view);
  const watch = new ResizeObserver(() => {
    if (!view.dom.getClientRects().length) return;
    watch.disconnect();
    waiting.delete(view);
    forceLinting(view);
  });
  watch.observe(view.dom);
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

/** The status line's words for `report`, with their tone. */
export function lintSummary({ errors, warnings, failed }: LintReport): [string, Tone] {
  if (failed) return ["Could not check the script: the server did not answer.", "warn"];
  if (errors) return [`${plural(errors, "error")}${warnings ? `, ${plural(warnings, "warning")}` : ""}`, "bad"];
  if (warnings) return [plural(warnings, "warning"), "warn"];
  return ["No problems found", "ok"];
}
