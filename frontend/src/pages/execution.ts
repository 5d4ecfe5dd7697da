// The execution page: its log drawn live (logs/viewer.ts) into #log (data-execution, data-state,
// data-mode), the state (#state) and the outcome badge (#status) kept up to date, the window
// following the tail while #follow is checked, and Cancel (#cancel) gone once the run ended.

import { showStatus, watchLog } from "../logs/viewer";

const root = document.getElementById("log");
if (root?.dataset.execution) {
  const data = root.dataset;
  watchLog({
    root,
    execution: data.execution ?? "",
    onStatus: (view) => showStatus(view, document.getElementById("state"), document.getElementById("status")),
    onLines: () => {
      const follow = document.getElementById("follow");
      if (follow instanceof HTMLInputElement && follow.checked) window.scrollTo(0, document.body.scrollHeight);
    },
    onComplete: () => {
      document.getElementById("cancel")?.remove();
      // drift is drawn by the server: show it once a collecting run has ended
      if (data.state !== "completed" && data.mode !== "execute") location.reload();
    },
    onRefused: (reason) => {
      const note = document.createElement("p");
      note.className = "errors";
      note.textContent = reason;
      root.append(note);
    },
  });
}
