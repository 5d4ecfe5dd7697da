// The script endpoints: check (diagnostics) and format (the canonical text). A script that does
// not parse is answered with 400 and its diagnostics; both give the same diagnostics here.

import { ApiError, type Api } from "./http";

/** One problem in a script, as the server reports it: 1-based lines and columns (in characters,
 * not UTF-16 units), the end exclusive. */
export interface ServerDiagnostic {
  line: number;
  column: number;
  end_line: number;
  end_column: number;
  severity: "error" | "warning" | "info";
  message: string;
  code: string;
  hint?: string;
}

export interface ScriptUrls {
  check: string;
  format: string;
}

/** A script the server could not format: it does not parse. */
export class ScriptProblem extends Error {
  constructor(
    message: string,
    readonly diagnostics: ServerDiagnostic[],
  ) {
    super(message);
    this.name = "ScriptProblem";
  }
}

function parseFailure(error: unknown): ScriptProblem | null {
  if (error instanceof ApiError && error.status === 400 && Array.isArray(error.body.diagnostics))
    return new ScriptProblem(
      error.body.detail ?? "the script does not parse",
      error.body.diagnostics as ServerDiagnostic[],
    );
  return null;
}

export class ScriptsClient {
  constructor(
    private readonly client: Api,
    private readonly urls: ScriptUrls,
  ) {}

  /** Every diagnostic of `script`, whether it parses or not. */
  async check(script: string): Promise<ServerDiagnostic[]> {
    try {
      const answer = await this.client.post<{ diagnostics: ServerDiagnostic[] }>(this.urls.check, {
        script,
      });
      return answer.diagnostics;
    } catch (error) {
      const problem = parseFailure(error);
      if (problem) return problem.diagnostics;
      throw error;
    }
  }

  /** The canonical text of `script`; a ScriptProblem when it does not parse. */
  async format(script: string): Promise<string> {
    try {
      return (await this.client.post<{ script: string }>(this.urls.format, { script })).script;
    } catch (error) {
      throw parseFailure(error) ?? error;
    }
  }
}
