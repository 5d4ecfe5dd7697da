// A refused run shown in the Run fieldset as the page shows it without script: each field's
// messages before the field (it is marked invalid), the others after the fieldset's help.

import type { RunRefused } from "./client";

export function clearRefusal(fieldset: HTMLElement): void {
  for (const list of fieldset.querySelectorAll(".errorlist")) list.remove();
  for (const field of fieldset.querySelectorAll("[aria-invalid]")) field.removeAttribute("aria-invalid");
}

function errorList(document: Document, messages: string[], className: string): HTMLUListElement {
  const list = document.createElement("ul");
  list.className = className;
  for (const message of messages) {
    const item = document.createElement("li");
    item.textContent = message;
    list.append(item);
  }
  return list;
}

export function showRefusal(fieldset: HTMLElement, refused: RunRefused): void {
  clearRefusal(fieldset);
  const document = fieldset.ownerDocument;
  const general: string[] = [];
  const errors = refused.body.errors ?? {};
  for (const [name, messages] of Object.entries(errors)) {
    const control = [...fieldset.querySelectorAll<HTMLElement>("[name]")].find((element) => element.getAttribute("name") === name);
    if (!control?.closest(".field")) {
      general.push(...messages);
      continue;
    }
    control.setAttribute("aria-invalid", "true");
    control.insertAdjacentElement("beforebegin", errorList(document, messages, "errorlist"));
  }
  if (!general.length && !Object.keys(errors).length) general.push(refused.message);
  if (general.length) {
    const list = errorList(document, general, "errorlist nonfield");
    const help = fieldset.querySelector("#run-help") ?? fieldset.querySelector("legend");
    if (help) help.insertAdjacentElement("afterend", list);
    else fieldset.prepend(list);
  }
}
