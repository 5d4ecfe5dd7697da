import { indentUnit } from "@codemirror/language";
import { EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { expect, test, vi } from "vitest";
import { editorExtensions, languageExtensions } from "./extensions";

test("test_extensions_by_language", () => {
  const otterScript = vi.fn(() => []);
  expect(languageExtensions("plain", otterScript)).toEqual([]);
  expect(languageExtensions("shell", otterScript)).toHaveLength(1);
  expect(otterScript).not.toHaveBeenCalled();
  languageExtensions("otterscript", otterScript);
  expect(otterScript).toHaveBeenCalledOnce();
});

test("test_extensions_common_to_every_editor", () => {
  const state = EditorState.create({ doc: "x", extensions: editorExtensions([], true, { "aria-labelledby": "label" }) });
  expect([state.readOnly, state.tabSize, state.facet(indentUnit)]).toEqual([true, 4, "    "]);
  expect(state.facet(EditorView.contentAttributes)).toContainEqual({ "aria-labelledby": "label" });
  expect(EditorState.create({ extensions: editorExtensions([], false, {}) }).readOnly).toBe(false);
});
