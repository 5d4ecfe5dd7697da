// Completion from the server's reference: operations (and their namespaces) where a statement
// starts, argument names inside an operation's `( )`, functions and variables (the script's own,
// then the inventory's) after `$`, `@` and `%`, and the keywords; and from the names of the
// raft (GET /api/scripts/names/): modules after `call`, templates in Apply-Template's Asset.

import type {
  Completion,
  CompletionContext,
  CompletionResult,
  CompletionSource,
} from "@codemirror/autocomplete";
import { syntaxTree } from "@codemirror/language";
import type { EditorState } from "@codemirror/state";
import type { SyntaxNode } from "@lezer/common";
import type { EditorView } from "@codemirror/view";
import type { InventoryVariable, RaftItemName, ScriptNames } from "../api/names";
import {
  Reference,
  type FunctionReference,
  type OperationReference,
  type ParameterReference,
} from "../api/reference";

const KEYWORDS = [
  "set", "if", "else", "foreach", "for", "with", "try", "catch", "throw", "module", "call",
  "global", "await", "fail", "error", "warn", "force", "break", "continue", "return",
  "Log-Debug", "Log-Information", "Log-Warning", "Log-Error",
];

function enclosing(node: SyntaxNode | null, name: string): SyntaxNode | null {
  for (let at = node; at; at = at.parent) if (at.name === name) return at;
  return null;
}

function inside(node: SyntaxNode, names: string[]): boolean {
  for (let at: SyntaxNode | null = node; at; at = at.parent) if (names.includes(at.name)) return true;
  return false;
}

/** The text of every `name` node of the script, once each, except the one at `except`. */
function declared(state: EditorState, name: string, except: number): string[] {
  const found = new Set<string>();
  syntaxTree(state).iterate({
    enter(node) {
      if (node.name === name && !(node.from <= except && except <= node.to))
        found.add(state.sliceDoc(node.from, node.to));
    },
  });
  return [...found].sort();
}

/** The variables the script declares (`set`, `global`, `foreach`, module parameters, outputs),
 * with their sigils, except the one being typed at `except`. */
export function declaredVariables(state: EditorState, except = -1): string[] {
  return declared(state, "DeclaredVariable", except);
}

/** `Namespace::Name` when the name alone is ambiguous; a node's `OperationName` as text. */
function operationOf(state: EditorState, call: SyntaxNode, reference: Reference) {
  const name = call.getChild("OperationName");
  if (!name) return null;
  const namespace = name.getChild("Namespace");
  const identifier = name.getChild("Identifier");
  if (!identifier) return null;
  return reference.operation(
    state.sliceDoc(identifier.from, identifier.to),
    namespace ? state.sliceDoc(namespace.from, namespace.to) : null,
  );
}

function operationInfo(operation: OperationReference): string {
  const parameters = operation.parameters
    .map((p) => `${p.name}${p.required ? " (required)" : ""}`)
    .join(", ");
  return `${operation.description}\n\nArguments: ${parameters || "none"}`;
}

function functionCompletion(fn: FunctionReference, sigil: string): Completion {
  const label = sigil + fn.name;
  return {
    label,
    type: "function",
    detail: fn.signature.replace(/^[$@%]/, sigil),
    info: fn.description,
    apply: (view: EditorView, _completion: Completion, from: number, to: number) => {
      const takesArguments = fn.parameters.length > 0 || fn.variadic;
      const opened = view.state.sliceDoc(to, to + 1) === "(";
      const insert = takesArguments && !opened ? `${label}()` : label;
      const cursor = from + label.length + (takesArguments ? 1 : 0);
      view.dispatch({
        changes: { from, to, insert },
        selection: { anchor: cursor },
        userEvent: "input.complete",
      });
    },
  };
}

/** How a script writes an inventory variable: `${name}` when the name is more than a word. */
function variableLabel(variable: InventoryVariable): string {
  return /^[A-Za-z][A-Za-z0-9_]*$/.test(variable.name)
    ? variable.sigil + variable.name
    : `${variable.sigil}{${variable.name}}`;
}

function inventoryCompletion(variable: InventoryVariable): Completion {
  return {
    label: variableLabel(variable),
    type: "variable",
    detail: "inventory",
    info: `A configuration variable of the inventory, set for: ${variable.scopes.join(", ")}.`,
    boost: 1,
  };
}

/** The script's variables, then the inventory's, then the functions, of the typed sigil. */
function expansions(
  context: CompletionContext,
  typed: { from: number; text: string },
  reference: Reference | null,
  names: ScriptNames | null,
): CompletionResult {
  const sigil = typed.text[0];
  const own = declaredVariables(context.state, context.pos).filter((name) => name[0] === sigil);
  const options: Completion[] = own.map((label) => ({ label, type: "variable", boost: 2 }));
  const taken = new Set(own.map((name) => name.toLowerCase()));
  for (const variable of names?.variables ?? [])
    if (variable.sigil === sigil && !taken.has(variableLabel(variable).toLowerCase()))
      options.push(inventoryCompletion(variable));
  for (const fn of reference?.functions ?? [])
    if (fn.sigils.includes(sigil as "$")) options.push(functionCompletion(fn, sigil));
  return { from: typed.from, options, validFor: /^[$@%][A-Za-z0-9_]*$/ };
}

// The arguments that name a raft item, by operation and parameter (lower case): which names.
const ITEM_ARGUMENTS: Record<string, "templates"> = { "apply-template/asset": "templates" };

interface ItemPlace {
  from: number;
  names: "modules" | "templates";
}

function itemArgument(
  operation: OperationReference | null,
  parameter: ParameterReference | null | undefined,
): "templates" | null {
  if (!operation || !parameter) return null;
  return ITEM_ARGUMENTS[`${operation.name}/${parameter.name}`.toLowerCase()] ?? null;
}

/** Where a raft item is named: after `call`, and in the value of an argument that names one
 * (Apply-Template's Asset, also as its positional argument). */
function itemPlace(
  context: CompletionContext,
  node: SyntaxNode,
  reference: Reference | null,
): ItemPlace | null {
  if (inside(node, ["QuotedString", "SwimString"])) return null;
  const { state, pos } = context;
  const list = enclosing(node, "ArgList");
  const call = enclosing(node, "CallStatement");
  if (call && !list) {
    const typed = /^call\s+((?:[\w-]+::)?[\w.-]*)$/i.exec(state.sliceDoc(call.from, pos));
    return typed ? { from: pos - typed[1].length, names: "modules" } : null;
  }
  const statement = enclosing(node, "OperationCall");
  if (!statement || !reference) return null;
  let typed: string, names: "templates" | null;
  if (list) {
    const argument = /(?:^|,)\s*([A-Za-z][\w-]*)\s*:\s*([\w./:-]*)$/.exec(
      state.sliceDoc(list.from + 1, pos),
    );
    if (!argument || list.parent !== statement) return null;
    const operation = operationOf(state, statement, reference);
    names = itemArgument(operation, operation && Reference.parameter(operation, argument[1]));
    typed = argument[2];
  } else {
    const positional = /^(?:([A-Za-z][\w-]*)::)?([A-Za-z][\w-]*)\s+([\w./:-]*)$/.exec(
      state.sliceDoc(statement.from, pos),
    );
    if (!positional) return null;
    const operation = reference.operation(positional[2], positional[1] ?? null);
    names = itemArgument(operation, operation?.parameters.find((p) => p.positional));
    typed = positional[3];
  }
  return names ? { from: pos - typed.length, names } : null;
}

function itemCompletion(item: RaftItemName, type: string): Completion {
  const ours = !item.name.includes("::");
  return { label: item.name, type, detail: `${item.kind} in ${item.raft}`, boost: ours ? 1 : 0 };
}

/** The raft's items (and for `call`, the modules the script declares) where one is named. */
function items(context: CompletionContext, place: ItemPlace, names: ScriptNames): CompletionResult {
  const options: Completion[] = [];
  const taken = new Set<string>();
  if (place.names === "modules")
    for (const label of declared(context.state, "ModuleName", -1)) {
      options.push({ label, type: "function", detail: "module of this script", boost: 2 });
      taken.add(label.toLowerCase());
    }
  for (const item of names[place.names])
    if (!taken.has(item.name.toLowerCase()))
      options.push(itemCompletion(item, place.names === "modules" ? "function" : "text"));
  return { from: place.from, options, validFor: /^[\w./-]*(::[\w./-]*)?$/ };
}

/** Inside an argument list, where an argument's name goes: its first column, or after `(`, `,`. */
function argumentNames(
  context: CompletionContext,
  node: SyntaxNode,
  reference: Reference | null,
): CompletionResult | null {
  const list = enclosing(node, "ArgList");
  if (!list || !reference || context.pos <= list.from) return null;
  if (inside(node, ["QuotedString", "SwimString", "FunctionCall", "ListLiteral", "MapLiteral"]))
    return null;
  const line = context.state.doc.lineAt(context.pos);
  const before = context.state.sliceDoc(Math.max(line.from, list.from + 1), context.pos);
  const name = /(?:^|[,(])\s*([A-Za-z][\w-]*)?$/.exec(before);
  if (!name) return null;
  const call = list.parent;
  const operation = call ? operationOf(context.state, call, reference) : null;
  if (!operation) return null;
  const given = new Set(
    list
      .getChildren("Argument")
      .map((argument) => argument.getChild("ArgumentName"))
      .filter((n): n is SyntaxNode => n !== null && !(n.from <= context.pos && context.pos <= n.to))
      .map((n) => context.state.sliceDoc(n.from, n.to).toLowerCase()),
  );
  const options = operation.parameters
    .filter((p) => ![p.name, ...p.aliases].some((n) => given.has(n.toLowerCase())))
    .map(
      (p): Completion => ({
        label: p.name,
        type: "property",
        detail: `${p.type}${p.required ? ", required" : ""}${p.output ? ", output" : ""}`,
        info: p.description,
        apply: p.output ? `${p.name} => $` : `${p.name}: `,
        boost: p.required ? 1 : 0,
      }),
    );
  return { from: context.pos - (name[1]?.length ?? 0), options, validFor: /^[\w-]*$/ };
}

/** Where a statement starts: operations, `Namespace::` prefixes and keywords. */
function statements(
  context: CompletionContext,
  node: SyntaxNode,
  reference: Reference | null,
): CompletionResult | null {
  const typed = context.matchBefore(/(?:[A-Za-z][\w-]*::)?[A-Za-z][\w-]*|[A-Za-z][\w-]*::/);
  if (!typed && !context.explicit) return null;
  const from = typed ? typed.from : context.pos;
  const parent = node.name === "Identifier" ? node.parent : node;
  const atStatement =
    parent === null || ["OperationName", "Namespace", "Script", "Block", "⚠"].includes(parent.name);
  if (!atStatement || enclosing(node, "ArgList") || enclosing(node, "CallStatement")) return null;
  if (inside(node, ["LineComment", "BlockComment", "QuotedString", "SwimString"])) return null;
  const line = context.state.doc.lineAt(from);
  if (context.state.sliceDoc(line.from, from).trim() !== "") {
    const before = context.state.sliceDoc(line.from, from).trimEnd();
    if (!/[;{}]$/.test(before)) return null;
  }
  const operations = reference?.operations ?? [];
  const text = typed?.text ?? "";
  const namespaced = text.indexOf("::");
  if (namespaced >= 0) {
    const namespace = text.slice(0, namespaced).toLowerCase();
    return {
      from: from + namespaced + 2,
      options: operations
        .filter((o) => o.namespace.toLowerCase() === namespace)
        .map((o) => ({ label: o.name, type: "function", detail: o.kind, info: operationInfo(o) })),
      validFor: /^[\w-]*$/,
    };
  }
  const counts = new Map<string, number>();
  for (const o of operations) counts.set(o.name.toLowerCase(), (counts.get(o.name.toLowerCase()) ?? 0) + 1);
  const options: Completion[] = operations.map((o) => ({
    label: (counts.get(o.name.toLowerCase()) ?? 0) > 1 ? `${o.namespace}::${o.name}` : o.name,
    type: "function",
    detail: o.namespace,
    info: operationInfo(o),
  }));
  for (const namespace of reference?.namespaces ?? [])
    options.push({ label: `${namespace}::`, type: "namespace", boost: -1 });
  for (const keyword of KEYWORDS) options.push({ label: keyword, type: "keyword", boost: -2 });
  return { from, options, validFor: /^[\w-]*(::[\w-]*)?$/ };
}

/** The completion source; `reference` gives the reference once it has arrived, `names` the
 * raft's names (asked for only where they are offered; null when they could not be had). */
export function otterscriptCompletions(
  reference: () => Reference | null,
  names: () => Promise<ScriptNames | null> = async () => null,
): CompletionSource {
  return async (context: CompletionContext) => {
    const node = syntaxTree(context.state).resolveInner(context.pos, -1);
    if (node.name === "LineComment" || node.name === "BlockComment") return null;
    const current = reference();
    const typed = context.matchBefore(/[$@%][A-Za-z0-9_]*/);
    if (typed) {
      if (context.state.sliceDoc(typed.from - 1, typed.from) === "`") return null; // an escape
      return expansions(context, typed, current, await names());
    }
    const place = itemPlace(context, node, current);
    if (place) {
      const found = await names();
      return found ? items(context, place, found) : null;
    }
    return argumentNames(context, node, current) ?? statements(context, node, current);
  };
}
