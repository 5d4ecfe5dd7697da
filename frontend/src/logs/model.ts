// An execution's log as data, without a DOM: the tree of its scopes (with their own and total
// counts of lines, warnings and errors) and the skeleton of its lines (which seqs exist and in
// which scope), in typed arrays, so a million lines cost a few megabytes. The texts of the lines
// are not here: the line store (cache.ts) holds them, all of them or only those near the screen.
//
// The skeleton is a list of runs in seq order, as the server's index gives it: a run is a stretch
// of consecutive stored lines of one scope (first seq, last seq, count). Live lines extend the
// last run or start a new one. A scope's own lines are numbered 0, 1, 2… (their ordinal) in seq
// order; its child scopes sit among them: a child is placed after its parent's own lines with
// seq <= the child's `after_seq` (the highest seq logged when it opened), siblings by scope id.
//
// Thresholds (docs/logs.md says the same):
// - LIVE_HOLD_LINES = 200,000: a running execution's log is received whole over the websocket
//   and every line's text is held in the browser while it has at most this many lines; search
//   and the problems (warnings, errors) are then found in the browser, as lines arrive. A running
//   log that is already longer when the page opens starts from the server's index instead (lines
//   fetched by range as they are scrolled to, the live tail from the websocket); one that grows
//   past it while watched lets its oldest texts go. Either way search runs on the server then
//   (and lines that arrive afterwards are searched here).
// - A finished execution's log is never loaded whole: the page loads the index, then lines by
//   seq range (FETCH_LINES = 1,000 a request, around what is on screen), and keeps at most
//   CACHED_LINES = 20,000 texts; search runs on the server.
// - The skeleton itself is kept whole at any size: 17 bytes a run and 1 byte a seq (its level).

import { floorBy, IntList } from "./arrays";
import type { IndexScope, LogIndex } from "./api";
import type { WireEntry, WireScope } from "./feed";

export const LIVE_HOLD_LINES = 200_000;
export const CACHED_LINES = 20_000;
export const FETCH_LINES = 1_000;

export const LEVELS = ["debug", "information", "warning", "error"] as const;
export const WARNING = 2;
export const ERROR = 3;

/** A level's index in LEVELS; the search's "info" and unknown names are information. */
export function levelIndex(name: string): number {
  switch (name) {
    case "debug":
      return 0;
    case "warning":
      return 2;
    case "error":
      return 3;
    default:
      return 1;
  }
}

export interface Counts {
  lines: number;
  warnings: number;
  errors: number;
}

const zero = (): Counts => ({ lines: 0, warnings: 0, errors: 0 });

/** The top level's id (a line without a scope). */
export const ROOT = 0;

export class ScopeNode {
  /** ROOT's parent is -1. */
  parent = -1;
  name = "";
  line: number | null = null;
  status = "normal";
  started = "";
  ended: string | null = null;
  afterSeq = 0;
  /** The root is 0; a top-level scope 1. */
  depth = 0;
  /** False until its scope message came (its lines came first). */
  known = true;
  /** Child scope ids, ascending. */
  readonly children: number[] = [];
  /** For each child: how many of this scope's own lines come before it. */
  readonly boundaries: number[] = [];
  /** Its runs (indexes in the model's runs), in seq order. */
  readonly runs = new IntList(4);
  /** The ordinal of each run's first line among this scope's own lines. */
  readonly runOrdinals = new IntList(4);
  /** Its own lines (their count is also the number of ordinals). */
  readonly own: Counts = zero();
  /** Its own and its descendants'. */
  readonly total: Counts = zero();

  constructor(readonly id: number) {}
}

/** The exact seqs of an index run with dropped lines, learned as its lines are fetched. */
interface GappedRun {
  seqs: Int32Array;
  known: number;
}

export class LogModel {
  readonly scopes = new Map<number, ScopeNode>();
  readonly root = new ScopeNode(ROOT);
  // the runs, in seq order: scope, first seq, last seq, count
  readonly runScope = new IntList(256);
  readonly runFirst = new IntList(256);
  readonly runLast = new IntList(256);
  readonly runCount = new IntList(256);
  private readonly gapped = new Map<number, GappedRun>();
  // level + 1 by seq (0: not known)
  private levels = new Uint8Array(4096);
  /** The highest seq in the skeleton: the websocket resumes after it. */
  lastSeq = 0;
  /** Lines after this seq came one by one (their levels known here); 0 when all did. */
  liveFrom = 0;
  /** Seqs of the warnings and errors, and of the errors, among the lines that came live. */
  readonly problems = new IntList(64);
  readonly errors = new IntList(64);
  /** The scopes whose own lines or children changed (the layout listens). */
  onChange: ((scopes: ReadonlySet<number>) => void) | null = null;

  constructor() {
    this.scopes.set(ROOT, this.root);
  }

  get lines(): number {
    return this.root.total.lines;
  }

  // ---- filling

  /** Starts from the server's index (replacing what was there). */
  loadIndex(index: LogIndex): void {
    this.scopes.clear();
    this.scopes.set(ROOT, this.root);
    for (const list of [this.runScope, this.runFirst, this.runLast, this.runCount, this.problems, this.errors]) list.clear();
    this.root.children.length = this.root.boundaries.length = 0;
    this.root.runs.clear();
    this.root.runOrdinals.clear();
    Object.assign(this.root.own, zero());
    Object.assign(this.root.total, zero());
    this.gapped.clear();
    this.levels = new Uint8Array(4096);

    const byId = new Map<number, IndexScope>();
    for (const scope of [...index.scopes].sort((a, b) => a.scope_id - b.scope_id)) {
      byId.set(scope.scope_id, scope);
      const node = new ScopeNode(scope.scope_id);
      this.fill(node, scope, 0);
      const parent = this.nodeOrPlaceholder(scope.parent_id ?? ROOT, 0);
      node.parent = parent.id;
      node.depth = parent.depth + 1;
      parent.children.push(node.id); // ascending: sorted above
      this.scopes.set(node.id, node);
    }
    for (const [scope, first, last, count] of index.runs) {
      const node = this.nodeOrPlaceholder(scope, first - 1);
      const run = this.runScope.length;
      this.pushRun(scope, first, last, count);
      node.runs.push(run);
      node.runOrdinals.push(node.own.lines);
      node.own.lines += count;
      if (count < last - first + 1) this.gapped.set(run, { seqs: new Int32Array(count), known: 0 });
    }
    this.lastSeq = Math.max(index.last_seq, this.runLast.last());
    this.liveFrom = this.lastSeq;
    // own counts of warnings and errors, boundaries, and totals from the leaves up (ids grow
    // from parents to children)
    const ids = [...this.scopes.keys()].sort((a, b) => b - a);
    for (const id of ids) {
      const node = this.scopes.get(id)!;
      const counts = byId.get(id);
      if (counts) {
        node.own.warnings = counts.warnings;
        node.own.errors = counts.errors;
      }
      node.boundaries.length = 0;
      for (const child of node.children) node.boundaries.push(this.ownLinesUpTo(node, this.scopes.get(child)!.afterSeq));
      node.total.lines += node.own.lines;
      node.total.warnings += node.own.warnings;
      node.total.errors += node.own.errors;
      const parent = this.scopes.get(node.parent);
      if (parent) add(parent.total, node.total);
    }
    // the top level's own warnings and errors are what the whole log has beyond its scopes'
    this.root.own.warnings = Math.max(0, index.warnings - this.root.total.warnings);
    this.root.own.errors = Math.max(0, index.errors - this.root.total.errors);
    this.root.total.warnings += this.root.own.warnings;
    this.root.total.errors += this.root.own.errors;
    this.emit(new Set(this.scopes.keys()));
  }

  /** A scope opened, or changed (its status, its end). */
  scope(wire: WireScope): void {
    const changed = new Set<number>();
    let node = this.scopes.get(wire.scope_id);
    const parentId = wire.parent_id ?? ROOT;
    if (!node) {
      node = new ScopeNode(wire.scope_id);
      this.fill(node, wire, this.lastSeq);
      this.scopes.set(node.id, node);
      this.attach(node, parentId, changed);
    } else if (!node.known) {
      // its lines came first: it moves to its place
      this.detach(node, changed);
      this.fill(node, wire, node.afterSeq);
      this.attach(node, parentId, changed);
    } else this.fill(node, wire, node.afterSeq);
    changed.add(node.id);
    this.emit(changed);
  }

  /** Lines in seq order; those already here (a reconnection repeats them) are dropped. The new
   * ones. */
  append(entries: readonly WireEntry[]): WireEntry[] {
    const fresh: WireEntry[] = [];
    const changed = new Set<number>();
    for (const entry of entries) {
      if (entry.seq <= this.lastSeq) continue;
      fresh.push(entry);
      const seq = entry.seq;
      this.lastSeq = seq;
      const id = entry.scope_id ?? ROOT;
      const node = this.nodeOrPlaceholder(id, seq - 1, changed);
      const last = this.runScope.length - 1;
      if (last >= 0 && this.runScope.get(last) === id && this.runLast.get(last) === seq - 1 && !this.gapped.has(last)) {
        this.runLast.set(last, seq);
        this.runCount.set(last, this.runCount.get(last) + 1);
      } else {
        node.runs.push(this.runScope.length);
        node.runOrdinals.push(node.own.lines);
        this.pushRun(id, seq, seq, 1);
      }
      // children that opened after this line was logged come after it
      for (let j = node.children.length - 1; j >= 0 && this.scopes.get(node.children[j])!.afterSeq >= seq; j--) node.boundaries[j]++;
      const level = levelIndex(entry.level);
      this.setLevel(seq, level);
      const warning = level === WARNING ? 1 : 0;
      const error = level === ERROR ? 1 : 0;
      node.own.lines++;
      node.own.warnings += warning;
      node.own.errors += error;
      for (let up: ScopeNode | undefined = node; up; up = this.scopes.get(up.parent)) {
        up.total.lines++;
        up.total.warnings += warning;
        up.total.errors += error;
      }
      if (level >= WARNING) this.problems.push(seq);
      if (error) this.errors.push(seq);
      changed.add(id);
    }
    if (changed.size) this.emit(changed);
    return fresh;
  }

  /** The level of lines whose text was fetched (the index does not give them). */
  learnLevels(entries: readonly WireEntry[]): void {
    for (const entry of entries) this.setLevel(entry.seq, levelIndex(entry.level));
  }

  // ---- questions

  /** A line's level (an index of LEVELS), or -1 when not known here. */
  levelOf(seq: number): number {
    return seq < this.levels.length ? this.levels[seq] - 1 : -1;
  }

  /** The run holding `seq` (-1 when none could). */
  runOf(seq: number): number {
    const run = this.runFirst.floor(seq);
    return run >= 0 && seq <= this.runLast.get(run) ? run : -1;
  }

  /** The scope of line `seq`, or -1 when there is no such line. */
  scopeOf(seq: number): number {
    const run = this.runOf(seq);
    if (run < 0) return -1;
    const gapped = this.gapped.get(run);
    // a seq among those learned (or before the last learned) that is not one of them was dropped
    const learned = gapped && (gapped.known === gapped.seqs.length || (gapped.known > 0 && seq <= gapped.seqs[gapped.known - 1]));
    if (gapped && learned && binaryIndex(gapped.seqs, gapped.known, seq) < 0) return -1;
    return this.runScope.get(run);
  }

  /** The ordinal of line `seq` among its scope's own lines, or -1 (not a line, or in a run with
   * dropped lines whose seqs are not known yet). */
  ordinalOf(seq: number): number {
    const run = this.runOf(seq);
    if (run < 0) return -1;
    const node = this.scopes.get(this.runScope.get(run))!;
    const index = node.runs.indexOf(run);
    let offset = seq - this.runFirst.get(run);
    const gapped = this.gapped.get(run);
    // a run's first and last seqs are lines; those between are known once learned
    if (gapped && seq === this.runLast.get(run)) offset = this.runCount.get(run) - 1;
    else if (gapped && seq !== this.runFirst.get(run)) {
      offset = binaryIndex(gapped.seqs, gapped.known, seq);
      if (offset < 0) return -1;
    }
    return node.runOrdinals.get(index) + offset;
  }

  /** The seq of a scope's own line by its ordinal, or -1 when not known yet (see unresolved). */
  seqAt(node: ScopeNode, ordinal: number): number {
    const index = node.runOrdinals.floor(ordinal);
    if (index < 0) return -1;
    const run = node.runs.get(index);
    const offset = ordinal - node.runOrdinals.get(index);
    if (offset >= this.runCount.get(run)) return -1;
    const gapped = this.gapped.get(run);
    if (!gapped || offset === 0) return this.runFirst.get(run) + offset;
    if (offset === this.runCount.get(run) - 1) return this.runLast.get(run);
    return offset < gapped.known ? gapped.seqs[offset] : -1;
  }

  /** Where to fetch the seqs of a scope's own line that seqAt does not know: the lines after
   * `after` up to `until` (inclusive), `needed` of them at least; null when it is known. */
  unresolved(node: ScopeNode, ordinal: number): { run: number; after: number; until: number; needed: number } | null {
    const index = node.runOrdinals.floor(ordinal);
    if (index < 0) return null;
    const run = node.runs.get(index);
    const gapped = this.gapped.get(run);
    const offset = ordinal - node.runOrdinals.get(index);
    if (!gapped || offset < gapped.known || offset === 0 || offset === this.runCount.get(run) - 1) return null;
    const after = gapped.known ? gapped.seqs[gapped.known - 1] : this.runFirst.get(run) - 1;
    return { run, after, until: this.runLast.get(run), needed: offset - gapped.known + 1 };
  }

  /** Fetched lines of a run with dropped lines, in seq order, after those already known. */
  resolve(run: number, entries: readonly WireEntry[]): void {
    const gapped = this.gapped.get(run);
    if (!gapped) return;
    const id = this.runScope.get(run);
    const last = this.runLast.get(run);
    let changed = false;
    for (const entry of entries) {
      if (gapped.known >= gapped.seqs.length || entry.seq > last) break;
      if ((entry.scope_id ?? ROOT) !== id) continue;
      if (gapped.known && entry.seq <= gapped.seqs[gapped.known - 1]) continue;
      gapped.seqs[gapped.known++] = entry.seq;
      changed = true;
    }
    if (changed) this.emit(new Set([id]));
  }

  /** How many of a scope's own lines have seq <= `seq`. */
  ownLinesUpTo(node: ScopeNode, seq: number): number {
    const index = floorBy(node.runs.length, (i) => this.runFirst.get(node.runs.get(i)), seq);
    if (index < 0) return 0;
    const run = node.runs.get(index);
    const gapped = this.gapped.get(run);
    let inRun = Math.min(this.runCount.get(run), seq - this.runFirst.get(run) + 1);
    if (gapped && gapped.known) inRun = Math.max(0, binaryFloor(gapped.seqs, gapped.known, seq) + 1);
    return node.runOrdinals.get(index) + inRun;
  }

  /** A scope and its ancestors, the top-level scope first (the root left out). */
  path(id: number): ScopeNode[] {
    const path: ScopeNode[] = [];
    for (let node = this.scopes.get(id); node && node.id !== ROOT; node = this.scopes.get(node.parent)) path.unshift(node);
    return path;
  }

  /** The ids of a scope and its descendants. */
  subtree(id: number): Set<number> {
    const ids = new Set<number>();
    const walk = (scope: number) => {
      ids.add(scope);
      for (const child of this.scopes.get(scope)?.children ?? []) walk(child);
    };
    walk(id);
    return ids;
  }

  /** The lowest and highest seq of a scope and its descendants' lines ([0, -1] when none). */
  seqRange(id: number): [number, number] {
    let low = Infinity;
    let high = -1;
    for (const scope of this.subtree(id)) {
      const node = this.scopes.get(scope)!;
      if (!node.runs.length) continue;
      low = Math.min(low, this.runFirst.get(node.runs.get(0)));
      high = Math.max(high, this.runLast.get(node.runs.last()));
    }
    return high < 0 ? [0, -1] : [low, high];
  }

  /** Every seq in the skeleton from `from` on, in order, until `visit` returns false. Lines of
   * runs with dropped lines whose seqs are not known are visited as the whole range. */
  forEachSeq(from: number, visit: (seq: number, scope: number) => boolean): void {
    for (let run = Math.max(0, this.runFirst.floor(from)); run < this.runScope.length; run++) {
      const scope = this.runScope.get(run);
      const last = this.runLast.get(run);
      for (let seq = Math.max(from, this.runFirst.get(run)); seq <= last; seq++) if (!visit(seq, scope)) return;
    }
  }

  // ---- inside

  private pushRun(scope: number, first: number, last: number, count: number): void {
    this.runScope.push(scope);
    this.runFirst.push(first);
    this.runLast.push(last);
    this.runCount.push(count);
  }

  private setLevel(seq: number, level: number): void {
    if (seq >= this.levels.length) {
      let size = this.levels.length;
      while (size <= seq) size *= 2;
      const bigger = new Uint8Array(size);
      bigger.set(this.levels);
      this.levels = bigger;
    }
    this.levels[seq] = level + 1;
  }

  private fill(node: ScopeNode, scope: WireScope, afterSeq: number): void {
    node.name = scope.name;
    node.line = scope.line;
    node.status = scope.status;
    node.started = scope.started;
    node.ended = scope.ended;
    node.afterSeq = scope.after_seq ?? afterSeq;
    node.known = true;
  }

  /** A scope that lines name before it came: at the top level, just before its first line. */
  private nodeOrPlaceholder(id: number, afterSeq: number, changed?: Set<number>): ScopeNode {
    const found = this.scopes.get(id);
    if (found) return found;
    const node = new ScopeNode(id);
    node.name = `scope ${id}`;
    node.status = "running";
    node.afterSeq = afterSeq;
    node.known = false;
    this.scopes.set(id, node);
    this.attach(node, ROOT, changed ?? new Set());
    return node;
  }

  private attach(node: ScopeNode, parentId: number, changed: Set<number>): void {
    const parent = parentId === node.id ? this.root : this.nodeOrPlaceholder(parentId, node.afterSeq, changed);
    node.parent = parent.id;
    let at = parent.children.length;
    while (at > 0 && parent.children[at - 1] > node.id) at--;
    parent.children.splice(at, 0, node.id);
    parent.boundaries.splice(at, 0, this.ownLinesUpTo(parent, node.afterSeq));
    this.setDepth(node, parent.depth + 1);
    for (let up: ScopeNode | undefined = parent; up; up = this.scopes.get(up.parent)) add(up.total, node.total);
    changed.add(parent.id);
  }

  private detach(node: ScopeNode, changed: Set<number>): void {
    const parent = this.scopes.get(node.parent);
    if (!parent) return;
    const at = parent.children.indexOf(node.id);
    parent.children.splice(at, 1);
    parent.boundaries.splice(at, 1);
    for (let up: ScopeNode | undefined = parent; up; up = this.scopes.get(up.parent)) add(up.total, node.total, -1);
    changed.add(parent.id);
  }

  private setDepth(node: ScopeNode, depth: number): void {
    node.depth = depth;
    for (const child of node.children) this.setDepth(this.scopes.get(child)!, depth + 1);
  }

  private emit(changed: ReadonlySet<number>): void {
    this.onChange?.(changed);
  }
}

function add(into: Counts, counts: Counts, sign = 1): void {
  into.lines += sign * counts.lines;
  into.warnings += sign * counts.warnings;
  into.errors += sign * counts.errors;
}

function binaryFloor(values: Int32Array, length: number, value: number): number {
  return floorBy(length, (i) => values[i], value);
}

function binaryIndex(values: Int32Array, length: number, value: number): number {
  const at = binaryFloor(values, length, value);
  return at >= 0 && values[at] === value ? at : -1;
}

