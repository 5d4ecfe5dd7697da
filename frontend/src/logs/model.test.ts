import { describe, expect, test } from "vitest";
import { LogModel, ROOT } from "./model";
import { entry, indexOf, story, wireScope } from "./testing";

const counts = (model: LogModel, id: number) => {
  const node = model.scopes.get(id)!;
  return { own: { ...node.own }, total: { ...node.total } };
};

describe("LogModel", () => {
  test("test_log_model_puts_lines_in_their_scopes_and_counts_them_with_descendants", () => {
    const model = new LogModel();
    model.scope(wireScope(1, null, 0));
    model.scope(wireScope(2, 1, 1));
    model.append([entry(1, 1), entry(2, 2, "warning"), entry(3, 2, "error"), entry(4, null), entry(5, 1, "error")]);
    expect(model.scopes.get(2)!.parent).toBe(1);
    expect(model.scopes.get(2)!.depth).toBe(2);
    expect(counts(model, 2)).toEqual({ own: { lines: 2, warnings: 1, errors: 1 }, total: { lines: 2, warnings: 1, errors: 1 } });
    expect(counts(model, 1)).toEqual({ own: { lines: 2, warnings: 0, errors: 1 }, total: { lines: 4, warnings: 1, errors: 2 } });
    expect(counts(model, ROOT).total).toEqual({ lines: 5, warnings: 1, errors: 2 });
    expect([...model.problems.view()]).toEqual([2, 3, 5]);
    expect([...model.errors.view()]).toEqual([3, 5]);
    expect([1, 2, 3, 4, 5].map((seq) => model.scopeOf(seq))).toEqual([1, 2, 2, 0, 1]);
    expect([1, 5].map((seq) => model.ordinalOf(seq))).toEqual([0, 1]);
    expect(model.seqAt(model.scopes.get(1)!, 1)).toBe(5);
    expect(model.levelOf(3)).toBe(3);
  });

  test("test_log_model_drops_lines_a_reconnection_sends_again", () => {
    const model = new LogModel();
    expect(model.append([entry(1), entry(2)]).map((e) => e.seq)).toEqual([1, 2]);
    expect(model.append([entry(2), entry(1)])).toEqual([]);
    expect(model.append([entry(2), entry(3)]).map((e) => e.seq)).toEqual([3]);
    expect(model.lines).toBe(3);
    expect(model.runScope.length).toBe(1); // one stretch of top-level lines
    expect([model.runFirst.get(0), model.runLast.get(0), model.runCount.get(0)]).toEqual([1, 3, 3]);
  });

  test("test_log_model_moves_a_scope_whose_lines_came_before_it", () => {
    const model = new LogModel();
    model.scope(wireScope(1, null, 0));
    model.append([entry(1, 1), entry(2, 4, "warning")]);
    const early = model.scopes.get(4)!;
    expect([early.known, early.parent]).toEqual([false, ROOT]); // shown at the top level first
    model.scope(wireScope(4, 1, 1, { name: "late" }));
    expect([early.known, early.parent, early.depth, early.name]).toEqual([true, 1, 2, "late"]);
    expect(model.root.children).toEqual([1]);
    expect(model.scopes.get(1)!.children).toEqual([4]);
    expect(counts(model, 1).total).toEqual({ lines: 2, warnings: 1, errors: 0 });
    expect(counts(model, ROOT).total).toEqual({ lines: 2, warnings: 1, errors: 0 });
  });

  test("test_log_model_places_a_child_after_its_parents_lines_up_to_its_after_seq", () => {
    const model = new LogModel();
    model.scope(wireScope(1, null, 0));
    model.append([entry(1, 1), entry(2, 1)]);
    model.scope(wireScope(2, 1, 2));
    model.scope(wireScope(3, 1, 2));
    model.append([entry(3, 2), entry(4, 1)]);
    // a scope announced before the parent's lines of its batch that were logged before it
    model.scope(wireScope(4, 1, 6));
    model.append([entry(5, 1), entry(6, 1), entry(7, 1)]);
    expect(model.scopes.get(1)!.boundaries).toEqual([2, 2, 5]);
  });

  test("test_log_model_loads_the_index_runs_and_counts", () => {
    const told = story(500, 7);
    const index = indexOf(told);
    const model = new LogModel();
    model.loadIndex(index);
    expect(model.lines).toBe(500);
    expect(model.lastSeq).toBe(told.entries[499].seq);
    expect(model.liveFrom).toBe(model.lastSeq);
    expect(model.root.total.warnings).toBe(index.warnings);
    expect(model.root.total.errors).toBe(index.errors);
    for (const line of told.entries) {
      expect(model.scopeOf(line.seq)).toBe(line.scope_id ?? 0);
      const node = model.scopes.get(line.scope_id ?? 0)!;
      expect(model.seqAt(node, model.ordinalOf(line.seq))).toBe(line.seq);
    }
    // the same tree as the live websocket builds
    const live = new LogModel();
    for (const event of told.events) {
      if ("scope" in event) live.scope(event.scope);
      else live.append(event.entries);
    }
    for (const [id, node] of live.scopes) {
      const loaded = model.scopes.get(id)!;
      expect([loaded.parent, loaded.depth, loaded.children, loaded.boundaries, loaded.total]).toEqual([node.parent, node.depth, node.children, node.boundaries, node.total]);
    }
    expect(model.levelOf(1)).toBe(-1); // the index has no levels; fetched lines bring them
    model.learnLevels([told.entries[0]]);
    expect(model.levelOf(told.entries[0].seq)).toBeGreaterThanOrEqual(0);
  });

  test("test_log_model_learns_the_seqs_of_a_run_with_dropped_lines_as_they_are_fetched", () => {
    const model = new LogModel();
    // seqs 1-3 stored, 4-9 dropped (the volume limit), then errors 10 and 12
    const index = indexOf({ events: [], scopes: [], entries: [entry(1), entry(2), entry(3), entry(10, null, "error"), entry(12, null, "error")] });
    index.runs = [[0, 1, 12, 5]];
    model.loadIndex(index);
    const root = model.root;
    expect([0, 1, 4].map((ordinal) => model.seqAt(root, ordinal))).toEqual([1, -1, 12]); // a run's ends are lines
    expect([1, 12, 10].map((seq) => model.ordinalOf(seq))).toEqual([0, 4, -1]);
    expect(model.unresolved(root, 3)).toEqual({ run: 0, after: 0, until: 12, needed: 4 });
    expect(model.scopeOf(5)).toBe(0); // not known yet: maybe a line
    model.resolve(0, [entry(1), entry(2), entry(3), entry(10, null, "error")]);
    expect(model.scopeOf(5)).toBe(-1); // before the last seq learned, and not one of them
    expect([0, 1, 2, 3, 4].map((ordinal) => model.seqAt(root, ordinal))).toEqual([1, 2, 3, 10, 12]);
    expect(model.unresolved(root, 4)).toBeNull(); // the run's last line
    model.resolve(0, [entry(12, null, "error")]);
    expect(model.ordinalOf(12)).toBe(4);
    expect(model.scopeOf(11)).toBe(-1); // a dropped seq is no line
    expect(model.scopeOf(5)).toBe(-1);
  });

  test("test_log_model_seq_range_and_subtree_cover_descendants", () => {
    const model = new LogModel();
    model.scope(wireScope(1, null, 0));
    model.scope(wireScope(2, 1, 0));
    model.scope(wireScope(3, null, 0));
    model.append([entry(1, 3), entry(2, 2), entry(3, 1), entry(4, 2), entry(5, 3)]);
    expect([...model.subtree(1)].sort()).toEqual([1, 2]);
    expect(model.seqRange(1)).toEqual([2, 4]);
    expect(model.seqRange(3)).toEqual([1, 5]);
    expect(model.path(2).map((node) => node.id)).toEqual([1, 2]);
  });
});
