import { describe, expect, test, vi } from "vitest";
import { findAll, hasClass, type Node, textOf } from "../drafts/view";
import { RUN_ANSWER as RUN } from "../test/run-answer";
import { runPanel, TITLE_ID } from "./panel";

const actions = () => ({ close: vi.fn(), cancel: vi.fn() });
const buttons = (node: Node) => findAll(node, (n) => n.tag === "button");
const byText = (node: Node, text: string) => buttons(node).find((b) => textOf(b) === text);

describe("runPanel", () => {
  test("test_run_panel_is_a_region_named_by_its_heading_with_a_live_outcome", () => {
    const panel = runPanel(RUN, actions());
    expect(panel.tag).toBe("section");
    const heading = findAll(panel, (n) => n.tag === "h2")[0];
    expect(panel.attrs["aria-labelledby"]).toBe(TITLE_ID);
    expect(heading.attrs).toMatchObject({ id: TITLE_ID, tabindex: "-1" });
    expect(textOf(heading)).toBe("Execution 12: ops::deploy");
    const badge = findAll(panel, (n) => "data-run-status" in n.attrs)[0];
    expect(badge.attrs).toMatchObject({ class: "badge pending", role: "status", "aria-live": "polite" });
    expect(textOf(badge)).toBe("Pending");
    expect(findAll(panel, (n) => "data-run-state" in n.attrs)[0].attrs["data-run-state"]).toBe("pending");
    expect(textOf(panel)).toContain("Saved ops::deploy as version 3 and ran it.");
  });

  test("test_run_panel_links_the_execution_page_and_has_cancel_and_close", () => {
    const handlers = actions();
    const panel = runPanel(RUN, handlers);
    const link = findAll(panel, (n) => n.tag === "a")[0];
    expect([link.attrs.href, textOf(link)]).toEqual(["/executions/12/", "Open the execution page"]);
    for (const button of buttons(panel)) expect(button.attrs.type).toBe("button"); // never submits the form
    byText(panel, "Cancel")?.on.click(new Event("click"));
    byText(panel, "Close")?.on.click(new Event("click"));
    expect(handlers.cancel).toHaveBeenCalledOnce();
    expect(handlers.close).toHaveBeenCalledOnce();
    const log = findAll(panel, hasClass("otter-run-log"))[0];
    expect(log.attrs).toMatchObject({ class: "log otter-run-log", role: "region", "aria-label": "Log of execution 12", tabindex: "0" });
  });

  test("test_run_panel_has_no_cancel_for_those_who_may_not_or_a_run_that_ended", () => {
    expect(byText(runPanel({ ...RUN, execution: { ...RUN.execution, cancel_url: null } }, actions()), "Cancel")).toBeUndefined();
    const ended = { ...RUN.execution, run_state: "completed", outcome: "normal", outcome_label: "Normal" };
    expect(byText(runPanel({ ...RUN, execution: ended }, actions()), "Cancel")).toBeUndefined();
  });

  test("test_run_panel_names_a_mode_other_than_execute", () => {
    const collect = runPanel({ ...RUN, execution: { ...RUN.execution, mode: "collect", mode_label: "Collect only (drift check)", simulate: true } }, actions());
    expect(textOf(findAll(collect, hasClass("otter-run-state"))[0])).toContain("· Collect only (drift check), simulated");
    expect(textOf(findAll(runPanel(RUN, actions()), hasClass("otter-run-state"))[0])).not.toContain("·");
  });
});
