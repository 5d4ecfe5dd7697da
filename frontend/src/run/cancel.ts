// Cancel in the run panel: the API's cancel action asked once (the button stays focusable while
// it waits, as "Stopping…"), the answer said in the panel's note; a refusal gives the button back.

import { type Api, ApiError } from "../api/http";
import type { Tone } from "../ui/status";
import { describeRunError } from "./client";

/** Asks `url` to stop the run; `button` is the panel's Cancel. */
export async function cancelRun(client: Api, url: string | null, button: HTMLElement | null, note: (text: string, tone?: Tone) => void): Promise<void> {
  if (!button || !url || button.getAttribute("aria-disabled") === "true") return;
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
