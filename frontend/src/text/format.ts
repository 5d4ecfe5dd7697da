// Format (the toolbar's button, Shift+Alt+F): the server's canonical text of the script put in the
// editor as the smallest change, unless the text changed while the server was asked; a script
// that does not parse stays as it is, its first error said.

import type { EditorView } from "@codemirror/view";
import { ScriptProblem, type ScriptsClient } from "../api/scripts";
import type { Tone } from "../ui/status";
import { minimalChange } from "./change";

export interface FormatOptions {
  scripts: Pick<ScriptsClient, "format">;
  say(text: string, tone?: Tone): void;
  readOnly: boolean;
}

/** The format command of the editor `view()` gives. */
export function formatter(view: () => EditorView, options: FormatOptions): () => Promise<void> {
  const { say } = options;
  return async () => {
    if (options.readOnly) return;
    const editor = view();
    const before = editor.state.doc.toString();
    say("Formatting…");
    try {
      const formatted = await options.scripts.format(before);
      if (editor.state.doc.toString() !== before) return say("Not formatted: the text changed meanwhile.", "warn");
      if (formatted === before) return say("Already formatted", "ok");
      editor.dispatch({ changes: minimalChange(before, formatted), userEvent: "input.format", scrollIntoView: true });
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
}
