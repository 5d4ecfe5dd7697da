// The block editor: a Blockly workspace with OtterScript's blocks under a toolbar (search, undo,
// redo, zoom to fit, tidy), put together from its parts: the workspace drawn (inject.ts), the
// toolbox and its search (toolbox.ts, search-box.ts), the script loaded and read back
// (script.ts), each edited block checked by the server (diagnostics.ts) and copy and paste as
// OtterScript text (clipboard.ts). Loaded only when the visual mode is opened (its own chunk,
// with Blockly).

import type * as Blockly from "blockly/core";
import type { Reference, ReferenceClient } from "../api/reference";
import type { ScriptsClient } from "../api/scripts";
import type { Tone } from "../ui/status";
import "./blocks.css";
import { TextClipboard, useTextClipboard } from "./clipboard";
import type { BlocksClient, WorkspaceJson } from "./client";
import { defineBlocks, useReference } from "./definitions";
import { checkBlocksAsEdited } from "./diagnostics";
import { injectWorkspace, resizeWorkspace, useEnglish } from "./inject";
import { type BlockNamer, namerOf } from "./labels";
import { operationNames } from "./names";
import { WorkspaceScript } from "./script";
import { searchBox } from "./search-box";
import { controlEntries, operationEntries, toolbox } from "./toolbox";
import { blocksToolbar } from "./toolbar";

export interface BlockEditorOptions {
  /** The server's converter between blocks and text. */
  converter: BlocksClient;
  /** The script endpoints (an operation block's check). */
  scripts: ScriptsClient;
  reference: ReferenceClient;
  readOnly: boolean;
  say(text: string, tone?: Tone): void;
}

export interface BlockEditor {
  /** Shows `workspace` (the server's JSON of a script); undo starts afresh. Its first screen
   * shows at once; resolves once the rest is in. */
  load(workspace: WorkspaceJson): Promise<void>;
  /** The workspace as JSON, with the headers it was loaded with (or given since). */
  save(): WorkspaceJson;
  headers: string[];
  /** Whether the blocks differ from those last loaded. */
  readonly changed: boolean;
  resize(): void;
  focus(): void;
  /** Names a block in a message as its user knows it (labels.ts). */
  name: BlockNamer;
  workspace: Blockly.WorkspaceSvg;
}

/** A Blockly workspace in `host`, with its toolbar. */
export async function mountBlockEditor(host: HTMLElement, options: BlockEditorOptions): Promise<BlockEditor> {
  const { converter, say, readOnly } = options;
  useEnglish();
  defineBlocks();
  let reference: Reference | null = null;
  try {
    reference = await options.reference.load();
  } catch {
    say("Could not load the reference of operations: the toolbox has no operations.", "warn");
  }
  useReference(() => reference);
  const entries = [...controlEntries(), ...(reference ? operationEntries(reference) : [])];

  const area = document.createElement("div");
  area.className = "otter-blocks-area";
  host.append(area, operationNames(document, reference));
  const workspace = injectWorkspace(area, toolbox(entries), readOnly);
  const search = searchBox(workspace, entries, { readOnly, say });
  host.prepend(blocksToolbar(workspace, search));

  const script = new WorkspaceScript(workspace);
  checkBlocksAsEdited(workspace, { converter, scripts: options.scripts, say, loading: () => script.loading });
  useTextClipboard(new TextClipboard(workspace, { converter, say, clipboard: navigator.clipboard }));

  return {
    workspace,
    get headers() {
      return script.headers;
    },
    set headers(headers) {
      script.headers = headers;
    },
    load: (json) => script.load(json),
    save: () => script.save(),
    get changed() {
      return script.changed;
    },
    resize: () => resizeWorkspace(workspace),
    focus: () => search.focus(),
    name: namerOf(workspace),
  };
}
