// The raft item page: the text editor over the item's textarea, configured by the template's
// data attributes (data-text-editor, data-language, data-check-url, data-format-url,
// data-reference-url).

import "../text/editor.css";
import { mountItemDrafts } from "../drafts/page";
import { type EditorLanguage, mountTextEditor } from "../text/editor";

const field = document.querySelector<HTMLElement>("[data-text-editor]");
const textarea = field?.querySelector<HTMLTextAreaElement>("textarea");
if (field && textarea) {
  const data = field.dataset;
  const csrf = textarea.form?.querySelector<HTMLInputElement>("input[name=csrfmiddlewaretoken]");
  textarea.form?.classList.add("has-text-editor");
  field.classList.add("text-editor-field");
  mountTextEditor(textarea, {
    language: (data.language as EditorLanguage) || "plain",
    csrfToken: csrf?.value ?? "",
    checkUrl: data.checkUrl ?? "",
    formatUrl: data.formatUrl ?? "",
    referenceUrl: data.referenceUrl ?? "",
  });
}

// drafts kept while typing; with JavaScript, Save commits through the API (data-drafts)
mountItemDrafts(field, textarea);
