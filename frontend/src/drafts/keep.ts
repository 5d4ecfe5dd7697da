// The draft kept while the user edits: the autosaver (autosave.ts) saving through the API, woken
// by every change of the text and, while the blocks show, by the pointer and keys over them (the
// blocks change through the mouse and keys), and saving at once when the tab is hidden. What it
// did is said in the quiet line; a refusal is said aloud too.

import { StateEffect } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { ApiError } from "../api/http";
import { isBlocksRefusal } from "../blocks/client";
import type { Tone } from "../ui/status";
import { Autosaver } from "./autosave";
import { describeFailure } from "./describe";
import type { LocalBlocksStore } from "./local";
import type { ItemText } from "./text";
import { clock } from "./view";

export interface KeepOptions {
  text: ItemText;
  view: EditorView;
  /** The element around the editor and the blocks. */
  field: HTMLElement;
  /** Keeps `content` as the user's draft. */
  keep(content: string): Promise<unknown>;
  note(text: string, tone?: Tone): void;
  say(text: string, tone?: Tone): void;
  /** Milliseconds after the last change before the draft is kept. */
  delay?: number;
  /** Where blocks that make no script are kept instead (local.ts). */
  local?: LocalBlocksStore;
}

/** The autosaver of the item, listening to the page. */
export function keepDrafts(options: KeepOptions): Autosaver {
  const { text, note, say } = options;
  const autosaver = new Autosaver(
    {
      read: () => text.current(),
      save: async (content) => {
        await options.keep(content);
      },
      saved: (_content, at) => {
        options.local?.forget(); // the blocks make a script again: its draft is kept
        note(`Draft saved ${clock(at)}`);
      },
      failed: (error) => {
        if (error instanceof ApiError && error.status === 400) {
          const said = `Draft not kept: ${error.message}`;
          note(said, "bad");
          say(said, "bad");
        } else if (isBlocksRefusal(error)) {
          // kept on the server again once the blocks make a script; in this browser meanwhile
          const blocks = text.blocksOnScreen();
          const local = blocks !== null && options.local?.keep(blocks, new Date());
          note(`${local ? "Kept in this browser only" : "Draft not kept"}: ${describeFailure(error, text.nameBlock)}`, "bad");
        } else note("Draft not kept: the server did not answer. Trying again.", "warn");
      },
      delay: options.delay,
    },
    text.onScreen(),
  );
  options.view.dispatch({
    effects: StateEffect.appendConfig.of(
      EditorView.updateListener.of((update) => {
        if (update.docChanged) autosaver.changed();
      }),
    ),
  });
  for (const type of ["pointerup", "keyup", "change", "drop"])
    options.field.addEventListener(type, () => {
      if (text.visual) autosaver.changed();
    });
  const document = options.field.ownerDocument;
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") void autosaver.flush();
  });
  return autosaver;
}
