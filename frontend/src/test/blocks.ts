// The block editor's tests' workspace: OtterScript's blocks defined over the test reference, and
// a workspace drawn in the page (jsdom) or without one.

import * as Blockly from "blockly/core";
import { Reference } from "../api/reference";
import { defineBlocks, useReference } from "../blocks/definitions";
import { injectWorkspace } from "../blocks/inject";
import { controlEntries, operationEntries, toolbox } from "../blocks/toolbox";
import { REFERENCE } from "./reference-data";

export const reference = new Reference(REFERENCE);
export const entries = [...controlEntries(), ...operationEntries(reference)];

/** The blocks defined, with the test reference. */
export function withBlocks(): void {
  defineBlocks();
  useReference(() => reference);
}

/** What jsdom lacks for drawing blocks: a canvas that measures text (6 pixels a character) and
 * SVG's text element class (blocks/measure.ts looks for it). */
export function drawable(): void {
  const page = globalThis as { SVGTextElement?: unknown; SVGElement?: unknown };
  page.SVGTextElement ??= page.SVGElement;
  const context = { font: "", measureText: (text: string) => ({ width: text.length * 6 }) };
  HTMLCanvasElement.prototype.getContext = (() => context) as unknown as HTMLCanvasElement["getContext"];
}

/** A workspace drawn in a new element of the page, with the toolbox of `entries`. */
export function drawnWorkspace(readOnly = false): Blockly.WorkspaceSvg {
  withBlocks();
  drawable();
  const area = document.createElement("div");
  document.body.append(area);
  return injectWorkspace(area, toolbox(entries), readOnly);
}

/** Lets Blockly fire the events it queued (it fires them in a later task). */
export const eventsFired = () => new Promise((resolve) => setTimeout(resolve, 0));
