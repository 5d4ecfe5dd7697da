// The small pieces of page furniture the editors share: a polite status line (read out by screen
// readers when it changes, its tone shown by the site's CSS), a labelled toolbar and its buttons.

export type Tone = "" | "ok" | "bad" | "warn";

export interface StatusLine {
  element: HTMLSpanElement;
  say(text: string, tone?: Tone): void;
}

/** A `role=status` line with `className`; `say` replaces its text and tone. */
export function statusLine(className: string): StatusLine {
  const element = document.createElement("span");
  element.className = className;
  element.setAttribute("role", "status");
  element.setAttribute("aria-live", "polite");
  return {
    element,
    say(text, tone = "") {
      element.textContent = text;
      element.dataset.tone = tone;
    },
  };
}

/** A `div` with `role=toolbar`, named `label` for assistive technology. */
export function toolbar(className: string, label: string): HTMLDivElement {
  const element = document.createElement("div");
  element.className = className;
  element.setAttribute("role", "toolbar");
  element.setAttribute("aria-label", label);
  return element;
}

/** A button of a toolbar: `type=button`, so it never submits the page's form. */
export function button(label: string, title: string, action: () => void): HTMLButtonElement {
  const made = document.createElement("button");
  made.type = "button";
  made.textContent = label;
  made.title = title;
  made.addEventListener("click", action);
  return made;
}
