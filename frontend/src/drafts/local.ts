// Blocks that make no script cannot be a draft on the server (a draft is a script's text): they
// are kept in this browser (localStorage), one set per item page, until the blocks make a
// script again (a draft of its text is kept then) or the user discards them. The next visit
// offers them back as blocks (localNotice).

import type { WorkspaceJson } from "../blocks/client";
import type { Tone } from "../ui/status";
import { describeFailure } from "./describe";
import type { ItemText } from "./text";
import { h, type Node, toDom, when } from "./view";

export interface LocalBlocks {
  workspace: WorkspaceJson;
  /** When they were kept (ISO 8601). */
  saved: string;
}

type Store = Pick<Storage, "getItem" | "setItem" | "removeItem">;

export class LocalBlocksStore {
  constructor(
    private readonly key: string,
    private readonly storage: Store | null,
  ) {}

  /** The store of the item page at `path`, in this browser's localStorage (none when the
   * browser refuses it). */
  static forPage(path: string): LocalBlocksStore {
    let storage: Store | null = null;
    try {
      storage = globalThis.localStorage ?? null;
    } catch {
      storage = null; // storage turned off for the site
    }
    return new LocalBlocksStore(`otterweb:blocks:${path}`, storage);
  }

  /** Keeps `workspace`; false when the browser would not (no storage, or full). */
  keep(workspace: WorkspaceJson, at: Date): boolean {
    if (!this.storage) return false;
    try {
      this.storage.setItem(this.key, JSON.stringify({ workspace, saved: at.toISOString() }));
      return true;
    } catch {
      return false;
    }
  }

  read(): LocalBlocks | null {
    const stored = this.storage?.getItem(this.key);
    if (!stored) return null;
    try {
      const value = JSON.parse(stored) as Partial<LocalBlocks>;
      if (value.workspace && typeof value.workspace === "object" && typeof value.saved === "string") return value as LocalBlocks;
    } catch {
      // not ours, or cut short: nothing to offer
    }
    this.forget();
    return null;
  }

  forget(): void {
    this.storage?.removeItem(this.key);
  }
}

export interface LocalNoticeActions {
  restore(): void;
  discard(): void;
  locale?: string;
}

/** The notice of blocks kept in this browser: when, and Restore / Discard. */
export function localNotice(kept: LocalBlocks, actions: LocalNoticeActions): Node {
  return h(
    "section",
    { class: "notice otter-draft-notice", role: "region", "aria-labelledby": "otter-local-blocks-title" },
    h(
      "p",
      { id: "otter-local-blocks-title", tabindex: -1 },
      h("strong", {}, "You have unsaved blocks"),
      " in this browser from ",
      h("time", { datetime: kept.saved }, when(kept.saved, actions.locale)),
      ". They did not make a script yet, so they were not kept as a draft.",
    ),
    h(
      "div",
      { class: "otter-draft-notice-actions" },
      h("button", { type: "button", class: "primary", onclick: actions.restore }, "Restore the blocks"),
      h("button", { type: "button", onclick: actions.discard }, "Discard them"),
    ),
  );
}

export interface LocalOfferParts {
  store: Pick<LocalBlocksStore, "forget">;
  text: Pick<ItemText, "showBlocks">;
  /** The notice goes before it. */
  field: HTMLElement;
  say(text: string, tone?: Tone): void;
  focus(): void;
}

/** Offers back the blocks `kept` in this browser: the notice before the editor. */
export function offerLocalBlocks(kept: LocalBlocks, parts: LocalOfferParts): HTMLElement {
  const notice: HTMLElement = toDom(
    localNotice(kept, {
      restore: () =>
        void parts.text.showBlocks(kept.workspace).then(
          () => {
            notice.remove();
            parts.say("Blocks restored. They are kept as a draft once they make a script.", "ok");
          },
          (error: unknown) => parts.say(`Not restored: ${describeFailure(error)}`, "bad"),
        ),
      discard: () => {
        parts.store.forget();
        notice.remove();
        parts.say("Blocks discarded.");
        parts.focus();
      },
    }),
  );
  parts.field.insertAdjacentElement("beforebegin", notice);
  return notice;
}
