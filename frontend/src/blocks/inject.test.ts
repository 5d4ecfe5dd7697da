// @vitest-environment jsdom
import * as Blockly from "blockly/core";
import { describe, expect, test } from "vitest";
import { drawnWorkspace } from "../test/blocks";
import { resizeWorkspace, withoutHasRules, workspaceOptions } from "./inject";

describe("the workspace drawn in the page", () => {
  test("test_inject_draws_the_workspace_with_the_toolbox_and_the_editors_options", () => {
    const workspace = drawnWorkspace();
    expect(workspace.getParentSvg().ownerDocument).toBe(document);
    const toolbox = workspace.getToolbox() as Blockly.Toolbox;
    expect(toolbox.getToolboxItemById("search")).toBeTruthy();
    expect(workspace.options.readOnly).toBe(false);
    expect(workspace.options.hasSounds).toBe(false);
    expect(workspace.options.hasTrashcan).toBe(false);
    expect(workspace.scale).toBe(0.85);
    expect(Blockly.Msg.UNDO).toBe("Undo"); // English
    resizeWorkspace(workspace); // the element has no size here: nothing to redraw, nothing thrown
  });

  test("test_inject_a_read_only_workspace", () => {
    expect(drawnWorkspace(true).isReadOnly()).toBe(true);
    expect(workspaceOptions({ kind: "flyoutToolbox", contents: [] }, true)).toMatchObject({ readOnly: true, renderer: "thrasos", comments: true });
  });

  test("test_inject_drops_only_blocklys_has_rules", () => {
    const blockly = document.createElement("style");
    blockly.id = "blockly-renderer-style-test";
    blockly.textContent = ".a:has(.b) { outline: 1px solid; } .c { color: red; }";
    const ours = document.createElement("style");
    ours.textContent = ".d:has(.e) { color: blue; }";
    document.head.append(blockly, ours);
    withoutHasRules(document);
    const rules = (style: HTMLStyleElement) => Array.from(style.sheet!.cssRules).map((rule) => (rule as CSSStyleRule).selectorText);
    expect(rules(blockly)).toEqual([".c"]);
    expect(rules(ours)).toEqual([".d:has(.e)"]);
  });
});
