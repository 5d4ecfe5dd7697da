// The item's text as the drafts see it: the text editor's, or the blocks' when they show (through
// the mode switch), and a text put back on screen (a restored draft, their version, what a commit
// stored) as an undoable change of the text editor, shown again as blocks when they showed.

import type { EditorView } from "@codemirror/view";
import type { WorkspaceJson } from "../blocks/client";
import type { BlockNamer } from "../blocks/labels";
import { minimalChange } from "../text/change";

/** The mode switch of an OtterScript item, when there is one (blocks or text). */
export interface ModeSwitch {
  readonly mode: string;
  show(mode: "text" | "visual"): Promise<boolean>;
  text(): Promise<string>;
  /** The block editor, once the blocks have shown. */
  blocks?(): { name: BlockNamer; save(): WorkspaceJson; load(workspace: WorkspaceJson): void } | null;
}

export class ItemText {
  constructor(
    private readonly view: EditorView,
    private readonly modes: () => ModeSwitch | undefined = () => undefined,
  ) {}

  /** The blocks show. */
  get visual(): boolean {
    return this.modes()?.mode === "visual";
  }

  /** Names a block of the blocks on screen as its user knows it, for a message. */
  readonly nameBlock: BlockNamer = (id) => this.modes()?.blocks?.()?.name(id) ?? null;

  /** The blocks on screen as JSON; null when they do not show. */
  blocksOnScreen(): WorkspaceJson | null {
    return this.visual ? (this.modes()?.blocks?.()?.save() ?? null) : null;
  }

  /** Shows `workspace` as the blocks (the blocks mode shown first). */
  async showBlocks(workspace: WorkspaceJson): Promise<void> {
    const switcher = this.modes();
    if (!switcher || !(await switcher.show("visual"))) throw new Error("the blocks could not be shown");
    const blocks = switcher.blocks?.();
    if (!blocks) throw new Error("the blocks could not be shown");
    blocks.load(workspace);
  }

  /** The text editor's text. */
  onScreen(): string {
    return this.view.state.doc.toString();
  }

  /** The script's text from whichever mode shows. */
  current(): Promise<string> {
    return this.modes()?.text() ?? Promise.resolve(this.onScreen());
  }

  /** Puts `text` in the editor (an undoable change) and in the blocks when they show. */
  async replace(text: string): Promise<void> {
    const switcher = this.modes();
    const visual = switcher?.mode === "visual";
    if (visual && !(await switcher.show("text"))) throw new Error("the blocks could not be turned into text");
    const before = this.onScreen();
    if (before !== text) this.view.dispatch({ changes: minimalChange(before, text), userEvent: "input.drafts", scrollIntoView: true });
    if (visual) await switcher.show("visual");
  }
}
