// CodeMirror in jsdom: a text editor on the page for the tests, with the measuring of text ranges
// jsdom lacks (CodeMirror asks for it when it scrolls a change into view).

import { EditorState, type Extension } from "@codemirror/state";
import { EditorView } from "@codemirror/view";

const rect = { x: 0, y: 0, top: 0, left: 0, bottom: 0, right: 0, width: 0, height: 0, toJSON: () => ({}) } as DOMRect;

/** Text ranges measured (as nothing) in jsdom. */
export function measurableRanges(): void {
  Range.prototype.getClientRects ??= () => [] as unknown as DOMRectList;
  Range.prototype.getBoundingClientRect ??= () => rect;
}

/** A text editor of `doc` in the page. */
export function editorOf(doc: string, extensions: Extension = []): EditorView {
  measurableRanges();
  return new EditorView({ parent: document.body, state: EditorState.create({ doc, extensions }) });
}
