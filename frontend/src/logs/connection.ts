// The execution's websocket, kept open: it asks for the lines after the last seq the viewer has,
// and when the connection drops it reconnects by itself (1 s, then longer, up to 10 s between
// tries) asking again after the last seq, so nothing is lost and nothing is repeated (the
// server fills gaps; the model drops seqs it already has). It says which state it is in. A
// refused connection (no permission, no such execution) is not retried.

import { type LogMessage, REFUSALS, socketUrl, type StatusMessage, type WireEntry, type WireScope } from "./feed";

export type ConnectionState = "connecting" | "live" | "reconnecting" | "complete" | "refused";

export interface ConnectionHandlers {
  scopes(scopes: WireScope[]): void;
  entries(entries: WireEntry[]): void;
  status?(message: StatusMessage): void;
  /** The run ended and every line was sent. */
  complete?(lastSeq: number): void;
  state?(state: ConnectionState, reason?: string): void;
}

export interface ConnectionOptions {
  execution: number | string;
  /** The last seq the viewer has: the server sends what comes after it. */
  after(): number;
  handlers: ConnectionHandlers;
  /** The first wait before reconnecting, in milliseconds (doubled each failed try). */
  retry?: number;
  maxRetry?: number;
  connect?: (url: string) => WebSocket;
  where?: { protocol: string; host: string };
}

export class LogConnection {
  state: ConnectionState = "connecting";
  private socket: WebSocket | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private wait: number;
  private stopped = false;

  constructor(private readonly options: ConnectionOptions) {
    this.wait = options.retry ?? 1000;
  }

  start(): void {
    this.stopped = false;
    this.open();
  }

  /** Stops (the run goes on). */
  close(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.socket?.close();
    this.socket = null;
  }

  private open(): void {
    const { options } = this;
    const connect = options.connect ?? ((url: string) => new WebSocket(url));
    const socket = connect(socketUrl(options.where ?? location, options.execution, options.after()));
    this.socket = socket;
    socket.onopen = () => {
      this.wait = options.retry ?? 1000;
      this.set("live");
    };
    socket.onmessage = (event: MessageEvent) => {
      if (socket !== this.socket) return;
      const message = JSON.parse(String(event.data)) as LogMessage;
      const handlers = options.handlers;
      if (this.state !== "live") this.set("live"); // a test's socket may not say it opened
      if (message.type === "scope") handlers.scopes(message.scopes);
      else if (message.type === "log") handlers.entries(message.entries);
      else if (message.type === "status") handlers.status?.(message);
      else if (message.type === "complete") {
        this.stopped = true;
        this.set("complete");
        socket.close();
        handlers.complete?.(message.last_seq);
      }
    };
    socket.onclose = (event: CloseEvent) => {
      if (socket !== this.socket || this.stopped) return;
      const refused = REFUSALS[event.code];
      if (refused) {
        this.stopped = true;
        this.set("refused", refused);
        return;
      }
      this.set("reconnecting");
      this.timer = setTimeout(() => this.open(), this.wait); // resumes after the last seq
      this.wait = Math.min(this.wait * 2, options.maxRetry ?? 10_000);
    };
  }

  private set(state: ConnectionState, reason?: string): void {
    this.state = state;
    this.options.handlers.state?.(state, reason);
  }
}
