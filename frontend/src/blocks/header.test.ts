import { describe, expect, test } from "vitest";
import { headers, headersWithMode, openingMode, withMode } from "./header";

describe("the mode header", () => {
  test("test_header_opening_mode_follows_the_header_else_visual", () => {
    expect(openingMode("##AH:UseTextMode\n\nLog-Information x;\n")).toBe("text");
    expect(openingMode("##AH:UseVisualMode\nLog-Information x;\n")).toBe("visual");
    expect(openingMode("Log-Information x;\n")).toBe("visual");
    expect(openingMode("Log-Information x;\n", "text")).toBe("text");
    // only the header lines at the top count
    expect(openingMode("Log-Information x;\n##AH:UseTextMode\n")).toBe("visual");
    expect(openingMode("##AH:Other\n##AH:UseTextMode\nx;")).toBe("text");
  });

  test("test_header_with_mode_replaces_the_mode_line_in_place", () => {
    expect(withMode("##AH:Other\n##AH:UseTextMode\n\nx;\n", "visual")).toBe("##AH:Other\n##AH:UseVisualMode\n\nx;\n");
    expect(withMode("##AH:UseVisualMode\nx;\n", "visual")).toBe("##AH:UseVisualMode\nx;\n");
  });

  test("test_header_with_mode_adds_the_line_first", () => {
    expect(withMode("Log-Information x;\n", "text")).toBe("##AH:UseTextMode\n\nLog-Information x;\n");
    expect(withMode("##AH:Other\n\nx;\n", "text")).toBe("##AH:UseTextMode\n##AH:Other\n\nx;\n");
    expect(withMode("", "text")).toBe("##AH:UseTextMode\n");
  });

  test("test_header_lists_and_changes_workspace_headers", () => {
    expect(headers("##AH:A\r\n##AH:B\nx;")).toEqual(["##AH:A", "##AH:B"]);
    expect(headersWithMode(["##AH:UseTextMode"], "visual")).toEqual(["##AH:UseVisualMode"]);
    expect(headersWithMode(["##AH:A"], "text")).toEqual(["##AH:UseTextMode", "##AH:A"]);
  });
});
