// What went wrong with a request of the drafts, for a sentence after "Not saved: ".

import { ApiError } from "../api/http";
import { describeProblem, isBlocksRefusal } from "../blocks/client";
import type { BlockNamer } from "../blocks/labels";

/** ``name`` names a block of the blocks on screen, for blocks that do not make a script. */
export function describeFailure(error: unknown, name?: BlockNamer): string {
  if (isBlocksRefusal(error))
    return `the blocks do not make a script: ${describeProblem(error, name ?? (() => null))}.`;
  if (error instanceof ApiError) {
    const fields = Object.values(error.body.errors ?? {}).flat();
    return fields.length ? fields.join(" ") : error.message;
  }
  if (error instanceof TypeError) return "the server did not answer.";
  return error instanceof Error ? error.message : String(error);
}
