// Drawing a script's blocks without work per field that Blockly need not do: a style
// recalculation to measure each field's text, and an error thrown and caught to name it.
//
// Blockly sizes every field from its text: `window.getComputedStyle(text)` for the font, then a
// canvas's measureText (Blockly's own canvas, put on the page's body). Both make the browser bring
// the page's styles up to date first, and while a script's blocks are being drawn that is every
// block added since the last field: in a chain of statements each block's SVG holds the blocks
// after it, so drawing 1,000 statements cost seconds of style recalculation alone.
//
// Here the font of a field's text is looked up once for each kind of text (its classes, and its
// parent's: labels and editable fields have fonts of their own in blocks.css) and remembered;
// Blockly's canvas is taken off the page, where setting its font needs nobody's style.

import * as Blockly from "blockly/core";

type Font = Pick<CSSStyleDeclaration, "fontSize" | "fontWeight" | "fontFamily">;

let installed = false;

/** Makes Blockly's drawing of loaded blocks cheap, once for the page: the fonts of field texts
 * remembered, its measuring canvas off the page, and fields named once drawn. */
export function drawBlocksQuickly(): void {
  if (installed) return;
  installed = true;
  rememberFonts();
  detachMeasuringCanvas();
  nameOnlyDrawnFields();
}

function rememberFonts(): void {
  const computed = window.getComputedStyle.bind(window);
  const fonts = new Map<string, Font>();
  window.getComputedStyle = ((element: Element, pseudo?: string | null) => {
    // (not `contains`: a field's text lies as deep as its statement in the chain)
    if (pseudo || !(element instanceof SVGTextElement) || !element.classList.contains("blocklyText"))
      return computed(element, pseudo);
    const key = `${element.getAttribute("class") ?? ""}|${element.parentElement?.getAttribute("class") ?? ""}`;
    let font = fonts.get(key);
    if (!font) {
      const style = computed(element);
      font = { fontSize: style.fontSize, fontWeight: style.fontWeight, fontFamily: style.fontFamily };
      fonts.set(key, font);
    }
    return font as CSSStyleDeclaration;
  }) as typeof window.getComputedStyle;
}

/** Takes Blockly's canvas for measuring text off the page: it makes the canvas on its first
 * measurement, which this one is. */
function detachMeasuringCanvas(): void {
  Blockly.utils.dom.getFastTextWidth(document.createElementNS(Blockly.utils.dom.SVG_NS, "text"), 11, "normal", "sans-serif");
  for (const canvas of document.querySelectorAll<HTMLCanvasElement>("canvas.blocklyComputeCanvas")) canvas.remove();
}

/** Blockly gives a field its accessible name whenever its value is set, and a field whose value is
 * loaded before it is drawn has no element yet: it throws, and Blockly catches that, for every
 * field of every block loaded. Such a field is named when it is drawn. */
function nameOnlyDrawnFields(): void {
  const prototype = Blockly.Field.prototype;
  const recompute = prototype.recomputeAriaContext;
  prototype.recomputeAriaContext = function (this: Blockly.Field): boolean {
    return this.getSvgRoot() ? recompute.call(this) : false;
  };
}
