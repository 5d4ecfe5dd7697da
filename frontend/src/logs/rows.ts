// How one row of the log looks: a line (its seq as a permalink, its time, its text with the
// search's matches marked, a copy button) or a scope's header (expand/collapse, name, status,
// duration, counts of lines, warnings and errors with its descendants', a copy button). A row's
// element is built once and updated in place, so a focused button survives redrawing, and the
// window reuses the elements of rows that scrolled away.

import type { WireEntry } from "./feed";
import type { Row } from "./layout";
import { LEVELS, type ScopeNode } from "./model";

export type TimeMode = "none" | "absolute" | "relative";

export interface RowLook {
  entry(seq: number): WireEntry | undefined;
  expanded(scope: number): boolean;
  times: TimeMode;
  /** Milliseconds since the epoch that relative times count from. */
  origin: number;
  /** Null when the line is not a search match; otherwise where the search's text is in
   * `shown` (the text as the row shows it), to mark. */
  marks(entry: WireEntry, shown: string): [number, number][] | null;
  currentMatch: number;
  target: number;
  /** A line's permalink: #seq-N on the execution page, its address elsewhere. */
  permalink(seq: number): string;
}

export function rowKey(row: Row): string {
  if (row.kind === "scope") return `s${row.scope.id}`;
  return row.seq >= 0 ? `l${row.seq}` : `u${row.scope.id}:${row.ordinal}`;
}

export function drawRow(row: Row, reuse: HTMLElement | null, look: RowLook, document: Document): HTMLElement {
  return row.kind === "scope" ? drawScope(row.scope, row.depth, reuse, look, document) : drawLine(row, reuse, look, document);
}

// ---- lines

function lineElement(document: Document): HTMLElement {
  const element = document.createElement("div");
  element.setAttribute("role", "treeitem");
  const seq = document.createElement("a");
  seq.className = "log-seq";
  seq.tabIndex = -1;
  const time = document.createElement("span");
  time.className = "log-time";
  const text = document.createElement("span");
  text.className = "log-text";
  const copy = document.createElement("button");
  copy.type = "button";
  copy.className = "log-copy";
  copy.tabIndex = -1;
  copy.textContent = "Copy";
  element.append(seq, time, text, copy);
  return element;
}

function drawLine(row: Extract<Row, { kind: "line" }>, reuse: HTMLElement | null, look: RowLook, document: Document): HTMLElement {
  const element = reuse?.dataset.kind === "line" ? reuse : lineElement(document);
  element.dataset.kind = "line";
  const [seqLink, time, text, copy] = element.children as unknown as [HTMLAnchorElement, HTMLElement, HTMLElement, HTMLElement];
  const entry = row.seq >= 0 ? look.entry(row.seq) : undefined;
  const classes = ["log-line", "entry"];
  if (entry) classes.push(`level-${entry.level === "info" ? LEVELS[1] : entry.level}`);
  else classes.push("loading");
  const shown = entry ? oneLine(entry.message) : "";
  const marks = entry ? look.marks(entry, shown) : null;
  if (marks) classes.push("match");
  if (row.seq >= 0 && row.seq === look.currentMatch) classes.push("current-match");
  if (row.seq >= 0 && row.seq === look.target) classes.push("target");
  element.className = classes.join(" ");
  element.setAttribute("aria-level", String(row.depth + 1));
  element.style.setProperty("--depth", String(row.depth));
  if (row.seq >= 0) {
    element.dataset.seq = String(row.seq);
    seqLink.textContent = String(row.seq);
    seqLink.href = look.permalink(row.seq);
    copy.setAttribute("aria-label", `Copy line ${row.seq}`);
  } else {
    delete element.dataset.seq;
    seqLink.textContent = "";
    seqLink.removeAttribute("href");
  }
  copy.hidden = !entry;
  time.hidden = look.times === "none";
  time.textContent = entry && look.times !== "none" ? formatTime(entry.time, look.times, look.origin) : "";
  if (!entry) {
    text.textContent = ""; // not fetched yet (the style shows an ellipsis)
    text.removeAttribute("title");
    return element;
  }
  const message = entry.message;
  if (marks && marks.length) {
    text.replaceChildren(...marked(shown, marks, document));
    text.dataset.marked = "";
  } else if (text.dataset.marked !== undefined || text.textContent !== shown) {
    text.textContent = shown;
    delete text.dataset.marked;
  }
  if (shown !== message || message.length > 160) text.title = message.length > 4000 ? `${message.slice(0, 4000)}…` : message;
  else text.removeAttribute("title");
  return element;
}

/** A message on one row: line breaks shown as ⏎ (the whole text is in the title and the copy). */
export function oneLine(message: string): string {
  return message.includes("\n") ? message.replace(/\r?\n/g, " ⏎ ") : message;
}

/** The text with <mark>s around `ranges`. */
function marked(shown: string, ranges: [number, number][], document: Document): Node[] {
  const nodes: Node[] = [];
  let at = 0;
  for (const [start, end] of ranges) {
    if (start < at || start >= shown.length) continue;
    if (start > at) nodes.push(document.createTextNode(shown.slice(at, start)));
    const mark = document.createElement("mark");
    mark.textContent = shown.slice(start, end);
    nodes.push(mark);
    at = end;
  }
  if (at < shown.length) nodes.push(document.createTextNode(shown.slice(at)));
  return nodes;
}

// ---- scope headers

function scopeElement(document: Document): HTMLElement {
  const element = document.createElement("div");
  element.setAttribute("role", "treeitem");
  const time = document.createElement("span");
  time.className = "log-time";
  const toggle = document.createElement("button");
  toggle.type = "button";
  toggle.className = "log-toggle";
  const caret = document.createElement("span");
  caret.className = "log-caret";
  caret.setAttribute("aria-hidden", "true");
  const name = document.createElement("span");
  name.className = "log-scope-name";
  toggle.append(caret, name);
  const status = document.createElement("span");
  const duration = document.createElement("span");
  duration.className = "log-scope-duration";
  const counts = document.createElement("span");
  counts.className = "log-scope-counts";
  const copy = document.createElement("button");
  copy.type = "button";
  copy.className = "log-copy";
  copy.textContent = "Copy";
  element.append(time, toggle, status, duration, counts, copy);
  return element;
}

function drawScope(scope: ScopeNode, depth: number, reuse: HTMLElement | null, look: RowLook, document: Document): HTMLElement {
  const element = reuse?.dataset.kind === "scope" ? reuse : scopeElement(document);
  element.dataset.kind = "scope";
  const [time, toggle, status, duration, counts, copy] = element.children as unknown as HTMLElement[];
  const expanded = look.expanded(scope.id);
  const running = !scope.ended && scope.known;
  const problems = scope.total.errors ? " has-errors" : scope.total.warnings ? " has-warnings" : "";
  element.className = `log-scope status-${running ? "running" : scope.status}${problems}`;
  element.dataset.scope = String(scope.id);
  element.setAttribute("aria-expanded", String(expanded));
  element.setAttribute("aria-level", String(depth + 1));
  element.style.setProperty("--depth", String(depth));
  time.hidden = look.times === "none";
  time.textContent = look.times !== "none" && scope.started ? formatTime(scope.started, look.times, look.origin) : "";
  setText(toggle.lastElementChild as HTMLElement, scope.name);
  const statusText = running ? "running" : scope.status === "normal" ? "" : scope.status;
  status.className = `log-scope-status badge ${running ? "executing" : scope.status}`;
  status.hidden = !statusText;
  setText(status, statusText);
  setText(duration, running ? "" : scope.ended ? formatDuration(Date.parse(scope.ended) - Date.parse(scope.started)) : "");
  setText(counts, countsText(scope));
  copy.setAttribute("aria-label", `Copy the lines of ${scope.name}`);
  return element;
}

function setText(element: HTMLElement, text: string): void {
  if (element.textContent !== text) element.textContent = text;
}

const plural = (count: number, one: string) => `${count.toLocaleString("en")} ${one}${count === 1 ? "" : "s"}`;

/** "301 lines · 1 warning · 2 errors" (its descendants' included). */
export function countsText(scope: ScopeNode): string {
  const parts = [plural(scope.total.lines, "line")];
  if (scope.total.warnings) parts.push(plural(scope.total.warnings, "warning"));
  if (scope.total.errors) parts.push(plural(scope.total.errors, "error"));
  return parts.join(" · ");
}

/** "850 ms", "2.5 s", "4 min 05 s", "2 h 07 min". */
export function formatDuration(milliseconds: number): string {
  if (!Number.isFinite(milliseconds) || milliseconds < 0) return "";
  if (milliseconds < 1000) return `${Math.round(milliseconds)} ms`;
  const seconds = milliseconds / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${String(Math.floor(seconds % 60)).padStart(2, "0")} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} min`;
}

const pad = (value: number, width = 2) => String(value).padStart(width, "0");

/** A time as the rows show it: the local time of day to the millisecond, or how long after
 * `origin` (+12.345 s, +4:05.120). */
export function formatTime(iso: string, mode: TimeMode, origin: number): string {
  const time = Date.parse(iso);
  if (!Number.isFinite(time) || mode === "none") return "";
  if (mode === "absolute") {
    const date = new Date(time);
    return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
  }
  const since = Math.max(0, time - origin);
  const seconds = Math.floor(since / 1000);
  const milliseconds = pad(since % 1000, 3);
  if (seconds < 60) return `+${seconds}.${milliseconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `+${minutes}:${pad(seconds % 60)}.${milliseconds}`;
  return `+${Math.floor(minutes / 60)}:${pad(minutes % 60)}:${pad(seconds % 60)}`;
}
