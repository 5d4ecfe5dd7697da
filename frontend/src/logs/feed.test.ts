import { describe, expect, test } from "vitest";
import { LogFeed, type LogRenderer, scopeTitle, socketUrl, statusView, type WireEntry, type WireScope } from "./feed";

// a renderer that writes down what it is asked to draw: a scope is "scope:<id>", a line its text
function recorder() {
  const calls: string[] = [];
  const renderer: LogRenderer<string, string> = {
    openScope: (scope, parent) => {
      calls.push(`open ${scope.scope_id} in ${parent ?? "root"}`);
      return `scope:${scope.scope_id}`;
    },
    updateScope: (drawn, scope) => calls.push(`title ${drawn}: ${scopeTitle(scope)}`),
    line: (entry, parent) => {
      calls.push(`line ${entry.message} in ${parent ?? "root"}`);
      return entry.message;
    },
    move: (line, into) => calls.push(`move ${line} to ${into}`),
  };
  return { calls, renderer };
}

const entry = (seq: number, message: string, scope: number | null = null): WireEntry => ({
  seq,
  scope_id: scope,
  level: "information",
  message,
  line: 1,
  time: `2026-05-12T12:00:0${seq}Z`,
});

const scope = (id: number, parent: number | null, ended: string | null = null, status = "normal"): WireScope => ({
  scope_id: id,
  parent_id: parent,
  name: `scope ${id}`,
  line: 1,
  status,
  started: "2026-05-12T12:00:00Z",
  ended,
});

describe("LogFeed", () => {
  test("test_log_feed_draws_scopes_nested_and_lines_in_their_scope", () => {
    const { calls, renderer } = recorder();
    const feed = new LogFeed(renderer);
    feed.scope(scope(1, null));
    feed.scope(scope(2, 1));
    expect(feed.entries([entry(1, "top"), entry(2, "inner", 2)])).toBe(true);
    expect(calls).toEqual([
      "open 1 in root",
      "title scope:1: scope 1 · running",
      "open 2 in scope:1",
      "title scope:2: scope 2 · running",
      "line top in root",
      "line inner in scope:2",
    ]);
    expect(feed.lastSeq).toBe(2);
  });

  test("test_log_feed_drops_lines_already_drawn_when_a_reconnection_sends_them_again", () => {
    const { calls, renderer } = recorder();
    const feed = new LogFeed(renderer);
    feed.entries([entry(1, "one"), entry(2, "two")]);
    expect(feed.entries([entry(2, "two"), entry(1, "one")])).toBe(false);
    feed.entries([entry(2, "two"), entry(3, "three")]);
    expect(calls).toEqual(["line one in root", "line two in root", "line three in root"]);
  });

  test("test_log_feed_moves_a_line_into_its_scope_when_the_scope_comes_after_it", () => {
    const { calls, renderer } = recorder();
    const feed = new LogFeed(renderer);
    feed.entries([entry(1, "early", 4)]);
    feed.scope(scope(4, null));
    feed.scope(scope(4, null, "2026-05-12T12:00:02.5Z", "error")); // ended: only its title changes
    expect(calls).toEqual([
      "line early in root",
      "open 4 in root",
      "move early to scope:4",
      "title scope:4: scope 4 · running",
      "title scope:4: scope 4 · error · 2.5 s",
    ]);
  });
});

describe("scopeTitle", () => {
  test("test_scope_title_says_running_then_how_long_and_a_status_other_than_normal", () => {
    expect(scopeTitle(scope(1, null))).toBe("scope 1 · running");
    expect(scopeTitle(scope(1, null, "2026-05-12T12:00:01.25Z"))).toBe("scope 1 · 1.3 s");
    expect(scopeTitle(scope(1, null, "2026-05-12T12:01:00Z", "warning"))).toBe("scope 1 · warning · 60.0 s");
  });
});

describe("statusView", () => {
  test("test_status_view_shows_the_outcome_label_the_server_sends", () => {
    const view = statusView({ type: "status", run_state: "completed", status: "normal", outcome: "drifted", outcome_label: "Drifted (3 operations)" });
    expect(view).toEqual({ runState: "completed", state: "Completed", outcome: "drifted", label: "Drifted (3 operations)" });
  });

  test("test_status_view_of_an_older_server_uses_the_status_once_completed", () => {
    expect(statusView({ type: "status", run_state: "executing", status: "normal" })).toMatchObject({ outcome: "executing", label: "Executing" });
    expect(statusView({ type: "status", run_state: "completed", status: "error" })).toMatchObject({ state: "Completed", outcome: "error", label: "Error" });
  });
});

describe("socketUrl", () => {
  test("test_socket_url_follows_the_page_scheme_and_asks_after_the_last_seq", () => {
    expect(socketUrl({ protocol: "http:", host: "otter:8000" }, 12, 0)).toBe("ws://otter:8000/ws/executions/12/?after=0");
    expect(socketUrl({ protocol: "https:", host: "otter.example" }, "7", 41)).toBe("wss://otter.example/ws/executions/7/?after=41");
  });
});
