// The page's list of operation names that an operation block's name field offers while it is
// edited (rows.ts points its input at OPERATIONS_LIST): each name as a script writes it, the
// namespace only where the name alone is ambiguous, with the start of its description.

import type { Reference } from "../api/reference";
import { OPERATIONS_LIST } from "./rows";

/** The `<datalist>` of the operations of `reference` (empty without one). */
export function operationNames(document: Document, reference: Reference | null): HTMLDataListElement {
  const names = document.createElement("datalist");
  names.id = OPERATIONS_LIST;
  for (const operation of reference?.operations ?? []) {
    const option = document.createElement("option");
    option.value = reference?.operation(operation.name) ? operation.name : `${operation.namespace}::${operation.name}`;
    option.label = operation.description.slice(0, 80);
    names.append(option);
  }
  return names;
}
