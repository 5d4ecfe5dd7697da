// Builders for the log viewer's tests: wire entries and scopes, a random log (a tree of scopes
// with lines in parallel strands), and the rows it should show, worked out the plain way.

import type { LogIndex, Run } from "./api";
import type { WireEntry, WireScope } from "./feed";
import { LEVELS } from "./model";

export const entry = (seq: number, scope: number | null = null, level = "information", message = `line ${seq}`): WireEntry => ({
  seq,
  scope_id: scope,
  level,
  message,
  line: 1,
  time: new Date(Date.UTC(2026, 4, 12, 12, 0, 0, seq * 10)).toISOString(),
});

export const wireScope = (id: number, parent: number | null, afterSeq: number, extra: Partial<WireScope> = {}): WireScope => ({
  scope_id: id,
  parent_id: parent,
  name: `scope ${id}`,
  line: 1,
  status: "normal",
  started: "2026-05-12T12:00:00Z",
  ended: null,
  after_seq: afterSeq,
  ...extra,
});

/** A deterministic pseudo-random generator (mulberry32). */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Story {
  /** Scope and log messages in the order a websocket would send them. */
  events: ({ scope: WireScope } | { entries: WireEntry[] })[];
  scopes: WireScope[];
  entries: WireEntry[];
}

/** A log of `lines` lines: scopes open and close at random, nested, several at a time (as in
 * parallel strands), each line in a random open scope or at the top level. */
export function story(lines: number, seed = 1, skipEvery = 0): Story {
  const next = random(seed);
  const scopes: WireScope[] = [];
  const entries: WireEntry[] = [];
  const events: Story["events"] = [];
  const open: number[] = [];
  let seq = 0;
  let pending: WireEntry[] = [];
  const flush = () => {
    if (pending.length) events.push({ entries: pending });
    pending = [];
  };
  for (let n = 0; n < lines; n++) {
    const roll = next();
    if (roll < 0.08 || !open.length) {
      const parent = open.length && next() < 0.7 ? open[Math.floor(next() * open.length)] : null;
      const scope = wireScope(scopes.length + 1, parent, seq);
      scopes.push(scope);
      open.push(scope.scope_id);
      flush();
      events.push({ scope });
    } else if (roll < 0.13 && open.length > 1) open.splice(Math.floor(next() * open.length), 1);
    seq += skipEvery && n % skipEvery === skipEvery - 1 ? 2 : 1; // a dropped seq now and then
    const scope = next() < 0.15 ? null : open[Math.floor(next() * open.length)];
    const level = LEVELS[Math.floor(next() * next() * 4)];
    const line = entry(seq, scope, level);
    entries.push(line);
    pending.push(line);
    if (pending.length > 7) flush();
  }
  flush();
  return { events, scopes, entries };
}

/** The index the server would give for a story. */
export function indexOf(told: Story): LogIndex {
  const runs: Run[] = [];
  for (const line of told.entries) {
    const scope = line.scope_id ?? 0;
    const last = runs[runs.length - 1];
    if (last && last[0] === scope) {
      last[2] = line.seq;
      last[3]++;
    } else runs.push([scope, line.seq, line.seq, 1]);
  }
  const own = (id: number | null, level?: string) => told.entries.filter((e) => e.scope_id === id && (!level || e.level === level)).length;
  return {
    execution: 1,
    run_state: "completed",
    status: "normal",
    outcome: "normal",
    last_seq: told.entries[told.entries.length - 1]?.seq ?? 0,
    lines: told.entries.length,
    warnings: told.entries.filter((e) => e.level === "warning").length,
    errors: told.entries.filter((e) => e.level === "error").length,
    scopes: told.scopes.map((s) => ({ ...s, lines: own(s.scope_id), warnings: own(s.scope_id, "warning"), errors: own(s.scope_id, "error") })),
    runs,
  };
}

/** The rows a log shows, worked out the plain way: "scope N" for a header, "seq" for a line,
 * indented by two spaces a level. */
export function plainRows(scopes: WireScope[], entries: WireEntry[], collapsed: Set<number> = new Set()): string[] {
  const rows: string[] = [];
  const walk = (id: number | null, depth: number) => {
    const own = entries.filter((e) => (e.scope_id ?? null) === id);
    const children = scopes.filter((s) => (s.parent_id ?? null) === id).sort((a, b) => a.scope_id - b.scope_id);
    let c = 0;
    const child = () => {
      const scope = children[c++];
      rows.push(`${"  ".repeat(depth)}scope ${scope.scope_id}`);
      if (!collapsed.has(scope.scope_id)) walk(scope.scope_id, depth + 1);
    };
    for (const line of own) {
      while (c < children.length && (children[c].after_seq ?? 0) < line.seq) child();
      rows.push(`${"  ".repeat(depth)}${line.seq}`);
    }
    while (c < children.length) child();
  };
  walk(null, 0);
  return rows;
}
