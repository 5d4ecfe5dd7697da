// Save with JavaScript: the form's Save button (in the Save row) commits through the API and the
// page stays. A submit already handled on the page (Run) is left alone; any other submit leaves
// the page, and the drafts stop.

/** Listens to `form`'s submits: Save of `actions` calls `commit`, a submit that leaves calls `leaving`. */
export function saveOnSubmit(form: HTMLFormElement, actions: HTMLElement, commit: () => void, leaving: () => void): void {
  form.addEventListener("submit", (event) => {
    if (event.defaultPrevented) return; // handled on the page: the page is not left
    const submitter = (event as SubmitEvent).submitter;
    if (!(submitter instanceof HTMLButtonElement) || submitter.name !== "save" || !actions.contains(submitter)) {
      leaving(); // the page is left
      return;
    }
    event.preventDefault();
    commit();
  });
}
