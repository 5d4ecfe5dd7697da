// The operations and functions of the server's registry (GET /api/reference/), for completion
// and hover docs. Loaded once per page; looked up by name as OtterScript does: ignoring case,
// aliases included, an operation optionally under its namespace.

import { type Api, LoadedOnce } from "./http";

export interface ParameterReference {
  name: string;
  aliases: string[];
  type: string;
  required: boolean;
  default: unknown;
  positional: boolean;
  output: boolean;
  expanded: boolean;
  description: string;
}

export interface OperationReference {
  namespace: string;
  name: string;
  aliases: string[];
  kind: string;
  description: string;
  parameters: ParameterReference[];
}

export type Sigil = "$" | "@" | "%";

export interface FunctionReference {
  name: string;
  aliases: string[];
  returns: Sigil | null;
  sigils: Sigil[];
  signature: string;
  parameters: { name: string; required: boolean }[];
  variadic: boolean;
  description: string;
}

export interface ReferenceData {
  operations: OperationReference[];
  functions: FunctionReference[];
}

const key = (name: string) => name.toLowerCase();

/** The reference, indexed for look-ups. */
export class Reference {
  private readonly operationsByName = new Map<string, OperationReference[]>();
  private readonly functionsByName = new Map<string, FunctionReference>();

  constructor(readonly data: ReferenceData) {
    for (const operation of data.operations)
      for (const name of [operation.name, ...operation.aliases]) {
        const found = this.operationsByName.get(key(name)) ?? [];
        found.push(operation);
        this.operationsByName.set(key(name), found);
      }
    for (const fn of data.functions)
      for (const name of [fn.name, ...fn.aliases]) this.functionsByName.set(key(name), fn);
  }

  get operations(): OperationReference[] {
    return this.data.operations;
  }

  get functions(): FunctionReference[] {
    return this.data.functions;
  }

  get namespaces(): string[] {
    return [...new Set(this.data.operations.map((o) => o.namespace))].sort();
  }

  /** The operation `name` (or `namespace::name`) stands for; null when none or ambiguous. */
  operation(name: string, namespace: string | null = null): OperationReference | null {
    const found = (this.operationsByName.get(key(name)) ?? []).filter(
      (o) => namespace === null || key(o.namespace) === key(namespace),
    );
    return found.length === 1 ? found[0] : null;
  }

  function(name: string): FunctionReference | null {
    return this.functionsByName.get(key(name)) ?? null;
  }

  /** The parameter `name` (or one of its aliases) of `operation`. */
  static parameter(operation: OperationReference, name: string): ParameterReference | null {
    return (
      operation.parameters.find((p) => [p.name, ...p.aliases].some((n) => key(n) === key(name))) ??
      null
    );
  }
}

/** Loads the reference once; a failed load is tried again on the next call. */
export class ReferenceClient extends LoadedOnce<Reference> {
  constructor(client: Api, url: string) {
    super(client, url, (data) => new Reference(data as ReferenceData));
  }
}
