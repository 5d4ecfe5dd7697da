// The workspace read back in the server's block form: Blockly's JSON of its blocks, each part
// (parts.ts) given way to its statements, with the script's header lines, as POST
// /api/scripts/unblocks/ takes it.

import * as Blockly from "blockly/core";
import type { WorkspaceJson } from "./client";
import { withoutParts } from "./parts";

/** The blocks of `workspace` with `headers`, and the `source` the workspace was loaded with. */
export function readBlocks(workspace: Blockly.Workspace, headers: readonly string[], source?: unknown): WorkspaceJson {
  const saved = Blockly.serialization.workspaces.save(workspace) as { blocks?: WorkspaceJson["blocks"] };
  return {
    blocks: { languageVersion: saved.blocks?.languageVersion ?? 0, blocks: withoutParts(saved.blocks?.blocks ?? []) },
    otterscript: source === undefined ? { headers: [...headers] } : { headers: [...headers], source },
  };
}
