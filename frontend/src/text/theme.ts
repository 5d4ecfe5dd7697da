// The editor's colours: light, in the site's palette (otterweb/static/otterweb/site.css), with
// contrast of at least 4.5:1 on white for every token colour.

import { HighlightStyle } from "@codemirror/language";
import { EditorView } from "@codemirror/view";
import { tags as t } from "@lezer/highlight";

export const otterHighlight = HighlightStyle.define([
  { tag: [t.lineComment, t.blockComment], color: "#57606a", fontStyle: "italic" },
  { tag: [t.keyword, t.controlKeyword], color: "#a0111f", fontWeight: "600" },
  { tag: t.function(t.keyword), color: "#a0111f" },
  { tag: t.function(t.propertyName), color: "#6639ba", fontWeight: "600" },
  { tag: t.definition(t.function(t.propertyName)), color: "#6639ba", fontWeight: "600" },
  { tag: t.namespace, color: "#8250df" },
  { tag: [t.attributeName, t.propertyName], color: "#0550ae" },
  { tag: t.attributeValue, color: "#0a3069" },
  { tag: t.typeName, color: "#953800" },
  { tag: t.labelName, color: "#953800" },
  { tag: [t.variableName, t.definition(t.variableName)], color: "#953800" },
  { tag: t.special(t.variableName), color: "#116329" },
  { tag: t.function(t.variableName), color: "#8250df" },
  { tag: t.string, color: "#0a3069" },
  { tag: t.special(t.string), color: "#0a3069", backgroundColor: "#f3f7ff" },
  { tag: t.escape, color: "#cf222e", fontWeight: "600" },
  { tag: [t.compareOperator, t.logicOperator, t.definitionOperator], color: "#cf222e" },
  { tag: [t.paren, t.brace, t.squareBracket, t.angleBracket, t.separator, t.punctuation], color: "#424a53" },
]);

export const otterTheme = EditorView.theme({
  "&": {
    fontSize: "0.9rem",
    border: "1px solid #8c959f",
    borderRadius: "6px",
    backgroundColor: "#fff",
    color: "#1f2328",
  },
  "&.cm-focused": { outline: "3px solid #f0a500", outlineOffset: "2px" },
  ".cm-scroller": { fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace", lineHeight: "1.5" },
  ".cm-content": { padding: "6px 0" },
  ".cm-gutters": {
    backgroundColor: "#f6f8fa",
    color: "#59636e",
    borderRight: "1px solid #d0d7de",
    borderRadius: "6px 0 0 6px",
  },
  ".cm-activeLine": { backgroundColor: "#f3f6fa" },
  ".cm-activeLineGutter": { backgroundColor: "#e7ecf2", color: "#1f2328" },
  ".cm-selectionBackground, &.cm-focused .cm-selectionBackground, ::selection": {
    backgroundColor: "#b6d7ff !important",
  },
  ".cm-matchingBracket": { backgroundColor: "#d2f4dc", outline: "1px solid #4ac26b" },
  ".cm-nonmatchingBracket": { backgroundColor: "#ffebe9" },
  ".cm-foldPlaceholder": { backgroundColor: "#eaeef2", border: "1px solid #d0d7de", color: "#59636e" },
  ".cm-tooltip": { border: "1px solid #d0d7de", borderRadius: "6px", boxShadow: "0 4px 12px rgba(31,35,40,.15)" },
  ".cm-tooltip.cm-tooltip-autocomplete > ul": { fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace" },
  ".cm-tooltip-autocomplete ul li[aria-selected]": { backgroundColor: "#0a58a6", color: "#fff" },
  ".cm-completionDetail": { fontStyle: "normal", color: "inherit", opacity: ".75", marginLeft: "1em" },
  ".cm-panels": { backgroundColor: "#f6f8fa", color: "#1f2328" },
  ".cm-panels.cm-panels-bottom": { borderTop: "1px solid #d0d7de" },
  ".cm-button": {
    backgroundImage: "none",
    backgroundColor: "#f6f8fa",
    border: "1px solid #d0d7de",
    borderRadius: "6px",
    padding: "2px 10px",
    font: "inherit",
    fontSize: "0.85rem",
  },
  ".cm-textfield": { border: "1px solid #8c959f", borderRadius: "6px", padding: "3px 6px", fontSize: "0.85rem" },
  ".cm-panel.cm-search label": { fontSize: "0.85rem", marginRight: "6px" },
  ".cm-diagnostic": { fontFamily: "system-ui, sans-serif", whiteSpace: "pre-wrap" },
});
