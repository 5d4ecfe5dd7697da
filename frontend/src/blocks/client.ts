// The server's block converter: text → workspace (POST /api/scripts/blocks/) and workspace →
// text (POST /api/scripts/unblocks/). The browser never reads OtterScript itself: every switch
// between the modes goes through here.

import { ApiError, type Api } from "../api/http";
import { ScriptProblem, type ServerDiagnostic } from "../api/scripts";
import { type BlockNamer, nameBlocks } from "./labels";

/** Blockly's workspace JSON as engine.blocks writes it, with the script's headers and, when
 * it was made from text, what that text kept around its statements (`source`, given back as it
 * came: each block keeps its own statement's text in its extraState, so that writing the blocks
 * back changes only the statements edited). */
export interface WorkspaceJson {
  blocks: { languageVersion: number; blocks: BlockJson[] };
  otterscript: { headers: string[]; source?: unknown };
}

export interface BlockJson {
  type: string;
  id?: string;
  x?: number;
  y?: number;
  fields?: Record<string, unknown>;
  inputs?: Record<string, { block?: BlockJson }>;
  next?: { block?: BlockJson };
  extraState?: Record<string, unknown>;
  icons?: Record<string, unknown>;
  [key: string]: unknown;
}

/** Blocks the server refused: not a workspace it can read, or too large or deep for blocks. */
export class BlocksProblem extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BlocksProblem";
  }
}

export interface BlocksUrls {
  blocks: string;
  unblocks: string;
}

/** The API's 400: diagnostics (a script or a field that does not parse) or field messages. */
function refusal(error: unknown): Error | null {
  if (!(error instanceof ApiError) || error.status !== 400) return null;
  if (Array.isArray(error.body.diagnostics) && error.body.diagnostics.length)
    return new ScriptProblem(error.body.detail ?? "the script does not parse", error.body.diagnostics as ServerDiagnostic[]);
  const messages = Object.values(error.body.errors ?? {}).flat();
  return new BlocksProblem(messages.join(" ") || error.message);
}

export class BlocksClient {
  constructor(
    private readonly client: Api,
    private readonly urls: BlocksUrls,
  ) {}

  /** The workspace of `script`; a ScriptProblem when it does not parse. */
  async toBlocks(script: string): Promise<WorkspaceJson> {
    try {
      return (await this.client.post<{ workspace: WorkspaceJson }>(this.urls.blocks, { script })).workspace;
    } catch (error) {
      throw refusal(error) ?? error;
    }
  }

  /** The text of `workspace`; a ScriptProblem for a field that does not parse, a
   * BlocksProblem for anything else the server refuses. */
  async toText(workspace: WorkspaceJson): Promise<string> {
    try {
      return (await this.client.post<{ script: string }>(this.urls.unblocks, { workspace })).script;
    } catch (error) {
      throw refusal(error) ?? error;
    }
  }
}

/** Whether `error` is the server's refusal of blocks: a field that does not parse, or blocks it
 * cannot read (either way, the blocks make no script). */
export function isBlocksRefusal(error: unknown): error is ScriptProblem | BlocksProblem {
  return error instanceof ScriptProblem || error instanceof BlocksProblem;
}

/** One line that says what is wrong, from either kind of refusal; `name` names a block the
 * server's message is about as its user knows it (labels.ts); without it, the message is for
 * the block itself. */
export function describeProblem(error: unknown, name?: BlockNamer): string {
  if (error instanceof ScriptProblem) {
    const first = error.diagnostics.find((d) => d.severity === "error") ?? error.diagnostics[0];
    if (!first) return error.message;
    // a field's problem comes as "block b3 (otter_log): MESSAGE '...': expected ..." at 1:1
    return first.code === "blocks" ? nameBlocks(first.message, name) : `line ${first.line}, column ${first.column}: ${first.message}`;
  }
  if (error instanceof BlocksProblem) return nameBlocks(error.message, name);
  if (error instanceof ApiError) return `the server refused it (${error.status}): ${error.message}`;
  return "the server did not answer";
}
