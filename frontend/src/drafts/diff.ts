// A unified diff (as the server writes it) drawn with the site's .diff classes: one
// `.line.added`, `.removed`, `.hunk` or `.context` per line; the file header lines left out.

import { h, type Node } from "./view";

export type DiffKind = "added" | "removed" | "hunk" | "context" | "header";

export interface DiffLine {
  kind: DiffKind;
  text: string;
}

/** The lines of a unified diff, each with its kind. */
export function diffLines(diff: string): DiffLine[] {
  const lines = diff.split("\n");
  if (lines.length && lines[lines.length - 1] === "") lines.pop();
  let inHunk = false;
  return lines.map((raw) => {
    const text = raw.replace(/\r$/, "");
    if (text.startsWith("@@")) {
      inHunk = true;
      return { kind: "hunk", text };
    }
    if (!inHunk && (text.startsWith("--- ") || text.startsWith("+++ ") || text === "---" || text === "+++"))
      return { kind: "header", text };
    if (text.startsWith("+")) return { kind: "added", text };
    if (text.startsWith("-")) return { kind: "removed", text };
    return { kind: "context", text };
  });
}

/** How many lines were added and removed. */
export function diffCounts(lines: readonly DiffLine[]): { added: number; removed: number } {
  return {
    added: lines.filter((line) => line.kind === "added").length,
    removed: lines.filter((line) => line.kind === "removed").length,
  };
}

/** The diff as a focusable, labelled region (it scrolls sideways with the keyboard); a short
 * paragraph when there are no differences. */
export function diffView(diff: string, label: string, empty = "No differences."): Node {
  const lines = diffLines(diff).filter((line) => line.kind !== "header");
  if (!lines.length) return h("p", { class: "empty otter-diff-empty" }, empty);
  return h(
    "div",
    { class: "diff otter-diff", tabindex: 0, role: "region", "aria-label": label },
    lines.map((line) => h("span", { class: `line ${line.kind}` }, line.text)),
  );
}
