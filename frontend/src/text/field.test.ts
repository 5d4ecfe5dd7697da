// @vitest-environment jsdom
import { EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { beforeEach, expect, test } from "vitest";
import { contentAttributes, editorPlace, keepAsField } from "./field";

beforeEach(() => {
  document.body.innerHTML = `
    <form><label for="id_content">Content</label>
    <textarea id="id_content" name="content" aria-describedby="content-help">Log-Information a;</textarea>
    <p id="content-help">help</p></form>`;
});

const textarea = () => document.querySelector("textarea")!;

test("test_field_the_editor_goes_after_the_textarea", () => {
  const place = editorPlace(textarea(), "otterscript");
  expect(textarea().nextElementSibling).toBe(place);
  expect([place.className, place.dataset.language]).toEqual(["otter-editor", "otterscript"]);
});

test("test_field_the_textarea_is_given_the_text_on_screen_when_the_form_is_sent", () => {
  const view = new EditorView({ parent: editorPlace(textarea(), "plain"), state: EditorState.create({ doc: textarea().value }) });
  keepAsField(textarea(), view);
  expect(textarea().hidden).toBe(true);
  view.dispatch({ changes: { from: 0, insert: "# on screen\n" } });
  textarea().form!.dispatchEvent(new Event("formdata"));
  expect(textarea().value).toBe("# on screen\nLog-Information a;");
  view.dispatch({ changes: { from: 0, to: 12 } });
  textarea().form!.dispatchEvent(new Event("submit", { cancelable: true }));
  expect(textarea().value).toBe("Log-Information a;");
});

test("test_field_its_label_focuses_the_editor", () => {
  const view = new EditorView({ parent: editorPlace(textarea(), "plain"), state: EditorState.create({ doc: "" }) });
  keepAsField(textarea(), view);
  const label = document.querySelector("label")!;
  const click = new MouseEvent("click", { cancelable: true });
  label.dispatchEvent(click);
  expect(click.defaultPrevented).toBe(true);
  expect(view.hasFocus).toBe(true);
});

test("test_field_content_attributes_carry_the_textareas_name_and_state", () => {
  textarea().readOnly = true;
  textarea().setAttribute("aria-invalid", "true");
  expect(contentAttributes(textarea())).toEqual({
    "aria-multiline": "true",
    spellcheck: "false",
    tabindex: "0",
    "aria-labelledby": "id_content-label",
    "aria-describedby": "content-help",
    "aria-invalid": "true",
    "aria-readonly": "true",
  });
  expect(document.querySelector("label")!.id).toBe("id_content-label");
});
