// A raft item's drafts, commits and diffs (/api/raft-items/<id>/draft/, commit/, diff/): the
// user's unsaved edit kept every few seconds, the save of a version from a base version (409
// with the newer version and the diffs when someone saved meanwhile), and unified diffs.

import { ApiError, type Api, type ErrorBody } from "./http";
import type { ServerDiagnostic } from "./scripts";

export interface Draft {
  content: string;
  base_version: number;
  /** When it was kept (ISO 8601). */
  saved: string;
  latest_version: number | null;
  /** The item has a version newer than the draft's base. */
  moved_on: boolean;
  mode: string;
}

/** The raft item as a commit answers it (the fields the page uses). */
export interface CommittedItem {
  id: number;
  version: number | null;
  content: string;
  mode: string;
  [field: string]: unknown;
}

export interface LatestVersion {
  number: number;
  author: string | null;
  created: string;
  message: string;
  content: string;
}

/** The 409 of a commit whose base version is not the newest one. */
export interface ConflictBody extends ErrorBody {
  code: "conflict";
  detail: string;
  base_version: number;
  latest: LatestVersion;
  /** Unified diff from the base version to the newest. */
  diff: string;
  /** Unified diff from the newest version to the submitted text. */
  diff_to_submitted: string;
}

export interface DiffAnswer {
  from: number | null;
  to: number | null;
  diff: string;
}

/** A commit refused because the item has moved on. */
export class Conflict extends Error {
  constructor(readonly body: ConflictBody) {
    super(body.detail || "Someone saved a newer version.");
    this.name = "Conflict";
  }
}

/** A commit refused because the script does not parse. */
export class CommitRefused extends Error {
  constructor(
    readonly detail: string,
    readonly diagnostics: ServerDiagnostic[],
  ) {
    super(detail);
    this.name = "CommitRefused";
  }
}

export function isConflict(body: ErrorBody): body is ConflictBody {
  const latest = (body as Partial<ConflictBody>).latest;
  return body.code === "conflict" && typeof latest === "object" && latest !== null;
}

/** The URLs of one item: its draft/, commit/ and diff/ endpoints. */
export interface ItemUrls {
  draft: string;
  commit: string;
  diff: string;
}

export class DraftsClient {
  constructor(
    private readonly client: Api,
    private readonly urls: ItemUrls,
  ) {}

  /** The user's draft of the item, or null when there is none. */
  async draft(): Promise<Draft | null> {
    try {
      return await this.client.get<Draft>(this.urls.draft);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return null;
      throw error;
    }
  }

  keep(content: string, baseVersion: number): Promise<Draft> {
    return this.client.put<Draft>(this.urls.draft, { content, base_version: baseVersion });
  }

  async forget(): Promise<void> {
    await this.client.delete(this.urls.draft);
  }

  /** Saves `content` as the next version. Throws `Conflict` (409), `CommitRefused` (a script
   * that does not parse) or the `ApiError` of any other refusal. */
  async commit(content: string, message: string, baseVersion: number, mode?: string): Promise<CommittedItem> {
    const body: Record<string, unknown> = { content, message, base_version: baseVersion };
    if (mode) body.mode = mode;
    try {
      return await this.client.post<CommittedItem>(this.urls.commit, body);
    } catch (error) {
      if (error instanceof ApiError) {
        if (error.status === 409 && isConflict(error.body)) throw new Conflict(error.body);
        if (error.status === 400 && error.body.code === "script" && Array.isArray(error.body.diagnostics))
          throw new CommitRefused(error.message, error.body.diagnostics as ServerDiagnostic[]);
      }
      throw error;
    }
  }

  /** From version `from` to version `to` (the newest and the one before by default). */
  versions(from?: number, to?: number): Promise<DiffAnswer> {
    const query = new URLSearchParams();
    if (from !== undefined) query.set("from", String(from));
    if (to !== undefined) query.set("to", String(to));
    const search = query.toString();
    return this.client.get<DiffAnswer>(search ? `${this.urls.diff}?${search}` : this.urls.diff);
  }

  /** From `version` (the newest by default) to `content`, such as the text on screen. */
  toText(content: string, version?: number): Promise<DiffAnswer> {
    return this.client.post<DiffAnswer>(this.urls.diff, version === undefined ? { content } : { content, version });
  }
}
