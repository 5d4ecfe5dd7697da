// The mode switch's bar over the editor: Blocks and Text (toggle buttons, the one showing
// pressed) and the switch's status line.

import type { EditorMode } from "../blocks/header";
import { statusLine, type StatusLine } from "../ui/status";

export interface ModeBar extends StatusLine {
  /** The bar (its element is `element`'s parent). */
  bar: HTMLDivElement;
  /** Presses the button of `mode`. */
  press(mode: EditorMode): void;
}

const LABELS: Record<EditorMode, [string, string]> = {
  visual: ["Blocks", "Edit the script as blocks (visual mode)"],
  text: ["Text", "Edit the script as OtterScript text"],
};

/** The bar; `choose` is called with the mode whose button was clicked. */
export function modeBar(document: Document, choose: (mode: EditorMode) => void): ModeBar {
  const bar = document.createElement("div");
  bar.className = "otter-modes";
  const group = document.createElement("div");
  group.className = "otter-modes-switch";
  group.setAttribute("role", "group");
  group.setAttribute("aria-label", "Edit the script as");
  const status = statusLine("otter-modes-status");
  const buttons = (["visual", "text"] as EditorMode[]).map((mode) => {
    const made = document.createElement("button");
    made.type = "button";
    [made.textContent, made.title] = LABELS[mode];
    made.dataset.mode = mode;
    made.setAttribute("aria-pressed", "false");
    made.addEventListener("click", () => choose(mode));
    return made;
  });
  group.append(...buttons);
  bar.append(group, status.element);
  return {
    ...status,
    bar,
    press(mode) {
      for (const made of buttons) made.setAttribute("aria-pressed", String(made.dataset.mode === mode));
    },
  };
}
