"""Text -> AST.

lark's LALR parser runs with the builder embedded, so the AST is built while parsing and no
parse tree is ever made. Comments are collected by a lexer callback and attached to statements
when their enclosing block is reduced. On a syntax error the parser records a diagnostic,
unwinds to the nearest statement list and carries on, so one run reports every error it can.

The modules, each importing only those before it: ``context`` (the state of a parse and the
spans of tokens), ``strings`` (scalars, strings and escapes), ``comments``, ``recovery`` (error
wording and recovery), ``builder`` (the transformer) and ``entry`` (the functions below).
"""

from engine.parser.entry import parse, parse_condition, parse_expression, parse_text, tree_parser

__all__ = ["parse", "parse_condition", "parse_expression", "parse_text", "tree_parser"]
