// Drafts on the raft item page, configured by the Save row's data attributes (data-drafts,
// data-draft-url, data-commit-url, data-diff-url, data-base-version, data-has-draft); the row
// is there only for users who may change the item. The text editor must be mounted first; the
// mode switch, when the item has one, is found on the editor's field (`otterModes`).

import { EditorView } from "@codemirror/view";
import type { Api } from "../api/http";
import { type Drafts, mountDrafts } from "./drafts";
import { refreshItemPage } from "./refresh";
import type { ModeSwitch } from "./text";

export function mountItemDrafts(client: Api, field: HTMLElement | null, textarea: HTMLTextAreaElement | null | undefined): Drafts | null {
  const actions = document.querySelector<HTMLElement>("[data-drafts]");
  const editor = field?.querySelector<HTMLElement>(".cm-editor");
  const view = editor ? EditorView.findFromDOM(editor) : null;
  if (!field || !textarea || !actions || !view || textarea.readOnly) return null;
  const data = actions.dataset;
  const baseVersion = Number(data.baseVersion);
  if (!data.draftUrl || !data.commitUrl || !data.diffUrl || !(baseVersion >= 1)) return null;
  const drafts = mountDrafts(actions, {
    client,
    urls: { draft: data.draftUrl, commit: data.commitUrl, diff: data.diffUrl },
    baseVersion,
    hasDraft: "hasDraft" in data,
    view,
    textarea,
    field,
    modes: () => (field as HTMLElement & { otterModes?: ModeSwitch }).otterModes,
    refresh: () => refreshItemPage(client),
  });
  // for the browser tests
  Object.assign(actions, { otterDrafts: drafts });
  return drafts;
}
