// OtterScript for CodeMirror: the Lezer parser with highlighting tags, indentation, folding of
// blocks, argument lists, lists, maps and comments, bracket pairs and comment tokens.

import {
  continuedIndent,
  delimitedIndent,
  foldInside,
  foldNodeProp,
  indentNodeProp,
  LanguageSupport,
  LRLanguage,
} from "@codemirror/language";
import { NodeProp } from "@lezer/common";
import { styleTags, tags as t } from "@lezer/highlight";
import { parser } from "./otterscript.grammar";

const TEXT = "ArgTextStart ArgText LineTextStart LineText PosTextStart PosText CondTextStart CondText CtxTextStart CtxText DefTextStart DefText IdxTextStart IdxText";
const OPENERS = "ListOpen MapOpen ScalarFunction ListFunction MapFunction SubexpressionOpen";

export const otterscriptLanguage = LRLanguage.define({
  name: "otterscript",
  parser: parser.configure({
    // A typed key makes Lezer parse again from the start of the leaf buffer that holds it (the
    // parser reuses a buffer only whole): 256 nodes a buffer instead of 1,024 parses about 70
    // tokens a key instead of 270 in a long script (10,000 lines: 0.6 ms instead of 0.8 in
    // Node; JavaScript per key in bench/editor.py 3.9-4.1 ms instead of 4.6, the same day).
    bufferLength: 256,
    props: [
      styleTags({
        LineComment: t.lineComment,
        BlockComment: t.blockComment,
        "set local global if else foreach in for with await try catch throw module out call": t.keyword,
        "fail error warn force normal break continue return": t.controlKeyword,
        LogKeyword: t.function(t.keyword),
        "OperationName/Identifier CallStatement/OperationName/Identifier": t.function(t.propertyName),
        "Namespace/Identifier": t.namespace,
        "ModuleName/Identifier": t.definition(t.function(t.propertyName)),
        "ArgumentName/Identifier": t.attributeName,
        MapKey: t.propertyName,
        "DirectiveName/Identifier": t.attributeName,
        DirectiveValue: t.attributeValue,
        "ContextType/Identifier": t.typeName,
        "AwaitStatement/Identifier": t.labelName,
        DeclaredVariable: t.definition(t.variableName),
        ScalarVariable: t.variableName,
        "ListVariable MapVariable": t.special(t.variableName),
        "ScalarFunction ListFunction MapFunction": t.function(t.variableName),
        "ListOpen MapOpen SubexpressionOpen LoneDollar": t.special(t.variableName),
        DotKey: t.propertyName,
        Escape: t.escape,
        "QuotedString DoubleQuotedText SingleQuotedText": t.string,
        "SwimOpen SwimClose SwimText": t.special(t.string),
        [TEXT]: t.content,
        CompareOp: t.compareOperator,
        LogicOp: t.logicOperator,
        '"=" "=>"': t.definitionOperator,
        '"::"': t.punctuation,
        '"(" ")"': t.paren,
        '"{" "}"': t.brace,
        '"[" "]"': t.squareBracket,
        '"<" ">"': t.angleBracket,
        '";" "," ":"': t.separator,
      }),
      indentNodeProp.add({
        Block: delimitedIndent({ closing: "}" }),
        "ArgList ListLiteral MapLiteral FunctionCall ListFunctionCall MapFunctionCall": delimitedIndent({
          closing: ")",
          align: false,
        }),
        "OperationCall SetStatement LogStatement": continuedIndent(),
      }),
      foldNodeProp.add({
        "Block ArgList ListLiteral MapLiteral": foldInside,
        BlockComment: (node) => ({ from: node.from + 2, to: node.to - 2 }),
        SwimString: (node) => {
          const open = node.firstChild;
          const close = node.lastChild;
          return open && close && close.from > open.to ? { from: open.to, to: close.from } : null;
        },
      }),
      NodeProp.closedBy.add({ [OPENERS]: [")"] }),
      NodeProp.openedBy.add({ ")": ["(", ...OPENERS.split(" ")] }),
    ],
  }),
  languageData: {
    commentTokens: { line: "#", block: { open: "/*", close: "*/" } },
    closeBrackets: { brackets: ["(", "[", "{", '"', "'"] },
    indentOnInput: /^\s*[})]$/,
    wordChars: "-",
  },
});

export function otterscript(): LanguageSupport {
  return new LanguageSupport(otterscriptLanguage);
}
