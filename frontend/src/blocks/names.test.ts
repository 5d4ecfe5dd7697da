// @vitest-environment jsdom
import { expect, test } from "vitest";
import { reference } from "../test/blocks";
import { operationNames } from "./names";
import { OPERATIONS_LIST } from "./rows";

test("test_operation_names_write_the_namespace_only_for_an_ambiguous_name", () => {
  const list = operationNames(document, reference);
  expect(list.id).toBe(OPERATIONS_LIST);
  const values = Array.from(list.options).map((option) => option.value);
  expect(values).toContain("Ensure-File");
  expect(values).toContain("Windows::Ensure-Service");
  expect(values).not.toContain("Ensure-Service");
  expect(values).toHaveLength(reference.operations.length);
  const file = Array.from(list.options).find((option) => option.value === "Ensure-File")!;
  expect(file.label).toBe("Ensures a file exists (or not) with the given text on the server in context.".slice(0, 80));
});

test("test_operation_names_without_a_reference_are_none", () => {
  expect(operationNames(document, null).options).toHaveLength(0);
});
