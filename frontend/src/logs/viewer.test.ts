// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { api, type Fetch } from "../api/http";
import type { LogIndex } from "./api";
import type { WireEntry } from "./feed";
import { LogViewer, type WatchOptions } from "./viewer";
import { entry, wireScope } from "./testing";

// A websocket the test speaks for.
class FakeSocket {
  static made: FakeSocket[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((event: { data: string }) => void) | null = null;
  onclose: ((event: { code: number }) => void) | null = null;
  closed = false;
  constructor(readonly url: string) {
    FakeSocket.made.push(this);
  }
  say(message: unknown): void {
    this.onmessage?.({ data: JSON.stringify(message) });
  }
  drop(code = 1006): void {
    this.onclose?.({ code });
  }
  close(): void {
    this.closed = true;
  }
}

interface Server {
  index?: LogIndex;
  /** How many lines, and line n (seqs 1, 2, 3…). */
  count?: number;
  line?: (seq: number) => WireEntry;
}

/** The API as the server would answer, from what the test gives; what was asked. */
function serving(server: Server) {
  const asked: string[] = [];
  const fetcher = vi.fn(async (url: RequestInfo | URL) => {
    const address = new URL(String(url), "http://otter");
    asked.push(address.pathname.replace(/^\/api\/executions\/\d+\/log\//, "") + address.search);
    const parameters = address.searchParams;
    if (address.pathname.endsWith("/index/")) {
      return server.index ? Response.json(server.index) : new Response("<h1>Not found</h1>", { status: 404 });
    }
    if (address.pathname.endsWith("/lines/")) {
      const after = Number(parameters.get("after"));
      const until = Number(parameters.get("until") ?? Infinity);
      const limit = Number(parameters.get("limit"));
      const last = Math.min(until, server.count ?? 0);
      const entries: WireEntry[] = [];
      for (let seq = after + 1; seq <= last && entries.length < limit; seq++) entries.push(server.line!(seq));
      const next = last > after + limit ? entries[entries.length - 1].seq : null;
      return Response.json({ entries, next });
    }
    return new Response("{}", { status: 404 });
  });
  return { fetcher, asked };
}

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
};

function mount({ fetcher, ...options }: Partial<WatchOptions> & { fetcher?: Fetch } = {}): LogViewer {
  const root = document.getElementById("log")!;
  const viewer = new LogViewer({
    root,
    execution: 7,
    client: api("", fetcher ?? (async () => new Response("{}", { status: 404 }))),
    connect: (url) => new FakeSocket(url) as unknown as WebSocket,
    viewport: () => 400, // 20 rows
    frame: (draw) => draw(),
    retry: 1,
    ...options,
  });
  void viewer.start();
  return viewer;
}

const root = () => document.getElementById("log")!;
const seqsShown = () => [...root().querySelectorAll<HTMLElement>(".log-line[data-seq]")].map((row) => Number(row.dataset.seq));
const scroller = () => root().querySelector<HTMLElement>(".log-scroller")!;

/** A finished log: `count` lines, every 100th in scope 1 (inside it, scope 2 holds every
 * 100th + 50), every 1000th + 7 an error. Lines are made when asked for. */
function finishedLog(count: number): Server & { index: LogIndex } {
  const scopeOf = (seq: number) => (seq % 100 === 0 ? 1 : seq % 100 === 50 ? 2 : null);
  const line = (seq: number) => entry(seq, scopeOf(seq), seq % 1000 === 7 ? "error" : "information");
  const runs: LogIndex["runs"] = [];
  const own = [0, 0, 0];
  let errors = 0;
  for (let seq = 1; seq <= count; seq++) {
    const scope = scopeOf(seq) ?? 0;
    own[scope]++;
    if (seq % 1000 === 7) errors++;
    const last = runs[runs.length - 1];
    if (last && last[0] === scope) {
      last[2] = seq;
      last[3]++;
    } else runs.push([scope, seq, seq, 1]);
  }
  const index: LogIndex = {
    execution: 7,
    run_state: "completed",
    status: "error",
    outcome: "error",
    last_seq: count,
    lines: count,
    warnings: 0,
    errors,
    scopes: [
      { ...wireScope(1, null, 0, { ended: "2026-05-12T12:10:00Z" }), lines: own[1], warnings: 0, errors: 0 },
      { ...wireScope(2, 1, 0, { ended: "2026-05-12T12:10:00Z" }), lines: own[2], warnings: 0, errors: 0 },
    ],
    runs,
  };
  return { index, count, line };
}

beforeEach(() => {
  FakeSocket.made = [];
  document.body.innerHTML = '<div id="log"></div>';
  history.replaceState(null, "", "/executions/7/");
});

afterEach(() => {
  vi.useRealTimers();
});

describe("LogViewer", () => {
  test("test_log_viewer_draws_a_live_log_following_its_tail_until_scrolled_up", async () => {
    const { fetcher } = serving({}); // a server without the index: the websocket from the start
    const viewer = mount({ fetcher });
    await settle();
    const socket = FakeSocket.made[0];
    expect(socket.url).toMatch(/\/ws\/executions\/7\/\?after=0$/);
    socket.onopen?.();
    expect(root().dataset.connection).toBe("live");
    socket.say({ type: "scope", scopes: [wireScope(1, null, 0, { name: "Deploy" })] });
    socket.say({ type: "log", entries: Array.from({ length: 300 }, (_, i) => entry(i + 1, i % 2 ? 1 : null, i === 150 ? "warning" : "information")) });
    expect(viewer.following).toBe(true);
    expect(root().querySelector("#log-follow")!.getAttribute("aria-pressed")).toBe("true");
    expect(seqsShown().at(-1)).toBe(299); // the last row: scope 1's last line
    expect(root().querySelectorAll(".log-line, .log-scope").length).toBeLessThanOrEqual(20 + 2 * 8);
    expect(root().dataset.ready).toBe("true");
    const header = root().querySelector<HTMLElement>('.log-scope[data-scope="1"]');
    expect(header).toBeNull(); // scrolled away: only rows on screen exist

    // the user scrolls up: the tail is no longer followed
    scroller().scrollTop -= 1000;
    scroller().dispatchEvent(new Event("scroll"));
    expect(viewer.following).toBe(false);
    socket.say({ type: "log", entries: [entry(301)] });
    expect(seqsShown()).not.toContain(301);
    // End follows it again
    document.body.dispatchEvent(new KeyboardEvent("keydown", { key: "End", bubbles: true }));
    expect(viewer.following).toBe(true);
    expect(seqsShown().at(-1)).toBe(301);
    socket.say({ type: "complete", last_seq: 301 });
    expect(root().dataset.connection).toBe("complete");
    expect(viewer.done).toBe(true);
  });

  test("test_log_viewer_shows_scope_headers_with_counts_and_collapses_them", async () => {
    const { fetcher } = serving({});
    mount({ fetcher });
    await settle();
    const socket = FakeSocket.made[0];
    socket.say({ type: "scope", scopes: [wireScope(1, null, 0, { name: "Deploy" }), wireScope(2, 1, 0, { name: "Check" })] });
    socket.say({ type: "log", entries: [entry(1, 2, "warning"), entry(2, 2, "error"), entry(3, 1), entry(4, null)] });
    socket.say({ type: "scope", scopes: [wireScope(2, 1, 0, { name: "Check", status: "error", ended: "2026-05-12T12:00:02.5Z" })] });
    const deploy = root().querySelector<HTMLElement>('.log-scope[data-scope="1"]')!;
    expect(deploy.getAttribute("aria-expanded")).toBe("true");
    expect(deploy.querySelector(".log-scope-counts")!.textContent).toBe("3 lines · 1 warning · 1 error");
    expect(deploy.classList.contains("has-errors")).toBe(true);
    const check = root().querySelector<HTMLElement>('.log-scope[data-scope="2"]')!;
    expect(check.querySelector(".log-scope-status")!.textContent).toBe("error");
    expect(check.querySelector(".log-scope-duration")!.textContent).toBe("2.5 s");
    expect(root().querySelector('.log-line[data-seq="1"]')!.classList.contains("level-warning")).toBe(true);
    expect(seqsShown()).toEqual([1, 2, 3, 4]);
    deploy.querySelector<HTMLElement>(".log-toggle")!.click();
    expect(root().querySelector('.log-scope[data-scope="1"]')!.getAttribute("aria-expanded")).toBe("false");
    expect(seqsShown()).toEqual([4]);
    root().querySelector<HTMLElement>("#log-expand-all")!.click();
    expect(seqsShown()).toEqual([1, 2, 3, 4]);
    root().querySelector<HTMLElement>("#log-collapse-all")!.click();
    expect(root().querySelectorAll(".log-scope").length).toBe(1);
  });

  test("test_log_viewer_of_a_finished_execution_fetches_only_the_lines_on_screen", async () => {
    const { fetcher, asked } = serving(finishedLog(1_000_000));
    const viewer = mount({ fetcher });
    await settle();
    expect(FakeSocket.made).toEqual([]); // finished: no websocket
    expect(root().dataset.connection).toBe("complete");
    expect(asked[0]).toBe("index/");
    // scope 1 opened first: its lines (every 100th, scope 2's every 100th + 50) come first, so
    // the lines on screen are spread over the first few thousand seqs: one request for them
    expect(asked.length).toBe(2);
    expect(asked[1]).toMatch(/^lines\/\?after=0&limit=(\d+)&until=\1$/);
    expect(Number(/limit=(\d+)/.exec(asked[1])![1])).toBeLessThanOrEqual(10_000);
    expect(root().dataset.ready).toBe("true");
    expect([...root().querySelectorAll(".log-rows > *")].slice(0, 3).map((row) => row.className.split(" ")[0])).toEqual(["log-scope", "log-scope", "log-line"]);
    expect(seqsShown().slice(0, 3)).toEqual([50, 150, 250]);
    expect(root().querySelector('.log-line[data-seq="50"] .log-text')!.textContent).toBe("line 50");
    expect(viewer.store.size).toBeLessThanOrEqual(10_000);
    // far down: only what is on screen there
    const before = asked.length;
    viewer.window.scrollToRow(viewer.layout.rowOfSeq(600_001), "top");
    await settle();
    expect(asked.length).toBe(before); // a jump: fetched once the scrolling pauses
    await new Promise((resolve) => setTimeout(resolve, 100));
    await settle();
    expect(asked.length).toBe(before + 1);
    expect(asked.at(-1)).toMatch(/^lines\/\?after=599\d{3}&limit=1024&until=60\d{4}$/);
    expect(root().querySelector('.log-line[data-seq="600001"] .log-text')!.textContent).toBe("line 600001");
    expect(viewer.store.size).toBeLessThanOrEqual(10_000 + 1024);
    expect(viewer.model.lines).toBe(1_000_000);
  });

  test("test_log_viewer_compact_has_rows_only_and_links_the_execution_page", async () => {
    const viewer = mount({ compact: true, fetcher: serving({}).fetcher });
    await settle();
    expect(FakeSocket.made[0].url).toMatch(/\?after=0$/); // a new run: no index asked for
    FakeSocket.made[0].say({ type: "log", entries: Array.from({ length: 100 }, (_, i) => entry(i + 1)) });
    expect(root().querySelector("#log-search")).toBeNull();
    expect(root().classList.contains("log-compact")).toBe(true);
    expect(viewer.following).toBe(true);
    expect(root().querySelector('.log-line[data-seq="100"] a')!.getAttribute("href")).toBe("/executions/7/#seq-100");
    // scrolled up it stops following, scrolled back to the end it follows again
    root().scrollTop -= 500;
    root().dispatchEvent(new Event("scroll"));
    expect(viewer.following).toBe(false);
    root().scrollTop += 500;
    root().dispatchEvent(new Event("scroll"));
    expect(viewer.following).toBe(true);
  });

  test("test_log_viewer_of_a_long_running_log_starts_from_the_index_and_goes_on_live", async () => {
    const log = finishedLog(250_000); // more than the browser holds live
    log.index.run_state = "executing";
    const { fetcher, asked } = serving(log);
    const viewer = mount({ fetcher });
    await settle();
    const socket = FakeSocket.made[0];
    expect(socket.url).toMatch(/\?after=250000$/); // the tail only
    expect(viewer.following).toBe(true);
    expect(asked.filter((request) => request.startsWith("lines/")).length).toBe(1); // the screen at the end
    expect(seqsShown().at(-1)).toBe(249_999);
    socket.say({ type: "log", entries: [entry(250_001), entry(250_002, null, "information", "needle")] });
    expect(seqsShown().at(-1)).toBe(250_002);
    expect(viewer.model.lines).toBe(250_002);
    // search: on the server (the browser does not hold every line), and here for what comes
    const input = root().querySelector<HTMLInputElement>("#log-search")!;
    input.value = "needle";
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    await settle();
    expect(root().dataset.search).toBe("server");
    expect(asked.some((request) => request.startsWith("search/?q=needle"))).toBe(true);
  });

  test("test_log_viewer_says_a_run_ended_since_the_page_was_made", async () => {
    const onStatus = vi.fn();
    const onComplete = vi.fn();
    mount({ fetcher: serving(finishedLog(10)).fetcher, onStatus, onComplete });
    await settle();
    expect(onStatus).toHaveBeenCalledWith({ runState: "completed", state: "Completed", outcome: "error", label: "Error" });
    expect(onComplete).toHaveBeenCalledOnce();
    expect(FakeSocket.made).toEqual([]);
  });

  test("test_log_viewer_opens_a_permalink_at_its_line_with_its_scopes_expanded", async () => {
    history.replaceState(null, "", "/executions/7/#seq-5050");
    const { fetcher } = serving(finishedLog(10_000));
    const viewer = mount({ fetcher });
    await settle();
    const target = root().querySelector<HTMLElement>('.log-line[data-seq="5050"]')!;
    expect(target.classList.contains("target")).toBe(true);
    expect(target.getAttribute("aria-level")).toBe("3"); // in scope 2, in scope 1
    const [first, last] = viewer.window.visible();
    expect(viewer.layout.rowOfSeq(5050)).toBeGreaterThanOrEqual(first);
    expect(viewer.layout.rowOfSeq(5050)).toBeLessThanOrEqual(last);
    expect(viewer.following).toBe(false);
    // a click on another line's number is a permalink too
    history.replaceState(null, "", "/executions/7/#seq-9000");
    window.dispatchEvent(new HashChangeEvent("hashchange"));
    await settle();
    expect(root().querySelector('.log-line[data-seq="9000"]')!.classList.contains("target")).toBe(true);
  });

  test("test_log_viewer_reconnects_after_the_last_seq_and_repeats_nothing", async () => {
    const { fetcher } = serving({});
    const viewer = mount({ fetcher });
    await settle();
    FakeSocket.made[0].say({ type: "log", entries: Array.from({ length: 50 }, (_, i) => entry(i + 1)) });
    FakeSocket.made[0].drop();
    expect(root().dataset.connection).toBe("reconnecting");
    await new Promise((resolve) => setTimeout(resolve, 5));
    const again = FakeSocket.made[1];
    expect(again.url).toMatch(/\?after=50$/);
    again.say({ type: "log", entries: Array.from({ length: 20 }, (_, i) => entry(i + 41)) }); // 41-60, some again
    expect(root().dataset.connection).toBe("live");
    expect(viewer.model.lines).toBe(60);
    expect(viewer.layout.rowCount).toBe(60);
    expect(seqsShown().at(-1)).toBe(60);
    FakeSocket.made[1].drop(4403);
    expect(root().dataset.connection).toBe("refused");
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(FakeSocket.made.length).toBe(2); // a refusal is not retried
  });

  test("test_log_viewer_searches_while_lines_arrive_and_marks_the_matches", async () => {
    const { fetcher } = serving({});
    const viewer = mount({ fetcher });
    await settle();
    const socket = FakeSocket.made[0];
    socket.say({ type: "log", entries: Array.from({ length: 40 }, (_, i) => entry(i + 1, null, "information", i % 10 === 3 ? `disk full on web-${i}` : `ok ${i}`)) });
    root().querySelector<HTMLElement>("#log-follow")!.click(); // stop following
    viewer.window.scrollToRow(0, "top");
    const input = root().querySelector<HTMLInputElement>("#log-search")!;
    input.value = "DISK";
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    await settle();
    const count = root().querySelector("#log-match-count")!;
    expect(count.textContent).toBe("1 of 4");
    expect(root().dataset.search).toBe("browser");
    const current = root().querySelector<HTMLElement>(".current-match")!;
    expect(current.dataset.seq).toBe("4");
    expect(current.querySelector("mark")!.textContent).toBe("disk");
    const marked = [...root().querySelectorAll<HTMLElement>(".log-line.match")];
    expect(marked.length).toBeGreaterThanOrEqual(2); // 4, 14… on screen
    for (const row of marked) expect(row.querySelector("mark")!.textContent).toBe("disk");
    expect(root().querySelectorAll(".log-line:not(.match) mark").length).toBe(0);
    socket.say({ type: "log", entries: [entry(41, null, "information", "disk again")] });
    expect(count.textContent).toBe("1 of 5");
    root().querySelector<HTMLElement>("#log-match-prev")!.click();
    await settle();
    expect(count.textContent).toBe("5 of 5");
    expect(root().querySelector(".current-match")!.getAttribute("data-seq")).toBe("41");
    // errors and warnings: the level filter alone
    const level = root().querySelector<HTMLSelectElement>("#log-level")!;
    input.value = "";
    level.value = "warning";
    level.dispatchEvent(new Event("change"));
    await settle();
    expect(count.textContent).toBe("no matches");
  });

  test("test_log_viewer_search_typed_goes_to_the_first_match_unless_following_the_tail", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { fetcher } = serving({});
    const viewer = mount({ fetcher });
    await vi.advanceTimersByTimeAsync(10);
    const socket = FakeSocket.made[0];
    socket.say({ type: "log", entries: Array.from({ length: 100 }, (_, i) => entry(i + 1)) });
    const input = root().querySelector<HTMLInputElement>("#log-search")!;
    const count = root().querySelector("#log-match-count")!;
    // following: the matches are counted and marked, the view stays at the tail
    input.value = "needle";
    input.dispatchEvent(new Event("input"));
    await vi.advanceTimersByTimeAsync(200);
    socket.say({ type: "log", entries: [entry(101, null, "information", "a needle"), entry(102)] });
    await vi.advanceTimersByTimeAsync(10);
    expect(viewer.following).toBe(true);
    expect(count.textContent).toBe("1 match");
    expect(root().querySelector('.log-line.match[data-seq="101"] mark')!.textContent).toBe("needle");
    // paused, a search goes to its first match below the top of the screen, even one to come
    root().querySelector<HTMLElement>("#log-follow")!.click();
    viewer.window.scrollToRow(0, "top");
    input.value = "haystack";
    input.dispatchEvent(new Event("input"));
    await vi.advanceTimersByTimeAsync(200);
    expect(count.textContent).toBe("no matches");
    socket.say({ type: "log", entries: Array.from({ length: 30 }, (_, i) => entry(103 + i, null, "information", i === 20 ? "haystack" : "hay")) });
    await vi.advanceTimersByTimeAsync(10);
    expect(count.textContent).toBe("1 of 1");
    expect(root().querySelector(".current-match")!.getAttribute("data-seq")).toBe("123");
  });

  test("test_log_viewer_goes_to_the_first_error_and_the_next_problem", async () => {
    const { fetcher } = serving(finishedLog(5000));
    // the server's search for errors and warnings
    const searching = vi.fn(async (url: RequestInfo | URL) => {
      const address = new URL(String(url), "http://otter");
      if (!address.pathname.endsWith("/search/")) return fetcher(url);
      const after = Number(address.searchParams.get("after"));
      const seqs = Array.from({ length: 5 }, (_, i) => i * 1000 + 7).filter((seq) => seq > after);
      return Response.json({ total: seqs.length, seqs, next: null });
    });
    const viewer = mount({ fetcher: searching });
    await settle();
    root().querySelector<HTMLElement>("#log-first-error")!.click();
    await settle();
    expect(viewer.target).toBe(7);
    expect(location.hash).toBe("#seq-7");
    root().querySelector<HTMLElement>("#log-next-problem")!.click();
    await settle();
    expect(viewer.target).toBe(1007);
    expect(root().querySelector('.log-line[data-seq="1007"]')!.classList.contains("target")).toBe(true);
    root().querySelector<HTMLElement>("#log-prev-problem")!.click();
    await settle();
    expect(viewer.target).toBe(7);
  });
});
