// The messages of an execution's websocket (/ws/executions/<id>/?after=<seq>,
// otterweb/execution_logs/events.py) and small helpers about them: how a status and a scope read
// for people, the socket's address, the close codes after which it is not reopened. What the
// viewer makes of the lines is model.ts's.

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
   * that seq (when absent, the viewer places it after the last line it has). */
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

// the consumer's close codes (otterweb/execution_logs/consumers.py): no reconnection after these
export const REFUSALS: Record<number, string> = {
  4403: "You may not see this execution's log.",
  4404: "This execution does not exist (any more).",
};
