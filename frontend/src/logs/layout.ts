// The log's rows as the viewer shows them: each scope's header, then (when it is expanded) its
// own lines and its child scopes in their order. Rows are never listed: each scope keeps how
// many rows it takes and where each child starts among its rows, recomputed only for the scopes
// that changed (and their ancestors) when they are next asked about. So the row at a scroll
// position, and the position of a seq, are found by walking down or up the tree (its depth, and
// a binary search among a scope's children at each step), at any size.

import { floorBy } from "./arrays";
import { type LogModel, ROOT, type ScopeNode } from "./model";

export type Row =
  | {
      kind: "scope";
      scope: ScopeNode;
      /** Indentation: 0 for a top-level scope. */
      depth: number;
    }
  | {
      kind: "line";
      scope: ScopeNode;
      /** Among the scope's own lines. */
      ordinal: number;
      /** -1 when not known yet (a run with dropped lines whose seqs were not fetched). */
      seq: number;
      depth: number;
    };

interface Placement {
  /** The rows of the scope's body (its lines and its expanded children), header left out. */
  body: number;
  /** Where each child's header is among the body's rows. */
  starts: Int32Array;
  dirty: boolean;
}

export class Layout {
  private readonly collapsed = new Set<number>();
  private readonly placements = new Map<number, Placement>();

  constructor(readonly model: LogModel) {}

  /** The model changed these scopes (their lines or children): they and their ancestors are
   * placed again when next asked. */
  invalidate(ids: Iterable<number>): void {
    for (const id of ids) {
      for (let node = this.model.scopes.get(id); node; node = this.model.scopes.get(node.parent)) {
        const placement = this.placements.get(node.id);
        if (placement) placement.dirty = true;
      }
    }
  }

  get rowCount(): number {
    return this.placement(ROOT).body;
  }

  isExpanded(id: number): boolean {
    return id === ROOT || !this.collapsed.has(id);
  }

  setExpanded(id: number, expanded: boolean): void {
    if (id === ROOT || this.isExpanded(id) === expanded) return;
    if (expanded) this.collapsed.delete(id);
    else this.collapsed.add(id);
    this.invalidate([id]);
  }

  expandAll(): void {
    this.collapsed.clear();
    this.placements.clear();
  }

  collapseAll(): void {
    for (const id of this.model.scopes.keys()) if (id !== ROOT) this.collapsed.add(id);
    this.placements.clear();
  }

  /** Expands the scopes around line `seq`; whether any was collapsed. */
  reveal(seq: number): boolean {
    const scope = this.model.scopeOf(seq);
    return scope >= 0 && this.revealScope(scope, true);
  }

  /** Expands the ancestors of scope `id` (and the scope itself when `self`). */
  revealScope(id: number, self = true): boolean {
    let changed = false;
    for (const node of this.model.path(id)) {
      if (!self && node.id === id) continue;
      if (!this.isExpanded(node.id)) {
        this.setExpanded(node.id, true);
        changed = true;
      }
    }
    return changed;
  }

  /** How many rows scope `id` takes: its header and, expanded, its body. */
  rows(id: number): number {
    if (id === ROOT) return this.placement(ROOT).body;
    return this.collapsed.has(id) ? 1 : 1 + this.placement(id).body;
  }

  /** What is on row `row` (0 <= row < rowCount). */
  rowAt(row: number): Row {
    let node = this.model.root;
    let rest = row;
    for (;;) {
      const placement = this.placement(node.id);
      const starts = placement.starts;
      const j = floorBy(starts.length, (i) => starts[i], rest);
      let ordinal = rest;
      if (j >= 0) {
        const child = this.model.scopes.get(node.children[j])!;
        const taken = this.rows(child.id);
        const inside = rest - starts[j];
        if (inside < taken) {
          if (inside === 0) return { kind: "scope", scope: child, depth: child.depth - 1 };
          node = child;
          rest = inside - 1;
          continue;
        }
        ordinal = node.boundaries[j] + inside - taken;
      }
      return { kind: "line", scope: node, ordinal, seq: this.model.seqAt(node, ordinal), depth: node.depth };
    }
  }

  /** The row of scope `id`'s header, or -1 when a scope around it is collapsed. */
  rowOfScope(id: number): number {
    const node = this.model.scopes.get(id);
    if (!node || id === ROOT) return -1;
    const parent = this.model.scopes.get(node.parent);
    if (!parent) return -1;
    const start = this.bodyStart(parent);
    if (start < 0) return -1;
    const j = floorBy(parent.children.length, (i) => parent.children[i], id);
    return start + this.placement(parent.id).starts[j];
  }

  /** The row of line `seq`, or -1 (no such line, or a scope around it is collapsed). */
  rowOfSeq(seq: number): number {
    const scope = this.model.scopeOf(seq);
    const ordinal = scope < 0 ? -1 : this.model.ordinalOf(seq);
    if (ordinal < 0) return -1;
    const node = this.model.scopes.get(scope)!;
    const start = this.bodyStart(node);
    if (start < 0) return -1;
    const j = floorBy(node.boundaries.length, (i) => node.boundaries[i], ordinal);
    if (j < 0) return start + ordinal;
    const placement = this.placement(node.id);
    return start + placement.starts[j] + this.rows(node.children[j]) + ordinal - node.boundaries[j];
  }

  /** The first row of a scope's body, or -1 when it or a scope around it is collapsed. */
  private bodyStart(node: ScopeNode): number {
    if (node.id === ROOT) return 0;
    if (this.collapsed.has(node.id)) return -1;
    const header = this.rowOfScope(node.id);
    return header < 0 ? -1 : header + 1;
  }

  private placement(id: number): Placement {
    let placement = this.placements.get(id);
    if (placement && !placement.dirty) return placement;
    const node = this.model.scopes.get(id)!;
    const count = node.children.length;
    const starts = placement && placement.starts.length === count ? placement.starts : new Int32Array(count);
    let offset = 0;
    for (let j = 0; j < count; j++) {
      starts[j] = node.boundaries[j] + offset;
      offset += this.rows(node.children[j]);
    }
    placement = { body: node.own.lines + offset, starts, dirty: false };
    this.placements.set(id, placement);
    return placement;
  }
}
