// The script the workspace shows: its blocks loaded (load.ts) and read back (read.ts), the header
// lines it was loaded with, and whether its blocks differ from those loaded.

import type * as Blockly from "blockly/core";
import type { WorkspaceJson } from "./client";
import { loadBlocks } from "./load";
import { readBlocks } from "./read";

export class WorkspaceScript {
  /** The script's header lines (##AH:…), given back with its blocks. */
  headers: string[] = [];
  /** A script is being loaded: its blocks are not edits. */
  loading = false;
  /** What the text the blocks came from kept around its statements (the server's, as it came). */
  private source: unknown = undefined;
  private baseline = ""; // the blocks as loaded: a workspace saved the same is unchanged

  constructor(private readonly workspace: Blockly.Workspace) {}

  /** Shows `json` (the server's JSON of a script); undo starts afresh. */
  load(json: WorkspaceJson): void {
    this.loading = true;
    loadBlocks(this.workspace, json);
    this.headers = [...(json.otterscript?.headers ?? [])];
    this.source = json.otterscript?.source;
    this.baseline = JSON.stringify(this.save().blocks);
    this.loading = false;
  }

  /** The workspace as JSON, with the headers it was loaded with (or given since). */
  save(): WorkspaceJson {
    return readBlocks(this.workspace, this.headers, this.source);
  }

  /** Whether the blocks differ from those last loaded. */
  get changed(): boolean {
    return JSON.stringify(this.save().blocks) !== this.baseline;
  }
}
