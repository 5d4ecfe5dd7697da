// A script's blocks put in the workspace, in place of those it held: the server's workspace JSON
// loaded with events off (nothing of it is an edit to check or undo), each operation block's
// argument rows made from the reference while events are still off, undo started afresh and the
// view at the top.

import * as Blockly from "blockly/core";
import type { ArgumentsBlock } from "./rows";
import type { WorkspaceJson } from "./client";

/** Replaces the blocks of `workspace` with those of `json`. */
export function loadBlocks(workspace: Blockly.Workspace, json: WorkspaceJson): void {
  Blockly.Events.disable();
  try {
    workspace.clear();
    Blockly.serialization.workspaces.load({ blocks: json.blocks }, workspace, { recordUndo: false });
    // done later (as a field change asks), each would look like an edit and be checked by the
    // server
    for (const block of workspace.getBlocksByType("otter_operation_call", false))
      (block as unknown as Partial<ArgumentsBlock>).syncArguments?.();
  } finally {
    Blockly.Events.enable();
  }
  workspace.clearUndo();
  if (workspace instanceof Blockly.WorkspaceSvg) workspace.scroll(0, 0);
}
