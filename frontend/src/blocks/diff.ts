// Which items of a list are still in its new version, in the same order: the longest common
// subsequence of the two (after the items the same at either end are set aside), as the steps
// that make the new list from the old one. The block editor uses it to change only the blocks of
// the statements that changed (load.ts).

export type Step = { kind: "keep"; old: number; new: number } | { kind: "remove"; old: number } | { kind: "add"; new: number };

/** Past this many pairs between the differing middles, finding the longest run is left undone. */
const MOST_PAIRS = 4_000_000;

/** The steps from `before` to `after` (items compared with ===): every item of `before` kept or
 * removed and every item of `after` kept or added, in order; null when the parts that differ
 * are too long to compare. */
export function sameInOrder<T>(before: readonly T[], after: readonly T[]): Step[] | null {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let end = 0; // items the same at the end
  while (end < before.length - start && end < after.length - start && before[before.length - 1 - end] === after[after.length - 1 - end]) end++;
  const rows = before.length - start - end;
  const columns = after.length - start - end;
  if (rows * columns > MOST_PAIRS) return null;

  // longest[r][c]: the longest common run of before's middle from r and after's middle from c
  const width = columns + 1;
  const longest = new Uint32Array((rows + 1) * width);
  for (let r = rows - 1; r >= 0; r--)
    for (let c = columns - 1; c >= 0; c--)
      longest[r * width + c] =
        before[start + r] === after[start + c] ? longest[(r + 1) * width + c + 1] + 1 : Math.max(longest[(r + 1) * width + c], longest[r * width + c + 1]);

  const steps: Step[] = [];
  for (let index = 0; index < start; index++) steps.push({ kind: "keep", old: index, new: index });
  let r = 0;
  let c = 0;
  while (r < rows || c < columns) {
    if (r < rows && c < columns && before[start + r] === after[start + c]) {
      steps.push({ kind: "keep", old: start + r++, new: start + c++ });
    } else if (c < columns && (r === rows || longest[r * width + c + 1] >= longest[(r + 1) * width + c])) {
      steps.push({ kind: "add", new: start + c++ });
    } else steps.push({ kind: "remove", old: start + r++ });
  }
  for (let index = 0; index < end; index++) steps.push({ kind: "keep", old: before.length - end + index, new: after.length - end + index });
  return steps;
}
