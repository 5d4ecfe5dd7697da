// The notice of a draft kept from an earlier visit: when it was kept, whether someone saved a
// newer version since it started, and Restore / Discard.

import type { Draft } from "../api/drafts";
import { h, type Node, when } from "./view";

export interface NoticeActions {
  restore(): void;
  discard(): void;
  locale?: string;
}

/** The notice of `draft` (the page shows `version`, the newest). */
export function draftNotice(draft: Draft, actions: NoticeActions): Node {
  const newer = draft.moved_on && draft.latest_version !== null;
  return h(
    "section",
    { class: `notice otter-draft-notice${newer ? " moved-on" : ""}`, role: "region", "aria-labelledby": "otter-draft-notice-title" },
    h(
      "p",
      { id: "otter-draft-notice-title", tabindex: -1 },
      h("strong", {}, "You have an unsaved draft"),
      " from ",
      h("time", { datetime: draft.saved }, when(draft.saved, actions.locale)),
      `, started from version ${draft.base_version}.`,
    ),
    newer
      ? h(
          "p",
          { class: "otter-draft-moved-on" },
          h("strong", {}, "Careful:"),
          ` version ${draft.latest_version} was saved since. Saving the restored draft will show you both versions' changes first.`,
        )
      : null,
    h(
      "div",
      { class: "otter-draft-notice-actions" },
      h("button", { type: "button", class: "primary", onclick: actions.restore }, "Restore draft"),
      h("button", { type: "button", onclick: actions.discard }, "Discard draft"),
    ),
  );
}
