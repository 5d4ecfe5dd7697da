// Run beside the editor on the raft item page, configured by the template: the Run fieldset
// (data-run) and the element around the editor (data-run-beside). The text editor, the mode
// switch and the drafts are mounted first.

import { EditorView } from "@codemirror/view";
import type { Api } from "../api/http";
import type { Drafts } from "../drafts/drafts";
import { refreshItemPage } from "../drafts/refresh";
import { mountRunBeside, type RunBeside } from "./beside";

interface WithBlocks {
  otterModes?: { blocks(): { resize(): void } | null };
}

export function mountItemRun(client: Api, field: HTMLElement | null, textarea: HTMLTextAreaElement | null | undefined, drafts: Drafts | null): RunBeside | null {
  const fieldset = document.querySelector<HTMLElement>("[data-run]");
  const container = document.querySelector<HTMLElement>("[data-run-beside]");
  const form = textarea?.form;
  if (!fieldset || !container || !form) return null;
  const editor = field?.querySelector<HTMLElement>(".cm-editor");
  const run = mountRunBeside({
    client,
    form,
    fieldset,
    container,
    view: editor ? EditorView.findFromDOM(editor) : null,
    saved: (version, content) => {
      drafts?.saved(version, content);
      void refreshItemPage(client).catch(() => {});
    },
    resized: () => (field as (HTMLElement & WithBlocks) | null)?.otterModes?.blocks()?.resize(),
  });
  // for the browser tests
  if (run) Object.assign(fieldset, { otterRun: run });
  return run;
}
