import { describe, expect, test } from "vitest";
import { Reference } from "../api/reference";
import { REFERENCE } from "../test/reference-data";
import { BLOCK_TYPES } from "./definitions";
import { controlEntries, operationEntries, search, toolbox } from "./toolbox";

const reference = new Reference(REFERENCE);
const entries = [...controlEntries(), ...operationEntries(reference)];

describe("the toolbox", () => {
  test("test_toolbox_has_the_namespaces_and_control_categories", () => {
    const names = toolbox(entries).contents.map((c) => (c as { name: string }).name);
    expect(names.slice(0, 2)).toEqual(["Search results", "Control"]);
    for (const namespace of reference.namespaces) expect(names).toContain(namespace);
  });

  test("test_toolbox_offers_every_statement_block", () => {
    const offered = new Set(entries.map((entry) => entry.block.type));
    expect(BLOCK_TYPES.filter((type) => !offered.has(type))).toEqual([]);
  });

  test("test_toolbox_writes_a_namespace_only_for_an_ambiguous_name", () => {
    const ensure = entries.find((e) => e.label === "Files::Ensure-File")!;
    expect(ensure.block.fields).toMatchObject({ NAMESPACE: "", NAME: "Ensure-File" });
    const service = entries.find((e) => e.label === "Windows::Ensure-Service")!;
    expect(service.block.fields).toMatchObject({ NAMESPACE: "Windows", NAME: "Ensure-Service" });
  });

  test("test_toolbox_search_finds_by_name_then_description", () => {
    expect(search(entries, "ensure-file")[0].label).toBe("Files::Ensure-File");
    expect(search(entries, "runs a program").map((e) => e.label)).toContain("InedoCore::Execute-Process");
    expect(search(entries, "retry").map((e) => e.label)).toContain("with retry");
    expect(search(entries, "  ")).toEqual([]);
  });
});
