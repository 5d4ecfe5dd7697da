// @vitest-environment jsdom
import { expect, test, vi } from "vitest";
import { fakeApi } from "../test/api";
import { RUN_ANSWER } from "../test/run-answer";
import { mountRunBeside } from "./beside";

test("test_run_beside_is_put_together_from_the_run_fieldset", async () => {
  document.body.innerHTML = `
    <form action="/rafts/ops/deploy/"><div data-run-beside><textarea name="content">x</textarea></div>
      <fieldset data-run><button name="run">Run</button></fieldset></form>`;
  const client = fakeApi(() => ({ ...RUN_ANSWER, execution: { ...RUN_ANSWER.execution, run_state: "completed" } }));
  const saved = vi.fn();
  const run = mountRunBeside({
    form: document.querySelector("form")!,
    fieldset: document.querySelector<HTMLElement>("[data-run]")!,
    container: document.querySelector<HTMLElement>("[data-run-beside]")!,
    client,
    saved,
    connect: () => ({ addEventListener() {}, close() {} }) as unknown as WebSocket,
  })!;
  const button = document.querySelector<HTMLButtonElement>("button[name=run]")!;
  expect(button.nextElementSibling?.className).toBe("otter-run-status");
  document.querySelector("form")!.requestSubmit(button);
  await new Promise((resolve) => setTimeout(resolve, 0));
  expect(saved).toHaveBeenCalledWith(3, "x");
  expect(run.panel?.parentElement?.hasAttribute("data-run-beside")).toBe(true);
  run.close();
  expect(run.panel).toBeNull();
  expect(document.activeElement).toBe(button);
});

test("test_run_beside_needs_a_run_button", () => {
  document.body.innerHTML = `<form><fieldset data-run></fieldset><div data-run-beside></div></form>`;
  expect(
    mountRunBeside({
      form: document.querySelector("form")!,
      fieldset: document.querySelector<HTMLElement>("[data-run]")!,
      container: document.querySelector<HTMLElement>("[data-run-beside]")!,
      client: fakeApi(),
    }),
  ).toBeNull();
});
