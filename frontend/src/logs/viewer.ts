// The live log viewer, shared by the execution page and the run panel beside the item page's
// editor: an execution's log drawn as a nested tree (a <details> per scope, a line per entry,
// in the order they happened) as its websocket sends the stored backlog and then the live tail.
// A dropped connection is resumed after the last seq drawn; a refused one (no permission, no
// such execution) is not retried.

import { LogFeed, type LogMessage, REFUSALS, type LogRenderer, scopeTitle, socketUrl, type StatusView, statusView } from "./feed";

export interface WatchOptions {
  /** The element the tree is drawn in. */
  root: HTMLElement;
  execution: number | string;
  /** The state and outcome changed. */
  onStatus?(view: StatusView): void;
  /** Lines were drawn (to follow the tail). */
  onLines?(): void;
  /** The run ended and every line of it is drawn. */
  onComplete?(): void;
  /** The server refused to show the log: why. */
  onRefused?(reason: string): void;
  /** How long to wait before reconnecting, in milliseconds. */
  retry?: number;
  connect?: (url: string) => WebSocket;
}

export interface LogWatch {
  /** Stops watching (the run goes on). */
  close(): void;
  readonly done: boolean;
}

interface DrawnScope {
  element: HTMLDetailsElement;
  title: HTMLElement;
  body: HTMLElement;
}

/** Puts `element` in `parent` in the order things happened: before the children made after it.
 * A scope is announced before the lines of its batch, so a line logged just before it opened
 * still goes above it. */
function place(parent: HTMLElement, element: HTMLElement): void {
  let before: Element | null = null;
  const time = element.dataset.time ?? "";
  for (
    let child = parent.lastElementChild;
    child instanceof HTMLElement && (child.dataset.time ?? "") > time;
    child = child.previousElementSibling
  )
    before = child;
  parent.insertBefore(element, before);
}

function domRenderer(root: HTMLElement): LogRenderer<DrawnScope, HTMLElement> {
  const document = root.ownerDocument;
  return {
    openScope(scope, parent) {
      const element = document.createElement("details");
      element.open = true;
      const title = document.createElement("summary");
      const body = document.createElement("div");
      body.className = "scope-body";
      element.append(title, body);
      element.dataset.time = scope.started;
      place(parent?.body ?? root, element);
      return { element, title, body };
    },
    updateScope(drawn, scope) {
      drawn.title.textContent = scopeTitle(scope);
      drawn.element.className = `scope status-${scope.status}`;
    },
    line(entry, parent) {
      const line = document.createElement("div");
      line.className = `entry level-${entry.level}`;
      line.textContent = entry.message;
      line.title = `line ${entry.line || "?"} · ${entry.time}`;
      line.dataset.time = entry.time;
      place(parent?.body ?? root, line);
      return line;
    },
    move(line, into) {
      place(into.body, line);
    },
  };
}

/** Draws execution `options.execution`'s log into `options.root`, live. */
export function watchLog(options: WatchOptions): LogWatch {
  const feed = new LogFeed(domRenderer(options.root));
  const connect = options.connect ?? ((url: string) => new WebSocket(url));
  let done = false;
  let closed = false;
  let socket: WebSocket | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;

  function open(): void {
    socket = connect(socketUrl(location, options.execution, feed.lastSeq));
    socket.onmessage = (event: MessageEvent) => {
      const message = JSON.parse(String(event.data)) as LogMessage;
      if (message.type === "scope") message.scopes.forEach((scope) => feed.scope(scope));
      else if (message.type === "log") {
        if (feed.entries(message.entries)) options.onLines?.();
      } else if (message.type === "status") options.onStatus?.(statusView(message));
      else if (message.type === "complete") {
        done = true;
        socket?.close();
        options.onComplete?.();
      }
    };
    socket.onclose = (event: CloseEvent) => {
      if (done || closed) return;
      const refused = REFUSALS[event.code];
      if (refused) {
        closed = true;
        options.onRefused?.(refused);
      } else timer = setTimeout(open, options.retry ?? 1000); // resume after the last seq
    };
  }
  open();

  return {
    close() {
      closed = true;
      clearTimeout(timer);
      socket?.close();
    },
    get done() {
      return done;
    },
  };
}

/** Shows `view` in a state element (its text and `data-run-state`) and an outcome badge (its
 * text, changed only when it differs so a live region is not read out again, and its class). */
export function showStatus(view: StatusView, state: HTMLElement | null, badge: HTMLElement | null): void {
  if (state) {
    state.textContent = view.state;
    state.dataset.runState = view.runState;
  }
  if (badge) {
    if (badge.textContent !== view.label) badge.textContent = view.label;
    badge.className = `badge ${view.outcome}`;
  }
}
