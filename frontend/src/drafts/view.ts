// A small description of DOM elements, built by pure functions (so the views are tested in
// Node, without a DOM) and made into elements by `toDom` in the page.

export type Child = Node | string | null | false | undefined;

export interface Node {
  tag: string;
  attrs: Record<string, string>;
  on: Record<string, (event: Event) => void>;
  children: Child[];
}

export type Attrs = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>;

/** An element `tag` with `attrs` (an `on…` function is a listener; false or null leaves the
 * attribute out; true is the empty value) and `children` (false, null and undefined skipped). */
export function h(tag: string, attrs: Attrs = {}, ...children: (Child | Child[])[]): Node {
  const node: Node = { tag, attrs: {}, on: {}, children: [] };
  for (const [name, value] of Object.entries(attrs)) {
    if (typeof value === "function") node.on[name.replace(/^on/, "").toLowerCase()] = value;
    else if (value === true) node.attrs[name] = "";
    else if (value !== false && value !== null && value !== undefined) node.attrs[name] = String(value);
  }
  for (const child of children.flat()) if (child || child === "") node.children.push(child);
  return node;
}

/** The text inside `node`, as `textContent` would give it. */
export function textOf(node: Child): string {
  if (!node) return "";
  if (typeof node === "string") return node;
  return node.children.map(textOf).join("");
}

/** Every node under (and including) `node` that `test` accepts, in document order. */
export function findAll(node: Child, test: (node: Node) => boolean): Node[] {
  if (!node || typeof node === "string") return [];
  return [...(test(node) ? [node] : []), ...node.children.flatMap((child) => findAll(child, test))];
}

export const hasClass = (name: string) => (node: Node) => (node.attrs.class ?? "").split(/\s+/).includes(name);

export function toDom(node: Node, document: Document = globalThis.document): HTMLElement {
  const element = document.createElement(node.tag);
  for (const [name, value] of Object.entries(node.attrs)) element.setAttribute(name, value);
  for (const [name, listener] of Object.entries(node.on)) element.addEventListener(name, listener);
  for (const child of node.children)
    if (typeof child === "string") element.append(document.createTextNode(child));
    else if (child) element.append(toDom(child, document));
  return element;
}

/** A date and time as people read it here ("12 May 2025, 12:04"); the text as given when it
 * is not a date. */
export function when(iso: string, locale?: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(locale, { dateStyle: "medium", timeStyle: "short" });
}

/** The hour and minute of `date` ("12:04"). */
export function clock(date: Date, locale?: string): string {
  return date.toLocaleTimeString(locale, { hour: "2-digit", minute: "2-digit" });
}
