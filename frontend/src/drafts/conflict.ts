// The panel a 409 of a commit opens: who saved the newer version, when and why, what they
// changed since your base version and how your text differs from theirs, and the two ways on:
// load their version into the editor, or save yours over it knowingly.

import type { ConflictBody } from "../api/drafts";
import { diffView } from "./diff";
import { h, type Node, when } from "./view";

export interface ConflictActions {
  loadTheirs(): void;
  saveMine(): void;
  locale?: string;
}

let panels = 0;

/** The conflict panel of a 409 `body`. */
export function conflictView(body: ConflictBody, actions: ConflictActions): Node {
  const id = `otter-conflict-${++panels}`;
  const { latest } = body;
  const who = latest.author || "someone";
  const why = latest.message.trim();
  return h(
    "section",
    { class: "otter-conflict", role: "region", "aria-labelledby": `${id}-title`, "data-conflict": latest.number },
    h("h2", { id: `${id}-title`, tabindex: -1 }, `Not saved: ${who} saved version ${latest.number} meanwhile`),
    h(
      "p",
      {},
      `Your text started from version ${body.base_version}. `,
      h("strong", {}, who),
      " saved version ",
      String(latest.number),
      " on ",
      h("time", { datetime: latest.created }, when(latest.created, actions.locale)),
      why ? ": " : " without saying why.",
      why ? h("q", { class: "otter-conflict-message" }, why) : null,
    ),
    h("h3", {}, `Their changes since version ${body.base_version}`),
    diffView(body.diff, `Changes from version ${body.base_version} to version ${latest.number}`, "No changes in the lines."),
    h("h3", {}, `Your text against version ${latest.number}`),
    diffView(
      body.diff_to_submitted,
      `Changes from version ${latest.number} to your text`,
      `Your text is the same as version ${latest.number}.`,
    ),
    h(
      "div",
      { class: "form-actions otter-conflict-actions" },
      h(
        "button",
        { type: "button", onclick: actions.loadTheirs, "aria-describedby": `${id}-load-help` },
        "Load their version",
      ),
      h(
        "button",
        { type: "button", class: "danger", onclick: actions.saveMine, "aria-describedby": `${id}-save-help` },
        "Save mine anyway",
      ),
    ),
    h(
      "p",
      { class: "helptext" },
      h("span", { id: `${id}-load-help` }, `Load their version replaces the text in the editor with version ${latest.number}. `),
      h("span", { id: `${id}-save-help` }, `Save mine anyway saves your text as the next version, over version ${latest.number}.`),
    ),
  );
}
