// Parts: the editor's own grouping of a script's top-level statements, so that no chain of blocks
// is long. Blockly draws each statement inside the one before it (the next block's SVG is a child
// of its previous block's), and the cost of a block grows with its depth: a script of 1,000
// statements in one chain took seconds to draw. A script of more than two parts' statements is
// loaded in parts of PART_SIZE, so that no chain is longer than a part, one after the other
// (load.ts), the first screen first.
//
// A part is a block of the editor only: the text has no such statement. Read back (read.ts, the
// clipboard), each part gives way to its statements; the server never sees one. A part can be
// collapsed, moved or deleted with its statements, like any block that holds others. Its block
// is defined with the others (definitions.ts); this module needs no Blockly of its own, so that
// the text mode, which names blocks in messages (labels.ts), loads none.

import type * as Blockly from "blockly/core";
import type { BlockJson } from "./client";

export const PART = "otter_part";
/** Top-level statements in a part. */
export const PART_SIZE = 25;

/** The top-level chain of `top` cut into parts of `size` statements (taking `top` apart; each part's
 * `next` is empty), the first keeping `top`'s place; a chain of two parts or less stays whole. */
export function cutIntoParts(top: BlockJson, size = PART_SIZE): BlockJson[] {
  let length = 1;
  for (let block = top; block.next?.block && length <= 2 * size; block = block.next.block) length++;
  if (length <= 2 * size) return [top];
  const parts: BlockJson[] = [];
  let block: BlockJson | undefined = top;
  while (block) {
    const first: BlockJson = block;
    let last: BlockJson = block;
    for (let count = 1; count < size && last.next?.block; count++) last = last.next.block;
    block = last.next?.block;
    const { x, y, ...rest } = first;
    const body: BlockJson = { ...rest };
    if (last === first) delete body.next;
    else last.next = undefined; // the part's statements end with it
    parts.push({ type: PART, inputs: { BODY: { block: body } }, ...(parts.length ? {} : { x, y }) });
  }
  return parts;
}

/** `blocks` (Blockly's JSON) with each part replaced by its statements, wherever it stands. */
export function withoutParts(blocks: BlockJson[]): BlockJson[] {
  return blocks.map((top) => flatten(top)).filter((top): top is BlockJson => top !== undefined);
}

function flatten(block: BlockJson | undefined): BlockJson | undefined {
  if (!block) return undefined;
  const next = flatten(block.next?.block);
  if (block.type === PART) {
    const body = flatten(block.inputs?.BODY?.block);
    if (!body) return next ? { ...next, x: block.x, y: block.y } : undefined;
    let last = body;
    while (last.next?.block) last = last.next.block;
    if (next) last.next = { block: next };
    return block.x === undefined ? body : { ...body, x: block.x, y: block.y };
  }
  const copy: BlockJson = { ...block };
  if (block.inputs)
    copy.inputs = Object.fromEntries(Object.entries(block.inputs).map(([name, input]) => [name, input.block ? { ...input, block: flatten(input.block) } : input]));
  if (next) copy.next = { block: next };
  else delete copy.next;
  return copy;
}

/** The connection after the script's last statement in `stack` (inside its last part). */
export function endOfStack(stack: Blockly.Block): Blockly.Connection | null {
  const last = stack.lastConnectionInStack(false);
  const block = last?.getSourceBlock();
  if (block?.type !== PART) return last;
  const body = block.getInput("BODY")!.connection!;
  return body.targetBlock()?.lastConnectionInStack(false) ?? body;
}

/** Labels each part of `workspace` with the statements it holds, numbered as messages number
 * them (labels.ts: in the script's order, nested ones counted): "statements 26–50". */
export function numberParts(workspace: Blockly.Workspace): void {
  let count = 0; // statements before the block at hand
  for (const block of workspace.getTopBlocks(true).flatMap((top) => top.getDescendants(true))) {
    if (block.type !== PART) {
      count++;
      continue;
    }
    const held = block.getInputTargetBlock("BODY")?.getDescendants(false).filter((inner) => inner.type !== PART).length ?? 0;
    const label = held === 0 ? "no statements" : held === 1 ? `statement ${count + 1}` : `statements ${count + 1}–${count + held}`;
    if (block.getFieldValue("LABEL") !== label) block.getField("LABEL")?.setValue(label);
  }
}
