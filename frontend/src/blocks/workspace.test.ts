// @vitest-environment jsdom
import { expect, test } from "vitest";
import type { Api } from "../api/http";
import { ReferenceClient } from "../api/reference";
import { ScriptsClient } from "../api/scripts";
import { fakeApi } from "../test/api";
import { drawable } from "../test/blocks";
import { REFERENCE } from "../test/reference-data";
import { BlocksClient, type WorkspaceJson } from "./client";
import sample from "./testdata/sample.workspace.json";
import { mountBlockEditor } from "./workspace";

async function mount(client: Api, readOnly = false) {
  drawable();
  const host = document.createElement("div");
  document.body.append(host);
  const said: string[] = [];
  const editor = await mountBlockEditor(host, {
    converter: new BlocksClient(client, { blocks: "/blocks/", unblocks: "/unblocks/" }),
    scripts: new ScriptsClient(client, { check: "/check/", format: "/format/" }),
    reference: new ReferenceClient(client, "/reference/"),
    readOnly,
    say: (text) => void said.push(text),
  });
  return { host, said, editor };
}

test("test_block_editor_is_put_together_in_its_host", async () => {
  const { host, said, editor } = await mount(fakeApi((call) => (call.url === "/reference/" ? REFERENCE : {})));
  expect(Array.from(host.children).map((child) => child.className || child.tagName)).toEqual(["otter-blocks-toolbar", "otter-blocks-area", "DATALIST"]);
  expect(host.querySelector("datalist")!.options.length).toBe(REFERENCE.operations.length);

  const json = JSON.parse(JSON.stringify(sample)) as WorkspaceJson;
  editor.load(json);
  expect(editor.headers).toEqual(["##AH:UseVisualMode"]);
  expect(JSON.parse(JSON.stringify(editor.save()))).toEqual(sample);
  expect(editor.changed).toBe(false);
  editor.workspace.getBlockById("b4")!.setFieldValue("/srv/changed", "POSITIONAL");
  expect(editor.changed).toBe(true);
  editor.focus();
  expect(document.activeElement?.id).toBe("otter-block-search");
  expect(said).toEqual([]);
});

test("test_block_editor_without_the_reference_still_starts_and_says_so", async () => {
  const { host, said, editor } = await mount(fakeApi(() => Promise.reject(new TypeError("Failed to fetch"))), true);
  expect(said).toEqual(["Could not load the reference of operations: the toolbox has no operations."]);
  expect(editor.workspace.isReadOnly()).toBe(true);
  expect(host.querySelector("datalist")!.options.length).toBe(0);
});
