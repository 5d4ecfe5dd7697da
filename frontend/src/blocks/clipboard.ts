// Copy and paste between the blocks and text: a block copied (Ctrl+C or its menu) goes to the
// clipboard as OtterScript text as well, and OtterScript text copied elsewhere (the text editor,
// a file) is pasted (Ctrl+V or the workspace's menu) as blocks after the last statement. Blocks
// copied here paste as Blockly pastes them.

import * as Blockly from "blockly/core";
import type { Tone } from "../ui/status";
import { addAtEnd } from "./append";
import { type BlockJson, type BlocksClient, describeProblem } from "./client";
import { withoutParts } from "./parts";

export interface ClipboardOptions {
  converter: Pick<BlocksClient, "toText" | "toBlocks">;
  say(text: string, tone?: Tone): void;
  /** The browser's clipboard (absent on pages that are not secure). */
  clipboard?: Pick<Clipboard, "readText" | "writeText">;
}

/** Copying and pasting OtterScript text in `workspace`. */
export class TextClipboard {
  /** The text of the last block copied here: pasting it pastes the block as Blockly would. */
  lastCopied = "";
  readonly browser: ClipboardOptions["clipboard"];

  constructor(
    readonly workspace: Blockly.Workspace,
    private readonly options: ClipboardOptions,
  ) {
    this.browser = options.clipboard;
  }

  /** Puts the text of `block` (and the blocks in it) on the clipboard. */
  async copy(block: Blockly.Block): Promise<void> {
    const { options } = this;
    const json = withoutParts([Blockly.serialization.blocks.save(block, { addNextBlocks: false }) as BlockJson]);
    try {
      const text = await options.converter.toText({ blocks: { languageVersion: 0, blocks: json }, otterscript: { headers: [] } });
      this.lastCopied = text;
      await this.browser!.writeText(text);
      options.say("Copied as OtterScript", "ok");
    } catch (error) {
      if (error instanceof DOMException) options.say("Copied the block (the browser did not allow the clipboard).", "warn");
      else options.say(`Not copied as text: ${describeProblem(error)}`, "bad");
    }
  }

  /** Adds the blocks of `text` after the last statement; false when the server refused it. */
  async paste(text: string): Promise<boolean> {
    const { options } = this;
    try {
      const pasted = await options.converter.toBlocks(text);
      Blockly.Events.setGroup(true);
      try {
        for (const top of pasted.blocks.blocks) {
          delete top.x;
          delete top.y;
          addAtEnd(this.workspace, top); // Blockly gives a block whose id is taken a new one
        }
      } finally {
        Blockly.Events.setGroup(false);
      }
      options.say("Pasted OtterScript as blocks", "ok");
      return true;
    } catch (error) {
      options.say(`Not pasted: ${describeProblem(error)}`, "bad");
      return false;
    }
  }
}

type Shortcut = Blockly.ShortcutRegistry.KeyboardShortcut;
type Callback = NonNullable<Shortcut["callback"]>;

/** Blockly's shortcut `name` replaced by `change` of it (given its callback). */
function changeShortcut(name: string, change: (shortcut: Shortcut, original: Callback) => Partial<Shortcut>): void {
  const registry = Blockly.ShortcutRegistry.registry;
  const shortcut = registry.getRegistry()[name];
  if (!shortcut?.callback) return;
  registry.unregister(shortcut.name);
  registry.register({ ...shortcut, ...change(shortcut, shortcut.callback) }, true);
}

// Each workspace's clipboard. Blockly's shortcuts and menus are the page's: they are changed
// once, and act through the clipboard of the workspace they act in.
const clipboards = new WeakMap<Blockly.Workspace, TextClipboard>();
let changed = false;

function clipboardOf(workspace: Blockly.Workspace | undefined): TextClipboard | undefined {
  return workspace && clipboards.get((workspace as Blockly.WorkspaceSvg).getRootWorkspace?.() ?? workspace);
}

/** Ctrl+C and Ctrl+V of Blockly, and the block's and workspace's menus, going through `clipboard`
 * in its workspace. */
export function useTextClipboard(clipboard: TextClipboard): void {
  clipboards.set(clipboard.workspace, clipboard);
  if (changed) return;
  changed = true;
  changeShortcut(Blockly.ShortcutItems.names.COPY, (_copy, original) => ({
    callback: (ws, event, shortcut, scope) => {
      const done = original(ws, event, shortcut, scope);
      const selected = Blockly.getSelected();
      if (done && selected instanceof Blockly.BlockSvg) void clipboardOf(selected.workspace)?.copy(selected);
      return done;
    },
  }));
  changeShortcut(Blockly.ShortcutItems.names.PASTE, (paste, original) => ({
    preconditionFn: (ws, scope) => !ws.isReadOnly() && (paste.preconditionFn?.(ws, scope) ?? true),
    callback: (ws, event, shortcut, scope) => {
      // text copied elsewhere (the text editor, a file) comes in as blocks
      const clipboard = clipboardOf(ws);
      clipboard?.browser
        ?.readText()
        .then((text) => (text.trim() && text !== clipboard.lastCopied ? clipboard.paste(text) : false))
        .catch(() => false)
        .then((pasted) => {
          if (!pasted) original(ws, event, shortcut, scope);
        });
      return true;
    },
  }));
  const registry = Blockly.ContextMenuRegistry.registry;
  registry.register({
    id: "otter_copy_text",
    scopeType: Blockly.ContextMenuRegistry.ScopeType.BLOCK,
    displayText: "Copy as OtterScript",
    weight: -1,
    preconditionFn: () => "enabled",
    callback: (scope) => {
      if (scope.block) void clipboardOf(scope.block.workspace)?.copy(scope.block);
    },
  });
  registry.register({
    id: "otter_paste_text",
    scopeType: Blockly.ContextMenuRegistry.ScopeType.WORKSPACE,
    displayText: "Paste OtterScript",
    weight: -1,
    preconditionFn: (scope) => (scope.workspace?.isReadOnly() ? "hidden" : "enabled"),
    callback: (scope) => {
      const clipboard = clipboardOf(scope.workspace);
      void clipboard?.browser?.readText().then((text) => clipboard.paste(text), () => false);
    },
  });
}
