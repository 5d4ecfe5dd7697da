// The editor mode a script asks for in its header lines (##AH:UseTextMode, ##AH:UseVisualMode),
// and the text with the header of a chosen mode. Headers are the script's first lines, each
// `##AH:` and a word, as the formatter writes them; only the mode's own line is touched.
// (When the server writes the header on save, `withMode` is the one call to replace.)

export type EditorMode = "text" | "visual";

const MODE_HEADER = /^##AH:Use(Text|Visual)Mode[ \t]*$/i;
const HEADER = /^##AH:/;

export const headerOf = (mode: EditorMode) => (mode === "text" ? "##AH:UseTextMode" : "##AH:UseVisualMode");

function lines(text: string): string[] {
  return text.split("\n");
}

/** The script's header lines (the first lines that start ##AH:). */
export function headers(text: string): string[] {
  const found: string[] = [];
  for (const line of lines(text)) {
    if (!HEADER.test(line)) break;
    found.push(line.replace(/\r$/, ""));
  }
  return found;
}

/** The mode the header names, or null when there is none. */
export function modeInHeaders(found: readonly string[]): EditorMode | null {
  for (const line of found) {
    const match = MODE_HEADER.exec(line.trim());
    if (match) return match[1].toLowerCase() === "text" ? "text" : "visual";
  }
  return null;
}

/** The mode a script opens in: its header's, else visual (scripts and modules). */
export function openingMode(text: string, fallback: EditorMode = "visual"): EditorMode {
  return modeInHeaders(headers(text)) ?? fallback;
}

/** `text` with the header of `mode`: the mode line replaced where it is, else added first
 * (followed by a blank line when the script had no headers, as the formatter writes it). */
export function withMode(text: string, mode: EditorMode): string {
  const all = lines(text);
  const count = headers(text).length;
  for (let index = 0; index < count; index++)
    if (MODE_HEADER.test(all[index].trim())) {
      all[index] = headerOf(mode);
      return all.join("\n");
    }
  if (count) return [headerOf(mode), ...all].join("\n");
  return text.trim() ? `${headerOf(mode)}\n\n${text}` : `${headerOf(mode)}\n`;
}

/** The workspace's header list with the header of `mode` (same rules as `withMode`). */
export function headersWithMode(found: readonly string[], mode: EditorMode): string[] {
  const index = found.findIndex((line) => MODE_HEADER.test(line.trim()));
  if (index >= 0) return found.map((line, i) => (i === index ? headerOf(mode) : line));
  return [headerOf(mode), ...found];
}
