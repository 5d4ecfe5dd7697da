// The toolbox: control statements by family, then one category per namespace of the registry's
// operations, and a search category filled from a query (names and descriptions).

import type { Reference } from "../api/reference";
import { HUES } from "./definitions";

export interface ToolboxBlock {
  kind: "block";
  type: string;
  fields?: Record<string, unknown>;
  extraState?: Record<string, unknown>;
  inputs?: Record<string, unknown>;
}

/** An entry of the toolbox, with what search looks in. */
export interface Entry {
  label: string;
  description: string;
  category: string;
  block: ToolboxBlock;
}

const block = (type: string, fields?: Record<string, unknown>, extraState?: Record<string, unknown>): ToolboxBlock => ({
  kind: "block",
  type,
  ...(fields ? { fields } : {}),
  ...(extraState ? { extraState } : {}),
});

/** The control statements' entries, by category. */
export function controlEntries(): Entry[] {
  const entries: [string, string, string, ToolboxBlock][] = [
    ["Control", "if", "Runs statements when a condition holds (add else if and else from its menu).", block("otter_if", { IF0: "$Environment == Production" })],
    ["Control", "if … else", "Either branch, by a condition.", block("otter_if", { IF0: "$Environment == Production" }, { elseIfCount: 0, hasElse: true })],
    ["Control", "block", "A group of statements; its description names its part of the log.", block("otter_block")],
    ["Control", "comment", "A comment on its own line.", block("otter_comment", { TEXT: "What happens next" })],
    ["Control", "OtterScript text", "Statements written as OtterScript text.", block("otter_raw", { TEXT: "Log-Information hello;" })],
    ["Loops", "foreach item in list", "Runs statements for each item of a list.", block("otter_for_each", { VARIABLE: "$Item", SOURCE: "@Items" })],
    ["Loops", "foreach server in list", "Runs statements on each server of a list.", block("otter_context_iteration", { CONTEXT: "server", SOURCE: "@ServersInRole(web)" })],
    ["Loops", "for server", "Runs statements in the context of one server, role or directory.", block("otter_set_context", { CONTEXT: "server", VALUE: "web1" })],
    ["Loops", "break", "Leaves the loop.", block("otter_break")],
    ["Loops", "continue", "Goes on with the next item.", block("otter_continue")],
    ["Loops", "return", "Leaves the module or script.", block("otter_return")],
    ["Variables", "set variable", "Sets a variable.", block("otter_set_variable", { SCOPE: "", VARIABLE: "$Name", VALUE: "value" })],
    ["Variables", "global variable", "Declares a global variable.", block("otter_global_declaration", { VARIABLE: "$Name", VALUE: "value" })],
    ["Log and status", "log", "Writes a message to the log.", block("otter_log", { LEVEL: "information", MESSAGE: "Deploying $Release" })],
    ["Log and status", "warn", "Sets the status to warning.", block("otter_warn")],
    ["Log and status", "error", "Sets the status to error and goes on.", block("otter_error")],
    ["Log and status", "fail", "Stops as failed.", block("otter_fail")],
    ["Log and status", "force normal", "Sets the status back to normal.", block("otter_force_normal")],
    ["Log and status", "throw", "Stops with an error a catch can handle.", block("otter_throw", { MESSAGE: "Something went wrong" })],
    ["Log and status", "try … catch", "Handles a failure of its statements.", block("otter_try")],
    ["With", "with async", "Runs statements in the background; await waits for them.", block("otter_with", { DIRECTIVES: "async" })],
    ["With", "await", "Waits for the async blocks before it.", block("otter_await", { TOKEN: "" })],
    ["With", "with lock", "Runs statements while holding a lock.", block("otter_with", { DIRECTIVES: "lock=Deployment" })],
    ["With", "with retry", "Runs statements again when they fail.", block("otter_with", { DIRECTIVES: "retry=3" })],
    ["With", "with timeout", "Stops statements that run too long (seconds).", block("otter_with", { DIRECTIVES: "timeout=600" })],
    ["With", "with credentials", "Runs statements with a credential.", block("otter_with", { DIRECTIVES: "credentials=Deployer" })],
    ["With", "with isolation", "Runs statements in their own isolation.", block("otter_with", { DIRECTIVES: "isolation" })],
    ["With", "with executionPolicy", "Runs statements with an execution policy.", block("otter_with", { DIRECTIVES: "executionPolicy=always" })],
    ["Modules", "module", "Declares a module that others call.", block("otter_module_declaration", { NAME: "Deploy" }, { parameters: [{ variable: "$Site", output: false }] })],
    ["Modules", "call module", "Calls a module.", block("otter_call_module", { RAFT: "", NAME: "Deploy" }, { arguments: [] })],
  ];
  return entries.map(([category, label, description, made]) => ({ category, label, description, block: made }));
}

/** An entry for each operation of the registry, under its namespace. */
export function operationEntries(reference: Reference): Entry[] {
  return reference.operations.map((operation) => {
    // the namespace is written only when the name alone is ambiguous
    const namespace = reference.operation(operation.name) ? "" : operation.namespace;
    return {
      category: operation.namespace,
      label: `${operation.namespace}::${operation.name}`,
      description: operation.description,
      block: block("otter_operation_call", { NAMESPACE: namespace, NAME: operation.name, POSITIONAL: "" }, { arguments: [] }),
    };
  });
}

const CONTROL_HUES: Record<string, number> = {
  Control: HUES.control,
  Loops: HUES.loops,
  Variables: HUES.variables,
  "Log and status": HUES.log,
  With: HUES.with,
  Modules: HUES.modules,
};

/** The toolbox JSON: search results first, the control categories, then the namespaces. */
export function toolbox(entries: Entry[]) {
  const categories = new Map<string, ToolboxBlock[]>();
  for (const entry of entries) {
    const list = categories.get(entry.category) ?? [];
    list.push(entry.block);
    categories.set(entry.category, list);
  }
  return {
    kind: "categoryToolbox",
    contents: [
      { kind: "category", name: "Search results", custom: SEARCH_CATEGORY, colour: "#59636e", toolboxitemid: "search" },
      ...[...categories].map(([name, contents]) => ({
        kind: "category",
        name,
        colour: String(CONTROL_HUES[name] ?? HUES.operations),
        contents,
      })),
    ],
  };
}

export const SEARCH_CATEGORY = "OTTER_SEARCH";

/** The entries whose label or description holds every word of `query` (labels first). */
export function search(entries: Entry[], query: string, limit = 40): Entry[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return [];
  const scored: [number, Entry][] = [];
  for (const entry of entries) {
    const label = entry.label.toLowerCase();
    const text = `${label} ${entry.description.toLowerCase()}`;
    if (!words.every((word) => text.includes(word))) continue;
    const inLabel = words.every((word) => label.includes(word));
    const exact = label.endsWith(`::${words.join(" ")}`) || label === words.join(" ");
    scored.push([exact ? 0 : inLabel ? 1 : 2, entry]);
  }
  return scored
    .sort((a, b) => a[0] - b[0])
    .slice(0, limit)
    .map(([, entry]) => entry);
}
