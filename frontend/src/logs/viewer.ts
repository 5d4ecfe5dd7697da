// The live log viewer, shared by the execution page (with its toolbar) and the run panel beside
// the item page's editor (compact: the rows only). It puts together the model of the log
// (model.ts, layout.ts), the line texts (cache.ts), the virtual window (window.ts, rows.ts),
// the search (search.ts) and the websocket (connection.ts):
// - a running execution of up to LIVE_HOLD_LINES lines comes whole over the websocket and is
//   held here; a finished one, or a longer one, starts from the server's index and fetches its
//   lines by range as they come on screen (the live tail, if any, from the websocket);
// - the tail is followed until the user scrolls up (the button or End follows it again);
// - a permalink (#seq-N) opens at its line, its scopes expanded.
// Hooks for browser tests (ids, classes, data attributes) are those tests/e2e/test_log_viewer.py
// uses; renaming one breaks it.

import { type Api, ApiError } from "../api/http";
import { LogApi, type LogIndex, type SearchQuery } from "./api";
import { LineFetcher, LineStore } from "./cache";
import { LogConnection, type ConnectionState } from "./connection";
import { buildControls, type Controls, fillScopes, LEVEL_CHOICES, showConnection } from "./controls";
import { CopyRefused, lineText, scopePath, scopeText, writeClipboard } from "./copy";
import { type StatusView, statusView, type WireEntry } from "./feed";
import { Layout, type Row } from "./layout";
import { CACHED_LINES, LIVE_HOLD_LINES, LogModel, ROOT } from "./model";
import { drawRow, rowKey, type RowLook, type TimeMode } from "./rows";
import { emptyQuery, type Matches, problems, Search } from "./search";
import { VirtualWindow } from "./window";
import "./logs.css";

export interface WatchOptions {
  /** The element the log is drawn in (#log on the execution page). */
  root: HTMLElement;
  execution: number | string;
  /** The run panel's form: no toolbar, and the tail followed again when scrolled to. */
  compact?: boolean;
  /** When the execution started (ISO 8601): relative times count from it. */
  started?: string;
  /** Ask the server's index first (the page); the run panel's new runs need not. */
  useIndex?: boolean;
  /** The state and outcome changed. */
  onStatus?(view: StatusView): void;
  /** Lines arrived. */
  onLines?(): void;
  /** The run ended and every line of it is here. */
  onComplete?(): void;
  /** The server refused to show the log: why. */
  onRefused?(reason: string): void;
  /** How long to wait before reconnecting, in milliseconds. */
  retry?: number;
  connect?: (url: string) => WebSocket;
  /** The page's API client (the log's index, lines and search). */
  client: Api;
  /** For tests: the height on screen, and how a frame is asked for. */
  viewport?: () => number;
  frame?: (draw: () => void) => void;
}

export interface LogWatch {
  /** Stops watching (the run goes on). */
  close(): void;
  readonly done: boolean;
}

const SEARCH_DELAY = 100; // typing: the search waits this long after the last key
// how long scrolling stays still before the lines of a screen it jumped to are fetched
const FETCH_PAUSE = 60;

export class LogViewer implements LogWatch {
  readonly model = new LogModel();
  readonly layout = new Layout(this.model);
  readonly store = new LineStore(LIVE_HOLD_LINES);
  readonly api: LogApi;
  readonly fetcher: LineFetcher;
  readonly search: Search;
  readonly window: VirtualWindow;
  readonly controls: Controls | null;
  readonly scroller: HTMLElement;
  connection: LogConnection | null = null;
  following = false;
  /** The line a permalink or a jump went to (-1: none). */
  target = -1;
  times: TimeMode = "none";
  done = false;
  private readonly document: Document;
  private origin = NaN;
  private ready = false;
  private loaded = false;
  /** A permalink's seq that has not arrived yet. */
  private pending = -1;
  /** A line gone to whose row was not known yet (dropped lines before it in its run). */
  private locating: { seq: number; asTarget: boolean } | null = null;
  /** Where next and previous go from: the line last gone to, until the user scrolls. */
  private cursor = -1;
  private problemLists: { all: Matches | null; errors: Matches | null } = { all: null, errors: null };
  private scheduled = false;
  private searchTimer: ReturnType<typeof setTimeout> | undefined;
  private lastFirst = 0;
  private fetchTimer: ReturnType<typeof setTimeout> | undefined;
  private scopesListed = -1;
  private scopesListedAt = -Infinity;
  /** Where the search started (it goes to the first match after it); -1 once it went. */
  private searchFrom = -1;
  private jumping = false;
  /** The query last searched for, as JSON. */
  private searched = JSON.stringify(emptyQuery());
  private closed = false;
  private readonly cleanups: (() => void)[] = [];

  constructor(private readonly options: WatchOptions) {
    const root = options.root;
    this.document = root.ownerDocument;
    this.api = new LogApi(options.execution, options.client);
    this.fetcher = new LineFetcher(this.api, this.store, this.model);
    this.fetcher.onLoaded = () => this.changed();
    this.fetcher.onError = (error) => this.say(`Lines could not be fetched: ${describe(error)}`);
    this.search = new Search({
      model: this.model,
      store: this.store,
      api: this.api,
      onChange: () => this.searchChanged(),
    });
    if (options.started) this.origin = Date.parse(options.started);
    root.classList.add("log-viewer");
    root.dataset.connection = "connecting";
    if (options.compact) {
      this.controls = null;
      this.scroller = root;
      root.classList.add("log-compact");
    } else {
      this.controls = buildControls(this.document);
      this.scroller = this.document.createElement("div");
      this.scroller.className = "log-scroller";
      this.scroller.tabIndex = 0;
      this.scroller.setAttribute("role", "region");
      this.scroller.setAttribute("aria-label", "Log lines");
      root.replaceChildren(this.controls.toolbar, this.scroller);
    }
    this.window = new VirtualWindow(this.scroller, this.source(), {
      viewport: options.viewport,
      frame: options.frame,
      onUserScroll: (atEnd, up) => this.userScrolled(atEnd, up),
      onDrawn: (first, last) => this.drawn(first, last),
    });
    this.window.rows.setAttribute("role", "tree");
    this.window.rows.setAttribute("aria-label", "Log");
    this.model.onChange = (ids) => {
      this.layout.invalidate(ids);
      this.changed();
    };
    this.listen();
    if (options.compact) this.setFollowing(true);
    else if (this.hashTarget() >= 0) this.pending = this.hashTarget();
  }

  // ---- loading

  async start(): Promise<void> {
    let index: LogIndex | null = null;
    if (this.options.useIndex ?? !this.options.compact) {
      try {
        index = await this.api.index();
      } catch (error) {
        if (error instanceof ApiError && error.status === 403) return this.refused("You may not see this execution's log.");
        index = null; // no index (an older server): the whole log over the websocket, as before
      }
    }
    if (this.closed) return;
    const finished = index?.run_state === "completed";
    if (index && (finished || index.lines > LIVE_HOLD_LINES)) {
      this.model.loadIndex(index);
      this.store.capacity = CACHED_LINES;
      this.store.holdsAll = false;
      this.store.liveFrom = this.model.lastSeq;
      if (Number.isNaN(this.origin)) this.origin = Date.parse(index.scopes[0]?.started ?? "");
    }
    this.loaded = true;
    this.listScopes();
    if (finished) {
      // it may have ended since the page was made: say so as the websocket would have
      this.done = true;
      this.setState("complete");
      this.options.onStatus?.(statusView({ type: "status", run_state: index!.run_state, status: index!.status, outcome: index!.outcome }));
      this.options.onComplete?.();
    } else {
      if (this.hashTarget() < 0 && !this.options.compact) this.setFollowing(true);
      this.connection = new LogConnection({
        execution: this.options.execution,
        after: () => this.model.lastSeq,
        retry: this.options.retry,
        connect: this.options.connect,
        handlers: {
          scopes: (scopes) => scopes.forEach((scope) => this.model.scope(scope)),
          entries: (entries) => this.entries(entries),
          status: (message) => this.options.onStatus?.(statusView(message)),
          complete: () => {
            this.done = true;
            this.options.onComplete?.();
          },
          state: (state, reason) => (state === "refused" ? this.refused(reason ?? "") : this.setState(state)),
        },
      });
      this.connection.start();
    }
    this.goToPending();
    this.requestDraw();
  }

  close(): void {
    this.closed = true;
    this.connection?.close();
    clearTimeout(this.searchTimer);
    clearTimeout(this.fetchTimer);
    for (const cleanup of this.cleanups) cleanup();
  }

  private entries(entries: readonly WireEntry[]): void {
    const fresh = this.model.append(entries);
    if (!fresh.length) return;
    if (Number.isNaN(this.origin)) this.origin = Date.parse(fresh[0].time);
    this.store.put(fresh);
    this.search.onLines(fresh);
    if (this.pending >= 0 && this.model.lastSeq >= this.pending) this.goToPending();
    this.options.onLines?.();
  }

  private refused(reason: string): void {
    this.done = true;
    this.setState("refused");
    this.say(reason);
    this.options.onRefused?.(reason);
  }

  private setState(state: ConnectionState): void {
    this.options.root.dataset.connection = state;
    showConnection(this.controls, state);
  }

  // ---- drawing

  private source() {
    const viewer = this;
    const look: RowLook = {
      entry: (seq) => this.store.get(seq),
      expanded: (scope) => this.layout.isExpanded(scope),
      get times() {
        return viewer.times;
      },
      get origin() {
        return viewer.origin;
      },
      marks: (entry, shown) => {
        const matcher = this.search.matcher;
        return matcher && matcher.test(entry) ? matcher.ranges(shown) : null;
      },
      get currentMatch() {
        return viewer.search.current;
      },
      get target() {
        return viewer.target;
      },
      // the run panel's lines open the execution page there
      permalink: this.options.compact ? (seq) => `/executions/${encodeURIComponent(String(this.options.execution))}/#seq-${seq}` : (seq) => `#seq-${seq}`,
    };
    return {
      count: () => (this.loaded ? this.layout.rowCount : 0),
      key: (row: number) => rowKey(this.layout.rowAt(row)),
      draw: (row: number, reuse: HTMLElement | null) => drawRow(this.layout.rowAt(row), reuse, look, this.document),
      find: (key: string) => {
        const id = Number(key.slice(1));
        if (key[0] === "l") return this.layout.rowOfSeq(id);
        if (key[0] === "s") return this.layout.rowOfScope(id);
        return -1;
      },
    };
  }

  /** The log changed: the rows on screen are drawn again at the next frame. */
  private changed(): void {
    const locating = this.locating;
    // its row is known now, or that it was dropped (then the next line)
    if (locating && (this.layout.rowOfSeq(locating.seq) >= 0 || this.model.scopeOf(locating.seq) < 0)) this.goTo(locating.seq, locating.asTarget);
    this.window.generation++;
    this.requestDraw();
  }

  private requestDraw(): void {
    if (this.scheduled || this.closed) return;
    this.scheduled = true;
    const frame = this.options.frame ?? ((draw: () => void) => requestAnimationFrame(draw));
    frame(() => {
      this.scheduled = false;
      if (this.following) this.window.scrollToEnd();
      else this.window.draw();
      // the scope filter's choices, again when scopes opened (not while it is used, and at
      // most every few seconds: a live log may open scopes by the hundred)
      const now = performance.now();
      if (this.scopesListed !== this.model.scopes.size && this.document.activeElement !== this.controls?.scope && now - this.scopesListedAt > 3000) {
        this.scopesListedAt = now;
        this.listScopes();
      }
    });
  }

  /** After each frame: fetch what the rows on screen miss, and say when the first screen is
   * complete. */
  private drawn(first: number, last: number): void {
    if (!this.loaded) return;
    // scrolled further than a screen since the last frame (a scrollbar dragged, a jump): the
    // lines are fetched once it stops a moment, not for every screen it passes
    const jumped = Math.abs(first - this.lastFirst) > last - first + 1;
    this.lastFirst = first;
    clearTimeout(this.fetchTimer);
    if (jumped && this.ready) this.fetchTimer = setTimeout(() => this.fetchShown(), FETCH_PAUSE);
    else this.fetchShown();
    if (!this.ready && !this.window.rows.querySelector(".loading")) {
      this.ready = true;
      this.options.root.dataset.ready = "true";
    }
  }

  /** Fetches what the rows drawn, and a screen more below, miss. */
  private fetchShown(): void {
    const { first, last } = this.window;
    const rows: Row[] = [];
    const seqs: number[] = [];
    const end = Math.min(this.layout.rowCount - 1, last + (last - first + 1));
    for (let row = first; row <= end; row++) {
      const at = this.layout.rowAt(row);
      rows.push(at);
      if (at.kind === "line" && at.seq >= 0) seqs.push(at.seq);
    }
    this.store.touch(seqs);
    if (!this.store.holdsAll || this.model.liveFrom) this.fetcher.want(rows);
  }

  // ---- following the tail

  private setFollowing(following: boolean): void {
    this.following = following;
    this.controls?.follow.setAttribute("aria-pressed", String(following));
    this.options.root.dataset.following = String(following);
    if (following) this.requestDraw();
  }

  private userScrolled(atEnd: boolean, up: boolean): void {
    this.cursor = -1;
    this.locating = null;
    if (this.following && up && !atEnd) this.setFollowing(false);
    else if (!this.following && atEnd && !up && this.options.compact) this.setFollowing(true);
  }

  // ---- going to a line

  /** The seq of a permalink in the address (#seq-N), or -1. */
  private hashTarget(): number {
    const hash = /^#seq-(\d+)$/.exec(location.hash);
    return hash ? Number(hash[1]) : -1;
  }

  private goToPending(): void {
    const seq = this.pending;
    if (seq < 0 || !this.loaded) return;
    if (seq > this.model.lastSeq && !this.done) return; // not arrived yet: when it does
    this.pending = -1;
    this.goTo(seq, true);
  }

  /** Scrolls to line `seq` (the next line when there is none), its scopes expanded. */
  goTo(seq: number, asTarget: boolean): void {
    this.setFollowing(false);
    let line = seq;
    if (this.model.scopeOf(line) < 0) {
      // a seq that was dropped, or not in the log: the next line there is
      const run = this.model.runFirst.floor(line) + 1;
      line = line <= this.model.lastSeq && run < this.model.runFirst.length ? this.model.runFirst.get(run) : this.model.lastSeq;
    }
    if (this.layout.reveal(line)) this.window.generation++;
    let row = this.layout.rowOfSeq(line);
    this.locating = null;
    if (row < 0) {
      // a run with dropped lines whose seqs are not known yet: its first line, until its lines
      // are fetched (then here again)
      const run = this.model.runOf(line);
      if (run >= 0) row = this.layout.rowOfSeq(this.model.runFirst.get(run));
      this.locating = { seq: line, asTarget };
    }
    if (asTarget) this.target = line;
    this.cursor = line;
    this.window.generation++;
    if (row >= 0) this.window.scrollToRow(row, "center");
  }

  // ---- the toolbar and the rows' buttons

  private listen(): void {
    const on = <K extends keyof HTMLElementEventMap>(target: EventTarget, type: K, handler: (event: HTMLElementEventMap[K]) => void) => {
      target.addEventListener(type, handler as EventListener);
      this.cleanups.push(() => target.removeEventListener(type, handler as EventListener));
    };
    on(this.scroller, "click", (event) => this.clicked(event));
    const onHash = () => {
      const seq = this.hashTarget();
      if (seq >= 0) {
        this.pending = seq;
        this.goToPending();
      }
    };
    if (!this.options.compact) {
      window.addEventListener("hashchange", onHash);
      this.cleanups.push(() => window.removeEventListener("hashchange", onHash));
    }
    on(this.options.compact ? this.scroller : this.document, "keydown", (event) => this.key(event as KeyboardEvent));
    const controls = this.controls;
    if (!controls) return;
    on(controls.follow, "click", () => {
      if (this.following) this.setFollowing(false);
      else this.follow();
    });
    on(controls.expandAll, "click", () => this.keepTop(() => this.layout.expandAll()));
    on(controls.collapseAll, "click", () => this.keepTop(() => this.layout.collapseAll()));
    on(controls.times, "change", () => {
      this.times = controls.times.value as TimeMode;
      this.options.root.dataset.times = this.times;
      this.changed();
    });
    const later = () => {
      clearTimeout(this.searchTimer);
      this.searchTimer = setTimeout(() => this.runSearch(), SEARCH_DELAY);
    };
    on(controls.search, "input", later);
    on(controls.search, "keydown", (event) => {
      const key = event as KeyboardEvent;
      if (key.key !== "Enter") return;
      key.preventDefault();
      if (this.searchTimer !== undefined || JSON.stringify(this.query()) !== this.searched) {
        clearTimeout(this.searchTimer);
        this.runSearch(false);
      }
      void this.match(key.shiftKey ? -1 : 1);
    });
    for (const control of [controls.regex, controls.level, controls.scope]) on(control, "change", () => this.runSearch());
    on(controls.scope, "focus", () => this.listScopes());
    on(controls.next, "click", () => void this.match(1));
    on(controls.previous, "click", () => void this.match(-1));
    on(controls.firstError, "click", () => void this.problem("first"));
    on(controls.nextProblem, "click", () => void this.problem(1));
    on(controls.previousProblem, "click", () => void this.problem(-1));
  }

  /** Follows the tail again (the button, End). */
  follow(): void {
    this.target = -1;
    this.setFollowing(true);
    this.window.scrollToEnd();
  }

  /** End follows the tail, Home goes to the top, / goes to the search (not while typing). */
  private key(event: KeyboardEvent): void {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const target = event.target instanceof HTMLElement ? event.target : null;
    if (target && (/^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName) || target.isContentEditable)) return;
    if (target && target !== this.document.body && !this.options.root.contains(target)) return;
    if (event.key === "End") {
      event.preventDefault();
      this.scroller.scrollIntoView?.({ block: "nearest" });
      this.follow();
    } else if (event.key === "Home") {
      event.preventDefault();
      this.setFollowing(false);
      this.window.scrollToRow(0, "top");
    } else if (event.key === "/" && this.controls) {
      event.preventDefault();
      this.controls.search.focus();
    }
  }

  private clicked(event: MouseEvent): void {
    const clicked = event.target as HTMLElement;
    const copy = clicked.closest(".log-copy");
    const line = clicked.closest<HTMLElement>(".log-line");
    const scope = clicked.closest<HTMLElement>(".log-scope");
    if (copy && line?.dataset.seq) void this.copyLine(Number(line.dataset.seq));
    else if (copy && scope) void this.copyScope(Number(scope.dataset.scope));
    else if (scope && !clicked.closest("a")) {
      const id = Number(scope.dataset.scope);
      this.layout.setExpanded(id, !this.layout.isExpanded(id));
      this.changed();
    }
  }

  /** Runs `change` (expand or collapse all) keeping the line or scope at the top in view. */
  private keepTop(change: () => void): void {
    const [first] = this.window.visible();
    const at = this.layout.rowCount ? this.layout.rowAt(first) : null;
    change();
    this.setFollowing(false);
    this.window.generation++;
    if (!at) return this.window.draw();
    let row = at.kind === "line" ? this.layout.rowOfSeq(at.seq) : this.layout.rowOfScope(at.scope.id);
    if (row < 0) {
      const closed = this.model.path(at.scope.id).find((node) => !this.layout.isExpanded(node.id));
      row = closed ? this.layout.rowOfScope(closed.id) : 0;
    }
    this.window.scrollToRow(Math.max(0, row), "top");
  }

  // ---- search

  private query(): SearchQuery {
    const controls = this.controls!;
    const level = LEVEL_CHOICES.find(([value]) => value === controls.level.value);
    return {
      ...emptyQuery(),
      q: controls.search.value,
      regex: controls.regex.checked,
      minLevel: level ? level[2] : 0,
      scope: Number(controls.scope.value || ROOT),
    };
  }

  /** Searches for what the toolbar says, and goes to the first match below the top of the
   * screen, or to the first that comes (live). While the tail is followed it stays followed:
   * the matches are counted and marked, Enter or Next goes to them. */
  private runSearch(jump = true): void {
    this.searchTimer = undefined;
    const query = this.query();
    this.searched = JSON.stringify(query);
    this.search.set(query);
    this.searchFrom = jump && this.search.active ? this.topSeq() - 1 : -1;
    this.options.root.dataset.search = this.search.active ? (this.search.remote ? "server" : "browser") : "";
    this.changed();
  }

  private async match(step: 1 | -1, from?: number): Promise<void> {
    if (!this.search.active) return;
    const start = from ?? (this.search.current >= 0 ? this.search.current : this.position(step));
    const seq = step > 0 ? await this.search.next(start) : await this.search.previous(start);
    if (seq >= 0) this.goTo(seq, false);
  }

  private searchChanged(): void {
    // the first match (below where the search started) once there is one, unless following
    const matches = this.search.matches;
    if (this.searchFrom >= 0 && !this.following && this.search.current < 0 && matches && matches.total > 0 && !this.jumping) {
      this.jumping = true;
      const from = this.searchFrom;
      void this.match(1, from).finally(() => {
        this.jumping = false;
        if (this.search.current >= 0) this.searchFrom = -1;
      });
    }
    if (this.controls) {
      const text = this.search.describe();
      if (this.controls.count.textContent !== text) this.controls.count.textContent = text;
      this.controls.count.dataset.error = this.search.error ? "true" : "false";
    }
    this.changed();
  }

  // ---- errors and warnings

  private async problem(step: "first" | 1 | -1): Promise<void> {
    const errorsOnly = step === "first";
    const key = errorsOnly ? "errors" : "all";
    const list = (this.problemLists[key] ??= problems(this.model, this.loaded && this.model.liveFrom ? this.api : null, errorsOnly));
    let seq = -1;
    try {
      if (step === "first") seq = await list.after(0);
      else {
        const from = this.cursor >= 0 ? this.cursor : this.position(step);
        seq = step > 0 ? await list.after(from) : await list.before(from);
      }
    } catch (error) {
      this.say(`The problems could not be found: ${describe(error)}`);
      return;
    }
    if (seq < 0) {
      this.say(errorsOnly ? "No errors." : step > 0 ? "No warning or error below." : "No warning or error above.");
      return;
    }
    this.say("");
    history.replaceState(null, "", `#seq-${seq}`);
    this.goTo(seq, true);
  }

  /** Where next and previous start from the screen: above its first line (next), or below
   * it (previous). */
  private position(step: 1 | -1): number {
    const top = this.topSeq();
    return step > 0 ? top - 1 : top;
  }

  /** The seq of the first line on screen (or after it). */
  private topSeq(): number {
    const [first, last] = this.window.visible();
    for (let row = first; row <= last && row < this.layout.rowCount; row++) {
      const at = this.layout.rowAt(row);
      if (at.kind === "line" && at.seq >= 0) return at.seq;
    }
    return 0;
  }

  // ---- copying

  private async copyLine(seq: number): Promise<void> {
    const entry = this.store.get(seq);
    if (!entry) return;
    await this.copy(lineText(entry, scopePath(this.model, entry.scope_id)) + "\n", `Copied line ${seq}.`);
  }

  private async copyScope(id: number): Promise<void> {
    try {
      const text = await scopeText(this.model, this.store, this.loaded ? this.api : null, id);
      const node = this.model.scopes.get(id);
      await this.copy(text, `Copied ${node?.name ?? "the scope"} (${(node?.total.lines ?? 0).toLocaleString("en")} lines).`);
    } catch (error) {
      this.say(error instanceof CopyRefused ? error.message : `Not copied: ${describe(error)}`);
    }
  }

  private async copy(text: string, done: string): Promise<void> {
    try {
      await writeClipboard(text, this.document);
      this.say(done);
    } catch (error) {
      this.say(`Not copied: ${describe(error)}`);
    }
  }

  private say(text: string): void {
    if (this.controls) this.controls.said.textContent = text;
  }

  private listScopes(): void {
    if (!this.controls) return;
    this.scopesListed = this.model.scopes.size;
    const scopes = [...this.model.scopes.values()].filter((node) => node.id !== ROOT);
    // in the order they appear: a scope after its parent, siblings by id
    const ordered: typeof scopes = [];
    const walk = (id: number) => {
      for (const child of this.model.scopes.get(id)?.children ?? []) {
        ordered.push(this.model.scopes.get(child)!);
        walk(child);
      }
    };
    walk(ROOT);
    if (ordered.length !== scopes.length) return;
    fillScopes(
      this.controls.scope,
      ordered.map((node) => ({ id: node.id, name: node.name, depth: node.depth })),
    );
  }
}

function describe(error: unknown): string {
  if (error instanceof TypeError) return "the server did not answer.";
  return error instanceof Error ? error.message : String(error);
}

/** Draws execution `options.execution`'s log into `options.root`, live. */
export function watchLog(options: WatchOptions): LogWatch {
  const viewer = new LogViewer(options);
  void viewer.start();
  return viewer;
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
