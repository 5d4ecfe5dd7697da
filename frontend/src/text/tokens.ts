// The context-dependent tokens of OtterScript (see otterscript.grammar): implicit text, which
// ends at the delimiters of the place it stands in, map keys, swim strings, and the
// case-insensitive log statements. Mirrors the terminals of engine/grammar/otterscript.lark.

import { ContextTracker, ExternalTokenizer, type InputStream, type Stack } from "@lezer/lr";
import {
  ArgText,
  ArgTextStart,
  CondText,
  CondTextStart,
  CtxText,
  CtxTextStart,
  DefText,
  DefTextStart,
  DotKey,
  Identifier,
  IdxText,
  IdxTextStart,
  LineText,
  LineTextStart,
  LogKeyword,
  MapKey,
  PosText,
  PosTextStart,
  SwimClose,
  SwimOpen,
  SwimText,
} from "./otterscript.grammar.terms";

const NEWLINE = 10;
const CR = 13;
const SPACE = 32;
const TAB = 9;
const DOLLAR = 36;
const BACKTICK = 96;
const GT = 62;
const HASH = 35;
const SLASH = 47;
const STAR = 42;
const LPAREN = 40;
const RPAREN = 41;
const COMMA = 44;
const SEMI = 59;
const COLON = 58;
const LBRACE = 123;
const RBRACE = 125;
const LBRACKET = 91;
const RBRACKET = 93;
const DOT = 46;
const EQUALS = 61;
const BANG = 33;
const AMP = 38;
const PIPE = 124;
const AT = 64;
const PERCENT = 37;
const DQUOTE = 34;
const SQUOTE = 39;

const isBlank = (c: number) => c === SPACE || c === TAB || c === CR || c === 12;
const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isWordChar = (c: number) => isLetter(c) || (c >= 48 && c <= 57) || c === 95;
const isNameChar = (c: number) => isWordChar(c) || c === 45;

/** The places implicit text stands in, by the text's delimiters (decision 1). */
type Place = "arg" | "line" | "positional" | "condition" | "context" | "default" | "index";

interface TextTerms {
  place: Place;
  start: number;
  more: number;
}

const TEXTS: TextTerms[] = [
  { place: "arg", start: ArgTextStart, more: ArgText },
  { place: "line", start: LineTextStart, more: LineText },
  { place: "positional", start: PosTextStart, more: PosText },
  { place: "condition", start: CondTextStart, more: CondText },
  { place: "context", start: CtxTextStart, more: CtxText },
  { place: "default", start: DefTextStart, more: DefText },
  { place: "index", start: IdxTextStart, more: IdxText },
];

/** Whether the character at `offset` ends text in `place` (the multi-character ones too). */
function endsText(input: InputStream, offset: number, place: Place): boolean {
  const c = input.peek(offset);
  switch (place) {
    case "arg":
      return c === COMMA || c === LPAREN || c === RPAREN;
    case "line":
      return c === SEMI;
    case "positional":
      return c === SEMI || c === LPAREN || c === LBRACE || c === RBRACE;
    case "condition": {
      if (c === LPAREN || c === RPAREN || c === LBRACE || c === RBRACE) return true;
      const next = input.peek(offset + 1);
      return (
        ((c === EQUALS || c === BANG) && next === EQUALS) ||
        (c === AMP && next === AMP) ||
        (c === PIPE && next === PIPE)
      );
    }
    case "context":
      return c === LBRACE;
    case "default":
      return c === COMMA || c === GT;
    case "index":
      return c === RBRACKET;
  }
}

/** `#`, `//` or `/*` followed by white space or the end of the line: a comment (decision 5). */
function isCommentStart(input: InputStream, offset: number): boolean {
  const c = input.peek(offset);
  let after: number;
  if (c === HASH) after = offset + 1;
  else if (c === SLASH && (input.peek(offset + 1) === SLASH || input.peek(offset + 1) === STAR))
    after = offset + 2;
  else return false;
  const next = input.peek(after);
  return next < 0 || next === NEWLINE || isBlank(next);
}

/** `(` … `)` without an expansion or a line break: text in an argument value. */
function balancedGroup(input: InputStream, offset: number): number {
  for (let i = offset + 1; ; i++) {
    const c = input.peek(i);
    if (c === RPAREN) return i + 1 - offset;
    if (c < 0 || c === NEWLINE || c === LPAREN || c === DOLLAR || c === BACKTICK) return 0;
  }
}

/** The length of implicit text in `place` from the current position (0: none). */
function scanText(input: InputStream, place: Place, starting: boolean): number {
  let length = 0;
  for (;;) {
    const c = input.peek(length);
    if (c < 0 || c === NEWLINE || c === DOLLAR || c === BACKTICK) break;
    if (isBlank(c)) {
      let end = length + 1;
      while (isBlank(input.peek(end))) end++;
      const next = input.peek(end);
      if (next < 0 || next === NEWLINE || isCommentStart(input, end)) break;
      if (endsText(input, end, place) && !(place === "arg" && balancedGroup(input, end))) break;
      length = end;
      continue;
    }
    if (endsText(input, length, place)) {
      if (place === "arg" && c === LPAREN) {
        const group = balancedGroup(input, length);
        if (group) {
          length += group;
          continue;
        }
      }
      break;
    }
    if (place === "condition" && starting && length === 0 && c === BANG) break;
    length++;
  }
  return length;
}

/** Where a value may start: not a quote, a comment, a list or map, or a swim string. */
function mayStartText(input: InputStream): boolean {
  const c = input.peek(0);
  if (c < 0 || isBlank(c) || c === NEWLINE || c === DQUOTE || c === SQUOTE) return false;
  if (isCommentStart(input, 0)) return false;
  if (c === AT || c === PERCENT) {
    const next = input.peek(1);
    if (isLetter(next) || next === LPAREN || next === LBRACE) return false;
  }
  return true;
}

/** Only white space between the start of the line and here. */
function startsLine(input: InputStream): boolean {
  for (let i = -1; ; i--) {
    const c = input.peek(i);
    if (c < 0 || c === NEWLINE) return true;
    if (!isBlank(c)) return false;
  }
}

/** A line break between the previous token and here. */
function afterLineBreak(input: InputStream): boolean {
  for (let i = -1; ; i--) {
    const c = input.peek(i);
    if (c === NEWLINE) return true;
    if (c < 0 || !isBlank(c)) return false;
  }
}

/** `Name:` or `Name =>` here: the next argument, after one whose `,` was left out. */
function looksLikeArgumentName(input: InputStream): boolean {
  let i = 0;
  if (!isLetter(input.peek(0))) return false;
  while (isNameChar(input.peek(i))) i++;
  while (isBlank(input.peek(i))) i++;
  const c = input.peek(i);
  return (c === COLON && input.peek(i + 1) !== COLON) || (c === EQUALS && input.peek(i + 1) === GT);
}

/** A swim string's opening sentinel here: `>`, up to five characters, `>`; its length. */
function swimOpening(input: InputStream): number {
  if (input.peek(0) !== GT) return 0;
  for (let i = 1; i <= 6; i++) {
    const c = input.peek(i);
    if (c === GT) return i + 1;
    if (c < 0 || isBlank(c) || c === NEWLINE) return 0;
  }
  return 0;
}

/** The open swim strings, innermost first (an expansion inside one may hold another). */
export class SwimContext {
  constructor(
    readonly sentinel: string,
    readonly parent: SwimContext | null,
  ) {}

  get hash(): number {
    let hash = this.parent ? this.parent.hash : 0;
    for (let i = 0; i < this.sentinel.length; i++)
      hash = (hash * 31 + this.sentinel.charCodeAt(i)) | 0;
    return hash + 1;
  }
}

function readSentinel(input: InputStream): string {
  let text = "";
  for (let i = 0; i < 7; i++) {
    const c = input.peek(i);
    if (c < 0) break;
    text += String.fromCharCode(c);
    if (i > 0 && c === GT) break;
  }
  return text;
}

export const swimContext = new ContextTracker<SwimContext | null>({
  start: null,
  shift(context, term, _stack, input) {
    if (term === SwimOpen) return new SwimContext(readSentinel(input), context);
    if (term === SwimClose) return context ? context.parent : null;
    return context;
  },
  hash: (context) => (context ? context.hash : 0),
  strict: false,
});

/** Whether the closing sentinel stands at `offset` (one followed by more `>` moves right). */
function closesSwim(input: InputStream, offset: number, sentinel: string): boolean {
  for (let i = 0; i < sentinel.length; i++)
    if (input.peek(offset + i) !== sentinel.charCodeAt(i)) return false;
  return input.peek(offset + sentinel.length) !== GT;
}

function swimBody(input: InputStream, stack: Stack): boolean {
  const context = stack.context as SwimContext | null;
  if (!context) return false;
  const { sentinel } = context;
  if (closesSwim(input, 0, sentinel)) {
    if (!stack.canShift(SwimClose)) return false;
    input.acceptToken(SwimClose, sentinel.length);
    return true;
  }
  let length = 0;
  for (;;) {
    const c = input.peek(length);
    if (c < 0 || c === DOLLAR || c === BACKTICK) break;
    if (c === GT && closesSwim(input, length, sentinel)) break;
    length++;
  }
  if (!length) return false;
  input.acceptToken(SwimText, length);
  return true;
}

export const implicitText = new ExternalTokenizer(
  (input, stack) => {
    if (stack.canShift(SwimText) && swimBody(input, stack)) return;
    const c = input.peek(0);
    if (c < 0) return;
    if (stack.canShift(SwimOpen)) {
      const opening = swimOpening(input);
      if (opening) {
        input.acceptToken(SwimOpen, opening);
        return;
      }
    }
    const previous = input.peek(-1);
    const glued = previous >= 0 && !isBlank(previous) && previous !== NEWLINE;
    // `@list[0]`, `%map.key`: an index, not text
    if (glued && stack.canShift(DotKey) && (c === LBRACKET || (c === DOT && isWordChar(input.peek(1)))))
      return;
    for (const { place, start, more } of TEXTS) {
      if (glued && stack.canShift(more)) {
        const length = scanText(input, place, false);
        if (length) input.acceptToken(more, length);
        return;
      }
      if (stack.canShift(start)) {
        if (!mayStartText(input)) return;
        if (place === "positional" && (afterLineBreak(input) || (c === COLON && input.peek(1) === COLON)))
          return;
        if (stack.canShift(Identifier) && startsLine(input) && looksLikeArgumentName(input))
          return;
        const length = scanText(input, place, true);
        if (length) input.acceptToken(start, length);
        return;
      }
    }
    if (stack.canShift(MapKey) && mayStartText(input)) {
      let length = 0;
      for (;;) {
        const k = input.peek(length);
        if (
          k < 0 ||
          k === NEWLINE ||
          k === COLON ||
          k === COMMA ||
          k === LPAREN ||
          k === RPAREN ||
          k === DOLLAR ||
          k === BACKTICK
        )
          break;
        length++;
      }
      while (length > 0 && isBlank(input.peek(length - 1))) length--;
      if (length) input.acceptToken(MapKey, length);
    }
  },
  { contextual: true },
);

const LOG_KEYWORDS = new Set(["log-debug", "log-information", "log-warning", "log-error"]);

/** `Log-Information`, `log-information`: the log statements are case-insensitive (decision 9). */
export function logKeyword(value: string): number {
  return LOG_KEYWORDS.has(value.toLowerCase()) ? LogKeyword : -1;
}
