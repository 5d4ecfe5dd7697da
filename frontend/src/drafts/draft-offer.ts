// A draft from an earlier visit offered back: the notice (notice.ts) before the editor, the
// autosaver paused so the earlier draft stays as it is until the user chooses, then Restore (the
// draft's text on screen, edits starting from its base version) or Discard (the draft forgotten).

import type { Draft, DraftsClient } from "../api/drafts";
import type { Tone } from "../ui/status";
import type { Autosaver } from "./autosave";
import { describeFailure } from "./describe";
import { draftNotice } from "./notice";
import type { ItemText } from "./text";
import { toDom } from "./view";

export interface OfferParts {
  drafts: Pick<DraftsClient, "draft" | "forget">;
  autosaver: Pick<Autosaver, "pause" | "resume" | "reset">;
  text: Pick<ItemText, "replace">;
  /** Edits start from `version` now. */
  rebase(version: number): void;
  note(text: string, tone?: Tone): void;
  say(text: string, tone?: Tone): void;
  /** Gives the editor the focus back. */
  focus(): void;
  /** The notice goes before it. */
  field: HTMLElement;
}

export class DraftOffer {
  /** The notice, while it shows. */
  notice: HTMLElement | null = null;

  constructor(private readonly parts: OfferParts) {}

  /** Asks for the user's draft and offers it unless it is `initial`, the text on screen. */
  async lookFor(initial: string): Promise<void> {
    let draft: Draft | null;
    try {
      draft = await this.parts.drafts.draft();
    } catch {
      this.parts.note("Could not look for a draft: the server did not answer.", "warn");
      return;
    }
    if (draft && draft.content !== initial) this.offer(draft);
  }

  /** Shows the notice of `draft`. */
  offer(draft: Draft): void {
    const { parts } = this;
    parts.autosaver.pause();
    parts.note("Your edits are not kept as a draft until you restore or discard the earlier one.", "warn");
    this.notice = toDom(draftNotice(draft, { restore: () => void this.restore(draft), discard: () => void this.discard() }));
    parts.field.insertAdjacentElement("beforebegin", this.notice);
  }

  /** Removes the notice; drafts are kept again. */
  close(): void {
    this.notice?.remove();
    this.notice = null;
    this.parts.autosaver.resume();
  }

  private async restore(draft: Draft): Promise<void> {
    const { parts } = this;
    try {
      await parts.text.replace(draft.content);
    } catch (error) {
      return parts.say(`Not restored: ${describeFailure(error)}`, "bad");
    }
    parts.rebase(draft.base_version);
    parts.autosaver.reset(draft.content);
    this.close();
    parts.note("");
    parts.say(
      draft.moved_on
        ? `Draft restored. Version ${draft.latest_version} was saved since it started: Save shows both versions' changes first.`
        : "Draft restored.",
      draft.moved_on ? "warn" : "ok",
    );
    parts.focus();
  }

  private async discard(): Promise<void> {
    const { parts } = this;
    try {
      await parts.drafts.forget();
    } catch (error) {
      return parts.say(`Not discarded: ${describeFailure(error)}`, "bad");
    }
    this.close();
    parts.note("");
    parts.say("Draft discarded.");
    parts.focus();
  }
}
