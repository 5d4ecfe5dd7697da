// The mode switch's state, without the page: which mode shows, whether the blocks on screen are
// still the text they came from, and the text a save sends. The page's parts (the text editor,
// the server's converter, the block editor, what shows) come in as functions, so the switch is
// tested in Node.

import type { WorkspaceJson } from "../blocks/client";
import { describeProblem } from "../blocks/client";
import type { BlockNamer } from "../blocks/labels";
import { type EditorMode, openingMode, withMode } from "../blocks/header";
import type { Tone } from "../ui/status";

/** The block editor as the switch uses it (blocks/workspace.ts makes it). */
export interface Blocks {
  /** Resolves once every block is in (the first screen is in when it returns). */
  load(workspace: WorkspaceJson): void | Promise<void>;
  save(): WorkspaceJson;
  readonly changed: boolean;
  resize(): void;
  /** Names a block in a message as its user knows it. */
  name?: BlockNamer;
}

export interface SwitcherParts {
  /** The text editor's text, and a change of it (undoable). */
  current(): string;
  setText(text: string): void;
  /** Puts the cursor on the first error of a text the server could not make into blocks. */
  pointAt(error: unknown): void;
  converter: { toBlocks(text: string): Promise<WorkspaceJson>; toText(workspace: WorkspaceJson): Promise<string> };
  /** The block editor, made the first time the blocks show. */
  blockEditor(): Promise<Blocks>;
  /** Starts loading the block editor's code while the server converts. */
  preload?(): void;
  /** The server's blocks of a text, asked for before the page's editors were made (the script
   * opens as blocks): used when the text is still that. */
  early?: { text: string; workspace: Promise<WorkspaceJson> };
  /** Shows `mode` on the page (the block editor measures its place once it shows). */
  display(mode: EditorMode): void;
  say(text: string, tone?: Tone): void;
  readOnly: boolean;
  /** The mode of a script whose header names none. */
  fallback: EditorMode;
}

export class ModeSwitcher {
  mode: EditorMode = "text";
  editor: Blocks | null = null;
  /** The user picked a mode: saving writes its header. */
  chosen = false;
  private loadedFrom = ""; // the text the blocks on screen were made from
  private busy = false;

  constructor(private readonly parts: SwitcherParts) {}

  /** The mode the script opens in (its header, else the fallback). */
  get opening(): EditorMode {
    return openingMode(this.parts.current(), this.parts.fallback);
  }

  /** The user picked `mode`. */
  choose(mode: EditorMode): Promise<boolean> {
    this.chosen = true;
    return this.show(mode);
  }

  /** Shows `next`; false when it could not (text that does not parse stays text). */
  async show(next: EditorMode): Promise<boolean> {
    if (next === this.mode || this.busy) return next === this.mode;
    this.busy = true;
    try {
      return next === "visual" ? await this.showBlocks() : await this.showText();
    } finally {
      this.busy = false;
    }
  }

  private async showBlocks(): Promise<boolean> {
    const { parts } = this;
    const text = parts.current();
    if (this.editor && text === this.loadedFrom && !this.editor.changed) {
      this.showing("visual"); // the blocks on screen are still this text
      parts.say(parts.readOnly ? "Read only" : "");
      return true;
    }
    parts.say("Opening as blocks…");
    parts.preload?.(); // the block editor's code arrives while the server converts
    let workspace: WorkspaceJson;
    const { early } = parts;
    parts.early = undefined; // asked for once, for the opening
    try {
      workspace = await (early?.text === text ? early.workspace : parts.converter.toBlocks(text));
    } catch (error) {
      parts.pointAt(error);
      parts.say(`Stays as text: ${describeProblem(error)}. Fix the errors marked in the text to see it as blocks.`, "bad");
      return false;
    }
    this.showing("visual"); // Blockly measures its place when it starts
    try {
      this.editor = await parts.blockEditor();
    } catch (error) {
      console.error("the block editor did not start", error);
      this.showing("text");
      parts.say("Could not load the block editor.", "bad");
      return false;
    }
    this.editor.resize();
    void this.editor.load(workspace); // the first screen now, the rest a frame apart
    this.loadedFrom = text;
    parts.say(parts.readOnly ? "Read only" : "");
    return true;
  }

  private async showText(): Promise<boolean> {
    const { parts } = this;
    parts.say("Converting to text…");
    let text: string;
    try {
      text = await this.blocksText();
    } catch (error) {
      parts.say(`Stays as blocks: ${describeProblem(error, this.editor?.name)}`, "bad");
      return false;
    }
    parts.setText(text);
    this.showing("text");
    parts.say("");
    return true;
  }

  /** Shows `mode` without converting anything (the start, and a failed switch). */
  showing(mode: EditorMode): void {
    this.mode = mode;
    this.parts.display(mode);
  }

  /** The text of the blocks on screen: the text they came from when nobody changed them. */
  async blocksText(): Promise<string> {
    if (!this.editor) return this.parts.current();
    return this.editor.changed ? this.parts.converter.toText(this.editor.save()) : this.loadedFrom;
  }

  /** The text to save: the mode's header written when the user chose the other mode. */
  async textToSave(): Promise<string> {
    const text = this.mode === "visual" ? await this.blocksText() : this.parts.current();
    return !this.chosen || openingMode(text, this.parts.fallback) === this.mode ? text : withMode(text, this.mode);
  }

  /** Before the form is sent from the text: the header of the mode the user chose. */
  headerForText(): void {
    const text = this.parts.current();
    if (this.chosen && openingMode(text, this.parts.fallback) !== this.mode) this.parts.setText(withMode(text, this.mode));
  }

  /** Before the form is sent from the blocks: the text editor given their text. */
  async textFromBlocks(): Promise<void> {
    const text = await this.textToSave();
    this.parts.setText(text);
    if (this.editor && !this.editor.changed) this.loadedFrom = text; // the blocks are still this text
  }
}
