// What went wrong with a request of the drafts, for a sentence after "Not saved: ".

import { ApiError } from "../api/http";

export function describeFailure(error: unknown): string {
  if (error instanceof ApiError) {
    const fields = Object.values(error.body.errors ?? {}).flat();
    return fields.length ? fields.join(" ") : error.message;
  }
  if (error instanceof TypeError) return "the server did not answer.";
  return error instanceof Error ? error.message : String(error);
}
