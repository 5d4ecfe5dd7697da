// The Save row's two lines: a quiet one for the draft kept (not read out at every save) and the
// short polite status of Save, the draft notice and the conflict.

import { statusLine, type Tone } from "../ui/status";

export interface SaveRowStatus {
  quiet: HTMLSpanElement;
  status: HTMLSpanElement;
  /** Sets the quiet line. */
  note(text: string, tone?: Tone): void;
  /** Sets the status line (read out). */
  say(text: string, tone?: Tone): void;
}

export function saveRowStatus(): SaveRowStatus {
  const quiet = document.createElement("span");
  quiet.className = "otter-draft-saved";
  const { element: status, say } = statusLine("otter-commit-status");
  return {
    quiet,
    status,
    say,
    note(text, tone = "") {
      quiet.textContent = text;
      quiet.dataset.tone = tone;
    },
  };
}
