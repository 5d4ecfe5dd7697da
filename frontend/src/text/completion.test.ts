import { CompletionContext, type CompletionResult } from "@codemirror/autocomplete";
import { EditorState } from "@codemirror/state";
import { describe, expect, test } from "vitest";
import type { ScriptNames } from "../api/names";
import { Reference } from "../api/reference";
import { REFERENCE } from "../test/reference-data";
import { declaredVariables, otterscriptCompletions } from "./completion";
import { otterscript } from "./language";

// what GET /api/scripts/names/?raft=ops answers (tests/web/editor/test_script_names.py pins it)
const NAMES: ScriptNames = {
  variables: [
    { name: "Hosts", sigil: "@", scopes: ["role"] },
    { name: "Name", sigil: "$", scopes: ["global"] },
    { name: "Port", sigil: "$", scopes: ["server", "global"] },
    { name: "web root", sigil: "$", scopes: ["environment"] },
  ],
  modules: [
    { name: "Deploy", raft: "ops", kind: "module" },
    { name: "shared::Backup", raft: "shared", kind: "script" },
  ],
  templates: [
    { name: "web/nginx.conf", raft: "ops", kind: "template" },
    { name: "shared::motd", raft: "shared", kind: "asset" },
  ],
};

let names: () => Promise<ScriptNames | null> = async () => NAMES;
const source = otterscriptCompletions(
  () => new Reference(REFERENCE),
  () => names(),
);

/** Completions with the cursor at `|` in `text`. */
async function complete(text: string, explicit = false): Promise<CompletionResult | null> {
  const pos = text.indexOf("|");
  const state = EditorState.create({ doc: text.replace("|", ""), extensions: [otterscript()] });
  return source(new CompletionContext(state, pos, explicit)) as Promise<CompletionResult | null>;
}

const option = (result: CompletionResult | null, label: string) =>
  result?.options.find((o) => o.label === label);

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
    expect(labels(await complete("foreach $i in @R| { }"))).toEqual(["@Hosts", "@Range", "@Eval"]);
    expect(labels(await complete("set %m = %E|;"))).toEqual(["%m", "%Eval"]);
  });

  test("test_completion_offers_the_variables_the_script_sets", async () => {
    const text = "set $Name = a;\nset @Hosts = @(a);\nforeach $Host in @Hosts {\n    Log-Information $|;\n}";
    const result = await complete(text);
    expect(labels(result)).toEqual(expect.arrayContaining(["$Name", "$Host"]));
    expect(labels(result)).not.toContain("@Hosts");
    expect(result!.options.find((o) => o.label === "$Name")!.type).toBe("variable");
  });

  test("test_completion_offers_the_inventorys_variables_below_the_scripts_own", async () => {
    const result = await complete("set $Port = 80;\nLog-Information $|;");
    expect(labels(result)).toEqual(expect.arrayContaining(["$Port", "$Name", "${web root}"]));
    expect(labels(result)).not.toContain("@Hosts");
    expect(labels(result).filter((l) => l === "$Port")).toHaveLength(1); // the script's own
    expect(option(result, "$Port")!.detail).toBeUndefined();
    const name = option(result, "$Name")!;
    expect(name).toMatchObject({ type: "variable", detail: "inventory" });
    expect(name.info).toContain("global");
    expect(name.boost!).toBeLessThan(option(result, "$Port")!.boost!);
    expect(name.boost!).toBeGreaterThan(option(result, "$ToUpper")!.boost ?? 0);
  });

  test("test_completion_offers_inventory_variables_by_their_kinds_sigil", async () => {
    expect(labels(await complete("foreach $h in @H|"))).toContain("@Hosts");
    expect(labels(await complete("Log-Information $H|;"))).not.toContain("$Hosts");
  });

  test("test_completion_offers_the_scripts_variables_when_the_names_are_missing", async () => {
    names = async () => null;
    try {
      expect(labels(await complete("set $a = 1;\nLog-Information $|;"))).toContain("$a");
      expect(labels(await complete("set $a = 1;\nLog-Information $|;"))).not.toContain("$Name");
    } finally {
      names = async () => NAMES;
    }
  });

  test("test_completion_offers_nothing_after_an_escaped_sigil", async () => {
    expect(await complete("Log-Information a`$To|;")).toBeNull();
  });
});

describe("raft items", () => {
  test("test_completion_offers_the_rafts_modules_after_call", async () => {
    const result = await complete("call |");
    expect(result?.from).toBe("call ".length);
    expect(labels(result)).toEqual(["Deploy", "shared::Backup"]);
    expect(option(result, "Deploy")).toMatchObject({ type: "function", detail: "module in ops" });
    expect(option(result, "shared::Backup")!.detail).toBe("script in shared");
    expect(option(result, "Deploy")!.boost!).toBeGreaterThan(option(result, "shared::Backup")!.boost!);
  });

  test("test_completion_offers_modules_as_a_name_is_typed_and_the_scripts_own_first", async () => {
    const text = "module Local { }\nif $x {\n    call sha|\n}";
    const result = await complete(text);
    expect(result?.from).toBe(text.indexOf("sha"));
    expect(labels(result)).toEqual(["Local", "Deploy", "shared::Backup"]);
    expect(option(result, "Local")!.detail).toBe("module of this script");
    expect((await complete("call shared::B|;"))?.from).toBe("call ".length);
  });

  test("test_completion_offers_templates_in_apply_templates_asset", async () => {
    for (const [text, typed] of [
      ["Apply-Template |", ""],
      ["Apply-Template web/ngi|;", "web/ngi"],
      ["InedoCore::Apply-Template shared::m|", "shared::m"],
      ["Apply-Template (Asset: ngi|);", "ngi"],
      ["Apply-Template (\n    OutputFile: /etc/x,\n    Asset: |\n);", ""],
    ]) {
      const result = await complete(text);
      expect(labels(result), text).toEqual(["web/nginx.conf", "shared::motd"]);
      expect(result?.from, text).toBe(text.indexOf("|") - typed.length);
    }
    const result = await complete("Apply-Template |");
    expect(option(result, "web/nginx.conf")).toMatchObject({ type: "text", detail: "template in ops" });
  });

  test("test_completion_offers_no_templates_in_other_arguments_or_operations", async () => {
    expect(labels(await complete("Apply-Template (OutputFile: |);"))).not.toContain("web/nginx.conf");
    expect(labels(await complete("Ensure-File |"))).not.toContain("web/nginx.conf");
    expect(labels(await complete("Apply-Template \"ngi|\";"))).not.toContain("web/nginx.conf");
    expect(labels(await complete("Log-Information call |;"))).not.toContain("Deploy");
  });

  test("test_completion_asks_for_the_names_again_after_a_failure", async () => {
    let calls = 0;
    names = async () => (++calls === 1 ? null : NAMES);
    try {
      expect(await complete("call |")).toBeNull();
      expect(labels(await complete("call |"))).toContain("Deploy");
      expect(calls).toBe(2);
    } finally {
      names = async () => NAMES;
    }
  });
});

test("test_declared_variables_are_every_declaration_once", () => {
  const state = EditorState.create({
    doc: "set $a = 1;\nset $a = 2;\nmodule M<$b, out $c> { }\nExec x (ExitCode => $d);\nglobal %e;",
    extensions: [otterscript()],
  });
  expect(declaredVariables(state)).toEqual(["$a", "$b", "$c", "$d", "%e"]);
});
