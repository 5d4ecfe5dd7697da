// The block editor: a Blockly workspace with OtterScript's blocks, a toolbox of the control
// statements and the registry's operations (with search), undo and redo, zoom to fit, copy and
// paste of blocks as OtterScript text, and each changed block checked by the server (a field
// that does not parse, an unknown operation or a missing argument marked on the block with the
// engine's message). Loaded only when the visual mode is opened (its own chunk, with Blockly).

import * as Blockly from "blockly/core";
import * as English from "blockly/msg/en";
import type { Api } from "../api/http";
import type { Reference, ReferenceClient } from "../api/reference";
import { ScriptProblem, ScriptsClient } from "../api/scripts";
import { BlocksClient, describeProblem, type BlockJson, type WorkspaceJson } from "./client";
import { defineBlocks, useReference } from "./definitions";
import { OPERATIONS_LIST } from "./rows";
import { controlEntries, type Entry, operationEntries, search, SEARCH_CATEGORY, toolbox } from "./toolbox";
import { drawBlocksQuickly } from "./measure";
import "./blocks.css";
import { type Tone, toolbar } from "../ui/status";

export interface BlockEditorOptions {
  client: Api;
  reference: ReferenceClient;
  checkUrl: string;
  formatUrl: string;
  blocksUrl: string;
  unblocksUrl: string;
  readOnly: boolean;
  say(text: string, tone?: Tone): void;
}

export interface BlockEditor {
  /** Shows `workspace` (the server's JSON of a script); undo starts afresh. */
  load(workspace: WorkspaceJson): void;
  /** The workspace as JSON, with the headers it was loaded with (or given since). */
  save(): WorkspaceJson;
  headers: string[];
  /** Whether the blocks differ from those last loaded. */
  readonly changed: boolean;
  resize(): void;
  focus(): void;
  workspace: Blockly.WorkspaceSvg;
}

const CHECK_DELAY = 500;

let localized = false;

const theme = Blockly.Theme.defineTheme("otterweb", {
  name: "otterweb",
  base: Blockly.Themes.Classic,
  fontStyle: { family: "system-ui, -apple-system, 'Segoe UI', sans-serif", size: 11 },
  componentStyles: {
    workspaceBackgroundColour: "#f6f8fa",
    toolboxBackgroundColour: "#eef1f4",
    toolboxForegroundColour: "#1f2328",
    flyoutBackgroundColour: "#e2e6ea",
    flyoutOpacity: 0.97,
    scrollbarColour: "#aab2bb",
    insertionMarkerColour: "#0969da",
    selectedGlowColour: "#0969da",
  },
});

function button(label: string, title: string, action: () => void): HTMLButtonElement {
  const made = document.createElement("button");
  made.type = "button";
  made.textContent = label;
  made.title = title;
  made.addEventListener("click", action);
  return made;
}

/** A Blockly workspace in `host`, with its toolbar. */
export async function mountBlockEditor(host: HTMLElement, options: BlockEditorOptions): Promise<BlockEditor> {
  if (!localized) {
    Blockly.setLocale(English as unknown as Record<string, string>);
    localized = true;
  }
  defineBlocks();
  let reference: Reference | null = null;
  try {
    reference = await options.reference.load();
  } catch {
    options.say("Could not load the reference of operations: the toolbox has no operations.", "warn");
  }
  useReference(() => reference);
  const scripts = new ScriptsClient(options.client, { check: options.checkUrl, format: options.formatUrl });
  const converter = new BlocksClient(options.client, { blocks: options.blocksUrl, unblocks: options.unblocksUrl });

  const entries: Entry[] = [...controlEntries(), ...(reference ? operationEntries(reference) : [])];

  // the toolbar: search, undo, redo, zoom
  const bar = toolbar("otter-blocks-toolbar", "Block editor");
  const searchBox = document.createElement("input");
  searchBox.type = "search";
  searchBox.id = "otter-block-search";
  searchBox.placeholder = "Search blocks: Ensure-File, log, retry…";
  searchBox.setAttribute("aria-label", "Search blocks by name or description (Enter adds the first)");
  searchBox.autocomplete = "off";
  const area = document.createElement("div");
  area.className = "otter-blocks-area";
  const names = document.createElement("datalist");
  names.id = OPERATIONS_LIST;
  for (const operation of reference?.operations ?? []) {
    const option = document.createElement("option");
    option.value = reference?.operation(operation.name) ? operation.name : `${operation.namespace}::${operation.name}`;
    option.label = operation.description.slice(0, 80);
    names.append(option);
  }
  host.append(bar, area, names);

  const workspace = Blockly.inject(area, {
    toolbox: toolbox(entries),
    renderer: "thrasos",
    media: new URL("../blockly-media/", import.meta.url).href, // vite.config.ts copies it there
    theme,
    readOnly: options.readOnly,
    trashcan: false,
    sounds: false,
    comments: true,
    disable: false,
    collapse: true,
    zoom: { controls: false, wheel: true, startScale: 0.85, maxScale: 2, minScale: 0.3, pinch: true },
    move: { scrollbars: true, drag: true, wheel: false },
    grid: { spacing: 24, length: 2, colour: "#dde2e7", snap: false },
  });

  withoutHasRules();
  drawBlocksQuickly();

  // the search category: the entries that match the box
  let query = "";
  let matches: Entry[] = [];
  workspace.registerToolboxCategoryCallback(SEARCH_CATEGORY, () => {
    matches = search(entries, query);
    if (!query.trim()) return [{ kind: "label", text: "Type in the search box above to find blocks." }];
    if (!matches.length) return [{ kind: "label", text: `No block matches “${query}”.` }];
    return matches.map((entry) => entry.block) as unknown as Blockly.utils.toolbox.FlyoutItemInfoArray;
  });
  const box = workspace.getToolbox() as Blockly.Toolbox | null;
  let searching = 0;
  searchBox.addEventListener("input", () => {
    clearTimeout(searching);
    searching = window.setTimeout(() => {
      query = searchBox.value;
      const item = box?.getToolboxItemById("search") ?? null;
      if (!query.trim()) box?.clearSelection();
      else if (box?.getSelectedItem() === item) box?.refreshSelection();
      else box?.setSelectedItem(item);
      matches = search(entries, query);
      options.say(query.trim() ? `${matches.length} block${matches.length === 1 ? "" : "s"} found${matches.length ? ": Enter adds the first" : ""}` : "");
    }, 120);
  });
  searchBox.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      clearTimeout(searching);
      query = searchBox.value;
      const first = search(entries, query)[0];
      if (!first || options.readOnly) return;
      const made = addAtEnd(first.block as unknown as BlockJson);
      searchBox.value = "";
      query = "";
      box?.clearSelection();
      options.say(`Added ${first.label}`, "ok");
      // straight on to its first text field (Enter or Tab ends it)
      setTimeout(() => {
        const field = made.inputList
          .flatMap((input) => input.fieldRow)
          .find((f) => f instanceof Blockly.FieldTextInput && f.isVisible() && f.name !== "NAME");
        field?.showEditor();
      }, 0);
    } else if (event.key === "Escape") {
      searchBox.value = "";
      query = "";
      box?.clearSelection();
    }
  });

  /** A block added after the last statement of the script (or first, in an empty one). */
  function addAtEnd(json: BlockJson): Blockly.BlockSvg {
    const state = { ...json } as Record<string, unknown>;
    delete state.kind;
    Blockly.Events.setGroup(true);
    try {
      const top = workspace.getTopBlocks(true);
      const last = top.length ? top[top.length - 1].lastConnectionInStack(false) : null;
      const made = Blockly.serialization.blocks.append(state as unknown as Blockly.serialization.blocks.State, workspace) as Blockly.BlockSvg;
      if (last && made.previousConnection) last.connect(made.previousConnection);
      else made.moveBy(24, 24);
      made.select();
      workspace.scrollBoundsIntoView?.(made.getBoundingRectangle());
      return made;
    } finally {
      Blockly.Events.setGroup(false);
    }
  }

  bar.append(
    searchBox,
    button("Undo", "Undo (Ctrl+Z)", () => workspace.undo(false)),
    button("Redo", "Redo (Ctrl+Shift+Z)", () => workspace.undo(true)),
    button("Zoom to fit", "Show the whole script", () => workspace.zoomToFit()),
    button("Tidy", "Line the blocks up in one column", () => workspace.cleanUp()),
  );

  // each changed block is checked by the server, a little after the last change
  const pending = new Set<string>();
  let timer = 0;
  let loading = false;
  let baseline = ""; // the blocks as loaded: a workspace saved the same is unchanged
  const schedule = (id: string) => {
    pending.add(id);
    clearTimeout(timer);
    timer = window.setTimeout(() => {
      const ids = [...pending];
      pending.clear();
      for (const id of ids) void checkBlock(id);
    }, CHECK_DELAY);
  };

  async function checkBlock(id: string): Promise<void> {
    const block = workspace.getBlockById(id);
    if (!block || block.isDeadOrDying() || block.isInFlyout) return;
    const json = Blockly.serialization.blocks.save(block, { addNextBlocks: false, addInputBlocks: false });
    const before = JSON.stringify(json);
    let message: string | null = null;
    let tone: Tone = "bad";
    try {
      const text = await converter.toText({ blocks: { languageVersion: 0, blocks: [json as BlockJson] }, otterscript: { headers: [] } });
      if (block.type === "otter_operation_call") {
        const diagnostics = (await scripts.check(text)).filter((d) => d.severity !== "info");
        message = diagnostics.map((d) => (d.hint ? `${d.message}: ${d.hint}` : d.message)).join("\n") || null;
        if (!diagnostics.some((d) => d.severity === "error")) tone = "warn";
      }
    } catch (error) {
      if (error instanceof ScriptProblem || (error as Error).name === "BlocksProblem")
        message = describeProblem(error).replace(/^block \S+ \([^)]*\): /, "");
      else return; // the server did not answer: nothing to say about the block
    }
    if (block.isDeadOrDying() || JSON.stringify(Blockly.serialization.blocks.save(block, { addNextBlocks: false, addInputBlocks: false })) !== before)
      return; // changed meanwhile: its own check follows
    block.setWarningText(message);
    if (message) options.say(`${block.type === "otter_operation_call" ? String(block.getFieldValue("NAME")) : "A block"}: ${message}`, tone);
  }

  workspace.addChangeListener((event: Blockly.Events.Abstract) => {
    if (event.isUiEvent || loading) return;
    if (event.type === Blockly.Events.BLOCK_CREATE) {
      for (const id of (event as Blockly.Events.BlockCreate).ids ?? []) {
        const block = workspace.getBlockById(id);
        if (block?.type === "otter_operation_call") schedule(id);
      }
    } else if (event.type === Blockly.Events.BLOCK_CHANGE) {
      const change = event as Blockly.Events.BlockChange;
      const block = change.blockId ? workspace.getBlockById(change.blockId) : null;
      if (!block) return;
      if (change.element === "field" || change.element === "mutation") schedule(block.id);
    }
  });

  // copy as OtterScript text, paste OtterScript text as blocks
  let lastCopied = "";
  async function copyAsText(block: Blockly.BlockSvg): Promise<void> {
    const json = Blockly.serialization.blocks.save(block, { addNextBlocks: false });
    try {
      const text = await converter.toText({ blocks: { languageVersion: 0, blocks: [json as BlockJson] }, otterscript: { headers: [] } });
      lastCopied = text;
      await navigator.clipboard.writeText(text);
      options.say("Copied as OtterScript", "ok");
    } catch (error) {
      if (error instanceof DOMException) options.say("Copied the block (the browser did not allow the clipboard).", "warn");
      else options.say(`Not copied as text: ${describeProblem(error)}`, "bad");
    }
  }
  async function pasteText(text: string): Promise<boolean> {
    try {
      const pasted = await converter.toBlocks(text);
      Blockly.Events.setGroup(true);
      try {
        for (const top of pasted.blocks.blocks) {
          delete top.x;
          delete top.y;
          addAtEnd(top); // Blockly gives a block whose id is taken a new one
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
  const registry = Blockly.ShortcutRegistry.registry;
  const shortcuts = registry.getRegistry();
  const copy = shortcuts[Blockly.ShortcutItems.names.COPY];
  if (copy?.callback) {
    const original = copy.callback;
    registry.unregister(copy.name);
    registry.register(
      {
        ...copy,
        callback: (ws, event, shortcut, scope) => {
          const done = original(ws, event, shortcut, scope);
          const selected = Blockly.getSelected();
          if (done && selected instanceof Blockly.BlockSvg) void copyAsText(selected);
          return done;
        },
      },
      true,
    );
  }
  const paste = shortcuts[Blockly.ShortcutItems.names.PASTE];
  if (paste?.callback) {
    const original = paste.callback;
    registry.unregister(paste.name);
    registry.register(
      {
        ...paste,
        preconditionFn: (ws, scope) => !ws.isReadOnly() && (paste.preconditionFn?.(ws, scope) ?? true),
        callback: (ws, event, shortcut, scope) => {
          // text copied elsewhere (the text editor, a file) comes in as blocks
          navigator.clipboard
            ?.readText()
            .then((text) => (text.trim() && text !== lastCopied ? pasteText(text) : false))
            .catch(() => false)
            .then((pasted) => {
              if (!pasted) original(ws, event, shortcut, scope);
            });
          return true;
        },
      },
      true,
    );
  }
  registerMenus(copyAsText, pasteText);

  const editor: BlockEditor = {
    workspace,
    headers: [],
    load(json: WorkspaceJson) {
      loading = true;
      Blockly.Events.disable();
      try {
        workspace.clear();
        Blockly.serialization.workspaces.load({ blocks: json.blocks }, workspace, { recordUndo: false });
        // the operation blocks' argument rows now, while events are off: done later (as a field
        // change asks), each would look like an edit and be checked by the server
        for (const block of workspace.getBlocksByType("otter_operation_call", false))
          (block as unknown as { syncArguments?(): void }).syncArguments?.();
      } finally {
        Blockly.Events.enable();
      }
      this.headers = [...(json.otterscript?.headers ?? [])];
      workspace.clearUndo();
      baseline = JSON.stringify(this.save().blocks);
      loading = false;
      workspace.scroll(0, 0);
    },
    save(): WorkspaceJson {
      const saved = Blockly.serialization.workspaces.save(workspace) as { blocks?: WorkspaceJson["blocks"] };
      return {
        blocks: saved.blocks ?? { languageVersion: 0, blocks: [] },
        otterscript: { headers: [...this.headers] },
      };
    },
    get changed() {
      return JSON.stringify(this.save().blocks) !== baseline;
    },
    resize() {
      Blockly.svgResize(workspace);
    },
    focus() {
      searchBox.focus();
    },
  };
  return editor;
}


/** Blockly's stylesheet marks keyboard focus with `:has()` rules; with them, each of the style
 * recalculations Blockly forces while it measures a field's text looks at every block already
 * drawn, and drawing 1,000 statements took minutes. Without them, the focused block keeps
 * Blockly's other focus outline. */
function withoutHasRules(): void {
  for (const sheet of Array.from(document.styleSheets)) {
    const owner = sheet.ownerNode as HTMLElement | null;
    if (!owner?.id?.startsWith("blockly-")) continue;
    for (let index = sheet.cssRules.length - 1; index >= 0; index--)
      if ((sheet.cssRules[index] as CSSStyleRule).selectorText?.includes(":has(")) sheet.deleteRule(index);
  }
}

let menusRegistered = false;
function registerMenus(copy: (block: Blockly.BlockSvg) => Promise<void>, paste: (text: string) => Promise<boolean>): void {
  if (menusRegistered) return;
  menusRegistered = true;
  const registry = Blockly.ContextMenuRegistry.registry;
  registry.register({
    id: "otter_copy_text",
    scopeType: Blockly.ContextMenuRegistry.ScopeType.BLOCK,
    displayText: "Copy as OtterScript",
    weight: -1,
    preconditionFn: () => "enabled",
    callback: (scope) => {
      if (scope.block) void copy(scope.block);
    },
  });
  registry.register({
    id: "otter_paste_text",
    scopeType: Blockly.ContextMenuRegistry.ScopeType.WORKSPACE,
    displayText: "Paste OtterScript",
    weight: -1,
    preconditionFn: (scope) => (scope.workspace?.isReadOnly() ? "hidden" : "enabled"),
    callback: () => {
      void navigator.clipboard?.readText().then(paste, () => false);
    },
  });
}
