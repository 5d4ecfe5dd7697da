import { describe, expect, test, vi } from "vitest";
import { REFERENCE } from "../test/reference-data";
import { api, ApiError, type Fetch } from "./http";
import { Reference, ReferenceClient } from "./reference";
import { ScriptProblem, ScriptsClient } from "./scripts";

function answering(status: number, body: unknown) {
  return vi.fn<Fetch>(async () => new Response(JSON.stringify(body), { status }));
}

describe("ReferenceClient", () => {
  test("test_reference_client_loads_the_reference_once", async () => {
    const fetcher = answering(200, REFERENCE);
    const client = new ReferenceClient(api("token-1", fetcher), "/api/reference/");
    expect(client.current).toBeNull();
    const [first, second] = await Promise.all([client.load(), client.load()]);
    expect(first).toBe(second);
    expect(client.current).toBe(first);
    expect(fetcher).toHaveBeenCalledTimes(1);
    const [url, init] = fetcher.mock.calls[0];
    expect(url).toBe("/api/reference/");
    expect(init?.method).toBe("GET");
    expect(init?.credentials).toBe("same-origin");
    expect(init?.headers).toMatchObject({ Accept: "application/json", "X-CSRFToken": "token-1" });
    expect(first.operations.map((o) => o.name)).toContain("Ensure-File");
  });

  test("test_reference_client_tries_again_after_a_failure", async () => {
    const fetcher = vi
      .fn<Fetch>()
      .mockResolvedValueOnce(new Response(JSON.stringify({ detail: "down", code: "error" }), { status: 503 }))
      .mockResolvedValueOnce(new Response(JSON.stringify(REFERENCE), { status: 200 }));
    const client = new ReferenceClient(api("t", fetcher), "/api/reference/");
    await expect(client.load()).rejects.toThrow(ApiError);
    expect(client.current).toBeNull();
    await expect(client.load()).resolves.toBeInstanceOf(Reference);
    expect(fetcher).toHaveBeenCalledTimes(2);
  });
});

describe("Reference", () => {
  const reference = new Reference(REFERENCE);

  test("test_reference_finds_operations_ignoring_case_by_alias_and_namespace", () => {
    expect(reference.operation("ensure-file")?.namespace).toBe("Files");
    expect(reference.operation("Ensure-File", "files")?.name).toBe("Ensure-File");
    expect(reference.operation("Ensure-File", "Linux")).toBeNull();
    expect(reference.operation("exec")?.name).toBe("Execute-Process");
  });

  test("test_reference_gives_no_operation_for_an_ambiguous_name", () => {
    expect(reference.operation("Ensure-Service")).toBeNull();
    expect(reference.operation("Ensure-Service", "Windows")?.description).toContain("Windows");
  });

  test("test_reference_finds_functions_and_parameters", () => {
    expect(reference.function("toupper")?.signature).toBe("$ToUpper(text)");
    expect(reference.function("Nope")).toBeNull();
    const exec = reference.operation("Exec")!;
    expect(Reference.parameter(exec, "program")?.name).toBe("FileName");
    expect(reference.namespaces).toEqual(["Files", "InedoCore", "Linux", "Windows"]);
  });
});

describe("ScriptsClient", () => {
  const urls = { check: "/api/scripts/check/", format: "/api/scripts/format/" };
  const diagnostic = {
    line: 1, column: 1, end_line: 1, end_column: 4, severity: "error", message: "bad", code: "syntax",
  };

  test("test_scripts_client_posts_the_script_as_json_with_the_csrf_token", async () => {
    const fetcher = answering(200, { diagnostics: [] });
    await new ScriptsClient(api("csrf-9", fetcher), urls).check("Exec x;");
    const [url, init] = fetcher.mock.calls[0];
    expect(url).toBe("/api/scripts/check/");
    expect(init?.method).toBe("POST");
    expect(JSON.parse(String(init?.body))).toEqual({ script: "Exec x;" });
    expect(init?.headers).toMatchObject({ "Content-Type": "application/json", "X-CSRFToken": "csrf-9" });
  });

  test("test_scripts_client_check_gives_the_diagnostics_of_a_script_that_does_not_parse", async () => {
    const fetcher = answering(400, { detail: "the script does not parse", code: "script", diagnostics: [diagnostic] });
    expect(await new ScriptsClient(api("t", fetcher), urls).check("(")).toEqual([diagnostic]);
  });

  test("test_scripts_client_format_refuses_a_script_that_does_not_parse", async () => {
    const fetcher = answering(400, { detail: "the script does not parse", code: "script", diagnostics: [diagnostic] });
    const failure = new ScriptsClient(api("t", fetcher), urls).format("(");
    await expect(failure).rejects.toBeInstanceOf(ScriptProblem);
    await expect(failure).rejects.toMatchObject({ diagnostics: [diagnostic] });
  });

  test("test_scripts_client_passes_on_other_failures", async () => {
    const fetcher = answering(403, { detail: "not allowed", code: "permission_denied" });
    await expect(new ScriptsClient(api("t", fetcher), urls).check("x")).rejects.toMatchObject({
      status: 403,
      message: "not allowed",
    });
  });
});
