// A small modal dialog to edit text a block field cannot hold well: several lines (a comment,
// statements kept as OtterScript) or a name asked for once. A native <dialog>: focus stays in
// it, Escape cancels, and it is announced with its title.

let counter = 0;

/** The edited text, or null when cancelled (or when there is no page, as in the tests). */
export function editText(title: string, value: string, { singleLine = false } = {}): Promise<string | null> {
  if (typeof document === "undefined" || typeof HTMLDialogElement === "undefined") return Promise.resolve(null);
  const id = `otter-text-dialog-${++counter}`;
  const dialog = document.createElement("dialog");
  dialog.className = "otter-text-dialog";
  dialog.setAttribute("aria-labelledby", `${id}-title`);
  const form = document.createElement("form");
  form.method = "dialog";
  const heading = document.createElement("h2");
  heading.id = `${id}-title`;
  heading.textContent = title;
  const label = document.createElement("label");
  label.htmlFor = `${id}-text`;
  label.className = "visually-hidden";
  label.textContent = title;
  const field = singleLine ? document.createElement("input") : document.createElement("textarea");
  field.id = `${id}-text`;
  field.value = value;
  field.spellcheck = false;
  if (field instanceof HTMLTextAreaElement) field.rows = Math.min(16, Math.max(4, value.split("\n").length + 1));
  const actions = document.createElement("div");
  actions.className = "form-actions";
  const ok = document.createElement("button");
  ok.className = "primary";
  ok.value = "ok";
  ok.textContent = "OK";
  const cancel = document.createElement("button");
  cancel.value = "cancel";
  cancel.textContent = "Cancel";
  actions.append(ok, cancel);
  form.append(heading, label, field, actions);
  dialog.append(form);
  document.body.append(dialog);
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      resolve(dialog.returnValue === "ok" ? field.value : null);
      dialog.remove();
    });
    dialog.showModal();
    field.focus();
  });
}
