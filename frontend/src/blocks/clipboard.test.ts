// @vitest-environment jsdom
import * as Blockly from "blockly/core";
import { beforeAll, describe, expect, test } from "vitest";
import { ApiError } from "../api/http";
import { type Call, fakeApi } from "../test/api";
import { eventsFired, withBlocks } from "../test/blocks";
import { addAtEnd } from "./append";
import { BlocksClient, type WorkspaceJson } from "./client";
import { TextClipboard, useTextClipboard } from "./clipboard";

beforeAll(withBlocks);

const PASTED: WorkspaceJson = {
  blocks: {
    languageVersion: 0,
    blocks: [{ type: "otter_log", id: "p1", x: 500, y: 500, fields: { LEVEL: "warning", MESSAGE: "pasted" } }],
  },
  otterscript: { headers: [] },
};

function page(answer: (call: Call) => unknown) {
  const workspace = new Blockly.Workspace();
  const said: [string, string | undefined][] = [];
  const written: string[] = [];
  const browser = {
    text: "",
    async readText() {
      return this.text;
    },
    async writeText(text: string) {
      written.push(text);
    },
  };
  const client = fakeApi(answer);
  const converter = new BlocksClient(client, { blocks: "/blocks/", unblocks: "/unblocks/" });
  const clipboard = new TextClipboard(workspace, { converter, say: (text, tone) => void said.push([text, tone]), clipboard: browser });
  const first = addAtEnd(workspace, { type: "otter_log", fields: { LEVEL: "information", MESSAGE: "first" } });
  return { workspace, said, written, browser, client, clipboard, first };
}

describe("copy as OtterScript", () => {
  test("test_clipboard_copy_writes_the_blocks_text", async () => {
    const { clipboard, first, written, said, client } = page(() => ({ script: "Log-Information first;\n" }));
    await clipboard.copy(first);
    expect(written).toEqual(["Log-Information first;\n"]);
    expect(clipboard.lastCopied).toBe("Log-Information first;\n");
    expect(said).toEqual([["Copied as OtterScript", "ok"]]);
    expect((client.calls[0].body as { workspace: WorkspaceJson }).workspace.blocks.blocks[0]).toMatchObject({ type: "otter_log" });
  });

  test("test_clipboard_copy_refused_by_the_browser_or_the_server_says_so", async () => {
    const refused = page(() => ({ script: "x;" }));
    refused.browser.writeText = async () => Promise.reject(new DOMException("denied", "NotAllowedError"));
    await refused.clipboard.copy(refused.first);
    expect(refused.said).toEqual([["Copied the block (the browser did not allow the clipboard).", "warn"]]);
    const server = page(() => Promise.reject(new ApiError(400, { errors: { workspace: ["Too deep."] } })));
    await server.clipboard.copy(server.first);
    expect(server.said).toEqual([["Not copied as text: Too deep.", "bad"]]);
  });
});

describe("paste OtterScript as blocks", () => {
  test("test_clipboard_paste_adds_the_blocks_after_the_last_statement", async () => {
    const { clipboard, first, said, client } = page(() => ({ workspace: JSON.parse(JSON.stringify(PASTED)) }));
    expect(await clipboard.paste("Log-Warning pasted;")).toBe(true);
    expect(client.calls[0]).toMatchObject({ url: "/blocks/", body: { script: "Log-Warning pasted;" } });
    const pasted = first.getNextBlock()!;
    expect([pasted.type, pasted.getFieldValue("MESSAGE")]).toEqual(["otter_log", "pasted"]);
    expect(said).toEqual([["Pasted OtterScript as blocks", "ok"]]);
  });

  test("test_clipboard_paste_of_text_that_does_not_parse_says_where", async () => {
    const refused = new ApiError(400, {
      detail: "does not parse",
      diagnostics: [{ line: 1, column: 5, end_line: 1, end_column: 6, severity: "error", message: "expected ;", code: "syntax" }],
    });
    const { clipboard, workspace, said } = page(() => Promise.reject(refused));
    expect(await clipboard.paste("Log x")).toBe(false);
    expect(workspace.getAllBlocks(false)).toHaveLength(1);
    expect(said).toEqual([["Not pasted: line 1, column 5: expected ;", "bad"]]);
  });

  test("test_clipboard_menus_copy_a_block_and_paste_the_clipboard", async () => {
    const { clipboard, first, browser, written, workspace } = page((call) =>
      call.url === "/unblocks/" ? { script: "Log-Information first;\n" } : { workspace: JSON.parse(JSON.stringify(PASTED)) },
    );
    useTextClipboard(clipboard);
    const menus = Blockly.ContextMenuRegistry.registry;
    const copy = menus.getItem("otter_copy_text")!;
    const paste = menus.getItem("otter_paste_text")!;
    await (copy.callback as (scope: object) => void)({ block: first });
    await eventsFired();
    expect(written).toEqual(["Log-Information first;\n"]);
    browser.text = "Log-Warning pasted;";
    (paste.callback as (scope: object) => void)({ workspace });
    await eventsFired();
    expect(first.getNextBlock()?.getFieldValue("MESSAGE")).toBe("pasted");
    const readOnly = { isReadOnly: () => true };
    expect((paste.preconditionFn as (scope: object) => string)({ workspace: readOnly })).toBe("hidden");
  });

  test("test_clipboard_menus_act_through_the_clipboard_of_the_workspace_they_act_in", async () => {
    const one = page(() => ({ script: "Log-Information first;\n" }));
    const other = page(() => ({ script: "Log-Information other;\n" }));
    useTextClipboard(one.clipboard);
    useTextClipboard(other.clipboard);
    const copy = Blockly.ContextMenuRegistry.registry.getItem("otter_copy_text")!;
    await (copy.callback as (scope: object) => void)({ block: other.first });
    await (copy.callback as (scope: object) => void)({ block: one.first });
    await eventsFired();
    expect(other.written).toEqual(["Log-Information other;\n"]);
    expect(one.written).toEqual(["Log-Information first;\n"]);
  });
});

test("test_clipboard_ctrl_v_pastes_text_from_elsewhere_as_blocks", async () => {
  const { clipboard, browser, first, workspace } = page(() => ({ workspace: JSON.parse(JSON.stringify(PASTED)) }));
  useTextClipboard(clipboard);
  const paste = Blockly.ShortcutRegistry.registry.getRegistry()[Blockly.ShortcutItems.names.PASTE];
  expect(paste.preconditionFn!({ isReadOnly: () => true } as never, {} as never)).toBe(false);
  browser.text = "Log-Warning pasted;";
  expect(paste.callback!(workspace as never, new KeyboardEvent("keydown"), paste, {} as never)).toBe(true);
  await eventsFired();
  expect(first.getNextBlock()?.getFieldValue("MESSAGE")).toBe("pasted");
});
