// Copying a line or a scope as text, in the download's format (one line per entry:
// `<time ISO> <LEVEL> [<scope path>] <message>`, the lines after the first of a message
// indented). A scope is copied whole (its descendants' lines included, in the order the viewer
// shows them): from the lines the browser holds, or fetched by seq range when it does not hold
// them all. A scope of more than COPY_MAX_LINES lines is not copied: the download is for that.

import { LINES_MAX, type LogApi } from "./api";
import type { LineStore } from "./cache";
import type { WireEntry } from "./feed";
import { type LogModel, ROOT } from "./model";
import { countsText, formatDuration } from "./rows";

export const COPY_MAX_LINES = 50_000;

/** "Deploy / web-eu-1" (empty at the top level). */
export function scopePath(model: LogModel, scope: number | null): string {
  return model
    .path(scope ?? ROOT)
    .map((node) => node.name)
    .join(" / ");
}

export function lineText(entry: WireEntry, path: string): string {
  const where = path ? ` [${path}]` : "";
  const message = entry.message.replace(/\r?\n/g, "\n    ");
  return `${entry.time} ${entry.level.toUpperCase()}${where} ${message}`;
}

export class CopyRefused extends Error {}

/** A scope and everything in it as text; CopyRefused when it is too long. */
export async function scopeText(model: LogModel, store: LineStore, api: LogApi | null, id: number): Promise<string> {
  const node = model.scopes.get(id);
  if (!node) throw new CopyRefused("This scope is gone.");
  if (node.total.lines > COPY_MAX_LINES)
    throw new CopyRefused(`${node.name} has ${node.total.lines.toLocaleString("en")} lines, too many to copy: download the log instead.`);
  const scopes = model.subtree(id);
  const [low, high] = model.seqRange(id);
  let entries: WireEntry[] = [];
  let held = true;
  model.forEachSeq(low, (seq, scope) => {
    if (seq > high) return false;
    if (!scopes.has(scope)) return true;
    const entry = store.get(seq);
    if (entry) entries.push(entry);
    else if (store.missing(seq)) held = false;
    return held;
  });
  if (!held) {
    if (!api || high - low + 1 > 5 * COPY_MAX_LINES) throw new CopyRefused(`${node.name} is spread over too much of the log to copy: download the log instead.`);
    entries = [];
    for (let after = low - 1; after < high; ) {
      const page = await api.lines(after, LINES_MAX, high);
      entries.push(...page.entries.filter((entry) => scopes.has(entry.scope_id ?? ROOT)));
      if (page.next === null || !page.entries.length) break;
      after = page.entries[page.entries.length - 1].seq;
    }
  }
  // the lines in the order the viewer shows them: a child after its parent's lines up to its
  // after_seq
  const own = new Map<number, WireEntry[]>();
  for (const entry of entries) {
    const scope = entry.scope_id ?? ROOT;
    const list = own.get(scope);
    if (list) list.push(entry);
    else own.set(scope, [entry]);
  }
  const lines: string[] = [headerText(model, id)];
  const walk = (scope: number) => {
    const path = scopePath(model, scope);
    const mine = own.get(scope) ?? [];
    const children = model.scopes.get(scope)?.children ?? [];
    let c = 0;
    for (const entry of mine) {
      while (c < children.length && model.scopes.get(children[c])!.afterSeq < entry.seq) walk(children[c++]);
      lines.push(lineText(entry, path));
    }
    while (c < children.length) walk(children[c++]);
  };
  walk(id);
  return lines.join("\n") + "\n";
}

/** "Deploy / Check · error · 2.5 s · 301 lines · 1 warning". */
export function headerText(model: LogModel, id: number): string {
  const node = model.scopes.get(id)!;
  const parts = [scopePath(model, id)];
  parts.push(node.ended ? node.status : "running");
  if (node.ended) parts.push(formatDuration(Date.parse(node.ended) - Date.parse(node.started)));
  parts.push(countsText(node));
  return parts.join(" · ");
}

/** Puts `text` on the clipboard (the older way where the Clipboard API is missing: a page
 * served over plain HTTP from another machine). */
export async function writeClipboard(text: string, document: Document): Promise<void> {
  const clipboard = document.defaultView?.navigator.clipboard;
  if (clipboard && document.defaultView?.isSecureContext) {
    await clipboard.writeText(text);
    return;
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.append(area);
  area.select();
  const copied = document.execCommand("copy");
  area.remove();
  if (!copied) throw new Error("the browser did not copy");
}
