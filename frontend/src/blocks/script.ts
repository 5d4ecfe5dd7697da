// The script the workspace shows: its blocks loaded (load.ts, in parts) and read back (read.ts),
// the header lines it was loaded with, and whether its blocks differ from those loaded.

import type * as Blockly from "blockly/core";
import type { WorkspaceJson } from "./client";
import { type Loading, finishLoading, loadBlocks, updateBlocks, withoutEvents } from "./load";
import { numberParts } from "./parts";
import { readBlocks } from "./read";

export class WorkspaceScript {
  /** The script's header lines (##AH:…), given back with its blocks. */
  headers: string[] = [];
  /** A script is being put in the workspace: its blocks are not edits. */
  loading = false;
  /** What the text the blocks came from kept around its statements (the server's, as it came). */
  private source: unknown = undefined;
  private baseline = ""; // the blocks as loaded: a workspace saved the same is unchanged
  private current: Loading | null = null;
  /** Edited before its last part was in: changed, whatever it now reads. */
  private touched = false;

  constructor(private readonly workspace: Blockly.Workspace) {
    let numbering: ReturnType<typeof setTimeout> | undefined;
    workspace.addChangeListener((event: Blockly.Events.Abstract) => {
      if (event.isUiEvent) return;
      if (this.current && !this.baseline) this.touched = true;
      // statements added, moved or removed: the parts' labels count again, once the edits stop
      clearTimeout(numbering);
      numbering = setTimeout(() => withoutEvents(() => numberParts(workspace)), 300);
    });
  }

  /** Shows `json` (the server's JSON of a script): only the blocks of the statements that differ
   * from those shown change, when few do; undo starts afresh. Resolves once every block is in
   * (the first screen of them is in when it returns). */
  load(json: WorkspaceJson): Promise<void> {
    this.headers = [...(json.otterscript?.headers ?? [])];
    this.source = json.otterscript?.source;
    this.baseline = "";
    this.touched = false;
    this.loading = true;
    let loading: Loading | null = null;
    try {
      if (!this.current || !updateBlocks(this.workspace, json)) loading = this.current = loadBlocks(this.workspace, json);
    } finally {
      this.loading = false;
    }
    if (!loading || loading.complete) {
      this.remember();
      return Promise.resolve();
    }
    return loading.done.then(() => {
      if (this.current === loading && !this.touched) this.remember();
    });
  }

  /** The blocks as they are now are those loaded. */
  private remember(): void {
    this.baseline = JSON.stringify(this.save().blocks);
  }

  /** The workspace as JSON, with the headers it was loaded with (or given since). */
  save(): WorkspaceJson {
    finishLoading(this.workspace);
    return readBlocks(this.workspace, this.headers, this.source);
  }

  /** Whether the blocks differ from those last loaded. */
  get changed(): boolean {
    if (this.touched) return true;
    if (!this.baseline) return false; // still loading, untouched: the script as it came
    return JSON.stringify(this.save().blocks) !== this.baseline;
  }
}
