// Run from the item page without leaving it: the page's form posted as it is (Run's name, the
// text, the targets, the mode) to the page's own address, asking for JSON. The view saves the
// text on screen as the next version when it changed and starts the run (201 with the
// execution), or refuses with the API's error body (400: by field, and the diagnostics of a
// script that does not parse). Without JavaScript the same post answers with pages.

import { type Api, ApiError, type ErrorBody } from "../api/http";
import type { ServerDiagnostic } from "../api/scripts";

export interface StartedExecution {
  id: number;
  name: string;
  /** The execution's page. */
  url: string;
  run_state: string;
  outcome: string;
  outcome_label: string;
  mode: string;
  /** The mode for people ("Collect only (drift check)"). */
  mode_label: string;
  simulate: boolean;
  /** The API's cancel action, when the user may cancel. */
  cancel_url: string | null;
}

export interface RunAnswer {
  execution: StartedExecution;
  /** The version that runs. */
  version: number;
  /** The run saved the text as that version. */
  saved: boolean;
  /** A sentence for people ("Saved ops::deploy as version 3 and ran it."). */
  message: string;
}

export interface RunErrorBody extends ErrorBody {
  errors?: Record<string, string[]>;
  diagnostics?: ServerDiagnostic[];
}

/** A run the server refused (400): why, by field. */
export class RunRefused extends Error {
  constructor(readonly body: RunErrorBody) {
    super(body.detail || "the run was refused");
    this.name = "RunRefused";
  }

  /** Every message, the form's own (no targets) first, then the fields'. */
  get messages(): string[] {
    const errors = this.body.errors ?? {};
    const fields = Object.entries(errors).filter(([field]) => field !== "non_field_errors");
    const all = [...(errors.non_field_errors ?? []), ...fields.flatMap(([, messages]) => messages)];
    return all.length ? all : [this.message];
  }

  /** The diagnostics of a script that does not parse (none otherwise). */
  get diagnostics(): ServerDiagnostic[] {
    return this.body.diagnostics ?? [];
  }
}

/** Posts `data` (the form's fields and Run's name) to `url`; the run started, or RunRefused
 * (400), or ApiError (another refusal), or a TypeError when the server did not answer. */
export async function startRun(client: Api, url: string, data: FormData): Promise<RunAnswer> {
  let answer: Partial<RunAnswer>;
  try {
    answer = await client.postForm<Partial<RunAnswer>>(url, data);
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) throw new RunRefused(error.body as RunErrorBody);
    throw error;
  }
  if (!answer.execution) throw new ApiError(200, { detail: "the server did not say which run started" });
  return answer as RunAnswer;
}

/** What went wrong, for a sentence after "Not run: ". */
export function describeRunError(error: unknown): string {
  if (error instanceof RunRefused) return error.messages[0];
  if (error instanceof TypeError) return "the server did not answer.";
  return error instanceof Error ? error.message : String(error);
}
