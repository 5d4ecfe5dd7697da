// Save and Run post the text of the mode on screen, with the header of that mode when the script
// asked for the other one. From the blocks, the submit waits while the server turns them into
// text, then goes again. Listens on the document, capturing: before the text editor copies its
// text into the textarea, and before the drafts and Run see the submit.

import { describeProblem } from "../blocks/client";
import type { Tone } from "../ui/status";
import type { ModeSwitcher } from "./switcher";

export function convertOnSubmit(form: HTMLFormElement, switcher: ModeSwitcher, say: (text: string, tone?: Tone) => void): void {
  let passing = false;
  form.ownerDocument.addEventListener(
    "submit",
    (event) => {
      if (event.target !== form || passing) return;
      const submitter = (event as SubmitEvent).submitter;
      if (switcher.mode === "text") return switcher.headerForText();
      event.preventDefault();
      event.stopImmediatePropagation();
      say("Converting the blocks to text…");
      switcher.textFromBlocks().then(
        // in a task of its own: text of unchanged blocks is known at once, and this callback
        // then runs while the browser is still dispatching the first submit event, when it
        // ignores another (Chromium's requestSubmit returns without a word)
        () =>
          setTimeout(() => {
            passing = true;
            try {
              form.requestSubmit(submitter instanceof HTMLButtonElement ? submitter : null);
            } finally {
              passing = false;
            }
          }),
        (error: unknown) => say(`Not sent: ${describeProblem(error, switcher.editor?.name)}`, "bad"),
      );
    },
    { capture: true },
  );
}
