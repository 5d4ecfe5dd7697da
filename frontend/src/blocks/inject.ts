// The Blockly workspace drawn in an element of the page: English messages, the site's theme, the
// options the editor uses, Blockly's stylesheet without its `:has()` rules, the quick drawing of
// measure.ts, and the redraw to the element's size.

import * as Blockly from "blockly/core";
import * as English from "blockly/msg/en";
import { drawBlocksQuickly } from "./measure";

let localized = false;

const theme = Blockly.Theme.defineTheme("otterweb", {
  name: "otterweb",
  base: Blockly.Themes.Classic,
  fontStyle: { family: "system-ui, -apple-system, 'Segoe UI', sans-serif", size: 11 },
  componentStyles: {
    workspaceBackgroundColour: "#f6f8fa",
    toolboxBackgroundColour: "#eef1f4",
    toolboxForegroundColour: "#1f2328",
    flyoutBackgroundColour: "#e2e6ea",
    flyoutOpacity: 0.97,
    scrollbarColour: "#aab2bb",
    insertionMarkerColour: "#0969da",
    selectedGlowColour: "#0969da",
  },
});

/** The options of the editor's workspace, with `toolbox`. */
export function workspaceOptions(toolbox: Blockly.utils.toolbox.ToolboxDefinition, readOnly: boolean): Blockly.BlocklyOptions {
  return {
    toolbox,
    renderer: "thrasos",
    media: new URL("../blockly-media/", import.meta.url).href, // vite.config.ts copies it there
    theme,
    readOnly,
    trashcan: false,
    sounds: false,
    comments: true,
    disable: false,
    collapse: true,
    zoom: { controls: false, wheel: true, startScale: 0.85, maxScale: 2, minScale: 0.3, pinch: true },
    move: { scrollbars: true, drag: true, wheel: false },
    grid: { spacing: 24, length: 2, colour: "#dde2e7", snap: false },
  };
}

/** Blockly's messages in English, once for the page. */
export function useEnglish(): void {
  if (localized) return;
  Blockly.setLocale(English as unknown as Record<string, string>);
  localized = true;
}

/** A workspace drawn in `area` (the blocks must be defined first). */
export function injectWorkspace(area: HTMLElement, toolbox: Blockly.utils.toolbox.ToolboxDefinition, readOnly: boolean): Blockly.WorkspaceSvg {
  useEnglish();
  const workspace = Blockly.inject(area, workspaceOptions(toolbox, readOnly));
  withoutHasRules(area.ownerDocument);
  drawBlocksQuickly();
  return workspace;
}

/** Draws `workspace` again to the size of its element (after the element showed or changed). */
export function resizeWorkspace(workspace: Blockly.WorkspaceSvg): void {
  Blockly.svgResize(workspace);
}

/** Blockly's stylesheet marks keyboard focus with `:has()` rules; with them, each of the style
 * recalculations Blockly forces while it measures a field's text looks at every block already
 * drawn, and drawing 1,000 statements took minutes. Without them, the focused block keeps
 * Blockly's other focus outline. */
export function withoutHasRules(document: Document): void {
  for (const sheet of Array.from(document.styleSheets)) {
    const owner = sheet.ownerNode as HTMLElement | null;
    if (!owner?.id?.startsWith("blockly-")) continue;
    for (let index = sheet.cssRules.length - 1; index >= 0; index--)
      if ((sheet.cssRules[index] as CSSStyleRule).selectorText?.includes(":has(")) sheet.deleteRule(index);
  }
}
