// The conflict of a commit shown on the page: the panel of conflict.ts among the drafts' panels,
// its heading focused, and its two ways on: Load their version (their text on screen, edits
// starting from their version, the draft forgotten; undo brings yours back) or Save mine anyway
// (a commit from their version).

import type { ConflictBody, DraftsClient } from "../api/drafts";
import type { Tone } from "../ui/status";
import type { Autosaver } from "./autosave";
import { conflictView } from "./conflict";
import { describeFailure } from "./describe";
import type { ItemText } from "./text";
import { toDom } from "./view";

export interface ConflictParts {
  /** The panels' place. */
  panels: HTMLElement;
  drafts: Pick<DraftsClient, "forget">;
  autosaver: Pick<Autosaver, "reset">;
  text: Pick<ItemText, "replace">;
  rebase(version: number): void;
  /** Commits the text on screen from `version`. */
  saveFrom(version: number): void;
  say(text: string, tone?: Tone): void;
  focus(): void;
}

export class ConflictPanel {
  /** The panel, while it shows. */
  panel: HTMLElement | null = null;

  constructor(private readonly parts: ConflictParts) {}

  show(body: ConflictBody): void {
    this.close();
    this.panel = toDom(
      conflictView(body, {
        loadTheirs: () => void this.loadTheirs(body),
        saveMine: () => {
          this.close();
          this.parts.saveFrom(body.latest.number);
        },
      }),
    );
    this.parts.panels.append(this.panel);
    this.panel.querySelector<HTMLElement>("h2")?.focus();
  }

  close(): void {
    this.panel?.remove();
    this.panel = null;
  }

  private async loadTheirs(body: ConflictBody): Promise<void> {
    const { parts } = this;
    try {
      await parts.text.replace(body.latest.content);
    } catch (error) {
      return parts.say(`Not loaded: ${describeFailure(error)}`, "bad");
    }
    parts.rebase(body.latest.number);
    parts.autosaver.reset(body.latest.content);
    this.close();
    parts.drafts.forget().catch(() => {});
    parts.say(`Loaded version ${body.latest.number}. Undo (Ctrl+Z) in the editor brings your text back.`, "ok");
    parts.focus();
  }
}
