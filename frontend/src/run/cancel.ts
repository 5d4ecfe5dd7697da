// Cancel in the run panel: asked first whether to (a run stopped halfway is not undone), then the
// API's cancel action asked once (the button stays focusable while it waits, as "Stopping…"), the
// answer said in the panel's note; a refusal gives the button back.

import { type Api, ApiError } from "../api/http";
import type { Tone } from "../ui/status";
import { describeRunError } from "./client";

export const CANCEL_QUESTION = "Cancel this run? It stops where it is and its processes are killed; what it already changed stays changed.";

/** Asks `url` to stop the run once the user said yes to `confirm`; `button` is the panel's Cancel. */
export async function cancelRun(
  client: Api,
  url: string | null,
  button: HTMLElement | null,
  note: (text: string, tone?: Tone) => void,
  confirm: (question: string) => boolean = (question) => window.confirm(question),
): Promise<void> {
  if (!button || !url || button.getAttribute("aria-disabled") === "true") return;
  if (!confirm(CANCEL_QUESTION)) return;
  button.setAttribute("aria-disabled", "true"); // stays focusable, unlike disabled
  button.textContent = "Stopping…";
  try {
    await client.post(url, {});
    note("Asked the worker to stop the run.");
  } catch (error) {
    button.removeAttribute("aria-disabled");
    button.textContent = "Cancel";
    note(`Not cancelled: ${error instanceof ApiError ? error.message : describeRunError(error)}`, "bad");
  }
}
