// The parser and its term ids, generated from otterscript.grammar at build time by
// @lezer/generator's plugin (vite.config.ts). Only the terms the tokenizers use are declared.
declare module "*.grammar" {
  import type { LRParser } from "@lezer/lr";
  export const parser: LRParser;
}

declare module "*.grammar.terms" {
  export const ArgTextStart: number;
  export const ArgText: number;
  export const LineTextStart: number;
  export const LineText: number;
  export const PosTextStart: number;
  export const PosText: number;
  export const CondTextStart: number;
  export const CondText: number;
  export const CtxTextStart: number;
  export const CtxText: number;
  export const DefTextStart: number;
  export const DefText: number;
  export const IdxTextStart: number;
  export const IdxText: number;
  export const MapKey: number;
  export const DotKey: number;
  export const SwimOpen: number;
  export const SwimText: number;
  export const SwimClose: number;
  export const Identifier: number;
  export const LogKeyword: number;
}
