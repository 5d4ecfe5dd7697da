// The block editor's toolbar: the search box, then Undo, Redo, Zoom to fit and Tidy.

import { button, toolbar } from "../ui/status";

/** What the buttons ask of the workspace. */
export interface Commands {
  undo(redo: boolean): void;
  zoomToFit(): void;
  cleanUp(): void;
}

/** The toolbar over `workspace`, with `search` first. */
export function blocksToolbar(workspace: Commands, search: HTMLInputElement): HTMLDivElement {
  const bar = toolbar("otter-blocks-toolbar", "Block editor");
  bar.append(
    search,
    button("Undo", "Undo (Ctrl+Z)", () => workspace.undo(false)),
    button("Redo", "Redo (Ctrl+Shift+Z)", () => workspace.undo(true)),
    button("Zoom to fit", "Show the whole script", () => workspace.zoomToFit()),
    button("Tidy", "Line the blocks up in one column", () => workspace.cleanUp()),
  );
  return bar;
}
