// @vitest-environment jsdom
import type { EditorView } from "@codemirror/view";
import { describe, expect, test } from "vitest";
import { ApiError } from "../api/http";
import { ScriptsClient } from "../api/scripts";
import { fakeApi } from "../test/api";
import { editorOf } from "../test/editor";
import { formatter } from "./format";

function page(answer: (script: string, view: EditorView) => unknown, readOnly = false, doc = "Log-Information  hi;") {
  const view = editorOf(doc);
  const said: [string, string | undefined][] = [];
  const client = fakeApi((call) => answer((call.body as { script: string }).script, view));
  const format = formatter(() => view, { scripts: new ScriptsClient(client, { check: "/check/", format: "/format/" }), say: (text, tone) => void said.push([text, tone]), readOnly });
  return { view, said, client, format };
}

describe("Format", () => {
  test("test_format_puts_the_servers_text_in_the_editor_as_a_small_change", async () => {
    const { view, said, format } = page(() => ({ script: "Log-Information hi;" }));
    view.dispatch({ selection: { anchor: 19 } });
    await format();
    expect(view.state.doc.toString()).toBe("Log-Information hi;");
    expect(view.state.selection.main.head).toBe(18); // the cursor after the change stayed with its text
    expect(said).toEqual([["Formatting…", undefined], ["Formatted", "ok"]]);
  });

  test("test_format_of_formatted_text_or_text_changed_meanwhile_changes_nothing", async () => {
    const formatted = page((script) => ({ script }));
    await formatted.format();
    expect(formatted.said.at(-1)).toEqual(["Already formatted", "ok"]);
    const typing = page((_script, view) => {
      view.dispatch({ changes: { from: 0, insert: "# " } });
      return { script: "Log-Information hi;" };
    });
    await typing.format();
    expect(typing.view.state.doc.toString()).toBe("# Log-Information  hi;");
    expect(typing.said.at(-1)).toEqual(["Not formatted: the text changed meanwhile.", "warn"]);
  });

  test("test_format_of_a_script_that_does_not_parse_says_where", async () => {
    const diagnostics = [{ line: 1, column: 17, end_line: 1, end_column: 18, severity: "error", message: "expected ;", code: "syntax" }];
    const broken = page(() => Promise.reject(new ApiError(400, { detail: "does not parse", diagnostics })));
    await broken.format();
    expect(broken.said.at(-1)).toEqual(["Not formatted: line 1, column 17: expected ;", "bad"]);
    const down = page(() => Promise.reject(new TypeError("Failed to fetch")));
    await down.format();
    expect(down.said.at(-1)).toEqual(["Not formatted: the server did not answer.", "warn"]);
  });

  test("test_format_does_nothing_read_only", async () => {
    const { said, client, format } = page(() => ({ script: "x" }), true);
    await format();
    expect([said, client.calls]).toEqual([[], []]);
  });
});
