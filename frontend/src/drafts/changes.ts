// "Changes since the newest version" on the item page: a toggle button and the panel it opens,
// the diff from the newest version (or the version the answer names) to the text on screen.

import type { DiffAnswer } from "../api/drafts";
import type { Tone } from "../ui/status";
import { describeFailure } from "./describe";
import { diffView } from "./diff";
import { h, toDom } from "./view";

export interface ChangesOptions {
  /** The diff from the newest version to the text on screen. */
  compare(): Promise<DiffAnswer>;
  /** The version edits start from (when the answer names none). */
  base(): number;
  say(text: string, tone?: Tone): void;
}

export class ChangesPanel {
  readonly button: HTMLButtonElement;
  readonly panel: HTMLElement;

  constructor(
    document: Document,
    private readonly options: ChangesOptions,
  ) {
    this.panel = document.createElement("section");
    this.panel.className = "otter-changes";
    this.panel.id = "otter-changes";
    this.panel.hidden = true;
    this.panel.setAttribute("aria-labelledby", "otter-changes-title");
    this.button = document.createElement("button");
    this.button.type = "button";
    this.button.textContent = "Changes since the newest version";
    this.button.setAttribute("aria-expanded", "false");
    this.button.setAttribute("aria-controls", this.panel.id);
    this.button.addEventListener("click", () => void this.toggle());
  }

  get open(): boolean {
    return this.button.getAttribute("aria-expanded") === "true";
  }

  async toggle(): Promise<void> {
    if (this.open) return this.hide();
    const { say } = this.options;
    say("Comparing…");
    try {
      const answer = await this.options.compare();
      const version = answer.from ?? this.options.base();
      const document = this.panel.ownerDocument;
      this.panel.replaceChildren(
        toDom(h("h2", { id: "otter-changes-title", tabindex: -1 }, `Changes since version ${version}`), document),
        toDom(diffView(answer.diff, `Changes from version ${version} to the text on screen`, `No changes since version ${version}.`), document),
      );
      this.panel.hidden = false;
      this.button.setAttribute("aria-expanded", "true");
      say("");
    } catch (error) {
      say(`Could not compare: ${describeFailure(error)}`, "bad");
    }
  }

  hide(): void {
    this.panel.hidden = true;
    this.panel.replaceChildren();
    this.button.setAttribute("aria-expanded", "false");
  }
}
