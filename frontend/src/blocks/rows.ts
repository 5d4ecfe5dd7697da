// The rows of a block that has a list in its extraState: an operation's or a module call's
// arguments (extraState.arguments: name, value or output, comments, trailingComment) and a
// module's parameters (extraState.parameters: variable, output, default). Each row is a field
// of the block that is not serialized itself; the list is written back from the rows, each
// item keeping what the row does not show. The operation block is driven by the registry's
// reference: its name is picked from the operations, its required arguments are rows from the
// start, the others are added from a menu.

import * as Blockly from "blockly/core";
import { Reference, type OperationReference } from "../api/reference";
import { currentReference, type OtterBlock, type State } from "./definitions";
import { editText } from "./text-dialog";
import { FieldValue } from "./value-field";

/** The id of the page's <datalist> of operation names (the workspace writes it). */
export const OPERATIONS_LIST = "otter-operation-names";

const ADD = "\u0000add";
const OTHER = "\u0000other";
const REMOVE =
  "data:image/svg+xml;charset=utf-8," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><path stroke="#fff" stroke-width="2.2" stroke-linecap="round" d="M4 4l8 8M12 4l-8 8"/></svg>',
  );

/** An operation's name, picked from the registry's operations (a list under the text box);
 * `Namespace::Name` picked or typed goes to the two fields when editing ends. */
export class FieldOperationName extends Blockly.FieldTextInput {
  protected override showEditor_(event?: Event, quietInput?: boolean, manageEphemeralFocus?: boolean): void {
    super.showEditor_(event, quietInput, manageEphemeralFocus);
    this.htmlInput_?.setAttribute("list", OPERATIONS_LIST);
    this.htmlInput_?.setAttribute("aria-label", "Operation");
  }

  // the block's rows follow its operation (on load, in the toolbox and when edited)
  protected override doValueUpdate_(value: string): void {
    super.doValueUpdate_(value);
    syncSoon(this);
  }

  override onFinishEditing_(value: unknown): void {
    const text = String(value ?? "");
    const split = text.indexOf("::");
    const block = this.getSourceBlock();
    if (split < 0 || !block) return;
    block.getField("NAMESPACE")?.setValue(text.slice(0, split).trim());
    this.setValue(text.slice(split + 2).trim());
  }
}

function syncSoon(field: Blockly.Field): void {
  const block = field.getSourceBlock() as ArgumentsBlock | null;
  if (!block?.syncArguments) return;
  // In the toolbox, at once: the flyout lays its blocks out as soon as they are made (their
  // state and then their fields loaded), and rows added later would hide the next block.
  if (block.isInFlyout) block.syncArguments();
  else queueMicrotask(() => block.syncArguments());
}

/** An operation's namespace: shown as `Namespace::` before the name, nothing when empty. */
export class FieldNamespace extends Blockly.FieldLabelSerializable {
  protected override doValueUpdate_(value: string): void {
    super.doValueUpdate_(value);
    syncSoon(this);
  }

  protected override getText_(): string | null {
    const value = String(this.getValue() ?? "");
    return value ? `${value} ::` : "";
  }
}

interface Row {
  key: number;
  data: State;
  field: Blockly.FieldTextInput;
  output: boolean;
  /** added because the operation requires it: dropped again when empty and no longer so */
  required: boolean;
}

export interface ArgumentsBlock extends OtterBlock {
  rows: Row[];
  rowKey: number;
  kind: "operation" | "module";
  addRow(data: State, output: boolean, required?: boolean, before?: boolean): Row;
  removeRow(row: Row): void;
  syncArguments(): void;
  operationReference(): OperationReference | null;
}

function rowInputName(row: Row): string {
  return `ARG${row.key}`;
}

function keyOf(name: string): string {
  return name.toLowerCase();
}

/** The first row of an operation block: namespace, name and the positional argument. */
export function initOperation(block: OtterBlock): void {
  (block as ArgumentsBlock).rows = [];
  block
    .appendDummyInput("HEAD")
    .appendField(new FieldNamespace(""), "NAMESPACE")
    .appendField(new FieldOperationName("Operation"), "NAME")
    .appendField(new Blockly.FieldLabel(""), "POSITIONAL_LABEL")
    .appendField(new FieldValue(""), "POSITIONAL");
  block.appendDummyInput("ADD").appendField(addMenu(block as ArgumentsBlock), "ADD_MENU");
  block.setInputsInline(false);
}

/** The last row of a call: the menu that adds an argument. */
export function initCall(block: OtterBlock): void {
  (block as ArgumentsBlock).rows = [];
  block.appendDummyInput("ADD").appendField(addMenu(block as ArgumentsBlock), "ADD_MENU");
  block.setInputsInline(false);
}

/** The "+ argument" menu: named (ADD_MENU) to be found, never saved. */
class FieldAddMenu extends Blockly.FieldDropdown {
  override isSerializable(): boolean {
    return false;
  }
}

function addMenu(block: ArgumentsBlock): Blockly.FieldDropdown {
  const menu = new FieldAddMenu(function (this: Blockly.FieldDropdown) {
    const options: [string, string][] = [["+ argument", ADD]];
    const operation = block.operationReference?.();
    if (operation) {
      const present = new Set(block.rows.map((row) => keyOf(String(row.data.name))));
      for (const parameter of operation.parameters) {
        if (parameter.positional && block.getFieldValue("POSITIONAL") !== null) {
          if (String(block.getFieldValue("POSITIONAL") ?? "")) continue;
        }
        if ([parameter.name, ...parameter.aliases].some((n) => present.has(keyOf(n)))) continue;
        options.push([parameter.output ? `${parameter.name} (output)` : parameter.name, parameter.name]);
      }
    }
    options.push(["other…", OTHER]);
    return options;
  });
  menu.setValidator((value: string) => {
    if (value === ADD) return value;
    const operation = block.operationReference?.();
    if (value === OTHER) {
      void editText("Argument name", "", { singleLine: true }).then((name) => {
        if (name?.trim()) focusRow(block.addRow({ name: name.trim() }, false));
      });
    } else {
      const parameter = operation ? Reference.parameter(operation, value) : null;
      focusRow(block.addRow({ name: value }, Boolean(parameter?.output)));
    }
    return ADD;
  });
  return menu;
}

function focusRow(row: Row): void {
  const block = row.field.getSourceBlock();
  if (block && block.rendered) setTimeout(() => row.field.showEditor(), 0);
}

/** The arguments of an operation or a module call (extraState.arguments). */
export function argumentsMixin(kind: "operation" | "module") {
  return {
    rows: [] as Row[],
    rowKey: 0,
    kind,
    liveState(this: ArgumentsBlock): State {
      const items: State[] = [];
      for (const row of this.rows) {
        const value = String(row.field.getValue() ?? "");
        if (!value) continue;
        const item: State = { ...row.data };
        delete item.value;
        delete item.output;
        item[row.output ? "output" : "value"] = value;
        items.push(item);
      }
      return { arguments: items };
    },
    applyState(this: ArgumentsBlock, state: State) {
      for (const row of [...this.rows]) this.removeRow(row);
      const items = Array.isArray(state.arguments) ? (state.arguments as State[]) : [];
      for (const item of items) {
        const output = "output" in item;
        const row = this.addRow(item, output);
        row.field.setValue(String((output ? item.output : item.value) ?? ""));
      }
    },
    addRow(this: ArgumentsBlock, data: State, output: boolean, required = false): Row {
      const row: Row = { key: this.rowKey++, data: { ...data }, field: new FieldValue(""), output, required };
      const input = this.appendDummyInput(rowInputName(row))
        .appendField(`    ${String(data.name)}${output ? " =>" : ":"}`)
        .appendField(row.field);
      if (!required)
        input.appendField(
          new Blockly.FieldImage(REMOVE, 12, 12, `Remove the argument ${String(data.name)}`, () => {
            if (this.isEditable()) {
              this.removeRow(row);
              fireShapeChange(this);
            }
          }),
        );
      this.rows.push(row);
      this.moveInputBefore(rowInputName(row), "ADD");
      return row;
    },
    removeRow(this: ArgumentsBlock, row: Row) {
      this.removeInput(rowInputName(row), true);
      this.rows = this.rows.filter((r) => r !== row);
    },
    operationReference(this: ArgumentsBlock): OperationReference | null {
      if (this.kind !== "operation") return null;
      const reference = currentReference();
      const name = String(this.getFieldValue("NAME") ?? "");
      return reference?.operation(name, String(this.getFieldValue("NAMESPACE") ?? "") || null) ?? null;
    },
    /** Rows for the operation's required arguments; its positional argument named. */
    syncArguments(this: ArgumentsBlock) {
      if (this.kind !== "operation" || this.isDeadOrDying()) return;
      const operation = this.operationReference();
      const positional = operation?.parameters.find((p) => p.positional) ?? null;
      const label = this.getField("POSITIONAL_LABEL");
      const field = this.getField("POSITIONAL");
      label?.setValue(positional ? `${positional.name}:` : "");
      field?.setVisible(Boolean(positional) || Boolean(field.getValue()));
      this.setTooltip(operation ? `${operation.namespace}::${operation.name}: ${operation.description}` : "An operation (not one the registry knows).");
      const required = new Set<string>();
      for (const parameter of operation?.parameters ?? []) {
        if (!parameter.required || parameter.positional) continue;
        const names = [parameter.name, ...parameter.aliases].map(keyOf);
        names.forEach((n) => required.add(n));
        if (!this.rows.some((row) => names.includes(keyOf(String(row.data.name)))))
          this.addRow({ name: parameter.name }, parameter.output, true);
      }
      for (const row of [...this.rows])
        if (row.required && !row.field.getValue() && !required.has(keyOf(String(row.data.name)))) this.removeRow(row);
    },
  };
}

function fireShapeChange(block: OtterBlock): void {
  // an event, so that undo and the checks see the change
  Blockly.Events.fire(new (Blockly.Events.get(Blockly.Events.BLOCK_CHANGE))(block, "mutation", null, "", JSON.stringify(block.saveExtraState?.() ?? null)));
}

interface Parameter {
  key: number;
  data: State;
  variable: Blockly.FieldTextInput;
  fallback: Blockly.FieldTextInput;
  output: Blockly.FieldCheckbox;
}

interface ParametersBlock extends OtterBlock {
  parameters: Parameter[];
  parameterKey: number;
  addParameter(data: State): Parameter;
}

/** A module's parameters (extraState.parameters): variable, default, and whether it is an
 * output. A row whose variable is emptied is left out. */
export function initParameters(block: OtterBlock): void {
  (block as ParametersBlock).parameters = [];
}

export function parametersMixin() {
  return {
    parameters: [] as Parameter[],
    parameterKey: 0,
    liveState(this: ParametersBlock): State {
      const items: State[] = [];
      for (const row of this.parameters) {
        const variable = String(row.variable.getValue() ?? "");
        if (!variable) continue;
        const item: State = { ...row.data, variable, output: row.output.getValue() === "TRUE" };
        const fallback = String(row.fallback.getValue() ?? "");
        if (fallback) item.default = fallback;
        else delete item.default;
        items.push(item);
      }
      return { parameters: items };
    },
    applyState(this: ParametersBlock, state: State) {
      for (const row of this.parameters) this.removeInput(`PARAM${row.key}`, true);
      this.parameters = [];
      const items = Array.isArray(state.parameters) ? (state.parameters as State[]) : [];
      for (const item of items) this.addParameter(item);
    },
    addParameter(this: ParametersBlock, data: State): Parameter {
      const row: Parameter = {
        key: this.parameterKey++,
        data: { ...data },
        variable: new Blockly.FieldTextInput(String(data.variable ?? "")),
        fallback: new FieldValue(data.default === undefined ? "" : String(data.default)),
        output: new Blockly.FieldCheckbox(data.output ? "TRUE" : "FALSE"),
      };
      this.appendDummyInput(`PARAM${row.key}`)
        .appendField("    parameter")
        .appendField(row.variable)
        .appendField("default")
        .appendField(row.fallback)
        .appendField("output")
        .appendField(row.output);
      this.moveInputBefore(`PARAM${row.key}`, "BODY");
      this.parameters.push(row);
      return row;
    },
    customContextMenu(this: ParametersBlock, options: Blockly.ContextMenuRegistry.LegacyContextMenuOption[]) {
      if (!this.isEditable()) return;
      options.unshift({
        text: "Add a parameter",
        enabled: true,
        callback: () => {
          const row = this.addParameter({ variable: "$name", output: false });
          fireShapeChange(this);
          if (this.rendered) setTimeout(() => row.variable.showEditor(), 0);
        },
      });
    },
  };
}
