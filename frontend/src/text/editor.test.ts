// @vitest-environment jsdom
import { expect, test } from "vitest";
import { fakeApi } from "../test/api";
import { measurableRanges } from "../test/editor";
import { REFERENCE } from "../test/reference-data";
import { mountTextEditor } from "./editor";

test("test_text_editor_is_put_together_over_the_textarea", async () => {
  measurableRanges();
  document.body.innerHTML = `<form><textarea id="id_content" name="content">Log-Information  hi;</textarea></form>`;
  const textarea = document.querySelector("textarea")!;
  const client = fakeApi((call) => (call.url === "/reference/" ? REFERENCE : { script: "Log-Information hi;" }));
  const editor = mountTextEditor(textarea, { language: "otterscript", client, checkUrl: "/check/", formatUrl: "/format/", referenceUrl: "/reference/" });
  const wrapper = textarea.nextElementSibling as HTMLElement;
  expect([wrapper.className, textarea.hidden, editor.view.dom.parentElement]).toEqual(["otter-editor", true, wrapper]);
  const bar = wrapper.querySelector(".otter-editor-toolbar")!;
  expect(Array.from(bar.querySelectorAll("button")).map((button) => button.textContent)).toEqual(["Format", "Find"]);
  expect(bar.querySelector(".otter-editor-status")!.textContent).toBe("Checking…");
  expect((await editor.reference.load()).operation("Ensure-File")).toBeTruthy();
  await editor.format();
  expect(editor.view.state.doc.toString()).toBe("Log-Information hi;");
  expect(await editor.scripts.format("x")).toBe("Log-Information hi;"); // the page's one client
});

test("test_text_editor_of_plain_text_read_only", () => {
  document.body.innerHTML = `<form><textarea id="id_content" name="content" readonly>echo hi</textarea></form>`;
  const client = fakeApi();
  const editor = mountTextEditor(document.querySelector("textarea")!, { language: "shell", client, checkUrl: "", formatUrl: "", referenceUrl: "" });
  expect(editor.view.state.readOnly).toBe(true);
  expect(Array.from(document.querySelectorAll(".otter-editor-toolbar button")).map((button) => button.textContent)).toEqual(["Find"]);
  expect(client.calls).toEqual([]); // no reference, no check
});
