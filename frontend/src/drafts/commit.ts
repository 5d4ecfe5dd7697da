// Save on the item page: the text on screen committed from a base version (the one the page was
// loaded with, or the one the last commit made). A 409 shows the conflict, a script that does
// not parse has its problems marked, never a silent overwrite. The page's parts come in as
// functions, so the flow is tested in Node.

import { CommitRefused, type CommittedItem, Conflict, type ConflictBody } from "../api/drafts";
import type { BlockNamer } from "../blocks/labels";
import type { Tone } from "../ui/status";
import { describeFailure } from "./describe";

export interface CommitParts {
  commit(content: string, message: string, from: number): Promise<CommittedItem>;
  /** The autosaver: paused while committing, told what the item now holds. */
  drafts: { pause(): void; resume(): void; idle(): Promise<void>; reset(content: string): void };
  /** The script's text (from whichever mode shows), and the text editor's. */
  current(): Promise<string>;
  onScreen(): string;
  /** Names a block of the blocks on screen, for blocks that do not make a script. */
  nameBlock?: BlockNamer;
  replaceText(text: string): Promise<void>;
  /** The commit message field's text, emptied after a commit. */
  message: { value: string } | null;
  say(text: string, tone?: Tone): void;
  /** The panels a commit closes: the conflict, the changes, the earlier draft's notice. */
  closePanels(): void;
  conflict(body: ConflictBody): void;
  problems(refused: CommitRefused): void;
  /** Brings the page's version line and versions list up to date. */
  refresh?(): Promise<void>;
}

export class Committer {
  private committing = false;

  constructor(
    private readonly parts: CommitParts,
    /** The version edits start from. */
    public base: number,
  ) {}

  async commit(from = this.base): Promise<void> {
    const { parts } = this;
    if (this.committing) return;
    this.committing = true;
    parts.drafts.pause();
    parts.say("Saving…");
    try {
      await parts.drafts.idle(); // a draft being kept must not land after the commit forgets it
      const content = await parts.current();
      const saved = await parts.commit(content, parts.message?.value ?? "", from);
      const version = saved.version ?? from;
      this.base = version;
      const stored = typeof saved.content === "string" ? saved.content : content;
      if (stored !== content && parts.onScreen() === content) await parts.replaceText(stored);
      parts.drafts.reset(stored);
      parts.closePanels();
      if (parts.message) parts.message.value = "";
      // the version line and the versions list first: "Saved" means the page shows it
      if (version !== from) await parts.refresh?.().catch(() => {});
      parts.say(version === from ? `No changes to save: version ${version} is the newest.` : `Saved as version ${version}.`, "ok");
    } catch (error) {
      if (error instanceof Conflict) {
        parts.say(`Not saved: ${error.body.latest.author || "someone"} saved version ${error.body.latest.number} meanwhile.`, "bad");
        parts.conflict(error.body);
      } else if (error instanceof CommitRefused) parts.problems(error);
      else parts.say(`Not saved: ${describeFailure(error, parts.nameBlock)}`, "bad");
    } finally {
      this.committing = false;
      parts.drafts.resume();
    }
  }
}
