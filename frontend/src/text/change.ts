// The smallest change between two texts, so that a text put in the editor from elsewhere (the
// formatter, the blocks, a draft) moves neither the cursor nor the undo history more than it must.

/** The smallest change that turns `old` into `text`: the cursor outside it stays where it was. */
export function minimalChange(old: string, text: string) {
  let start = 0;
  while (start < old.length && start < text.length && old[start] === text[start]) start++;
  let end = 0;
  while (
    end < old.length - start &&
    end < text.length - start &&
    old[old.length - 1 - end] === text[text.length - 1 - end]
  )
    end++;
  return { from: start, to: old.length - end, insert: text.slice(start, text.length - end) };
}
