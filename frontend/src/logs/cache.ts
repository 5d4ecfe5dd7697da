// The texts of the log's lines, by seq: all of them while a live log is small enough
// (LIVE_HOLD_LINES), otherwise those near the screen (CACHED_LINES), fetched from
// /log/lines/ by seq range as the user scrolls and let go least recently used first. Lines are
// kept in chunks of CHUNK consecutive seqs: a chunk is fetched whole, so a seq missing from a
// fetched chunk is a line that was never stored (dropped by the volume limit), not one to ask for.

import type { LogApi } from "./api";
import { LINES_MAX } from "./api";
import type { WireEntry } from "./feed";
import type { Row } from "./layout";
import { FETCH_LINES, type LogModel } from "./model";

export const CHUNK = 256;
// at most this many requests at a time; newer wishes wait, older ones are cancelled
const PARALLEL = 2;

interface Chunk {
  entries: (WireEntry | undefined)[];
  /** Every stored line of the chunk's seqs is here (up to the last seq received). */
  complete: boolean;
}

export class LineStore {
  // least recently used first (a Map keeps the order of insertion: a used chunk is put again)
  private readonly chunks = new Map<number, Chunk>();
  private held = 0;
  /** Every line from seq 1 on is held: nothing was fetched by range or let go. */
  holdsAll = true;
  /** Lines after this seq come live (the websocket), every one of them. */
  liveFrom = 0;

  constructor(public capacity: number) {}

  get size(): number {
    return this.held;
  }

  get(seq: number): WireEntry | undefined {
    return this.chunks.get(Math.floor(seq / CHUNK))?.entries[seq % CHUNK];
  }

  /** Whether the text of `seq` must be fetched (it is not here and may exist). */
  missing(seq: number): boolean {
    const chunk = this.chunks.get(Math.floor(seq / CHUNK));
    return !chunk || (!chunk.complete && chunk.entries[seq % CHUNK] === undefined);
  }

  /** Lines that came live, or were fetched by range: then `range` says that every stored line
   * of [from, until] is among them. */
  put(entries: readonly WireEntry[], range?: { from: number; until: number }): void {
    for (const entry of entries) {
      const key = Math.floor(entry.seq / CHUNK);
      let chunk = this.chunks.get(key);
      if (!chunk) {
        chunk = { entries: new Array(CHUNK), complete: Math.max(1, key * CHUNK) > this.liveFrom };
        this.chunks.set(key, chunk);
      }
      if (chunk.entries[entry.seq % CHUNK] === undefined) this.held++;
      chunk.entries[entry.seq % CHUNK] = entry;
    }
    if (range) {
      for (let key = Math.floor(range.from / CHUNK); key * CHUNK <= range.until; key++) {
        if (key * CHUNK >= range.from && (key + 1) * CHUNK - 1 <= range.until) {
          let chunk = this.chunks.get(key);
          if (!chunk) this.chunks.set(key, (chunk = { entries: new Array(CHUNK), complete: true }));
          chunk.complete = true;
        }
      }
    }
    this.letGo();
  }

  /** The chunks of these seqs were just used: they are let go last. */
  touch(seqs: Iterable<number>): void {
    let previous = -1;
    for (const seq of seqs) {
      const key = Math.floor(seq / CHUNK);
      if (key === previous) continue;
      previous = key;
      const chunk = this.chunks.get(key);
      if (chunk) {
        this.chunks.delete(key);
        this.chunks.set(key, chunk);
      }
    }
  }

  private letGo(): void {
    for (const [key, chunk] of this.chunks) {
      if (this.held <= this.capacity) return;
      this.chunks.delete(key);
      for (const entry of chunk.entries) if (entry) this.held--;
      this.holdsAll = false;
    }
  }
}

interface Request {
  key: string;
  after: number;
  until: number;
  limit: number;
  /** A run with dropped lines whose seqs this request learns. */
  run?: number;
  controller?: AbortController;
}

/** Fetches the lines of the rows on screen that the store does not hold. */
export class LineFetcher {
  private readonly running = new Map<string, Request>();
  private queue: Request[] = [];
  /** Requests that failed, by key: not asked again until the wish changes. */
  private failed = new Set<string>();
  onLoaded: (() => void) | null = null;
  onError: ((error: unknown) => void) | null = null;

  constructor(
    private readonly api: LogApi,
    private readonly store: LineStore,
    private readonly model: LogModel,
  ) {}

  get busy(): boolean {
    return this.running.size > 0 || this.queue.length > 0;
  }

  /** What these rows need (the screen and a margin around it): requests for the chunks
   * missing, nearby chunks grouped, FETCH_LINES at least a request. Requests under way that no
   * row needs any more are cancelled, and wishes not started yet are replaced. */
  want(rows: readonly Row[]): void {
    const wishes: Request[] = [];
    const runs = new Set<number>();
    let keys: number[] = [];
    for (const row of rows) {
      if (row.kind !== "line") continue;
      if (row.seq < 0) {
        const where = this.model.unresolved(row.scope, row.ordinal);
        if (!where || runs.has(where.run)) continue;
        runs.add(where.run);
        const limit = Math.min(LINES_MAX, where.needed + FETCH_LINES);
        wishes.push({ key: `run ${where.run} after ${where.after}`, after: where.after, until: where.until, limit, run: where.run });
      } else if (this.store.missing(row.seq)) keys.push(Math.floor(row.seq / CHUNK));
    }
    keys = [...new Set(keys)].sort((a, b) => a - b);
    const covers = (request: Request, key: number) => request.run === undefined && request.after < key * CHUNK && (key + 1) * CHUNK - 1 <= request.until;
    for (const [key, request] of this.running) {
      const needed = request.run !== undefined ? runs.has(request.run) : keys.some((k) => covers(request, k));
      if (!needed) {
        request.controller?.abort();
        this.running.delete(key);
      }
    }
    const running = [...this.running.values()];
    keys = keys.filter((key) => !running.some((request) => covers(request, key)));
    const perRequest = Math.ceil(FETCH_LINES / CHUNK);
    for (let i = 0; i < keys.length; ) {
      const first = keys[i];
      let last = first;
      while (i < keys.length && keys[i] - first < Math.floor(LINES_MAX / CHUNK) && keys[i] - last <= perRequest) last = keys[i++];
      // at least FETCH_LINES: the chunks after these (scrolling down is the usual way)
      if (last - first + 1 < perRequest) last = first + perRequest - 1;
      const after = Math.max(0, first * CHUNK - 1);
      const until = (last + 1) * CHUNK - 1;
      wishes.push({ key: `${first}-${last}`, after, until, limit: until - after });
    }
    const wished = new Set(wishes.map((w) => w.key));
    this.failed = new Set([...this.failed].filter((key) => wished.has(key)));
    this.queue = wishes.filter((w) => !this.running.has(w.key) && !this.failed.has(w.key));
    this.pump();
  }

  private pump(): void {
    while (this.running.size < PARALLEL && this.queue.length) {
      const request = this.queue.shift()!;
      request.controller = new AbortController();
      this.running.set(request.key, request);
      void this.fetch(request);
    }
  }

  private async fetch(request: Request): Promise<void> {
    try {
      const page = await this.api.lines(request.after, request.limit, request.until, request.controller?.signal);
      if (this.running.get(request.key) !== request) return; // cancelled meanwhile
      this.model.learnLevels(page.entries);
      if (request.run !== undefined) {
        this.model.resolve(request.run, page.entries);
        this.store.put(page.entries);
      } else {
        // a page cut short by the limit is complete only up to its last line
        const until = page.next !== null && page.entries.length ? page.entries[page.entries.length - 1].seq : request.until;
        this.store.put(page.entries, { from: request.after + 1, until });
      }
      this.onLoaded?.();
    } catch (error) {
      if (request.controller?.signal.aborted) return;
      this.failed.add(request.key);
      this.onError?.(error);
    } finally {
      if (this.running.get(request.key) === request) this.running.delete(request.key);
      this.pump();
    }
  }
}
