import { describe, expect, test } from "vitest";
import { diffCounts, diffLines, diffView } from "./diff";
import { findAll, hasClass, textOf } from "./view";

const DIFF = [
  "--- version 1",
  "+++ version 2",
  "@@ -1,3 +1,3 @@",
  " Log-Information starting;",
  "-Exec old;",
  "+Exec new;",
  "--- not a header inside a hunk",
  "+++ nor this",
  " done;",
  "",
].join("\n");

describe("diffLines", () => {
  test("test_diff_lines_gives_each_line_its_kind", () => {
    expect(diffLines(DIFF).map((line) => line.kind)).toEqual([
      "header", "header", "hunk", "context", "removed", "added", "removed", "added", "context",
    ]);
    expect(diffCounts(diffLines(DIFF))).toEqual({ added: 2, removed: 2 });
  });

  test("test_diff_lines_of_nothing_is_nothing", () => {
    expect(diffLines("")).toEqual([]);
  });
});

describe("diffView", () => {
  test("test_diff_view_draws_the_lines_with_the_site_diff_classes_without_the_headers", () => {
    const view = diffView(DIFF, "Changes from version 1 to 2");
    expect(view.attrs).toMatchObject({ class: "diff otter-diff", role: "region", "aria-label": "Changes from version 1 to 2", tabindex: "0" });
    const lines = findAll(view, hasClass("line"));
    expect(lines.map((line) => line.attrs.class)).toEqual([
      "line hunk", "line context", "line removed", "line added", "line removed", "line added", "line context",
    ]);
    expect(lines.map(textOf)[2]).toBe("-Exec old;");
    expect(textOf(view)).not.toContain("version 2");
  });

  test("test_diff_view_says_when_there_are_no_differences", () => {
    const view = diffView("", "x", "No changes since version 3.");
    expect(view.tag).toBe("p");
    expect(textOf(view)).toBe("No changes since version 3.");
  });
});
