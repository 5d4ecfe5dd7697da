import { describe, expect, test, vi } from "vitest";
import { api } from "../api/http";
import { LogApi } from "./api";
import { LineStore } from "./cache";
import { COPY_MAX_LINES, CopyRefused, lineText, scopeText } from "./copy";
import { LogModel } from "./model";
import { entry, wireScope } from "./testing";

function deploy() {
  const model = new LogModel();
  const store = new LineStore(1000);
  model.scope(wireScope(1, null, 0, { name: "Deploy", status: "warning", ended: "2026-05-12T12:00:02.5Z" }));
  model.append([entry(1, 1, "information", "starting")]);
  model.scope(wireScope(2, 1, 1, { name: "Check", status: "warning", ended: "2026-05-12T12:00:01Z" }));
  const lines = [entry(2, 2, "warning", "disk almost full\nonly 2% left"), entry(3, null, "information", "elsewhere"), entry(4, 1, "information", "done")];
  store.put([...model.append(lines), entry(1, 1, "information", "starting")]);
  return { model, store };
}

describe("copy", () => {
  test("test_line_text_is_the_downloads_format_with_the_scope_path", () => {
    expect(lineText(entry(2, 2, "warning", "disk almost full\nonly 2% left"), "Deploy / Check")).toBe(
      `${entry(2).time} WARNING [Deploy / Check] disk almost full\n    only 2% left`,
    );
    expect(lineText(entry(3, null, "information", "top"), "")).toBe(`${entry(3).time} INFORMATION top`);
  });

  test("test_scope_text_has_its_header_and_its_descendants_lines_in_order", async () => {
    const { model, store } = deploy();
    const text = await scopeText(model, store, null, 1);
    expect(text.split("\n")).toEqual([
      "Deploy · warning · 2.5 s · 3 lines · 1 warning",
      `${entry(1).time} INFORMATION [Deploy] starting`,
      `${entry(2).time} WARNING [Deploy / Check] disk almost full`,
      "    only 2% left",
      `${entry(4).time} INFORMATION [Deploy] done`,
      "",
    ]);
  });

  test("test_scope_text_fetches_the_lines_the_browser_does_not_hold", async () => {
    const { model } = deploy();
    const empty = new LineStore(1000);
    empty.holdsAll = false;
    const all = [entry(1, 1, "information", "starting"), entry(2, 2, "warning", "w"), entry(3), entry(4, 1, "information", "done")];
    const fetcher = vi.fn(async () => Response.json({ entries: all, next: null }));
    const text = await scopeText(model, empty, new LogApi(3, api("", fetcher)), 2);
    expect(String((fetcher.mock.calls[0] as unknown[])[0])).toBe("/api/executions/3/log/lines/?after=1&limit=10000&until=2");
    expect(text).toBe(`Deploy / Check · warning · 1.0 s · 1 line · 1 warning\n${entry(2).time} WARNING [Deploy / Check] w\n`);
  });

  test("test_scope_text_of_too_many_lines_is_refused", async () => {
    const model = new LogModel();
    model.scope(wireScope(1, null, 0, { name: "Huge" }));
    model.append(Array.from({ length: COPY_MAX_LINES + 1 }, (_, i) => entry(i + 1, 1)));
    await expect(scopeText(model, new LineStore(10), null, 1)).rejects.toThrow(CopyRefused);
  });
});
