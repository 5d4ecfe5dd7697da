"""Syntax errors: their wording (what was expected, what was found, the likely mistake) and
the recovery that lets one parse report every error it can.

On a syntax error lark calls ``recover``: a ';' or ',' missing at a line end is inserted with a
warning; anything else is reported, the parser unwinds to the nearest statement list and
carries on.
"""

from __future__ import annotations

import re

from lark import Token
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken
from lark.lexer import LineCounter
from lark.parsers.lalr_interactive_parser import InteractiveParser

from engine.keywords import NOT_STATEMENTS, STATEMENT_KEYWORDS
from engine.parser.context import current, placed, token_span
from engine.parser.strings import IMPLICIT_TEXT
from engine.spans import Span, span_at

MAX_ERRORS = 100
# Recovering from an error costs a few hundred microseconds: past this many, the parse stops
# (garbage of a megabyte would otherwise take a minute, most of its errors on one line).
MAX_RECOVERIES = 1000

TERMINAL_NAMES = {
    "SEMI": "';'",
    "COMMA": "','",
    "COLON": "':'",
    "DCOLON": "'::'",
    "ARROW": "'=>'",
    "EQUALS": "'='",
    "LPAREN": "'('",
    "RPAREN": "')'",
    "LBRACE": "'{'",
    "RBRACE": "'}'",
    "LBRACK": "'['",
    "RBRACK": "']'",
    "LT": "'<'",
    "GT": "'>'",
    "EQ_OP": "'=='",
    "NE_OP": "'!='",
    "AND_OP": "'&&'",
    "OR_OP": "'||'",
    "NOT_OP": "'!'",
    "NAME": "a name",
    "VARNAME": "a variable like $name",
    "MAP_KEY": "a map key",
    "DIRECTIVE_VALUE": "a directive value",
    "CONTEXT_TYPE": "'server', 'role' or 'directory'",
    "LOG_KEYWORD": "Log-Information",
    "HEADER": "a ##AH: header",
    "DOTKEY": "'.key'",
    "$END": "the end of the script",
}
VALUE_TERMINALS = IMPLICIT_TEXT | {
    "QUOTED",
    "SWIM",
    "VAR",
    "BRACED_VAR",
    "ESCAPE",
    "LONE_DOLLAR",
    "CALL_OPEN",
    "SUBEXPR_OPEN",
    "VECTOR_OPEN",
    "MAP_OPEN",
    "LIST_OR_MAP_CALL",
    "LIST_OR_MAP_VAR",
    "BODY_TEXT",
}
STATEMENT_STARTS = {
    "SET",
    "IF",
    "FOREACH",
    "FOR",
    "WITH",
    "TRY",
    "CALL",
    "MODULE",
    "AWAIT",
    "THROW",
    "LOG_KEYWORD",
}


def _describe_expected(expected: set[str]) -> str:
    words: list[str] = []
    if expected & STATEMENT_STARTS:
        words.append("a statement")
        expected = (
            expected
            - STATEMENT_STARTS
            - {
                "NAME",
                "LBRACE",
                "GLOBAL",
                "FAIL",
                "ERROR",
                "WARN",
                "FORCE",
                "BREAK",
                "CONTINUE",
                "RETURN",
                "HEADER",
            }
        )
    if expected & VALUE_TERMINALS:
        words.append("a value")
        expected = expected - VALUE_TERMINALS
    keywords = sorted(
        name.lower()
        for name in expected
        if name.isalpha() and name.isupper() and name not in TERMINAL_NAMES
    )
    words.extend(f"'{word}'" for word in keywords)
    words.extend(sorted(TERMINAL_NAMES[name] for name in expected if name in TERMINAL_NAMES))
    words = list(dict.fromkeys(words))
    if not words:
        return "something else"
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " or " + words[-1]


def _describe_token(token: Token) -> str:
    if token.type == "$END":
        return "the end of the script"
    value = token.value.split("\n", 1)[0]
    if len(value) > 30:
        value = value[:27] + "..."
    return f"'{value}'"


def _hint(text: str, token: Token) -> str | None:
    """A sentence that names the likely mistake, for the common ones."""
    found = token.value.lower() if token.type != "$END" else ""
    if found in NOT_STATEMENTS:
        return NOT_STATEMENTS[found]
    position = len(text) if token.type == "$END" else token.start_pos
    start = (
        max(
            text.rfind(";", 0, position), text.rfind("{", 0, position), text.rfind("}", 0, position)
        )
        + 1
    )
    statement = _strip_comments(text[start:position]).strip()
    first = re.match(r"[A-Za-z][A-Za-z0-9_\-]*", statement)
    word = first.group(0) if first else ""
    if word.lower() in NOT_STATEMENTS:
        return f"'{word}' is not a statement: {NOT_STATEMENTS[word.lower()]}"
    if word != word.lower() and word.lower() in STATEMENT_KEYWORDS:
        return f"keywords are lower case: write '{word.lower()}'"
    if token.value == "{" and word and word not in STATEMENT_KEYWORDS:
        return "argument lists are written in parentheses: Name ( Arg: value );"
    if token.type != "$END" and not statement and token.value[:1] in "$@%":
        if re.match(r"[$@%][A-Za-z{][^=;\n]*=", text[position:]):
            return "assign with 'set $name = value;'"
        return "a value alone is not a statement: use it in one, like set $x = …; or Log-Information …;"
    if token.value == "(" and not statement and text[:position].rstrip().endswith(";"):
        return "remove the ';' before this '(': an argument list belongs to the operation before it"
    return None


_UNTERMINATED = "unterminated string: the {quote} has no closing {quote} on its line (use a swim string >>…>> for text over several lines)"


def _strip_comments(text: str) -> str:
    return re.sub(r"(?m)^\s*(#|//).*$", "", text)


def report_unexpected(error: UnexpectedInput, text: str) -> None:
    ctx = current()
    hint = ""
    if isinstance(error, UnexpectedToken):
        token = error.token
        if token.type == "$END":
            offset = len(text)
            span = placed(span_at(text, max(0, offset - 1), 1))
            opened = _unclosed_brace(error)
            expected = _describe_expected(set(error.expected))
            message = f"unexpected end of the script: expected {expected}"
            if opened is not None:
                message = f"unexpected end of the script: expected '}}' to close the '{{' on line {opened}"
        elif token.value[:1] in "\"'" and token.value.split("\n", 1)[0].count(token.value[0]) < 2:
            span = token_span(token)
            message = _UNTERMINATED.format(quote=token.value[0])
        else:
            span = token_span(token)
            message = f"expected {_describe_expected(set(error.expected))}, found {_describe_token(token)}"
            hint = _hint(text, token) or ""
    elif isinstance(error, UnexpectedCharacters):
        position = _character_position(error)
        span = placed(span_at(text, position, 1))
        char = text[position] if position < len(text) else ""
        rest_of_line = text[position:].split("\n", 1)[0]
        if char in "\"'" and rest_of_line.count(char) < 2:
            message = _UNTERMINATED.format(quote=char)
        elif text.startswith("/*", position):
            message = "unterminated comment: '/*' has no closing '*/'"
        elif text.startswith("${", position):
            message = "unterminated variable: '${' has no closing '}'"
        else:
            allowed = set(error.allowed or ())
            message = f"unexpected character {char!r}: expected {_describe_expected(allowed)}"
    else:  # pragma: no cover - lark raises only the two above
        span = placed(span_at(text, 0, 1))
        message = str(error)
    if span.line == ctx.last_error_line:
        return
    ctx.last_error_line = span.line
    ctx.error_count += 1
    ctx.report(span, message, hint=hint)


def _unclosed_brace(error: UnexpectedToken) -> int | None:
    parser = getattr(error, "interactive_parser", None)
    if parser is None:
        return None
    for value in reversed(parser.parser_state.value_stack):
        if isinstance(value, Token) and value.type == "LBRACE":
            return token_span(value).line
    return None


# A name that is not an argument (`Name:`), or the '}' that closes the block. A '{' is left out:
# after an operation it is the common mistake of braces around the arguments.
STATEMENT_START = re.compile(r"\}|[A-Za-z][A-Za-z0-9_\-]*(?!\s*(?::[^:]|=>))")
ARGUMENT_START = re.compile(r"[A-Za-z][A-Za-z0-9_\-]*\s*(?::|=>)")
SEPARATORS = {"SEMI": (";", STATEMENT_START), "COMMA": (",", ARGUMENT_START)}


def _character_position(error: UnexpectedCharacters) -> int:
    # lark declares pos_in_stream None on UnexpectedInput; UnexpectedCharacters sets the offset
    return error.pos_in_stream  # type: ignore[return-value]


def _token_position(token: Token) -> int:
    assert token.start_pos is not None  # lark types it Optional; its lexer always sets it
    return token.start_pos


def _error_position(error: UnexpectedInput) -> int:
    if isinstance(error, UnexpectedToken):
        return len(current().text) if error.token.type == "$END" else _token_position(error.token)
    assert isinstance(error, UnexpectedCharacters)  # lark raises only the two
    return _character_position(error)


def _insert_separator(error: UnexpectedInput) -> bool:
    """A ';' or ',' missing at the end of a line, where the next line plainly starts a new
    statement or argument: insert it, warn, and go on."""
    ctx = current()
    text = ctx.text
    position = _error_position(error)
    before = len(text[:position].rstrip())
    if "\n" not in text[before:position] and position < len(text):
        return False
    if position in ctx.inserted:
        return False
    parser = error.interactive_parser
    state = parser.parser_state
    accepts = state.parse_conf.parse_table.states[state.position]
    for terminal, (char, follows) in SEPARATORS.items():
        if terminal not in accepts:
            continue
        if position < len(text) and not follows.match(text, position):
            continue
        ctx.inserted.add(position)
        line, column = _line_and_column(text, before)
        parser.feed_token(
            Token(
                terminal,
                char,
                start_pos=before,
                line=line,
                column=column,
                end_line=line,
                end_column=column,
                end_pos=before,
            )
        )
        _rewind(parser, position)
        where = span_at(text, max(0, before - 1), 1)
        ctx.report(
            Span(
                before, before, where.end_line, where.end_column, where.end_line, where.end_column
            ),
            f"missing '{char}' at the end of line {where.end_line}: accepted, but add the '{char}'",
            severity="warning",
            code="missing-semicolon" if char == ";" else "missing-comma",
        )
        return True
    return False


def _line_and_column(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def recover(error: UnexpectedInput) -> bool:
    """lark's on_error hook: insert a separator missing at a line end, or report, unwind to the
    nearest statement list, and go on."""
    ctx = current()
    if ctx.base is None and _insert_separator(error):
        return True
    report_unexpected(error, ctx.text)
    ctx.recoveries += 1
    if ctx.error_count >= MAX_ERRORS or ctx.recoveries > MAX_RECOVERIES:
        return False
    parser = error.interactive_parser
    state = parser.parser_state
    states = state.parse_conf.parse_table.states
    stack = state.state_stack
    while len(stack) > 1 and "statement" not in states[stack[-1]]:
        stack.pop()
        state.value_stack.pop()
    if "statement" not in states[stack[-1]]:
        return False
    if isinstance(error, UnexpectedCharacters):
        # skip the rest of the line
        counter = _line_counter(parser)
        position = counter.char_pos
        newline = ctx.text.find("\n", position)
        end = len(ctx.text) if newline < 0 else newline
        counter.feed(ctx.text[position:end] or ctx.text[position : position + 1])
        return True
    assert isinstance(error, UnexpectedToken)  # lark raises only the two
    if error.token.type == "$END":
        return False
    position = _token_position(error.token)
    if position not in ctx.rewound:
        # read the token again in the statement list's own lexer state: it may start a statement
        ctx.rewound.add(position)
        _rewind(parser, position)
    return True


def _line_counter(parser: InteractiveParser) -> LineCounter:
    state = parser.lexer_thread.state
    assert state is not None  # lark types it Optional; a parse always has one
    return state.line_ctr


def _rewind(parser: InteractiveParser, position: int) -> None:
    counter = _line_counter(parser)
    line, column = _line_and_column(current().text, position)
    counter.char_pos, counter.line, counter.column = position, line, column
    counter.line_start_pos = position - column + 1
