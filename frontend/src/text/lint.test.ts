import { Text } from "@codemirror/state";
import { describe, expect, test } from "vitest";
import type { ServerDiagnostic } from "../api/scripts";
import { lintSummary, offsetOf, toCodeMirror } from "./lint";

const doc = Text.of(["set $x = 1;", "Exec 😀 foo", "", "Log-Information x"]);

function diagnostic(extra: Partial<ServerDiagnostic>): ServerDiagnostic {
  return { line: 1, column: 1, end_line: 1, end_column: 1, severity: "error", message: "m", code: "syntax", ...extra };
}

describe("offsetOf", () => {
  test("test_offset_of_counts_lines_and_columns_from_one", () => {
    expect(offsetOf(doc, 1, 1)).toBe(0);
    expect(offsetOf(doc, 1, 5)).toBe(4);
    expect(offsetOf(doc, 2, 1)).toBe(12);
  });

  test("test_offset_of_counts_a_character_outside_the_bmp_as_one_column", () => {
    // the server counts characters; CodeMirror counts UTF-16 units (the emoji is two)
    expect(offsetOf(doc, 2, 8)).toBe(doc.line(2).from + 8);
    expect(doc.sliceString(offsetOf(doc, 2, 8), offsetOf(doc, 2, 11))).toBe("foo");
  });

  test("test_offset_of_stays_inside_the_document", () => {
    expect(offsetOf(doc, 1, 99)).toBe(doc.line(1).to + 1);
    expect(offsetOf(doc, 9, 1)).toBe(doc.length);
    expect(offsetOf(doc, 0, 1)).toBe(0);
    expect(offsetOf(doc, 4, 99)).toBe(doc.length);
  });
});

describe("toCodeMirror", () => {
  test("test_lint_mapping_gives_the_exact_range_severity_and_message", () => {
    const mapped = toCodeMirror(doc, diagnostic({ line: 2, column: 8, end_line: 2, end_column: 11, severity: "warning", message: "unknown operation 'Exec'", code: "unknown-operation" }));
    expect(doc.sliceString(mapped.from, mapped.to)).toBe("foo");
    expect(mapped.severity).toBe("warning");
    expect(mapped.message).toBe("unknown operation 'Exec'");
    expect(mapped.source).toBe("unknown-operation");
  });

  test("test_lint_mapping_spans_lines", () => {
    const mapped = toCodeMirror(doc, diagnostic({ line: 1, column: 5, end_line: 2, end_column: 5 }));
    expect(doc.sliceString(mapped.from, mapped.to)).toBe("$x = 1;\nExec");
  });

  test("test_lint_mapping_widens_an_empty_range_to_a_character", () => {
    const before = toCodeMirror(doc, diagnostic({ line: 1, column: 5, end_line: 1, end_column: 5 }));
    expect(doc.sliceString(before.from, before.to)).toBe("$");
    const atEnd = toCodeMirror(doc, diagnostic({ line: 4, column: 18, end_line: 4, end_column: 18 }));
    expect(doc.sliceString(atEnd.from, atEnd.to)).toBe("x");
  });

  test("test_lint_mapping_keeps_every_severity_and_adds_the_hint", () => {
    expect(toCodeMirror(doc, diagnostic({ severity: "error" })).severity).toBe("error");
    expect(toCodeMirror(doc, diagnostic({ severity: "info" })).severity).toBe("info");
    const hinted = toCodeMirror(doc, diagnostic({ message: "missing ';'", hint: "end the statement with ;" }));
    expect(hinted.message).toBe("missing ';'\nend the statement with ;");
  });
});

test("test_lint_summary_counts_errors_and_warnings", () => {
  expect(lintSummary({ errors: 2, warnings: 1, failed: false })).toEqual(["2 errors, 1 warning", "bad"]);
  expect(lintSummary({ errors: 1, warnings: 0, failed: false })).toEqual(["1 error", "bad"]);
  expect(lintSummary({ errors: 0, warnings: 3, failed: false })).toEqual(["3 warnings", "warn"]);
  expect(lintSummary({ errors: 0, warnings: 0, failed: false })).toEqual(["No problems found", "ok"]);
  expect(lintSummary({ errors: 0, warnings: 0, failed: true })).toEqual(["Could not check the script: the server did not answer.", "warn"]);
});
