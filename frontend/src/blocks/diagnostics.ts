// The server's word on each block as it is edited: a little after the last change, each changed
// block (and each operation block added) is made into text by the server, and an operation's text
// is checked. A field that does not parse, an unknown operation or a missing argument is marked
// on the block with the engine's message and said in the status line; a block changed while its
// check was under way waits for its own.

import * as Blockly from "blockly/core";
import type { ScriptsClient } from "../api/scripts";
import type { Tone } from "../ui/status";
import { type BlockJson, type BlocksClient, describeProblem, isBlocksRefusal } from "./client";
import { blockName } from "./labels";

export interface ChecksOptions {
  converter: Pick<BlocksClient, "toText">;
  scripts: Pick<ScriptsClient, "check">;
  say(text: string, tone?: Tone): void;
  /** A script is being loaded: its blocks are not edits. */
  loading(): boolean;
  /** Milliseconds after the last change before the changed blocks are checked. */
  delay?: number;
}

export interface Finding {
  /** What is wrong, null when nothing is. */
  message: string | null;
  tone: Tone;
}

const alone = (block: Blockly.Block) => Blockly.serialization.blocks.save(block, { addNextBlocks: false, addInputBlocks: false });

/** What the server says of `block` alone; null when it did not answer. */
export async function findProblem(block: Blockly.Block, options: Pick<ChecksOptions, "converter" | "scripts">): Promise<Finding | null> {
  let message: string | null = null;
  let tone: Tone = "bad";
  try {
    const text = await options.converter.toText({ blocks: { languageVersion: 0, blocks: [alone(block) as BlockJson] }, otterscript: { headers: [] } });
    if (block.type === "otter_operation_call") {
      const diagnostics = (await options.scripts.check(text)).filter((d) => d.severity !== "info");
      message = diagnostics.map((d) => (d.hint ? `${d.message}: ${d.hint}` : d.message)).join("\n") || null;
      if (!diagnostics.some((d) => d.severity === "error")) tone = "warn";
    }
  } catch (error) {
    if (isBlocksRefusal(error))
      message = describeProblem(error); // shown on the block: it needs no name
    else return null;
  }
  return { message, tone };
}

/** Checks the block `id` of `workspace` and marks it with what the server found. */
export async function checkBlock(workspace: Blockly.Workspace, id: string, options: ChecksOptions): Promise<void> {
  const block = workspace.getBlockById(id);
  if (!block || block.isDeadOrDying() || block.isInFlyout) return;
  const before = JSON.stringify(alone(block));
  const found = await findProblem(block, options);
  if (!found) return; // the server did not answer: nothing to say about the block
  if (block.isDeadOrDying() || JSON.stringify(alone(block)) !== before) return; // changed meanwhile: its own check follows
  block.setWarningText(found.message);
  // named only when said: naming a block walks the workspace's statements
  const name = () => (block.type === "otter_operation_call" ? String(block.getFieldValue("NAME")) : blockName(block));
  if (found.message) {
    marked.add(block);
    options.say(`${name()}: ${found.message}`, found.tone);
  } else if (marked.delete(block)) options.say(`${name()}: fixed.`, "ok"); // the status said what was wrong
}

/** The blocks marked with a problem: one fixed says so, in place of its problem. */
const marked = new WeakSet<Blockly.Block>();

/** The blocks an edit event asks to check: an operation block created, a field or shape changed. */
export function blocksToCheck(workspace: Blockly.Workspace, event: Blockly.Events.Abstract): string[] {
  if (event.isUiEvent) return [];
  if (event.type === Blockly.Events.BLOCK_CREATE)
    return ((event as Blockly.Events.BlockCreate).ids ?? []).filter((id) => workspace.getBlockById(id)?.type === "otter_operation_call");
  if (event.type === Blockly.Events.BLOCK_CHANGE) {
    const change = event as Blockly.Events.BlockChange;
    const block = change.blockId ? workspace.getBlockById(change.blockId) : null;
    if (block && (change.element === "field" || change.element === "mutation")) return [block.id];
  }
  return [];
}

/** Checks each block of `workspace` as it is edited, `delay` ms after the last edit. */
export function checkBlocksAsEdited(workspace: Blockly.Workspace, options: ChecksOptions): void {
  const pending = new Set<string>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  workspace.addChangeListener((event: Blockly.Events.Abstract) => {
    if (options.loading()) return;
    const ids = blocksToCheck(workspace, event);
    if (!ids.length) return;
    for (const id of ids) pending.add(id);
    clearTimeout(timer);
    timer = setTimeout(() => {
      const due = [...pending];
      pending.clear();
      for (const id of due) void checkBlock(workspace, id, options);
    }, options.delay ?? 500);
  });
}
