// The page's textarea stays the form's field under the editor: hidden, given the text on screen
// whenever the form is sent (so Save and Run post what is on screen), its labels focusing the
// editor, and its name, description and state carried over to the editor's content for assistive
// technology.

import type { EditorView } from "@codemirror/view";

/** The element that holds the editor, put after `textarea`. */
export function editorPlace(textarea: HTMLTextAreaElement, language: string): HTMLDivElement {
  const wrapper = textarea.ownerDocument.createElement("div");
  wrapper.className = "otter-editor";
  wrapper.dataset.language = language;
  textarea.insertAdjacentElement("afterend", wrapper);
  return wrapper;
}

/** `textarea` hidden, filled from `view` when its form is sent, its labels focusing `view`. */
export function keepAsField(textarea: HTMLTextAreaElement, view: EditorView): void {
  textarea.hidden = true;
  const sync = () => {
    textarea.value = view.state.doc.toString();
  };
  textarea.form?.addEventListener("submit", sync, { capture: true });
  textarea.form?.addEventListener("formdata", sync, { capture: true });
  for (const label of textarea.ownerDocument.querySelectorAll<HTMLLabelElement>(`label[for="${textarea.id}"]`))
    label.addEventListener("click", (event) => {
      event.preventDefault();
      view.focus();
    });
}

/** The textarea's name for assistive technology, carried over to the editor's content. */
export function contentAttributes(textarea: HTMLTextAreaElement): Record<string, string> {
  // tabindex: the text is in the tab order as its contenteditable already is, said outright so
  // that a checker sees the editor's scrolling region holds something focusable
  const attributes: Record<string, string> = { "aria-multiline": "true", spellcheck: "false", tabindex: "0" };
  const label = textarea.labels?.[0];
  if (label) {
    if (!label.id) label.id = `${textarea.id}-label`;
    attributes["aria-labelledby"] = label.id;
  }
  const described = textarea.getAttribute("aria-describedby");
  if (described) attributes["aria-describedby"] = described;
  if (textarea.getAttribute("aria-invalid")) attributes["aria-invalid"] = "true";
  if (textarea.readOnly) attributes["aria-readonly"] = "true";
  return attributes;
}
