// A value in a block (an argument, what `set` gives, a message): a text field that keeps its
// line breaks. A value of one line is edited in the usual one-line box; a value of several
// lines (a swim string: `>>`, its lines, `>>`) in a text area over the field, where Enter
// starts a new line and Ctrl+Enter, Tab or a click elsewhere ends the edit. Shift+Enter starts
// a new line in either: a value of one line becomes a swim string of two. On the block, each
// line break shows as ⏎ (an <input> would silently drop them: the config file a script writes
// would become one line).

import * as Blockly from "blockly/core";

/** What stands for a line break on the block. */
export const LINE_BREAK = "⏎";
const SWIM = ">>";
const CSS_CLASS = "otter-value-lines";

export function isMultiline(value: string): boolean {
  return value.includes("\n");
}

/** ``value`` with a line break at ``at``: inside a swim string as it is; any other value
 * becomes the swim string of its text (`>>`, the lines, `>>`), its caret after the break. */
export function breakLine(value: string, at: number): { value: string; caret: number } {
  const inSwim = value.startsWith(SWIM) && value.endsWith(SWIM) && value.length >= 2 * SWIM.length;
  if (inSwim) return { value: `${value.slice(0, at)}\n${value.slice(at)}`, caret: at + 1 };
  const start = `${SWIM}\n`;
  return { value: `${start}${value.slice(0, at)}\n${value.slice(at)}\n${SWIM}`, caret: start.length + at + 1 };
}

export class FieldValue extends Blockly.FieldTextInput {
  static override fromJson(options: Blockly.FieldTextInputFromJsonConfig): FieldValue {
    return new this(options.text, undefined, options);
  }

  protected override getDisplayText_(): string {
    const lines = this.getText().split("\n");
    let text = lines.join(` ${LINE_BREAK} `);
    if (text.length > this.maxDisplayLength) text = `${text.substring(0, this.maxDisplayLength - 2)}…`;
    return text.replace(/\s/g, Blockly.Field.NBSP);
  }

  protected override widgetCreate_(): HTMLInputElement | HTMLTextAreaElement {
    const input = super.widgetCreate_();
    const value = String(this.getValue() ?? "");
    return isMultiline(value) ? this.useTextArea(input, value, value.length) : input;
  }

  protected override onHtmlInputKeyDown_(event: KeyboardEvent): void {
    const editor = this.htmlInput_ as HTMLInputElement | HTMLTextAreaElement | null;
    if (event.key === "Enter" && editor) {
      const lines = editor instanceof HTMLTextAreaElement;
      if (event.shiftKey && !lines) {
        event.preventDefault();
        event.stopPropagation();
        const at = editor.selectionStart ?? editor.value.length;
        const broken = breakLine(editor.value, at);
        const area = this.useTextArea(editor, broken.value, broken.caret);
        area.dispatchEvent(new Event("input")); // the field takes the new value
        return;
      }
      if (lines && !(event.ctrlKey || event.metaKey)) {
        event.stopPropagation(); // the text area's own new line
        return;
      }
    }
    super.onHtmlInputKeyDown_(event);
  }

  protected override resizeEditor_(): void {
    super.resizeEditor_();
    // the text area is as big as its lines (up to a limit, then it scrolls), over the field's box
    const area = this.htmlInput_ as HTMLInputElement | HTMLTextAreaElement | null;
    if (area instanceof HTMLTextAreaElement) fitLines(area);
  }

  /** Put a text area of ``value`` (caret at ``caret``) where ``editor`` is, and edit in it. */
  private useTextArea(editor: HTMLInputElement | HTMLTextAreaElement, value: string, caret: number): HTMLTextAreaElement {
    const area = document.createElement("textarea");
    area.className = `${editor.className} ${CSS_CLASS}`;
    area.style.cssText = editor.style.cssText;
    area.spellcheck = false;
    area.wrap = "off";
    area.setAttribute("aria-label", "Value, in lines (Ctrl+Enter ends the edit)");
    area.setAttribute("data-untyped-default-value", editor.getAttribute("data-untyped-default-value") ?? value);
    area.value = area.defaultValue = value;
    this.unbindInputEvents_();
    editor.replaceWith(area);
    this.bindInputEvents_(area);
    if (this.htmlInput_ === editor) {
      (this as unknown as { htmlInput_: HTMLTextAreaElement }).htmlInput_ = area;
      area.focus();
    }
    area.setSelectionRange(caret, caret);
    fitLines(area);
    return area;
  }
}

/** A text area as big as its lines, up to a limit (then it scrolls). */
function fitLines(area: HTMLTextAreaElement): void {
  const lines = area.value.split("\n");
  area.rows = Math.min(16, lines.length);
  area.cols = Math.min(80, Math.max(24, ...lines.map((line) => line.length + 2)));
}

Blockly.fieldRegistry.register("field_value", FieldValue);
