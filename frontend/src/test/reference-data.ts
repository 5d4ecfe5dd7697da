// A small reference in the shape GET /api/reference/ answers
// (tests/web/editor/test_reference.py pins the server's side of it).

import type { ReferenceData } from "../api/reference";

const parameter = (name: string, extra: Partial<ReferenceData["operations"][0]["parameters"][0]> = {}) => ({
  name,
  aliases: [],
  type: "text",
  required: false,
  default: null,
  positional: false,
  output: false,
  expanded: true,
  description: `The ${name}.`,
  ...extra,
});

export const REFERENCE: ReferenceData = {
  operations: [
    {
      namespace: "Files",
      name: "Ensure-File",
      aliases: [],
      kind: "ensure",
      description: "Ensures a file exists (or not) with the given text on the server in context.",
      parameters: [
        parameter("Name", { required: true, positional: true, description: "The path of the file." }),
        parameter("Text"),
        parameter("Exists", { type: "true/false", default: true }),
      ],
    },
    {
      namespace: "InedoCore",
      name: "Execute-Process",
      aliases: ["Exec"],
      kind: "execute",
      description: "Runs a program.",
      parameters: [
        parameter("FileName", { aliases: ["Program"], required: true, positional: true }),
        parameter("Arguments"),
        parameter("ExitCode", { output: true }),
      ],
    },
    {
      namespace: "InedoCore",
      name: "Apply-Template",
      aliases: [],
      kind: "execute",
      description: "Fills in a text template.",
      parameters: [
        parameter("Asset", { positional: true }),
        parameter("Literal", { expanded: false }),
        parameter("OutputFile"),
      ],
    },
    {
      namespace: "Linux",
      name: "Ensure-Service",
      aliases: [],
      kind: "ensure",
      description: "Ensures a systemd service.",
      parameters: [parameter("Name", { required: true, positional: true })],
    },
    {
      namespace: "Windows",
      name: "Ensure-Service",
      aliases: [],
      kind: "ensure",
      description: "Ensures a Windows service.",
      parameters: [parameter("Name", { required: true, positional: true })],
    },
  ],
  functions: [
    {
      name: "ToUpper",
      aliases: [],
      returns: "$",
      sigils: ["$"],
      signature: "$ToUpper(text)",
      parameters: [{ name: "text", required: true }],
      variadic: false,
      description: "The text in upper case.",
    },
    {
      name: "ServerName",
      aliases: [],
      returns: "$",
      sigils: ["$"],
      signature: "$ServerName()",
      parameters: [],
      variadic: false,
      description: "The server in context.",
    },
    {
      name: "Range",
      aliases: [],
      returns: "@",
      sigils: ["@"],
      signature: "@Range(start, count)",
      parameters: [
        { name: "start", required: true },
        { name: "count", required: true },
      ],
      variadic: false,
      description: "Whole numbers.",
    },
    {
      name: "Eval",
      aliases: [],
      returns: null,
      sigils: ["$", "@", "%"],
      signature: "$Eval(text)",
      parameters: [{ name: "text", required: true }],
      variadic: false,
      description: "The value of an expression.",
    },
  ],
};
