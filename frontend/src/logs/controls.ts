// The execution page's log toolbar: the connection's state, following the tail, expanding and
// collapsing, times, search (text or regular expression, level, scope, the count of matches,
// next and previous) and the way to errors and warnings. Built here (the run panel's compact
// log has none of it); its ids are the page's hooks for people and browser tests alike.

type Attributes = Record<string, string | boolean | undefined>;

function element<K extends keyof HTMLElementTagNameMap>(document: Document, tag: K, attributes: Attributes = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const made = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    made.setAttribute(name, value === true ? "" : value);
  }
  made.append(...children);
  return made;
}

export interface Controls {
  toolbar: HTMLElement;
  connection: HTMLElement;
  follow: HTMLButtonElement;
  expandAll: HTMLButtonElement;
  collapseAll: HTMLButtonElement;
  times: HTMLSelectElement;
  search: HTMLInputElement;
  regex: HTMLInputElement;
  level: HTMLSelectElement;
  scope: HTMLSelectElement;
  count: HTMLElement;
  next: HTMLButtonElement;
  previous: HTMLButtonElement;
  firstError: HTMLButtonElement;
  nextProblem: HTMLButtonElement;
  previousProblem: HTMLButtonElement;
  /** Says what a copy or a jump did (a polite status). */
  said: HTMLElement;
}

/** The level filter's choices: a level and those above it. */
export const LEVEL_CHOICES: [value: string, label: string, minLevel: number][] = [
  ["all", "All levels", 0],
  ["debug", "Debug and above", 0],
  ["info", "Information and above", 1],
  ["warning", "Warnings and errors", 2],
  ["error", "Errors", 3],
];

export function buildControls(document: Document): Controls {
  const e = <K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: (Node | string)[]) => element(document, tag, attributes, ...children);
  const button = (id: string, text: string, title: string) => e("button", { type: "button", id, title }, text);
  const option = (value: string, text: string) => e("option", { value }, text);

  const connection = e("span", { class: "log-connection", role: "status", "data-state": "connecting" }, "Connecting…");
  const follow = e("button", { type: "button", id: "log-follow", "aria-pressed": "false", title: "Keep the newest lines in view (End)" }, "Follow the tail");
  const expandAll = button("log-expand-all", "Expand all", "Open every scope");
  const collapseAll = button("log-collapse-all", "Collapse all", "Close every scope");
  const times = e("select", { id: "log-times" }, option("none", "No times"), option("absolute", "Time of day"), option("relative", "Time since start"));
  const search = e("input", { id: "log-search", type: "search", placeholder: "Search the log", autocomplete: "off", spellcheck: "false", "aria-describedby": "log-match-count" });
  const regex = e("input", { id: "log-search-regex", type: "checkbox" });
  const level = e("select", { id: "log-level" }, ...LEVEL_CHOICES.map(([value, label]) => option(value, label)));
  const scope = e("select", { id: "log-scope-filter" }, option("", "All scopes"));
  const count = e("span", { id: "log-match-count", class: "log-match-count", "aria-live": "polite" });
  const previous = button("log-match-prev", "Previous", "The previous match (Shift+Enter)");
  const next = button("log-match-next", "Next", "The next match (Enter)");
  const firstError = button("log-first-error", "First error", "Go to the first error");
  const previousProblem = button("log-prev-problem", "Previous problem", "The previous warning or error");
  const nextProblem = button("log-next-problem", "Next problem", "The next warning or error");
  const said = e("span", { class: "log-said", role: "status" });

  const toolbar = e(
    "div",
    { class: "log-toolbar" },
    e(
      "div",
      { class: "log-toolbar-row" },
      connection,
      follow,
      expandAll,
      collapseAll,
      e("label", { class: "log-field" }, e("span", { class: "visually-hidden" }, "Times"), times),
      e("span", { class: "log-toolbar-gap" }),
      firstError,
      previousProblem,
      nextProblem,
    ),
    e(
      "div",
      { class: "log-toolbar-row", role: "search" },
      e("label", { class: "visually-hidden", for: "log-search" }, "Search the log"),
      search,
      e("label", { class: "log-field log-check" }, regex, " Regular expression"),
      e("label", { class: "log-field" }, e("span", { class: "visually-hidden" }, "Level"), level),
      e("label", { class: "log-field" }, e("span", { class: "visually-hidden" }, "Scope"), scope),
      previous,
      next,
      count,
    ),
    said,
  );
  return { toolbar, connection, follow, expandAll, collapseAll, times, search, regex, level, scope, count, next, previous, firstError, nextProblem, previousProblem, said };
}

const CONNECTION_TEXT: Record<string, string> = {
  connecting: "Connecting…",
  live: "Live",
  reconnecting: "Reconnecting…",
  complete: "Complete",
  refused: "Refused",
};

export function showConnection(controls: Controls | null, state: string): void {
  if (!controls) return;
  controls.connection.dataset.state = state;
  const text = CONNECTION_TEXT[state] ?? state;
  if (controls.connection.textContent !== text) controls.connection.textContent = text;
}

/** The scope filter's choices, each scope indented under its parent. */
export function fillScopes(select: HTMLSelectElement, scopes: { id: number; name: string; depth: number }[]): void {
  const chosen = select.value;
  const document = select.ownerDocument;
  const options = [element(document, "option", { value: "" }, "All scopes")];
  for (const scope of scopes) options.push(element(document, "option", { value: String(scope.id) }, `${"\u00a0\u00a0".repeat(scope.depth - 1)}${scope.name}`));
  select.replaceChildren(...options);
  select.value = chosen;
  if (select.value !== chosen) select.value = "";
}
