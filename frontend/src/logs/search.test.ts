import { describe, expect, test, vi } from "vitest";
import { api } from "../api/http";
import { LogApi } from "./api";
import { LineStore } from "./cache";
import { LogModel } from "./model";
import { compile, emptyQuery, problems, Search } from "./search";
import { entry, wireScope } from "./testing";

const query = (extra: Partial<ReturnType<typeof emptyQuery>>) => ({ ...emptyQuery(), ...extra });
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

/** A live log held in the browser: scope 1 with scope 2 inside, lines 1-10 and more. */
function held(count = 10) {
  const model = new LogModel();
  const store = new LineStore(1000);
  model.scope(wireScope(1, null, 0));
  model.scope(wireScope(2, 1, 0));
  const lines = Array.from({ length: count }, (_, i) => {
    const seq = i + 1;
    const level = seq % 5 === 0 ? "error" : seq % 3 === 0 ? "warning" : "information";
    return entry(seq, seq % 2 ? 1 : 2, level, seq % 4 === 0 ? `Disk FULL on web-${seq}` : `step ${seq} ok`);
  });
  store.put(model.append(lines));
  return { model, store };
}

/** A LogApi whose search answers from `seqs` (a page at a time), remembering what it was asked. */
function searchingApi(seqs: number[], lastSeq?: number) {
  const asked: URLSearchParams[] = [];
  const fetcher = vi.fn(async (url: RequestInfo | URL) => {
    const parameters = new URL(String(url), "http://otter").searchParams;
    asked.push(parameters);
    const after = Number(parameters.get("after"));
    const limit = Number(parameters.get("limit"));
    const rest = seqs.filter((seq) => seq > after);
    const page = rest.slice(0, limit);
    const body = { total: seqs.length, seqs: page, next: rest.length > limit ? page[page.length - 1] : null, ...(lastSeq ? { last_seq: lastSeq } : {}) };
    return new Response(JSON.stringify(body), { status: 200 });
  });
  return { api: new LogApi(7, api("", fetcher)), asked, fetcher };
}

describe("compile", () => {
  const subtree = (scope: number) => (scope === 1 ? new Set([1, 2]) : new Set([scope]));

  test("test_compile_finds_text_whatever_its_case_and_marks_each_place", () => {
    const matcher = compile(query({ q: "full" }), subtree);
    if (typeof matcher === "string") throw new Error(matcher);
    expect(matcher.test(entry(1, null, "information", "Disk FULL, full"))).toBe(true);
    expect(matcher.test(entry(1, null, "information", "fine"))).toBe(false);
    expect(matcher.ranges("Disk FULL, full")).toEqual([
      [5, 9],
      [11, 15],
    ]);
    const exact = compile(query({ q: "full", caseSensitive: true }), subtree);
    expect(typeof exact !== "string" && exact.ranges("Disk FULL, full")).toEqual([[11, 15]]);
  });

  test("test_compile_takes_a_regular_expression_or_says_why_not", () => {
    const matcher = compile(query({ q: "web-\\d+", regex: true }), subtree);
    if (typeof matcher === "string") throw new Error(matcher);
    expect(matcher.ranges("web-12 and web-3")).toEqual([
      [0, 6],
      [11, 16],
    ]);
    const empty = compile(query({ q: "x*", regex: true }), subtree); // matches nothing, everywhere
    expect(typeof empty !== "string" && empty.ranges("axxb")).toEqual([[1, 3]]);
    expect(compile(query({ q: "(unclosed", regex: true }), subtree)).toMatch(/Invalid regular expression/);
  });

  test("test_compile_filters_by_level_and_above_and_by_scope_with_descendants", () => {
    const matcher = compile(query({ minLevel: 2, scope: 1 }), subtree);
    if (typeof matcher === "string") throw new Error(matcher);
    expect(matcher.test(entry(1, 2, "warning"))).toBe(true);
    expect(matcher.test(entry(1, 1, "error"))).toBe(true);
    expect(matcher.test(entry(1, 2, "information"))).toBe(false);
    expect(matcher.test(entry(1, 3, "error"))).toBe(false);
    expect(matcher.test(entry(1, null, "error"))).toBe(false);
  });
});

describe("Search in the browser", () => {
  test("test_search_in_the_browser_counts_moves_and_keeps_up_with_new_lines", async () => {
    const { model, store } = held(10);
    const onChange = vi.fn();
    const search = new Search({ model, store, api: new LogApi(1, api("", vi.fn())), onChange });
    search.set(query({ q: "disk" }));
    await settle();
    expect(search.remote).toBe(false);
    expect(search.describe()).toBe("2 matches"); // 4 and 8
    expect(await search.next(0)).toBe(4);
    expect(search.describe()).toBe("1 of 2");
    expect(await search.next(4)).toBe(8);
    expect(await search.next(8)).toBe(4); // round again
    expect(await search.previous(4)).toBe(8);
    // lines that arrive are searched too
    const fresh = model.append([entry(11, 1, "information", "disk again"), entry(12, null, "information", "nothing")]);
    store.put(fresh);
    search.onLines(fresh);
    expect(search.describe()).toBe("2 of 3");
    expect(await search.next(8)).toBe(11);
    expect(onChange).toHaveBeenCalled();
  });

  test("test_search_in_the_browser_by_level_and_scope_without_text", async () => {
    const { model, store } = held(20);
    const search = new Search({ model, store, api: null, onChange: () => {} });
    search.set(query({ minLevel: 3 })); // errors: 5, 10, 15, 20
    await settle();
    expect(search.matches!.head.view()).toEqual(Int32Array.from([5, 10, 15, 20]));
    search.set(query({ minLevel: 3, scope: 2 })); // scope 2 holds the even seqs
    await settle();
    expect(search.matches!.head.view()).toEqual(Int32Array.from([10, 20]));
    search.set(query({ q: "(", regex: true }));
    expect(search.describe()).toMatch(/Invalid regular expression/);
    search.set(emptyQuery());
    expect(search.active).toBe(false);
  });

  test("test_search_in_the_browser_of_many_lines_runs_in_slices", async () => {
    const model = new LogModel();
    const store = new LineStore(300_000);
    const time = "2026-05-12T12:00:00Z";
    const lines = Array.from({ length: 200_000 }, (_, i) => ({ seq: i + 1, scope_id: null, level: "information", message: i % 1000 === 0 ? "needle" : "hay", line: 1, time }));
    store.put(model.append(lines));
    const changes: string[] = [];
    const search = new Search({ model, store, api: null, onChange: () => changes.push(search.describe()) });
    search.set(query({ q: "needle" }));
    // a first slice at once, the rest after: the count says it is not complete yet
    expect(search.matches!.headDone).toBe(false);
    expect(search.describe()).toMatch(/^\d+\+ match(es)?$|^searching…$/);
    expect(await search.next(0)).toBe(1);
    while (!search.matches!.headDone) await settle();
    expect(search.describe()).toBe("1 of 200");
    expect(await search.previous(1)).toBe(199_001);
    expect(changes.at(-1)).toBe("200 of 200");
  });
});

describe("Search on the server", () => {
  test("test_search_on_the_server_when_the_browser_does_not_hold_every_line", async () => {
    const { model, store } = held(10);
    store.holdsAll = false;
    const matches = Array.from({ length: 1200 }, (_, i) => 2 * i + 1);
    const { api, asked } = searchingApi(matches);
    const search = new Search({ model, store, api, onChange: () => {} });
    search.set(query({ q: "web", regex: true, minLevel: 2, scope: 1 }));
    await settle();
    expect(search.remote).toBe(true);
    expect(Object.fromEntries(asked[0])).toEqual({ q: "web", regex: "1", case: "0", after: "0", limit: "500", levels: "warning,error", scope: "1" });
    expect(search.describe()).toBe("1,200 matches");
    expect(await search.next(0)).toBe(1);
    expect(search.describe()).toBe("1 of 1,200");
    // further pages are fetched as they are needed, bigger
    expect(await search.next(1100)).toBe(1101);
    expect(Object.fromEntries(asked[1])).toMatchObject({ after: "999", limit: "5000" });
    expect(search.describe()).toBe("551 of 1,200");
    // the last one: every page
    expect(await search.previous(1)).toBe(2399);
  });

  test("test_search_on_the_server_adds_the_lines_that_arrive_after_it", async () => {
    const { model, store } = held(10);
    store.holdsAll = false;
    const { api } = searchingApi([4, 8], 10);
    const search = new Search({ model, store, api, onChange: () => {} });
    search.set(query({ q: "disk" }));
    await settle();
    const fresh = model.append([entry(11, 1, "information", "disk 11"), entry(12, 1, "information", "disk 12")]);
    search.onLines(fresh);
    expect(search.describe()).toBe("4 matches");
    expect(await search.next(8)).toBe(11);
    expect(search.describe()).toBe("3 of 4");
  });

  test("test_search_on_the_server_cancels_the_search_a_new_query_replaces", async () => {
    const { model, store } = held(3);
    store.holdsAll = false;
    const signals: AbortSignal[] = [];
    const server = new LogApi(1, api("", async (_url, init) => {
      signals.push(init!.signal!);
      return Response.json({ total: 0, seqs: [], next: null });
    }));
    const search = new Search({ model, store, api: server, onChange: () => {} });
    search.set(query({ q: "c" }));
    search.set(query({ q: "checksum" }));
    await settle();
    expect(signals.map((signal) => signal.aborted)).toEqual([true, false]);
  });

  test("test_search_on_the_server_says_why_it_was_refused", async () => {
    const { model, store } = held(3);
    store.holdsAll = false;
    const refusing = new LogApi(1, api("", async () => new Response(JSON.stringify({ detail: "bad regex: missing )" }), { status: 400 })));
    const search = new Search({ model, store, api: refusing, onChange: () => {} });
    search.set(query({ q: "(", regex: false }));
    await settle();
    expect(search.describe()).toBe("bad regex: missing )");
  });
});

describe("problems", () => {
  test("test_problems_of_a_live_log_are_the_models_own", async () => {
    const { model } = held(10);
    const all = problems(model, null, false);
    expect([await all.after(0), await all.after(3), await all.before(9), await all.after(10)]).toEqual([3, 5, 6, -1]);
    expect(await problems(model, null, true).after(0)).toBe(5);
  });

  test("test_problems_of_a_log_from_the_index_ask_the_server_then_add_live_ones", async () => {
    const model = new LogModel();
    model.loadIndex({ execution: 1, run_state: "executing", status: "normal", outcome: "executing", last_seq: 100, lines: 100, warnings: 1, errors: 1, scopes: [], runs: [[0, 1, 100, 100]] });
    const { api, asked } = searchingApi([40, 90]);
    const list = problems(model, api, false);
    expect(await list.after(0)).toBe(40);
    expect(asked[0].get("levels")).toBe("warning,error");
    expect(asked[0].get("q")).toBe("");
    model.append([entry(101, null, "warning")]);
    expect(await list.after(90)).toBe(101);
    expect(list.total).toBe(3);
  });
});
