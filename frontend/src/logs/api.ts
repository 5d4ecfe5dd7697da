// The log's paged API (/api/executions/<id>/log/): the index of a log (its scopes with their
// counts and the skeleton of its lines in runs), its lines by seq range, and search on the
// server, asked through the page's API client (its session; errors are the API's error body).

import type { Api } from "../api/http";
import type { WireEntry, WireScope } from "./feed";

export interface IndexScope extends WireScope {
  /** The scope's own lines (not its descendants'), and how many of them are warnings, errors. */
  lines: number;
  warnings: number;
  errors: number;
}

/** One stretch of consecutive stored lines of one scope (0: the top level): scope, first seq,
 * last seq, how many lines (fewer than last - first + 1 where lines were dropped). */
export type Run = [scope: number, first: number, last: number, count: number];

export interface LogIndex {
  execution: number;
  run_state: string;
  status: string;
  outcome: string;
  last_seq: number;
  lines: number;
  warnings: number;
  errors: number;
  scopes: IndexScope[];
  runs: Run[];
}

export interface LinesPage {
  entries: WireEntry[];
  next: number | null;
}

export interface SearchQuery {
  q: string;
  regex: boolean;
  caseSensitive: boolean;
  /** The lowest level matched, as an index of LEVELS (0: every line). */
  minLevel: number;
  /** Matches in this scope and its descendants; 0 for the whole log. */
  scope: number;
}

export interface SearchPage {
  total: number;
  seqs: number[];
  next: number | null;
  /** The last seq the server searched, when it says (then later lines are searched here). */
  last_seq?: number;
}

export const LINES_PAGE = 1000;
export const LINES_MAX = 10_000;
export const SEARCH_PAGE = 500;

// The level names the search takes, lowest first (the websocket says "information").
export const SEARCH_LEVELS = ["debug", "info", "warning", "error"];

export class LogApi {
  readonly base: string;

  constructor(
    execution: number | string,
    private readonly client: Api,
  ) {
    this.base = `/api/executions/${encodeURIComponent(String(execution))}/log/`;
  }

  index(signal?: AbortSignal): Promise<LogIndex> {
    return this.get<LogIndex>("index/", signal);
  }

  /** Lines with after < seq (<= until), at most `limit`, in seq order. */
  lines(after: number, limit = LINES_PAGE, until?: number, signal?: AbortSignal): Promise<LinesPage> {
    const query = new URLSearchParams({ after: String(after), limit: String(Math.min(limit, LINES_MAX)) });
    if (until !== undefined) query.set("until", String(until));
    return this.get<LinesPage>(`lines/?${query}`, signal);
  }

  search(query: SearchQuery, after = 0, limit = SEARCH_PAGE, signal?: AbortSignal): Promise<SearchPage> {
    return this.get<SearchPage>(`search/?${searchParameters(query, after, limit)}`, signal);
  }

  private get<T>(path: string, signal?: AbortSignal): Promise<T> {
    return this.client.get<T>(this.base + path, { signal });
  }
}

export function searchParameters(query: SearchQuery, after: number, limit: number): URLSearchParams {
  const parameters = new URLSearchParams({
    q: query.q,
    regex: query.regex ? "1" : "0",
    case: query.caseSensitive ? "1" : "0",
    after: String(after),
    limit: String(limit),
  });
  if (query.minLevel > 0) parameters.set("levels", SEARCH_LEVELS.slice(query.minLevel).join(","));
  if (query.scope) parameters.set("scope", String(query.scope));
  return parameters;
}
