// The raft item page: the text editor over the item's textarea, configured by the template's
// data attributes (data-text-editor, data-language, data-check-url, data-format-url,
// data-reference-url, and for OtterScript data-names-url and data-raft), and for OtterScript the
// switch between blocks and text (data-blocks-url, data-unblocks-url, data-default-mode), whose
// block editor loads on demand. One API client for all of it, and the target preview of the Run
// fieldset.

import "../text/editor.css";
import { api, csrfToken } from "../api/http";
import type { EditorMode } from "../blocks/header";
import { mountModes, openEarly } from "../editor/mode";
import { mountItemDrafts } from "../drafts/page";
import { mountItemRun } from "../run/page";
import { mountMenu } from "../site/menu";
import { mountTargetPreviews } from "../targets/preview";
import { type EditorLanguage, mountTextEditor } from "../text/editor";

mountMenu();
const client = api(csrfToken());

const field = document.querySelector<HTMLElement>("[data-text-editor]");
const textarea = field?.querySelector<HTMLTextAreaElement>("textarea");
if (field && textarea) {
  const data = field.dataset;
  textarea.form?.classList.add("has-text-editor");
  field.classList.add("text-editor-field");
  const language = (data.language as EditorLanguage) || "plain";
  const blocks =
    language === "otterscript" && data.blocksUrl && data.unblocksUrl
      ? {
          client,
          blocksUrl: data.blocksUrl,
          unblocksUrl: data.unblocksUrl,
          fallback: (data.defaultMode as EditorMode) || "visual",
        }
      : null;
  // a script that opens as blocks asks for them before the text editor is made
  const early = blocks ? openEarly(textarea, blocks) : undefined;
  const text = mountTextEditor(textarea, {
    language,
    client,
    checkUrl: data.checkUrl ?? "",
    formatUrl: data.formatUrl ?? "",
    referenceUrl: data.referenceUrl ?? "",
    namesUrl: data.namesUrl,
    raft: data.raft,
  });
  if (blocks) {
    const modes = mountModes(textarea, text.view, { ...blocks, scripts: text.scripts, reference: text.reference, early });
    // for the browser tests and the benchmark
    Object.assign(field, { otterModes: modes });
  }
}

// drafts kept while typing; with JavaScript, Save commits through the API (data-drafts)
const drafts = mountItemDrafts(client, field, textarea);
// with JavaScript, Run starts the run without leaving the page and shows its live log in a
// panel beside the editor (data-run, data-run-beside)
mountItemRun(client, field, textarea, drafts);
// where a run goes, said while its targets are chosen (data-target-preview)
mountTargetPreviews(client);
