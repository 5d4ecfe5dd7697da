// The text editor's toolbar: Format (OtterScript that may be changed), Find, then the status line.

import { button, toolbar } from "../ui/status";

export interface ToolbarActions {
  /** Formats the script; no Format button without it. */
  format?: () => void;
  find(): void;
}

/** The toolbar, ending with `status`. */
export function textToolbar(actions: ToolbarActions, status: HTMLElement): HTMLDivElement {
  const bar = toolbar("otter-editor-toolbar", "Text editor");
  if (actions.format) bar.append(button("Format", "Format the script (Shift+Alt+F)", actions.format));
  bar.append(button("Find", "Find and replace (Ctrl+F)", actions.find), status);
  return bar;
}
