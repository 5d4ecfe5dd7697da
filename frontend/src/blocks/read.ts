// The workspace read back in the server's block form: Blockly's JSON of its blocks with the
// script's header lines, as POST /api/scripts/unblocks/ takes it.

import * as Blockly from "blockly/core";
import type { WorkspaceJson } from "./client";

/** The blocks of `workspace` with `headers`, and the `source` the workspace was loaded with. */
export function readBlocks(workspace: Blockly.Workspace, headers: readonly string[], source?: unknown): WorkspaceJson {
  const saved = Blockly.serialization.workspaces.save(workspace) as { blocks?: WorkspaceJson["blocks"] };
  return {
    blocks: saved.blocks ?? { languageVersion: 0, blocks: [] },
    otterscript: source === undefined ? { headers: [...headers] } : { headers: [...headers], source },
  };
}
