import { describe, expect, test } from "vitest";
import { scopeTitle, socketUrl, statusView, type WireEntry, type WireScope } from "./feed";
import { Layout } from "./layout";
import { LogModel } from "./model";

// What the websocket's messages become (model.ts, layout.ts): the rows shown, a header as
// "scope N", a line as its seq, indented two spaces a level
function fed(messages: ({ scope: WireScope } | { entries: WireEntry[] })[]) {
  const model = new LogModel();
  const layout = new Layout(model);
  model.onChange = (ids) => layout.invalidate(ids);
  const drew: number[][] = [];
  for (const message of messages) {
    if ("scope" in message) model.scope(message.scope);
    else drew.push(model.append(message.entries).map((e) => e.seq));
  }
  const rows = Array.from({ length: layout.rowCount }, (_, row) => {
    const at = layout.rowAt(row);
    return "  ".repeat(at.depth) + (at.kind === "scope" ? `scope ${at.scope.id}` : String(at.seq));
  });
  return { rows, drew, model };
}

const entry = (seq: number, scope: number | null = null): WireEntry => ({
  seq,
  scope_id: scope,
  level: "information",
  message: `line ${seq}`,
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

describe("the live feed", () => {
  test("test_log_feed_draws_scopes_nested_and_lines_in_their_scope", () => {
    const { rows, model } = fed([{ scope: scope(1, null) }, { scope: scope(2, 1) }, { entries: [entry(1), entry(2, 2)] }]);
    expect(rows).toEqual(["scope 1", "  scope 2", "    2", "1"]);
    expect(model.lastSeq).toBe(2);
  });

  test("test_log_feed_drops_lines_already_drawn_when_a_reconnection_sends_them_again", () => {
    const { rows, drew } = fed([{ entries: [entry(1), entry(2)] }, { entries: [entry(2), entry(1)] }, { entries: [entry(2), entry(3)] }]);
    expect(drew).toEqual([[1, 2], [], [3]]);
    expect(rows).toEqual(["1", "2", "3"]);
  });

  test("test_log_feed_moves_a_line_into_its_scope_when_the_scope_comes_after_it", () => {
    const early = fed([{ scope: scope(1, null) }, { entries: [entry(1, 4)] }]);
    expect(early.rows).toEqual(["scope 1", "scope 4", "  1"]); // shown at once, at the top level
    const { rows, model } = fed([{ scope: scope(1, null) }, { entries: [entry(1, 4)] }, { scope: { ...scope(4, 1), after_seq: 0 } }]);
    expect(rows).toEqual(["scope 1", "  scope 4", "    1"]);
    expect(model.scopes.get(4)!.known).toBe(true);
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
