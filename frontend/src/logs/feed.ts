// An execution's live log, without a DOM: the messages of its websocket
// (/ws/executions/<id>/?after=<seq>, otterweb/executions/events.py) and what the log viewer
// makes of them. A line is drawn once (a reconnection asks for the seqs after the last one, and
// any seq already drawn is dropped); a line whose scope has not arrived yet is drawn at the top
// level and moved into its scope when that comes. The drawing itself is a `LogRenderer`'s: the
// page's (viewer.ts) or a test's.

export interface WireEntry {
  seq: number;
  scope_id: number | null;
  level: string;
  message: string;
  line: number | null;
  /** ISO 8601, from one clock: times compare as text. */
  time: string;
}

export interface WireScope {
  scope_id: number;
  parent_id: number | null;
  name: string;
  line: number | null;
  status: string;
  started: string;
  ended: string | null;
  /** The highest seq logged when the scope opened: it goes after its parent's lines up to
   * that seq (servers before issue 12 do not send it). */
  after_seq?: number;
}

export interface StatusMessage {
  type: "status";
  run_state: string;
  status: string;
  /** What happened: pending, executing, normal, warning, error, cancelled, drifted. */
  outcome?: string;
  /** For people: "Cancelled", "Drifted (3 operations)"… */
  outcome_label?: string;
}

export type LogMessage =
  | StatusMessage
  | { type: "scope"; scopes: WireScope[] }
  | { type: "log"; entries: WireEntry[] }
  | { type: "complete"; last_seq: number };

/** Draws what the feed decides; `S` is its handle of a drawn scope, `L` of a drawn line. */
export interface LogRenderer<S, L> {
  /** A new scope, in `parent` (the top level when null), in the order things happened. */
  openScope(scope: WireScope, parent: S | null): S;
  /** The scope's title and status, when it opens and whenever it changes. */
  updateScope(drawn: S, scope: WireScope): void;
  line(entry: WireEntry, parent: S | null): L;
  /** A line drawn before its scope arrived, moved into it. */
  move(line: L, into: S): void;
}

export class LogFeed<S, L> {
  private readonly scopes = new Map<number, S>();
  private readonly waiting = new Map<number, L[]>(); // scope id -> lines that came before it
  private last = 0;

  constructor(private readonly renderer: LogRenderer<S, L>) {}

  /** The highest seq drawn: a reconnection asks for what comes after it. */
  get lastSeq(): number {
    return this.last;
  }

  scope(scope: WireScope): void {
    let drawn = this.scopes.get(scope.scope_id);
    if (drawn === undefined) {
      drawn = this.renderer.openScope(scope, this.parentOf(scope.parent_id));
      this.scopes.set(scope.scope_id, drawn);
      for (const line of this.waiting.get(scope.scope_id) ?? []) this.renderer.move(line, drawn);
      this.waiting.delete(scope.scope_id);
    }
    this.renderer.updateScope(drawn, scope);
  }

  /** Lines in seq order; those already drawn are dropped. Whether any was drawn. */
  entries(entries: readonly WireEntry[]): boolean {
    let drew = false;
    for (const entry of entries) {
      if (entry.seq <= this.last) continue;
      this.last = entry.seq;
      drew = true;
      const id = entry.scope_id;
      if (id !== null && id !== undefined && !this.scopes.has(id)) {
        const line = this.renderer.line(entry, null); // shown at once, moved when its scope comes
        this.waiting.set(id, [...(this.waiting.get(id) ?? []), line]);
      } else this.renderer.line(entry, this.parentOf(id));
    }
    return drew;
  }

  private parentOf(id: number | null | undefined): S | null {
    return id === null || id === undefined ? null : (this.scopes.get(id) ?? null);
  }
}

/** A scope's title: its name, its status when it ended other than normal, how long it took,
 * or that it is still running. */
export function scopeTitle(scope: WireScope): string {
  if (!scope.ended) return `${scope.name} · running`;
  const status = scope.status !== "normal" ? ` · ${scope.status}` : "";
  const seconds = (new Date(scope.ended).getTime() - new Date(scope.started).getTime()) / 1000;
  return `${scope.name}${status} · ${seconds.toFixed(1)} s`;
}

export const RUN_STATES: Record<string, string> = { pending: "Pending", executing: "Executing", completed: "Completed" };

export interface StatusView {
  runState: string;
  /** The run state for people. */
  state: string;
  /** The badge's class. */
  outcome: string;
  /** The badge's text. */
  label: string;
}

/** What the state and the outcome badge show for a status message (older servers send no
 * outcome: the status once completed, the run state before). */
export function statusView(message: StatusMessage): StatusView {
  const outcome = message.outcome || (message.run_state === "completed" ? message.status : message.run_state);
  return {
    runState: message.run_state,
    state: RUN_STATES[message.run_state] ?? message.run_state,
    outcome,
    label: message.outcome_label || outcome.charAt(0).toUpperCase() + outcome.slice(1),
  };
}

/** The websocket's address for execution `id`, from the lines after `after`. */
export function socketUrl(where: { protocol: string; host: string }, id: number | string, after: number): string {
  const scheme = where.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${where.host}/ws/executions/${encodeURIComponent(String(id))}/?after=${after}`;
}

// the consumer's close codes (otterweb/executions/consumers.py): no reconnection after these
export const REFUSALS: Record<number, string> = {
  4403: "You may not see this execution's log.",
  4404: "This execution does not exist (any more).",
};
