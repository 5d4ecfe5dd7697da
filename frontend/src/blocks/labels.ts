// How a person knows a block in a message: what the block says (its operation, `set $X = …`, `if
// …`) and its place among the script's statements, never the block's id or type. The server's
// messages about a block start "block b3 (otter_set_variable): VALUE '…': …" (engine.blocks):
// `nameBlocks` puts the block's name and the field's plain name in their place.

import type * as Blockly from "blockly/core";
import { PART } from "./parts";

/** The name of the block with id `id`, null when it is not in the workspace. */
export type BlockNamer = (id: string) => string | null;

const BLOCK = /^block (\S+) \([^)]*\): /;
const FIELD = /^([A-Z][A-Z_]*?)(\d*) '/;
const FIELDS: Record<string, string> = {
  VALUE: "the value",
  MESSAGE: "the message",
  POSITIONAL: "the first argument",
  SOURCE: "the list",
  VARIABLE: "the variable",
  IF: "the condition",
  DIRECTIVES: "the directives",
  TOKEN: "the lock's name",
  NAME: "the name",
  RAFT: "the raft",
};

/** The statements of `workspace` in the order of the script: each top block's chain, nested
 * statements before the next one (the editor's parts are none). */
export function statementsInOrder(workspace: Blockly.Workspace): Blockly.Block[] {
  return workspace
    .getTopBlocks(true)
    .flatMap((top) => top.getDescendants(true))
    .filter((block) => block.type !== PART);
}

/** `“set $Swim = ab” (statement 3)`: what the block says, and where it stands. */
export function blockName(block: Blockly.Block): string {
  const place = statementsInOrder(block.workspace).indexOf(block) + 1;
  const said = block.toString(40, "…").replace(/\s+/g, " ").trim();
  return place > 0 ? `“${said}” (statement ${place})` : `“${said}”`;
}

/** A namer of the blocks of `workspace`. */
export function namerOf(workspace: Blockly.Workspace): BlockNamer {
  return (id) => {
    const block = workspace.getBlockById(id);
    return block ? blockName(block) : null;
  };
}

/** `message` with the block it is about named as its user knows it; without `name`, as it is
 * said on the block itself (no name). */
export function nameBlocks(message: string, name?: BlockNamer): string {
  const found = BLOCK.exec(message);
  if (!found) return message;
  const rest = message.slice(found[0].length).replace(FIELD, (whole, field: string) => {
    const plain = FIELDS[field];
    return plain ? `${plain} '` : whole;
  });
  return name ? `${name(found[1]) ?? "a block"}: ${rest}` : rest;
}
