// A block added to the script from outside the workspace (the search box, a paste of text): after
// the last statement (in the last part, once the script is all loaded), or on its own in an empty
// workspace, selected and scrolled into view.

import * as Blockly from "blockly/core";
import type { BlockJson } from "./client";
import { finishLoading } from "./load";
import { endOfStack } from "./parts";

/** `json` (a toolbox entry's block or the server's) added after the script's last statement. */
export function addAtEnd(workspace: Blockly.Workspace, json: BlockJson): Blockly.Block {
  const state = { ...json } as Record<string, unknown>;
  delete state.kind;
  finishLoading(workspace);
  Blockly.Events.setGroup(true);
  try {
    const top = workspace.getTopBlocks(true);
    const last = top.length ? endOfStack(top[top.length - 1]) : null;
    const made = Blockly.serialization.blocks.append(state as unknown as Blockly.serialization.blocks.State, workspace);
    if (last && made.previousConnection) last.connect(made.previousConnection);
    else made.moveBy(24, 24);
    if (made instanceof Blockly.BlockSvg && workspace instanceof Blockly.WorkspaceSvg) {
      made.select();
      workspace.scrollBoundsIntoView?.(made.getBoundingRectangle());
    }
    return made;
  } finally {
    Blockly.Events.setGroup(false);
  }
}
