import { describe, expect, test } from "vitest";
import { sameInOrder, type Step } from "./diff";

/** The new list made from `before` by `steps` (and whether each step is in its place). */
function apply(before: string[], after: string[], steps: Step[]): string[] {
  const made: string[] = [];
  let old = 0;
  for (const step of steps) {
    if (step.kind !== "add") expect(step.old).toBe(old++);
    if (step.kind === "keep") made.push(before[step.old]);
    if (step.kind === "add") made.push(after[step.new]);
  }
  expect(old).toBe(before.length);
  return made;
}

const kept = (steps: Step[]) => steps.filter((step) => step.kind === "keep").length;

describe("sameInOrder", () => {
  test("test_same_in_order_keeps_all_but_an_item_changed_at_each_end", () => {
    const before = Array.from({ length: 1000 }, (_, index) => `s${index}`);
    const after = ["changed", ...before.slice(1), "added"];
    const steps = sameInOrder(before, after)!;
    expect(apply(before, after, steps)).toEqual(after);
    expect(kept(steps)).toBe(999);
  });

  test("test_same_in_order_finds_the_longest_run_kept", () => {
    const before = ["a", "b", "c", "d", "e", "f"];
    const after = ["b", "x", "c", "e", "y", "f", "z"];
    const steps = sameInOrder(before, after)!;
    expect(apply(before, after, steps)).toEqual(after);
    expect(kept(steps)).toBe(4); // b c e f
  });

  test("test_same_in_order_of_empty_lists", () => {
    expect(sameInOrder([], [])).toEqual([]);
    expect(apply([], ["a"], sameInOrder([], ["a"])!)).toEqual(["a"]);
    expect(apply(["a"], [], sameInOrder(["a"], [])!)).toEqual([]);
  });

  test("test_same_in_order_gives_up_on_middles_too_long_to_compare", () => {
    const before = Array.from({ length: 3000 }, (_, index) => `a${index}`);
    const after = Array.from({ length: 3000 }, (_, index) => `b${index}`);
    expect(sameInOrder(before, after)).toBeNull();
  });
});
