// @vitest-environment jsdom
import { beforeEach, expect, test } from "vitest";
import { RunRefused } from "./client";
import { clearRefusal, showRefusal } from "./refusal";

beforeEach(() => {
  document.body.innerHTML = `
    <fieldset><legend>Run</legend><p id="run-help">Runs the saved version.</p>
      <div class="field"><select name="servers"></select></div>
      <div class="field"><select name="mode"></select></div>
      <button name="run">Run</button>
    </fieldset>`;
});

const fieldset = () => document.querySelector("fieldset")!;

test("test_refusal_puts_each_fields_messages_before_it_and_the_others_after_the_help", () => {
  showRefusal(
    fieldset(),
    new RunRefused({ detail: "Not run", errors: { servers: ["Select a valid choice."], non_field_errors: ["Choose servers or roles to run on."] } }),
  );
  const servers = fieldset().querySelector("[name=servers]")!;
  expect(servers.getAttribute("aria-invalid")).toBe("true");
  expect(servers.previousElementSibling!.textContent).toBe("Select a valid choice.");
  expect(document.getElementById("run-help")!.nextElementSibling!.outerHTML).toBe(
    '<ul class="errorlist nonfield"><li>Choose servers or roles to run on.</li></ul>',
  );
  clearRefusal(fieldset());
  expect(fieldset().querySelectorAll(".errorlist, [aria-invalid]")).toHaveLength(0);
});

test("test_refusal_without_field_errors_says_its_detail_and_replaces_an_earlier_one", () => {
  showRefusal(fieldset(), new RunRefused({ errors: { servers: ["Select a valid choice."] } }));
  showRefusal(fieldset(), new RunRefused({ detail: "You may not run scripts on the local server." }));
  expect([...fieldset().querySelectorAll(".errorlist")].map((list) => list.textContent)).toEqual([
    "You may not run scripts on the local server.",
  ]);
  expect(fieldset().querySelector("[aria-invalid]")).toBeNull();
});
