import { expect, test } from "vitest";
import { minimalChange } from "./change";

const apply = (old: string, change: ReturnType<typeof minimalChange>) => old.slice(0, change.from) + change.insert + old.slice(change.to);

test("test_minimal_change_touches_only_what_differs", () => {
  expect(minimalChange("Log-Information  hi;", "Log-Information hi;")).toEqual({ from: 16, to: 17, insert: "" });
  expect(minimalChange("a;\nb;\n", "a;\nx;\nb;\n")).toEqual({ from: 3, to: 3, insert: "x;\n" });
  expect(minimalChange("same", "same")).toEqual({ from: 4, to: 4, insert: "" });
});

test("test_minimal_change_turns_the_old_text_into_the_new", () => {
  for (const [old, text] of [["", "abc"], ["abc", ""], ["aaa", "aa"], ["abcabc", "abc"], ["x{\n}\n", "x {\n}\n"]])
    expect(apply(old, minimalChange(old, text))).toBe(text);
});
