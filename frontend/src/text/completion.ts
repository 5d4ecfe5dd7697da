// Completion from the server's reference: operations (and their namespaces) where a statement
// starts, argument names inside an operation's `( )`, functions and the script's own variables
// after `$`, `@` and `%`, and the keywords.

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
import { Reference, type FunctionReference, type OperationReference } from "../api/reference";

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

/** The variables the script declares (`set`, `global`, `foreach`, module parameters, outputs),
 * with their sigils, except the one being typed at `except`. */
export function declaredVariables(state: EditorState, except = -1): string[] {
  const found = new Set<string>();
  syntaxTree(state).iterate({
    enter(node) {
      if (node.name === "DeclaredVariable" && !(node.from <= except && except <= node.to))
        found.add(state.sliceDoc(node.from, node.to));
    },
  });
  return [...found].sort();
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

function expansions(
  context: CompletionContext,
  reference: Reference | null,
): CompletionResult | null {
  const typed = context.matchBefore(/[$@%][A-Za-z0-9_]*/);
  if (!typed) return null;
  if (context.state.sliceDoc(typed.from - 1, typed.from) === "`") return null; // an escape
  const sigil = typed.text[0];
  const options: Completion[] = declaredVariables(context.state, context.pos)
    .filter((name) => name[0] === sigil)
    .map((label) => ({ label, type: "variable", boost: 1 }));
  for (const fn of reference?.functions ?? [])
    if (fn.sigils.includes(sigil as "$")) options.push(functionCompletion(fn, sigil));
  return { from: typed.from, options, validFor: /^[$@%][A-Za-z0-9_]*$/ };
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

/** The completion source; `reference` gives the reference once it has arrived. */
export function otterscriptCompletions(reference: () => Reference | null): CompletionSource {
  return (context: CompletionContext) => {
    const node = syntaxTree(context.state).resolveInner(context.pos, -1);
    if (node.name === "LineComment" || node.name === "BlockComment") return null;
    const current = reference();
    return (
      expansions(context, current) ??
      argumentNames(context, node, current) ??
      statements(context, node, current)
    );
  };
}
