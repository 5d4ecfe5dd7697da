import { CompletionContext, type CompletionResult } from "@codemirror/autocomplete";
import { EditorState } from "@codemirror/state";
import { describe, expect, test } from "vitest";
import { Reference } from "../api/reference";
import { REFERENCE } from "../test/reference-data";
import { declaredVariables, otterscriptCompletions } from "./completion";
import { otterscript } from "./language";

const source = otterscriptCompletions(() => new Reference(REFERENCE));

/** Completions with the cursor at `|` in `text`. */
async function complete(text: string, explicit = false): Promise<CompletionResult | null> {
  const pos = text.indexOf("|");
  const state = EditorState.create({ doc: text.replace("|", ""), extensions: [otterscript()] });
  return source(new CompletionContext(state, pos, explicit)) as Promise<CompletionResult | null>;
}

const labels = (result: CompletionResult | null) => result?.options.map((o) => o.label) ?? [];

describe("operations", () => {
  test("test_completion_offers_operations_where_a_statement_starts", async () => {
    const result = await complete("set $x = 1;\nEns|");
    expect(result?.from).toBe(12);
    expect(labels(result)).toContain("Ensure-File");
    const ensureFile = result!.options.find((o) => o.label === "Ensure-File")!;
    expect(ensureFile.detail).toBe("Files");
    expect(ensureFile.type).toBe("function");
    expect(labels(result)).toContain("Files::");
    expect(labels(result)).toContain("foreach");
  });

  test("test_completion_names_the_namespace_of_an_ambiguous_operation", async () => {
    const result = await complete("Ens|");
    expect(labels(result)).toContain("Linux::Ensure-Service");
    expect(labels(result)).toContain("Windows::Ensure-Service");
    expect(labels(result)).not.toContain("Ensure-Service");
  });

  test("test_completion_offers_a_namespaces_operations_after_its_name", async () => {
    const result = await complete("if $x { Files::E| }");
    expect(result?.from).toBe("if $x { Files::".length);
    expect(labels(result)).toEqual(["Ensure-File"]);
  });

  test("test_completion_offers_nothing_inside_a_value_or_a_comment", async () => {
    expect(await complete("set $x = Ens|;")).toBeNull();
    expect(await complete("# Ens|")).toBeNull();
    expect(await complete("Exec foo|;")).toBeNull();
  });
});

describe("arguments", () => {
  test("test_completion_offers_the_operations_arguments_inside_its_parentheses", async () => {
    const result = await complete("Ensure-File /tmp/x\n(\n    Te|\n);");
    expect(labels(result)).toEqual(["Name", "Text", "Exists"]);
    const text = result!.options.find((o) => o.label === "Text")!;
    expect(text.apply).toBe("Text: ");
    expect(text.info).toBe("The Text.");
    expect(result?.from).toBe("Ensure-File /tmp/x\n(\n    ".length);
  });

  test("test_completion_leaves_out_the_arguments_already_given", async () => {
    const result = await complete("Files::Ensure-File /tmp/x (Text: hello, |);", true);
    expect(labels(result)).toEqual(["Name", "Exists"]);
  });

  test("test_completion_knows_an_operation_by_its_alias_and_outputs_take_a_variable", async () => {
    const result = await complete("Exec ls (Arguments: -l, Prog|);");
    expect(labels(result)).toEqual(["FileName", "ExitCode"]);
    expect(result!.options.find((o) => o.label === "ExitCode")!.apply).toBe("ExitCode => $");
  });

  test("test_completion_offers_no_argument_names_in_a_value", async () => {
    const result = await complete("Ensure-File /tmp/x (Text: hel|);");
    expect(labels(result)).not.toContain("Exists");
  });
});

describe("expansions", () => {
  test("test_completion_offers_functions_after_a_sigil", async () => {
    const result = await complete("Log-Information $To|;");
    expect(result?.from).toBe("Log-Information ".length);
    expect(labels(result)).toEqual(expect.arrayContaining(["$ToUpper", "$ServerName", "$Eval"]));
    expect(labels(result)).not.toContain("@Range");
    const upper = result!.options.find((o) => o.label === "$ToUpper")!;
    expect(upper.detail).toBe("$ToUpper(text)");
    expect(upper.info).toBe("The text in upper case.");
  });

  test("test_completion_offers_list_and_map_functions_after_their_sigils", async () => {
    expect(labels(await complete("foreach $i in @R| { }"))).toEqual(["@Range", "@Eval"]);
    expect(labels(await complete("set %m = %E|;"))).toEqual(["%m", "%Eval"]);
  });

  test("test_completion_offers_the_variables_the_script_sets", async () => {
    const text = "set $Name = a;\nset @Hosts = @(a);\nforeach $Host in @Hosts {\n    Log-Information $|;\n}";
    const result = await complete(text);
    expect(labels(result)).toEqual(expect.arrayContaining(["$Name", "$Host"]));
    expect(labels(result)).not.toContain("@Hosts");
    expect(result!.options.find((o) => o.label === "$Name")!.type).toBe("variable");
  });

  test("test_completion_offers_nothing_after_an_escaped_sigil", async () => {
    expect(await complete("Log-Information a`$To|;")).toBeNull();
  });
});

test("test_declared_variables_are_every_declaration_once", () => {
  const state = EditorState.create({
    doc: "set $a = 1;\nset $a = 2;\nmodule M<$b, out $c> { }\nExec x (ExitCode => $d);\nglobal %e;",
    extensions: [otterscript()],
  });
  expect(declaredVariables(state)).toEqual(["$a", "$b", "$c", "$d", "%e"]);
});
