// One Blockly block type for each statement kind of the engine, matching the workspace JSON of
// engine.blocks exactly: the same block types, field names, statement inputs and extraState.
// Whatever a block does not show (a description as written, a trailing comment, a blank line
// before it, an argument's comments) is kept in its extraState and given back unchanged, so
// workspace → text through the server loses nothing. Expressions and conditions are text
// fields holding OtterScript, which the server reads (and checks) in their place.

import * as Blockly from "blockly/core";
import type { Reference } from "../api/reference";
import { PART } from "./parts";
import { argumentsMixin, initCall, initOperation, initParameters, parametersMixin } from "./rows";
import { editText } from "./text-dialog";

/** The block types, one per statement kind, and otter_raw: a statement kept as its text.
 * tests/web/editor/test_block_types.py reads this list and holds it to the engine's. */
export const BLOCK_TYPES = [
  "otter_await",
  "otter_block",
  "otter_break",
  "otter_call_module",
  "otter_comment",
  "otter_context_iteration",
  "otter_continue",
  "otter_error",
  "otter_fail",
  "otter_for_each",
  "otter_force_normal",
  "otter_global_declaration",
  "otter_if",
  "otter_log",
  "otter_module_declaration",
  "otter_operation_call",
  "otter_raw",
  "otter_return",
  "otter_set_context",
  "otter_set_variable",
  "otter_throw",
  "otter_try",
  "otter_warn",
  "otter_with",
] as const;

export type BlockType = (typeof BLOCK_TYPES)[number];

/** Block colours (hues) by family, shared with the toolbox's categories. */
export const HUES = {
  control: 210,
  loops: 120,
  variables: 330,
  log: 175,
  errors: 0,
  with: 260,
  modules: 290,
  operations: 25,
  text: 45,
} as const;

/** Where the blocks look up operations (the registry's reference, once it has arrived). */
let referenceOf: () => Reference | null = () => null;
export function useReference(provider: () => Reference | null): void {
  referenceOf = provider;
}
export const currentReference = () => referenceOf();

export type State = Record<string, unknown>;

/** A block of ours: its extraState kept as it came, and the parts it rebuilds from the shape. */
export interface OtterBlock extends Blockly.Block {
  otterExtra: State;
  /** Extra state the block computes from what it shows (arguments, shape, parameters). */
  liveState?(): State;
  applyState?(state: State): void;
}

const ICON_EDIT =
  "data:image/svg+xml;charset=utf-8," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><path fill="#fff" d="M11.3 1.3a1 1 0 0 1 1.4 0l2 2a1 1 0 0 1 0 1.4l-8.5 8.5-3.7.8.8-3.7z"/></svg>',
  );

/** A checkbox saved as engine.blocks writes it: the text "TRUE" or "FALSE". */
export class FieldFlag extends Blockly.FieldCheckbox {
  override saveState(): string {
    return this.getValue() === "TRUE" ? "TRUE" : "FALSE";
  }
}
Blockly.fieldRegistry.register("otter_field_flag", FieldFlag);

/** The extraState mixin of every block: what came is given back, with the live parts. */
const stateMixin = {
  saveExtraState(this: OtterBlock): State | null {
    const state = { ...(this.otterExtra ?? {}), ...(this.liveState?.() ?? {}) };
    return Object.keys(state).length ? state : null;
  },
  loadExtraState(this: OtterBlock, state: State): void {
    this.otterExtra = { ...state };
    this.applyState?.(state);
  },
};

interface Definition {
  json: Record<string, unknown>;
  mixin?: Record<string, unknown>;
  init?: (block: OtterBlock) => void;
}

function define(type: BlockType, { json, mixin = {}, init }: Definition): void {
  Blockly.Blocks[type] = {
    ...stateMixin,
    ...mixin,
    init(this: OtterBlock) {
      this.otterExtra = {};
      this.jsonInit({ previousStatement: null, nextStatement: null, ...json });
      init?.(this);
    },
  };
}

const text = (name: string, value = "") => ({ type: "field_input", name, text: value, spellcheck: false });
/** A value that may run over several lines (value-field.ts). */
const value = (name: string, text = "") => ({ type: "field_value", name, text, spellcheck: false });
const dropdown = (name: string, options: string[][]) => ({ type: "field_dropdown", name, options });
const body = (name: string) => ({ type: "input_statement", name });

export const LEVELS = [
  ["Log-Information", "information"],
  ["Log-Warning", "warning"],
  ["Log-Error", "error"],
  ["Log-Debug", "debug"],
];
export const CONTEXTS = [
  ["server", "server"],
  ["role", "role"],
  ["directory", "directory"],
  ["deployable", "deployable"],
];

/** Text of several lines (a comment, a statement kept as text): a hidden TEXT field holds it,
 * shown a line per row, edited in a dialog (the pencil, a double click or the context menu). */
function multilineInit(title: string, prefix: (line: string) => string) {
  return (block: OtterBlock) => {
    const field = new Blockly.FieldTextInput("");
    block.getInput("HEAD")!.appendField(field, "TEXT");
    field.setVisible(false);
    const edit = () => {
      if (!block.isEditable()) return;
      void editText(title, String(field.getValue() ?? "")).then((value) => {
        if (value !== null && value !== field.getValue()) field.setValue(value);
      });
    };
    block
      .getInput("HEAD")!
      .appendField(new Blockly.FieldImage(ICON_EDIT, 14, 14, `Edit ${title.toLowerCase()}`, edit));
    field.setValidator((value: string) => {
      showLines(block, value, prefix);
      return value;
    });
    (block as OtterBlock & { editText: () => void }).editText = edit;
  };
}

function showLines(block: OtterBlock, value: string, prefix: (line: string) => string): void {
  if (block.isDeadOrDying()) return;
  for (let index = 0; block.getInput(`LINE${index}`); index++) block.removeInput(`LINE${index}`, true);
  const shown = value.split("\n");
  const limit = 40; // a very long text is cut in the view (all of it is kept)
  shown.slice(0, limit).forEach((line, index) => {
    block.appendDummyInput(`LINE${index}`).appendField(prefix(line) || " ");
  });
  if (shown.length > limit)
    block.appendDummyInput(`LINE${limit}`).appendField(`… ${shown.length - limit} more lines`);
}

const editMenu = {
  customContextMenu(this: OtterBlock & { editText?: () => void }, options: Blockly.ContextMenuRegistry.LegacyContextMenuOption[]) {
    if (this.editText && this.isEditable())
      options.unshift({ text: "Edit text…", enabled: true, callback: () => this.editText?.() });
  },
};

/** if / else if / else: IF0 and DO0, an IFn and DOn for each else if, and ELSE when there is
 * one (extraState.elseIfCount, extraState.hasElse). */
const ifMixin = {
  elseIfs: 0,
  hasElse: false,
  applyState(this: OtterBlock & IfBlock, state: State) {
    this.reshape(Number(state.elseIfCount ?? 0) || 0, Boolean(state.hasElse));
  },
  liveState(this: OtterBlock & IfBlock): State {
    return { elseIfCount: this.elseIfs, hasElse: this.hasElse };
  },
  reshape(this: OtterBlock & IfBlock, elseIfs: number, hasElse: boolean) {
    for (let n = this.elseIfs; n > elseIfs; n--) {
      unplug(this, `DO${n}`);
      this.removeInput(`IF${n}`);
      this.removeInput(`DO${n}`);
    }
    if (this.hasElse && !hasElse) {
      unplug(this, "ELSE");
      this.removeInput("ELSE");
    }
    for (let n = this.elseIfs + 1; n <= elseIfs; n++) {
      this.appendDummyInput(`IF${n}`).appendField("else if").appendField(new Blockly.FieldTextInput("true"), `IF${n}`);
      this.appendStatementInput(`DO${n}`);
      if (this.getInput("ELSE")) {
        this.moveInputBefore(`IF${n}`, "ELSE");
        this.moveInputBefore(`DO${n}`, "ELSE");
      }
    }
    if (hasElse && !this.getInput("ELSE")) this.appendStatementInput("ELSE").appendField("else");
    this.elseIfs = elseIfs;
    this.hasElse = hasElse;
  },
  customContextMenu(this: OtterBlock & IfBlock, options: Blockly.ContextMenuRegistry.LegacyContextMenuOption[]) {
    if (!this.isEditable()) return;
    const change = (elseIfs: number, hasElse: boolean) => () => {
      const before = this.saveExtraState?.() ?? null;
      this.reshape(elseIfs, hasElse);
      Blockly.Events.fire(
        new (Blockly.Events.get(Blockly.Events.BLOCK_CHANGE))(this, "mutation", null, JSON.stringify(before), JSON.stringify(this.saveExtraState?.() ?? null)),
      );
    };
    options.unshift(
      { text: "Add else if", enabled: true, callback: change(this.elseIfs + 1, this.hasElse) },
      this.hasElse
        ? { text: "Remove else", enabled: true, callback: change(this.elseIfs, false) }
        : { text: "Add else", enabled: true, callback: change(this.elseIfs, true) },
      ...(this.elseIfs
        ? [{ text: "Remove the last else if", enabled: true, callback: change(this.elseIfs - 1, this.hasElse) }]
        : []),
    );
  },
};
interface IfBlock {
  elseIfs: number;
  hasElse: boolean;
  reshape(elseIfs: number, hasElse: boolean): void;
}

/** The blocks in `input` leave it (they stay on the workspace) before the input goes. */
function unplug(block: Blockly.Block, input: string): void {
  const child = block.getInput(input)?.connection?.targetBlock();
  if (child) child.unplug(false);
}

let defined = false;

/** Defines every block type (once). */
export function defineBlocks(): void {
  if (defined) return;
  defined = true;

  define("otter_operation_call", {
    json: { colour: HUES.operations, tooltip: "Runs an operation of the registry." },
    init: initOperation,
    mixin: argumentsMixin("operation"),
  });
  define("otter_call_module", {
    json: {
      message0: "call %1 :: %2",
      args0: [text("RAFT"), text("NAME", "Module")],
      colour: HUES.modules,
      tooltip: "Calls a module: its raft (empty for this raft) and name, then its arguments.",
    },
    init: initCall,
    mixin: argumentsMixin("module"),
  });
  define("otter_module_declaration", {
    json: {
      message0: "module %1",
      args0: [text("NAME", "Module")],
      message1: "%1",
      args1: [body("BODY")],
      colour: HUES.modules,
      tooltip: "Declares a module: a named part of the script that others call, with parameters.",
    },
    init: initParameters,
    mixin: parametersMixin(),
  });
  define("otter_block", {
    json: {
      message0: "block %1",
      args0: [body("BODY")],
      colour: HUES.control,
      tooltip: "A group of statements; its description names its section of the log.",
    },
  });
  define("otter_set_variable", {
    json: {
      message0: "set %1 %2 %3 = %4",
      args0: [
        dropdown("SCOPE", [["", ""], ["local", "local"], ["global", "global"]]),
        text("VARIABLE", "$name"),
        { type: "field_label", text: "", name: "INDEXES" },
        value("VALUE"),
      ],
      colour: HUES.variables,
      tooltip: "Sets a variable ($text, @list or %map), optionally one of its items.",
    },
    mixin: {
      applyState(this: OtterBlock, state: State) {
        const indexes = Array.isArray(state.indexes) ? state.indexes : [];
        // the indexes are shown (they are edited as text)
        this.getField("INDEXES")?.setValue(indexes.map((key) => `[${String(key)}]`).join(""));
      },
    },
  });
  define("otter_global_declaration", {
    json: {
      message0: "global %1 = %2",
      args0: [text("VARIABLE", "$name"), value("VALUE")],
      colour: HUES.variables,
      tooltip: "Declares a global variable at the top of the script, with its value.",
    },
  });
  define("otter_log", {
    json: {
      message0: "%1 %2",
      args0: [dropdown("LEVEL", LEVELS), value("MESSAGE", "message")],
      colour: HUES.log,
      tooltip: "Writes a message to the execution's log.",
    },
  });
  define("otter_if", {
    json: {
      message0: "if %1",
      args0: [text("IF0", "true")],
      message1: "%1",
      args1: [body("DO0")],
      colour: HUES.control,
      tooltip: "Runs its statements when the condition holds; right-click to add else if or else.",
    },
    mixin: ifMixin,
  });
  define("otter_for_each", {
    json: {
      message0: "foreach %1 in %2",
      args0: [text("VARIABLE", "$item"), text("SOURCE", "@list")],
      message1: "%1",
      args1: [body("BODY")],
      colour: HUES.loops,
      tooltip: "Runs its statements once for each item of a list.",
    },
  });
  define("otter_context_iteration", {
    json: {
      message0: "foreach %1 in %2",
      args0: [dropdown("CONTEXT", CONTEXTS), text("SOURCE", "@ServersInRole(web)")],
      message1: "%1",
      args1: [body("BODY")],
      colour: HUES.loops,
      tooltip: "Runs its statements on each server (role, directory) of a list, in its context.",
    },
  });
  define("otter_set_context", {
    json: {
      message0: "for %1 %2",
      args0: [dropdown("CONTEXT", CONTEXTS), text("VALUE", "name")],
      message1: "%1",
      args1: [body("BODY")],
      colour: HUES.loops,
      tooltip: "Runs its statements in the context of one server, role or directory.",
    },
  });
  define("otter_with", {
    json: {
      message0: "with %1",
      args0: [text("DIRECTIVES", "async")],
      message1: "%1",
      args1: [body("BODY")],
      colour: HUES.with,
      tooltip:
        "Runs its statements with directives: async, lock=name, retry=count, timeout=seconds, " +
        "credentials=name, isolation, executionPolicy…",
    },
  });
  define("otter_try", {
    json: {
      message0: "try %1",
      args0: [body("BODY")],
      message1: "catch %1",
      args1: [body("CATCH")],
      colour: HUES.errors,
      tooltip: "Runs its statements; when one fails, runs the catch statements instead.",
    },
  });
  define("otter_await", {
    json: {
      message0: "await %1",
      args0: [text("TOKEN")],
      colour: HUES.with,
      tooltip: "Waits for the async blocks started before (those of a token, when one is named).",
    },
  });
  define("otter_throw", {
    json: {
      message0: "throw %1",
      args0: [value("MESSAGE")],
      colour: HUES.errors,
      tooltip: "Stops with an error that a catch can handle.",
    },
  });
  define("otter_warn", {
    json: {
      message0: "warn %1 force",
      args0: [{ type: "otter_field_flag", name: "FORCE", checked: false }],
      colour: HUES.errors,
      tooltip: "Sets the execution's status to warning (force: even inside a catch).",
    },
  });
  for (const [type, label, tooltip] of [
    ["otter_fail", "fail", "Stops the execution as failed."],
    ["otter_error", "error", "Marks the execution as in error and goes on."],
    ["otter_force_normal", "force normal", "Sets the execution's status back to normal."],
    ["otter_break", "break", "Leaves the loop."],
    ["otter_continue", "continue", "Goes on with the loop's next item."],
    ["otter_return", "return", "Leaves the module (or the script)."],
  ] as const) {
    define(type, {
      json: { message0: label, colour: type.endsWith("break") || type.endsWith("continue") || type.endsWith("return") ? HUES.loops : HUES.errors, tooltip },
    });
  }
  define("otter_comment", {
    json: {
      message0: "comment",
      args0: [],
      colour: HUES.text,
      tooltip: "A comment on its own, kept in the script as written.",
    },
    init: (block) => {
      block.inputList[0].name = "HEAD";
      multilineInit("Comment", (line) => line)(block);
    },
    mixin: editMenu,
  });
  define("otter_raw", {
    json: {
      message0: "OtterScript",
      args0: [],
      colour: HUES.text,
      tooltip: "Statements kept as text: the server reads them when the script is saved.",
    },
    init: (block) => {
      block.inputList[0].name = "HEAD";
      multilineInit("OtterScript", (line) => line)(block);
    },
    mixin: editMenu,
  });
  definePart();
}

/** The block of a part of a long script (parts.ts). */
function definePart(): void {
  Blockly.Blocks[PART] = {
    init(this: Blockly.Block) {
      this.jsonInit({
        message0: "%1",
        args0: [{ type: "field_label", name: "LABEL", text: "statements", class: "otterPartLabel" }],
        message1: "%1",
        args1: [{ type: "input_statement", name: "BODY" }],
        previousStatement: null,
        nextStatement: null,
        colour: "#d0d7de",
        tooltip:
          "A part of a long script, in the editor only: the script's text has no parts. Collapse it to see the script in parts; moving or deleting it moves or deletes its statements.",
      });
    },
  };
}

/** A copy of the block types' names that are defined now (for tests). */
export function definedBlockTypes(): string[] {
  return BLOCK_TYPES.filter((type) => type in Blockly.Blocks);
}
