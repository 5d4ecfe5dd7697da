import { describe, expect, test } from "vitest";
import { Layout } from "./layout";
import { LogModel } from "./model";
import { entry, indexOf, plainRows, type Story, story, wireScope } from "./testing";

function told(events: Story["events"]): LogModel {
  const model = new LogModel();
  for (const event of events) {
    if ("scope" in event) model.scope(event.scope);
    else model.append(event.entries);
  }
  return model;
}

function watched(model: LogModel): Layout {
  const layout = new Layout(model);
  model.onChange = (ids) => layout.invalidate(ids);
  return layout;
}

/** Every row as plainRows writes it. */
function rowsOf(layout: Layout): string[] {
  const rows: string[] = [];
  for (let row = 0; row < layout.rowCount; row++) {
    const at = layout.rowAt(row);
    rows.push("  ".repeat(at.depth) + (at.kind === "scope" ? `scope ${at.scope.id}` : String(at.seq)));
  }
  return rows;
}

describe("Layout", () => {
  test("test_layout_shows_lines_and_scopes_in_the_order_they_happened", () => {
    const model = told([
      { entries: [entry(1)] },
      { scope: wireScope(1, null, 1) },
      { entries: [entry(2, 1)] },
      { scope: wireScope(2, 1, 2) },
      { entries: [entry(3, 2), entry(4, 1), entry(5)] },
    ]);
    expect(rowsOf(watched(model))).toEqual(["1", "scope 1", "  2", "  scope 2", "    3", "  4", "5"]);
  });

  test("test_layout_of_a_random_log_matches_the_plain_way_and_maps_rows_and_seqs_both_ways", () => {
    const log = story(3000, 3);
    const layout = watched(told(log.events));
    expect(rowsOf(layout)).toEqual(plainRows(log.scopes, log.entries));
    for (let row = 0; row < layout.rowCount; row++) {
      const at = layout.rowAt(row);
      if (at.kind === "line") expect(layout.rowOfSeq(at.seq)).toBe(row);
      else expect(layout.rowOfScope(at.scope.id)).toBe(row);
    }
  });

  test("test_layout_keeps_up_as_lines_arrive_in_parallel_scopes", () => {
    const log = story(2000, 11);
    const model = new LogModel();
    const layout = watched(model);
    const seen = { scopes: [] as typeof log.scopes, entries: [] as typeof log.entries };
    log.events.forEach((event, n) => {
      if ("scope" in event) {
        model.scope(event.scope);
        seen.scopes.push(event.scope);
      } else {
        model.append(event.entries);
        seen.entries.push(...event.entries);
      }
      layout.rowAt(0); // placed, then changed by the next event
      if (n % 37 === 0) expect(rowsOf(layout)).toEqual(plainRows(seen.scopes, seen.entries));
    });
    expect(rowsOf(layout)).toEqual(plainRows(log.scopes, log.entries));
    expect(layout.rowCount).toBe(log.scopes.length + log.entries.length);
  });

  test("test_layout_collapses_and_expands_one_scope_or_all", () => {
    const log = story(1500, 5);
    const layout = watched(told(log.events));
    const all = layout.rowCount;
    const [first, second] = log.scopes;
    layout.setExpanded(first.scope_id, false);
    expect(layout.isExpanded(first.scope_id)).toBe(false);
    expect(rowsOf(layout)).toEqual(plainRows(log.scopes, log.entries, new Set([first.scope_id])));
    const hidden = log.entries.find((e) => e.scope_id === first.scope_id)!;
    expect(layout.rowOfSeq(hidden.seq)).toBe(-1);
    layout.setExpanded(second.scope_id, false);
    expect(rowsOf(layout)).toEqual(plainRows(log.scopes, log.entries, new Set([first.scope_id, second.scope_id])));

    layout.collapseAll();
    const tops = log.scopes.filter((s) => s.parent_id === null).length;
    const topLines = log.entries.filter((e) => e.scope_id === null).length;
    expect(layout.rowCount).toBe(tops + topLines);
    expect(layout.reveal(hidden.seq)).toBe(true); // a permalink opens its scopes
    expect(layout.rowAt(layout.rowOfSeq(hidden.seq))).toMatchObject({ kind: "line", seq: hidden.seq });
    expect(layout.reveal(hidden.seq)).toBe(false);
    layout.expandAll();
    expect(layout.rowCount).toBe(all);
  });

  test("test_layout_of_a_million_line_index_finds_rows_and_seqs", () => {
    // 1,000,000 lines in 2,000 scopes, nested four deep, each scope's lines in two runs
    const scopes = [];
    const runs: [number, number, number, number][] = [];
    let seq = 0;
    for (let id = 1; id <= 2000; id++) {
      const parent = id % 4 === 1 ? null : id - 1;
      scopes.push({ ...wireScope(id, parent, seq), lines: 500, warnings: 0, errors: 0 });
      runs.push([id, seq + 1, seq + 250, 250]);
      runs.push([0, seq + 251, seq + 251, 1]);
      runs.push([id, seq + 252, seq + 501, 250]);
      seq += 501;
    }
    const index = { ...indexOf({ events: [], scopes: [], entries: [] }), scopes, runs, last_seq: seq, lines: seq };
    const model = new LogModel();
    model.loadIndex(index);
    const layout = watched(model);
    expect(model.lines).toBe(1_002_000);
    expect(layout.rowCount).toBe(1_002_000 + 2000);
    const last = layout.rowAt(layout.rowCount - 1);
    expect(last).toMatchObject({ kind: "line", seq: 1999 * 501 + 251, depth: 0 }); // the last top-level line
    for (const probe of [1, 251, 252, 500_000, seq]) expect(layout.rowAt(layout.rowOfSeq(probe))).toMatchObject({ seq: probe });
    layout.collapseAll();
    expect(layout.rowCount).toBe(500 + 2000); // the top-level scopes and the top-level lines
  });
});
