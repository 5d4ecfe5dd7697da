// The dashboard's live executions: polls the activity endpoint every few seconds (while the tab
// is shown) and redraws the running and recently ended tables and the failed count. The server
// formats every value (execution_row), so these rows say what the server-rendered ones say.
(function () {
  "use strict";
  const panels = document.querySelector("[data-activity]");
  if (!panels) return;
  const url = panels.dataset.activity;
  const EVERY_MS = 5000;
  let timer = null;

  function cell(label, content) {
    const td = document.createElement("td");
    td.dataset.label = label;
    td.append(content);
    return td;
  }

  function row(data, when) {
    const tr = document.createElement("tr");
    const link = document.createElement("a");
    link.href = data.url;
    const number = document.createElement("span");
    number.className = "muted";
    number.textContent = "#" + data.id;
    link.append(data.name + " ", number);
    const badge = document.createElement("span");
    badge.className = "badge " + data.outcome;
    badge.textContent = data.outcome_label;
    tr.append(cell("Execution", link), cell("Outcome", badge));
    if (when === "started") tr.append(cell("Started", data.started_label || "not yet"));
    else tr.append(cell("Duration", data.duration));
    tr.append(cell("By", data.by || "—"));
    return tr;
  }

  function table(rows, when) {
    const wrap = document.createElement("div");
    wrap.className = "table-wrap";
    const grid = document.createElement("table");
    grid.className = "grid stack";
    const head = grid.createTHead().insertRow();
    for (const title of ["Execution", "Outcome", when === "started" ? "Started" : "Duration", "By"]) {
      const th = document.createElement("th");
      th.scope = "col";
      th.textContent = title;
      head.append(th);
    }
    const body = grid.createTBody();
    for (const data of rows) body.append(row(data, when));
    wrap.append(grid);
    return wrap;
  }

  function draw(container, rows) {
    const when = container.dataset.when;
    if (rows.length) {
      container.replaceChildren(table(rows, when));
    } else {
      const empty = document.createElement("p");
      empty.className = "empty";
      empty.textContent = container.dataset.empty;
      container.replaceChildren(empty);
    }
  }

  const drawn = new Map();  // container -> the JSON of the rows it shows
  function show(data) {
    for (const container of panels.querySelectorAll("[data-rows]")) {
      const rows = data[container.dataset.rows];
      if (!Array.isArray(rows)) continue;
      const text = JSON.stringify(rows);
      // redraw only what changed, and never under the keyboard's focus (at the next tick)
      if (drawn.get(container) === text || container.contains(document.activeElement)) continue;
      drawn.set(container, text);
      draw(container, rows);
    }
    const count = document.querySelector("[data-failed-count]");
    if (count) {
      count.textContent = String(data.failed);
      document.querySelector("[data-failed-link]").href = data.failed_url;
      document.querySelector("[data-failed-card]").classList.toggle("alert", data.failed > 0);
    }
  }

  function stopped(reason) {
    const note = document.querySelector("[data-activity-note]");
    if (note) {
      note.textContent = reason;
      note.hidden = false;
    }
  }

  let busy = false, stop = false;
  async function poll() {
    timer = null;
    if (busy || stop || document.hidden) return;  // a hidden tab resumes on visibilitychange
    busy = true;
    try {
      const response = await fetch(url, {headers: {Accept: "application/json"}, credentials: "same-origin"});
      if (response.status === 403) {
        stop = true;
        stopped("Live updates stopped: log in again, then reload the page.");
        return;
      }
      if (response.ok) show(await response.json());
    } catch (error) {
      // the server restarts or the network drops: try again at the next tick
    } finally {
      busy = false;
    }
    timer = setTimeout(poll, EVERY_MS);
  }

  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && timer === null && !busy) poll();
  });
  timer = setTimeout(poll, EVERY_MS);
})();
