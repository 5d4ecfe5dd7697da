// After a commit: the item page's version line, the Run help and the versions list (table,
// compare form) taken from the page as the server now renders it; the editor is left alone.

import type { Api } from "../api/http";

export async function refreshItemPage(client: Api, url = location.href): Promise<void> {
  const fresh = new DOMParser().parseFromString(await client.html(url), "text/html");
  swapFreshParts(document, fresh);
}

/** The parts of `page` that a commit changes, replaced by those of `fresh`. */
export function swapFreshParts(document: Document, fresh: Document): void {
  const swap = (selector: string) => {
    const old = document.querySelector(selector);
    const made = fresh.querySelector(selector);
    if (old && made) old.replaceWith(document.importNode(made, true));
  };
  swap(".page-header p");
  swap("#run-help");

  // everything after the Versions heading, in its parent
  const heading = document.getElementById("versions");
  const freshHeading = fresh.getElementById("versions");
  if (!heading || !freshHeading) return;
  while (heading.nextSibling) heading.nextSibling.remove();
  const nodes: globalThis.Node[] = [];
  for (let next = freshHeading.nextSibling; next; next = next.nextSibling) nodes.push(document.importNode(next, true));
  heading.after(...nodes);
}
