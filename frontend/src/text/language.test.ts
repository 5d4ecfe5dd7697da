import { describe, expect, test } from "vitest";
import { parser } from "./otterscript.grammar";

/** The leaf nodes of `text` as "Name:text", errors as "⚠". */
function leaves(text: string): string[] {
  const found: string[] = [];
  parser.parse(text).iterate({
    enter(node) {
      if (node.type.isError) found.push("⚠");
      else if (!node.node.firstChild && node.name !== "Script")
        found.push(`${node.name}:${text.slice(node.from, node.to)}`);
    },
  });
  return found;
}

describe("the OtterScript grammar", () => {
  test("test_grammar_reads_a_swim_string_with_its_expansions", () => {
    expect(leaves("PSExec >>\n  Get-Item $Path $Join(a, @List)\n>>;")).toEqual([
      "Identifier:PSExec",
      "SwimOpen:>>",
      "SwimText:\n  Get-Item ",
      "ScalarVariable:$Path",
      "SwimText: ",
      "ScalarFunction:$Join(",
      "ArgTextStart:a",
      ",:,",
      "ListVariable:@List",
      "):)",
      "SwimText:\n",
      "SwimClose:>>",
      ";:;",
    ]);
  });

  test("test_grammar_moves_a_swim_strings_end_right_past_more_sentinel", () => {
    expect(leaves("set $x = >a>one>a>;")).toContain("SwimText:one");
    expect(leaves("set $x = >>a>>>;")).toEqual(
      expect.arrayContaining(["SwimText:a>", "SwimClose:>>"]),
    );
  });

  test("test_grammar_tells_comments_from_text", () => {
    expect(leaves("Log-Information Build #42 # the build\n;")).toEqual([
      "LogKeyword:Log-Information",
      "LineTextStart:Build #42",
      "LineComment:# the build",
      ";:;",
    ]);
    expect(leaves("Exec (Url: http://host/#top); /* done */")).toContain("ArgTextStart:http://host/#top");
    expect(leaves("Exec x; /* a\nb */")).toContain("BlockComment:/* a\nb */");
  });

  test("test_grammar_reads_expansions_lists_maps_and_indexes", () => {
    expect(leaves('set %m = %(a: $x, b: @(1, 2)); Log-Information "$m";\nLog-Information %m.a ${a b} `$;')).toEqual(
      expect.arrayContaining([
        "MapOpen:%(",
        "MapKey:a",
        "ListOpen:@(",
        "ScalarVariable:$m",
        "DotKey:.a",
        "ScalarVariable:${a b}",
        "Escape:`$",
      ]),
    );
  });

  test("test_grammar_reads_statements_and_keywords", () => {
    const text = "if $a == b && !($c != d) { foreach $s in @Servers { with retry=3 { call raft::M(X: 1); } } } else { fail; }";
    expect(leaves(text)).not.toContain("⚠");
    expect(leaves(text)).toEqual(expect.arrayContaining(["if:if", "CompareOp:==", "LogicOp:&&", "LogicOp:!", "foreach:foreach", "with:with", "DirectiveValue:3", "call:call", "fail:fail"]));
  });

  test("test_grammar_reads_a_namespaced_operation_and_its_arguments", () => {
    expect(leaves("Files::Ensure-File /etc/$Name.conf (Exists: true, Text => $t);")).toEqual([
      "Identifier:Files",
      ":::::",
      "Identifier:Ensure-File",
      "PosTextStart:/etc/",
      "ScalarVariable:$Name",
      "PosText:.conf",
      "(:(",
      "Identifier:Exists",
      ":::",
      "ArgTextStart:true",
      ",:,",
      "Identifier:Text",
      "=>:=>",
      "DeclaredVariable:$t",
      "):)",
      ";:;",
    ]);
  });
});
