// A run as the item page's view answers it (otterweb/rafts/views.py run_answer), for the tests.

import type { RunAnswer } from "../run/client";

export const RUN_ANSWER: RunAnswer = {
  execution: {
    id: 12,
    name: "ops::deploy",
    url: "/executions/12/",
    run_state: "pending",
    outcome: "pending",
    outcome_label: "Pending",
    mode: "execute",
    mode_label: "Execute",
    simulate: false,
    cancel_url: "/api/executions/12/cancel/",
  },
  version: 3,
  saved: true,
  message: "Saved ops::deploy as version 3 and ran it.",
};
