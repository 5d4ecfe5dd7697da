// Search while the log runs: a text or a regular expression, with a level filter (that level and
// above) and a scope filter (the scope and its descendants). When the browser holds every line
// (a live log up to LIVE_HOLD_LINES, model.ts) the lines are searched here, a slice at a time so
// the page stays responsive; otherwise the server searches what it has stored (/log/search/,
// a page of matches at a time) and the lines that arrive afterwards are searched here. Either
// way the matches are a sorted list of seqs that grows as lines arrive: next and previous
// move through it (fetching further pages when needed), the count says where the current one is.

import { IntList } from "./arrays";
import type { LogApi, SearchPage, SearchQuery } from "./api";
import type { WireEntry } from "./feed";
import type { LineStore } from "./cache";
import { ERROR, levelIndex, type LogModel, ROOT, WARNING } from "./model";

/** Later pages of matches are bigger than the first (which answers as fast as it can). */
export const FIRST_PAGE = 500;
export const NEXT_PAGES = 5000;
/** How long a slice of the search in the browser runs before it lets the page draw. */
const SLICE_MS = 12;

export interface Matcher {
  readonly query: SearchQuery;
  /** Whether a line matches (its text, level and scope). */
  test(entry: WireEntry): boolean;
  /** Where the text matches in `text` (to mark), as [start, end) pairs. */
  ranges(text: string): [number, number][];
}

export const emptyQuery = (): SearchQuery => ({ q: "", regex: false, caseSensitive: false, minLevel: 0, scope: ROOT });

export function isEmpty(query: SearchQuery): boolean {
  return !query.q && query.minLevel === 0 && query.scope === ROOT;
}

/** The query as a matcher, or why it is not one (a regular expression that does not parse). */
export function compile(query: SearchQuery, subtree: (scope: number) => Set<number>): Matcher | string {
  let find: (text: string) => [number, number][];
  let has: (text: string) => boolean;
  if (!query.q) {
    find = () => [];
    has = () => true;
  } else if (query.regex) {
    let pattern: RegExp;
    try {
      pattern = new RegExp(query.q, query.caseSensitive ? "gu" : "giu");
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
    const single = new RegExp(pattern.source, pattern.flags.replace("g", ""));
    has = (text) => single.test(text);
    find = (text) => {
      const ranges: [number, number][] = [];
      pattern.lastIndex = 0;
      for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
        if (match[0].length === 0) {
          pattern.lastIndex++; // an empty match marks nothing and must not loop
          continue;
        }
        ranges.push([match.index, match.index + match[0].length]);
      }
      return ranges;
    };
  } else {
    const needle = query.caseSensitive ? query.q : query.q.toLowerCase();
    const fold = query.caseSensitive ? (text: string) => text : (text: string) => text.toLowerCase();
    has = (text) => fold(text).includes(needle);
    find = (text) => {
      const ranges: [number, number][] = [];
      const folded = fold(text);
      for (let at = folded.indexOf(needle); at >= 0; at = folded.indexOf(needle, at + needle.length)) ranges.push([at, at + needle.length]);
      return ranges;
    };
  }
  const scopes = query.scope === ROOT ? null : subtree(query.scope);
  return {
    query,
    test: (entry) => (!scopes || scopes.has(entry.scope_id ?? ROOT)) && levelIndex(entry.level) >= query.minLevel && has(entry.message),
    ranges: find,
  };
}

/** The seqs of the matches, in order: those searched first (`head`: the server's pages, or the
 * browser's search of what it held) and those that came live after (`tail`, counted only after
 * `tailAfter`, the last seq the first search covered). */
export class Matches {
  readonly head = new IntList();
  /** How many matches the head will hold once every page is loaded. */
  headTotal = 0;
  headDone = false;

  constructor(
    readonly tail: IntList,
    public tailAfter: number,
    /** Extends the head (a page, a slice); resolves false when it is done. */
    private readonly load: (() => Promise<boolean>) | null = null,
  ) {
    if (!load) this.headDone = true;
  }

  private get tailStart(): number {
    return this.tail.ceil(this.tailAfter + 1);
  }

  get total(): number {
    return (this.headDone ? this.head.length : this.headTotal) + this.tail.length - this.tailStart;
  }

  /** Loads more of the head; false when it had all. */
  async more(): Promise<boolean> {
    if (this.headDone || !this.load) return false;
    const more = await this.load();
    if (!more) this.headDone = true;
    return more;
  }

  /** The first match after `seq`, or -1. */
  async after(seq: number): Promise<number> {
    for (;;) {
      const at = this.head.ceil(seq + 1);
      if (at < this.head.length) return this.head.get(at);
      if (this.headDone) break;
      await this.more();
    }
    const at = Math.max(this.tailStart, this.tail.ceil(seq + 1));
    return at < this.tail.length ? this.tail.get(at) : -1;
  }

  /** The last match before `seq`, or -1. */
  async before(seq: number): Promise<number> {
    const tail = this.tail.floor(seq - 1);
    if (tail >= this.tailStart) return this.tail.get(tail);
    while (this.head.last() < seq - 1 && !this.headDone) await this.more();
    const at = this.head.floor(seq - 1);
    return at >= 0 ? this.head.get(at) : -1;
  }

  /** Which match `seq` is (1 for the first), or 0 when it is not known to be one. */
  position(seq: number): number {
    const head = this.head.indexOf(seq);
    if (head >= 0) return head + 1;
    const tail = this.tail.indexOf(seq);
    if (tail >= this.tailStart && this.headDone) return this.head.length + tail - this.tailStart + 1;
    return 0;
  }

  has(seq: number): boolean {
    return this.head.indexOf(seq) >= 0 || this.tail.indexOf(seq) >= this.tailStart;
  }
}

/** Server pages of a query as a Matches' head. */
export function serverPages(api: LogApi, query: SearchQuery, tail: IntList, tailAfter: number, signal?: AbortSignal, onPage?: (page: SearchPage) => void): Matches {
  let cursor: number | null = 0;
  let first = true;
  const matches: Matches = new Matches(tail, tailAfter, async () => {
    if (cursor === null) return false;
    const page = await api.search(query, cursor, first ? FIRST_PAGE : NEXT_PAGES, signal);
    // the server searched what it had stored, which may be more than the browser had then:
    // lines it searched that arrive live are not counted again
    if (page.last_seq !== undefined) matches.tailAfter = Math.max(matches.tailAfter, page.last_seq);
    if (page.seqs.length) matches.tailAfter = Math.max(matches.tailAfter, page.seqs[page.seqs.length - 1]);
    first = false;
    matches.headTotal = page.total;
    for (const seq of page.seqs) matches.head.addSorted(seq);
    cursor = page.next;
    onPage?.(page);
    return cursor !== null;
  });
  return matches;
}

/** The warnings and errors (or the errors only): the model's own list when every line came
 * live, otherwise the server's and then the model's. */
export function problems(model: LogModel, api: LogApi | null, errorsOnly: boolean): Matches {
  const live = errorsOnly ? model.errors : model.problems;
  if (model.liveFrom === 0 || !api) return new Matches(live, 0);
  return serverPages(api, { ...emptyQuery(), minLevel: errorsOnly ? ERROR : WARNING }, live, model.liveFrom);
}

export interface SearchOptions {
  model: LogModel;
  store: LineStore;
  api: LogApi | null;
  /** The matches or the count changed. */
  onChange(): void;
  /** The server refused the search (a regular expression it does not take) or did not answer. */
  onError?(message: string): void;
}

/** One search at a time; a new query replaces it. */
export class Search {
  matcher: Matcher | null = null;
  matches: Matches | null = null;
  error: string | null = null;
  /** The match moved to last (-1: none yet). */
  current = -1;
  /** Searched on the server (the browser does not hold every line). */
  remote = false;
  private live = new IntList();
  private generation = 0;
  /** Cancels the server's search of the query replaced (typing goes on). */
  private controller: AbortController | null = null;

  constructor(private readonly options: SearchOptions) {}

  get active(): boolean {
    return this.matcher !== null;
  }

  /** Starts searching for `query` (an empty one stops). */
  set(query: SearchQuery): void {
    this.generation++;
    this.controller?.abort();
    this.controller = null;
    this.current = -1;
    this.error = null;
    this.matcher = null;
    this.matches = null;
    this.live = new IntList();
    if (isEmpty(query)) {
      this.options.onChange();
      return;
    }
    const { model, store, api } = this.options;
    const compiled = compile(query, (scope) => model.subtree(scope));
    if (typeof compiled === "string") {
      this.error = compiled;
      this.options.onChange();
      return;
    }
    this.matcher = compiled;
    const generation = this.generation;
    this.remote = !(store.holdsAll && model.liveFrom === 0) && api !== null;
    if (this.remote) {
      this.controller = new AbortController();
      this.matches = serverPages(api!, query, this.live, model.lastSeq, this.controller.signal);
    } else {
      const scanned = model.lastSeq;
      let from = 1;
      this.matches = new Matches(this.live, scanned, async () => {
        if (generation !== this.generation) return false;
        from = this.scan(from, scanned);
        if (this.matches) this.matches.headTotal = this.matches.head.length;
        if (from <= scanned) await new Promise((resolve) => setTimeout(resolve, 0));
        return from <= scanned;
      });
    }
    void this.fill(generation);
  }

  /** Lines that just arrived (searched here whatever the mode). */
  onLines(entries: readonly WireEntry[]): void {
    if (!this.matcher || !this.matches) return;
    let added = false;
    for (const entry of entries)
      if (entry.seq > this.matches.tailAfter && this.matcher.test(entry)) {
        this.live.push(entry.seq);
        added = true;
      }
    if (added) this.options.onChange();
  }

  /** The next match after `seq` (the first after the last, again), or -1. */
  async next(seq: number): Promise<number> {
    const matches = this.matches;
    if (!matches) return -1;
    let found = await this.guard(() => matches.after(seq));
    if (found < 0 && seq > 0) found = await this.guard(() => matches.after(0));
    return this.moved(found);
  }

  async previous(seq: number): Promise<number> {
    const matches = this.matches;
    if (!matches) return -1;
    let found = await this.guard(() => matches.before(seq));
    if (found < 0) found = await this.guard(() => matches.before(Number.MAX_SAFE_INTEGER));
    return this.moved(found);
  }

  /** "3 of 120", "120 matches", "searching…", or why the search failed. */
  describe(): string {
    if (this.error) return this.error;
    const matches = this.matches;
    if (!matches) return "";
    if (!matches.headDone && !matches.head.length && !matches.headTotal) return "searching…";
    const total = matches.total;
    const more = matches.headDone || this.remote ? "" : "+";
    const position = this.current >= 0 ? matches.position(this.current) : 0;
    if (!total) return matches.headDone ? "no matches" : "searching…";
    return position ? `${position.toLocaleString("en")} of ${total.toLocaleString("en")}${more}` : `${total.toLocaleString("en")}${more} ${total === 1 ? "match" : "matches"}`;
  }

  /** Whether line `entry` is a match (for the rows on screen). */
  isMatch(entry: WireEntry): boolean {
    return this.matcher !== null && this.matcher.test(entry);
  }

  private moved(seq: number): number {
    if (seq >= 0) this.current = seq;
    this.options.onChange();
    return seq;
  }

  private async guard(find: () => Promise<number>): Promise<number> {
    const generation = this.generation;
    try {
      const found = await find();
      return generation === this.generation ? found : -1;
    } catch (error) {
      if (generation === this.generation) this.fail(error);
      return -1;
    }
  }

  /** The first page (or slice), and in the browser the whole search, so the count is right. */
  private async fill(generation: number): Promise<void> {
    const matches = this.matches!;
    try {
      do {
        const more = await matches.more();
        if (generation !== this.generation) return;
        this.options.onChange();
        if (!more || this.remote) return;
      } while (!matches.headDone);
    } catch (error) {
      if (generation === this.generation) this.fail(error);
    }
  }

  private fail(error: unknown): void {
    this.error = error instanceof Error ? error.message : String(error);
    this.options.onError?.(this.error);
    this.options.onChange();
  }

  /** Searches the held lines from seq `from` for SLICE_MS at most; where to go on. */
  private scan(from: number, until: number): number {
    const { model, store } = this.options;
    const matcher = this.matcher!;
    const head = this.matches!.head;
    const stop = performance.now() + SLICE_MS;
    let next = until + 1;
    let count = 0;
    model.forEachSeq(from, (seq) => {
      if (seq > until) return false;
      const entry = store.get(seq);
      if (entry && matcher.test(entry)) head.push(seq);
      if (++count % 1024 === 0 && performance.now() > stop) {
        next = seq + 1;
        return false;
      }
      return true;
    });
    return next;
  }
}
