// The executions list, live: while an execution on the page runs, the rows are redrawn every
// FAST_MS (status, duration so far, counts of lines, warnings and errors); otherwise every
// SLOW_MS, so that new executions show up. The server draws the rows with the page's own
// template (ExecutionListView answers JSON), so a refreshed row says what a loaded one says.
(function () {
  "use strict";
  const results = document.querySelector("[data-refresh]");
  if (!results) return;
  const FAST_MS = 2000;
  const SLOW_MS = 15000;
  let timer = null, busy = false, stop = false;
  let drawn = null;  // the HTML last drawn from a refresh

  function schedule() {
    const running = results.querySelector("[data-running]") !== null;
    timer = setTimeout(poll, running ? FAST_MS : SLOW_MS);
  }

  function stopped(reason) {
    stop = true;
    const note = document.querySelector("[data-refresh-note]");
    if (note) {
      note.textContent = reason;
      note.hidden = false;
    }
  }

  async function poll() {
    timer = null;
    if (busy || stop || document.hidden) return;  // a hidden tab resumes on visibilitychange
    busy = true;
    try {
      const response = await fetch(results.dataset.refresh, {
        headers: {Accept: "application/json"},
        credentials: "same-origin",
      });
      if (response.status === 403) {
        stopped("Live updates stopped: log in again, then reload the page.");
        return;
      }
      if (response.ok) {
        const data = await response.json();
        // redraw only what changed, and never under the keyboard's focus (at the next tick)
        if (data.html !== drawn && !results.contains(document.activeElement)) {
          results.innerHTML = data.html;
          drawn = data.html;
        }
      }
    } catch (error) {
      // the server restarts or the network drops: try again at the next tick
    } finally {
      busy = false;
    }
    if (!stop) schedule();
  }

  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && timer === null && !busy && !stop) poll();
  });
  schedule();
})();
