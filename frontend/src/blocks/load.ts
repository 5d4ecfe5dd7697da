// A script's blocks put in the workspace, in place of those it held, in parts (parts.ts): the
// parts that fill the first screen at once, then the others a frame apart, so that the script
// shows and can be scrolled and edited while the rest arrives. Each part is loaded with events
// off (nothing of it is an edit to check or undo), its operation blocks' argument rows made from
// the reference while events are still off. Reading the workspace (read.ts, adding a block at
// the end) first loads whatever is left, at once: nothing ever reads half a script.

import * as Blockly from "blockly/core";
import type { BlockJson, WorkspaceJson } from "./client";
import { sameInOrder } from "./diff";
import { PART, cutIntoParts, numberParts } from "./parts";
import type { ArgumentsBlock } from "./rows";

/** Parts loaded before the first frame: a part is more statements than a screen shows. */
const FIRST_PARTS = 1;
/** Milliseconds of loading between two frames (at least one part each time). */
const STEP_BUDGET = 60;

/** A script being loaded into a workspace. */
export class Loading {
  /** Resolves once every part is in the workspace (or the load was given up for another). */
  readonly done: Promise<void>;
  private readonly queue: { part: BlockJson; stack: number }[] = [];
  private readonly lastPart: (Blockly.Block | null)[] = [];
  private finished!: () => void;
  private scheduled = false;

  constructor(
    private readonly workspace: Blockly.Workspace,
    json: WorkspaceJson,
  ) {
    this.done = new Promise((resolve) => (this.finished = resolve));
    json.blocks.blocks.forEach((top, stack) => {
      this.lastPart.push(null);
      for (const part of cutIntoParts(top)) this.queue.push({ part, stack });
    });
  }

  get complete(): boolean {
    return this.queue.length === 0;
  }

  /** Loads `count` parts (or until `budget` ms have passed, after the first). */
  load(count = Infinity, budget = Infinity): void {
    const start = performance.now();
    withoutEvents(() => {
      for (let loaded = 0; loaded < count && this.queue.length; loaded++) {
        if (loaded && performance.now() - start > budget) break;
        const { part, stack } = this.queue.shift()!;
        const made = append(part, this.workspace);
        this.lastPart[stack]?.nextConnection?.connect(made.previousConnection!);
        this.lastPart[stack] = made;
      }
      numberParts(this.workspace);
    });
    if (this.complete) this.finished();
    else this.schedule();
  }

  /** Gives the load up: nothing more is added. */
  stop(): void {
    this.queue.length = 0;
    this.finished();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // after the frame that draws what was loaded (Blockly renders in an animation frame too)
    afterFrame(() =>
      setTimeout(() => {
        this.scheduled = false;
        if (!this.complete) this.load(Infinity, STEP_BUDGET);
      }, 0),
    );
  }
}

/** The next animation frame (where there are frames). */
const afterFrame = (run: () => void) => (typeof requestAnimationFrame === "function" ? requestAnimationFrame(run) : setTimeout(run, 0));

const loadings = new WeakMap<Blockly.Workspace, Loading>();

/** Replaces the blocks of `workspace` with those of `json`: the first screen now, the rest a
 * frame apart. Undo starts afresh and the view is at the top. */
export function loadBlocks(workspace: Blockly.Workspace, json: WorkspaceJson): Loading {
  loadings.get(workspace)?.stop();
  withoutEvents(() => workspace.clear());
  const loading = new Loading(workspace, json);
  loadings.set(workspace, loading);
  loading.load(FIRST_PARTS);
  workspace.clearUndo();
  if (workspace instanceof Blockly.WorkspaceSvg) workspace.scroll(0, 0);
  return loading;
}

/** Puts the script of `json` in place of the one `workspace` shows by changing only the blocks of
 * the top-level statements that differ: a block is kept where its JSON, ids aside, is that of a
 * statement in the same order (the longest such run of statements, diff.ts), the others are
 * removed and the new statements' blocks put in their places. The view stays where it is and
 * undo starts afresh. False when that is not the way: the script is still loading, either is
 * not one stack of blocks, or most of it changed. */
export function updateBlocks(workspace: Blockly.Workspace, json: WorkspaceJson): boolean {
  if (loadings.get(workspace)?.complete === false) return false;
  const stacks = workspace.getTopBlocks(false);
  if (stacks.length !== 1 || json.blocks.blocks.length !== 1) return false;
  const blocks = statementBlocks(stacks[0]);
  const statements = chainOf(json.blocks.blocks[0]);
  const steps = sameInOrder(
    blocks.map((block) => canonical(Blockly.serialization.blocks.save(block, { addNextBlocks: false, saveIds: false }))),
    statements.map(canonical),
  );
  if (!steps || 2 * steps.filter((step) => step.kind === "keep").length < Math.min(blocks.length, statements.length)) return false;

  withoutEvents(() => {
    const first = blocks[0];
    const place = first.getRelativeToSurfaceXY();
    const firstPart = first.getParent(); // when there are parts
    let previous: Blockly.Block | null = null; // the last block of the new script so far
    for (const step of steps) {
      if (step.kind === "keep") previous = blocks[step.old];
      else if (step.kind === "remove") blocks[step.old].dispose(true);
      else {
        const made = append(statements[step.new], workspace);
        const at = previous ? previous.nextConnection : firstPart?.getInput("BODY")?.connection;
        if (at) at.connect(made.previousConnection!); // what followed it goes after the new block
        else {
          const rest = workspace.getTopBlocks(false).find((block) => block !== made);
          if (rest) made.nextConnection!.connect(rest.previousConnection!);
          const now = made.getRelativeToSurfaceXY();
          made.moveBy(place.x - now.x, place.y - now.y);
        }
        previous = made;
      }
    }
    for (const part of workspace.getBlocksByType(PART, false)) if (!part.getInputTargetBlock("BODY")) part.dispose(true);
    numberParts(workspace);
  });
  workspace.clearUndo();
  return true;
}

/** `json`'s block added to `workspace` (events must be off), its operation blocks' argument rows
 * made from the reference now: done later (as a field change asks), each would look like an edit
 * and be checked by the server. */
function append(json: BlockJson, workspace: Blockly.Workspace): Blockly.Block {
  const made = Blockly.serialization.blocks.append(json as Blockly.serialization.blocks.State, workspace, { recordUndo: false });
  for (const block of made.getDescendants(false))
    if (block.type === "otter_operation_call") (block as unknown as Partial<ArgumentsBlock>).syncArguments?.();
  return made;
}

/** Runs `change` without events: nothing of it is an edit to check or undo. */
export function withoutEvents(change: () => void): void {
  Blockly.Events.disable();
  try {
    change();
  } finally {
    Blockly.Events.enable();
  }
}

/** A block's JSON as a string that is the same for the same block: its keys in order, no ids. */
function canonical(json: unknown): string {
  return JSON.stringify(json, (key, value: unknown) => {
    if (key === "id") return undefined;
    if (!value || typeof value !== "object" || Array.isArray(value)) return value;
    const record = value as Record<string, unknown>;
    return Object.fromEntries(Object.keys(record).sort().map((name) => [name, record[name]]));
  });
}

/** The top-level statement blocks of `stack` in order, through its parts. */
function statementBlocks(stack: Blockly.Block): Blockly.Block[] {
  const blocks: Blockly.Block[] = [];
  for (let block: Blockly.Block | null = stack; block; block = block.getNextBlock())
    if (block.type === PART) for (let inner = block.getInputTargetBlock("BODY"); inner; inner = inner.getNextBlock()) blocks.push(inner);
    else blocks.push(block);
  return blocks;
}

/** The statements of the chain that starts with `top`, each on its own (its `next` taken off). */
function chainOf(top: BlockJson): BlockJson[] {
  const chain: BlockJson[] = [];
  for (let block: BlockJson | undefined = top; block; block = block.next?.block) {
    const { next: _next, x: _x, y: _y, ...alone } = block;
    chain.push(alone);
  }
  return chain;
}

/** Loads at once what is left of the script being loaded into `workspace`. */
export function finishLoading(workspace: Blockly.Workspace): void {
  const loading = loadings.get(workspace);
  if (loading && !loading.complete) loading.load();
}
