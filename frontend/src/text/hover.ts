// Hover docs: an operation's description and arguments over its name, an argument's over its
// name, a function's signature and description over `$Name(`, `@Name(`, `%Name(` or `$Name`.

import { syntaxTree } from "@codemirror/language";
import type { EditorState } from "@codemirror/state";
import { hoverTooltip, type Tooltip } from "@codemirror/view";
import type { SyntaxNode } from "@lezer/common";
import {
  Reference,
  type FunctionReference,
  type OperationReference,
  type ParameterReference,
} from "../api/reference";

function element(tag: string, className: string, text = ""): HTMLElement {
  const made = document.createElement(tag);
  made.className = className;
  made.textContent = text;
  return made;
}

function parameterLine(p: ParameterReference): HTMLElement {
  const row = element("li", "cm-otter-doc-parameter");
  row.append(element("code", "", p.name));
  const notes = [
    p.type,
    p.positional ? "positional" : "",
    p.required ? "required" : "",
    p.output ? "output" : "",
    p.default !== null && p.default !== "" && p.default !== undefined
      ? `default ${JSON.stringify(p.default)}`
      : "",
  ].filter(Boolean);
  row.append(` (${notes.join(", ")})`);
  if (p.description) row.append(`: ${p.description}`);
  return row;
}

export function operationDoc(operation: OperationReference): HTMLElement {
  const doc = element("div", "cm-otter-doc");
  doc.append(element("div", "cm-otter-doc-title", `${operation.namespace}::${operation.name}`));
  doc.append(element("div", "cm-otter-doc-kind", `${operation.kind} operation`));
  doc.append(element("p", "cm-otter-doc-text", operation.description));
  if (operation.parameters.length) {
    const list = element("ul", "cm-otter-doc-parameters");
    for (const p of operation.parameters) list.append(parameterLine(p));
    doc.append(list);
  }
  return doc;
}

export function parameterDoc(operation: OperationReference, p: ParameterReference): HTMLElement {
  const doc = element("div", "cm-otter-doc");
  doc.append(element("div", "cm-otter-doc-title", `${operation.name}: ${p.name}`));
  const list = element("ul", "cm-otter-doc-parameters");
  list.append(parameterLine(p));
  doc.append(list);
  return doc;
}

export function functionDoc(fn: FunctionReference): HTMLElement {
  const doc = element("div", "cm-otter-doc");
  doc.append(element("div", "cm-otter-doc-title", fn.signature));
  if (fn.sigils.length > 1) doc.append(element("div", "cm-otter-doc-kind", `called as ${fn.sigils.join(" ")}`));
  doc.append(element("p", "cm-otter-doc-text", fn.description));
  return doc;
}

function operationAt(state: EditorState, call: SyntaxNode | null, reference: Reference) {
  const name = call?.getChild("OperationName");
  const identifier = name?.getChild("Identifier");
  if (!name || !identifier) return null;
  const namespace = name.getChild("Namespace");
  return reference.operation(
    state.sliceDoc(identifier.from, identifier.to),
    namespace ? state.sliceDoc(namespace.from, namespace.to) : null,
  );
}

/** What the hover over `pos` shows, and over which range; null for nothing. */
export function docAt(
  state: EditorState,
  pos: number,
  side: -1 | 1,
  reference: Reference,
): { from: number; to: number; dom: () => HTMLElement } | null {
  const node = syntaxTree(state).resolveInner(pos, side);
  const parent = node.parent;
  const text = state.sliceDoc(node.from, node.to);
  if (node.name === "Identifier" && parent?.name === "OperationName") {
    const operation = operationAt(state, parent.parent, reference);
    return operation ? { from: parent.from, to: parent.to, dom: () => operationDoc(operation) } : null;
  }
  if (node.name === "Identifier" && parent?.name === "ArgumentName") {
    const call = parent.parent?.parent?.parent ?? null; // ArgumentName < Argument < ArgList < call
    const operation = operationAt(state, call, reference);
    const p = operation && Reference.parameter(operation, text);
    return operation && p ? { from: node.from, to: node.to, dom: () => parameterDoc(operation, p) } : null;
  }
  if (["ScalarFunction", "ListFunction", "MapFunction", "ScalarVariable"].includes(node.name)) {
    const fn = reference.function(text.replace(/^[$@%]/, "").replace(/\($/, ""));
    return fn ? { from: node.from, to: node.to, dom: () => functionDoc(fn) } : null;
  }
  return null;
}

export function otterscriptHover(reference: () => Reference | null) {
  return hoverTooltip((view, pos, side): Tooltip | null => {
    const current = reference();
    const found = current && docAt(view.state, pos, side, current);
    if (!found) return null;
    return { pos: found.from, end: found.to, above: true, create: () => ({ dom: found.dom() }) };
  });
}
