// Where a run goes, said while its targets are chosen. For every <form data-target-preview>
// (the attribute's value is the preview URL, /targets/preview/ when empty): when its fields
// named servers, roles or environments change, asks the server which active servers the run
// would go to and writes its sentence ("Runs on 3 servers: web1, web2, db1", or what to
// choose) into the form's [data-target-preview-output], a status element.
(function () {
  "use strict";
  const FIELDS = ["servers", "roles", "environments"];
  const WAIT_MS = 150;  // a burst of changes (shift-click in a list) asks once

  function setUp(form) {
    const output = form.querySelector("[data-target-preview-output]");
    if (!output) return;
    if (!output.hasAttribute("role")) output.setAttribute("role", "status");
    const url = form.dataset.targetPreview || "/targets/preview/";
    let timer = null, asking = null, lastQuery = null;

    async function preview() {
      const data = new FormData(form);  // leaves out disabled fields
      const query = new URLSearchParams();
      for (const field of FIELDS) {
        for (const value of data.getAll(field)) if (value) query.append(field, value);
      }
      const text = query.toString();
      if (text === lastQuery) return;
      lastQuery = text;
      if (asking) asking.abort();
      asking = new AbortController();
      try {
        const response = await fetch(url + (text ? "?" + text : ""), {
          headers: {Accept: "application/json"}, credentials: "same-origin", signal: asking.signal,
        });
        const body = await response.json().catch(() => ({}));
        if (response.ok) show(body.summary, body.count > 0 ? "" : "warning");
        else show(body.detail || `Could not tell where the run goes (HTTP ${response.status}).`, "error");
      } catch (error) {
        if (error.name !== "AbortError") {
          lastQuery = null;  // ask again at the next change
          show("Could not tell where the run goes: the server did not answer.", "error");
        }
      }
    }

    function show(sentence, tone) {
      if (output.textContent !== sentence) output.textContent = sentence;
      output.classList.toggle("errors", tone === "error");
      output.classList.toggle("muted", tone === "warning");
    }

    function changed(event) {
      if (!FIELDS.includes(event.target.name)) return;
      clearTimeout(timer);
      timer = setTimeout(preview, WAIT_MS);
    }

    form.addEventListener("change", changed);
    form.addEventListener("input", changed);
    preview();
  }

  function start() {
    document.querySelectorAll("form[data-target-preview]").forEach(setUp);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
