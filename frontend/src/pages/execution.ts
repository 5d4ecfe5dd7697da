// The execution page: its log in the virtual log viewer (logs/viewer.ts) in #log
// (data-execution, data-state, data-mode, data-started), the state (#state) and the outcome
// badge (#status) kept up to date while it runs, and Cancel (#cancel) gone once the run ended.

import { api, csrfToken } from "../api/http";
import { showStatus, watchLog } from "../logs/viewer";
import { mountMenu } from "../site/menu";

mountMenu();

const root = document.getElementById("log");
if (root?.dataset.execution) {
  const data = root.dataset;
  const watch = watchLog({
    root,
    client: api(csrfToken()),
    execution: data.execution ?? "",
    started: data.started || undefined,
    // a page made once the run ended says it all already (the outcome's label too)
    onStatus: (view) => data.state !== "completed" && showStatus(view, document.getElementById("state"), document.getElementById("status")),
    onComplete: () => {
      document.getElementById("cancel")?.remove();
      // drift is drawn by the server: show it once a collecting run has ended
      if (data.state !== "completed" && data.mode !== "execute") location.reload();
    },
  });
  // for the browser tests and the benchmark
  Object.assign(root, { otterLog: watch });
}
