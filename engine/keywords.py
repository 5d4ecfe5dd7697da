"""The reserved words of OtterScript, and the statements people write that it does not have.

The grammar (grammar/otterscript.lark) is the authority on syntax; these lists serve the
messages and checks that name a keyword."""

from __future__ import annotations

# Words that begin a statement (or continue one, like `else` and `catch`).
STATEMENT_KEYWORDS = frozenset(
    {
        "set",
        "global",
        "if",
        "else",
        "foreach",
        "for",
        "with",
        "await",
        "try",
        "catch",
        "throw",
        "fail",
        "error",
        "warn",
        "force",
        "break",
        "continue",
        "return",
        "module",
        "call",
    }
)

# Every reserved word: the statement keywords and the words that only appear inside statements.
KEYWORDS = STATEMENT_KEYWORDS | {
    "local",
    "in",
    "out",
    "normal",
    "server",
    "role",
    "directory",
    "deployable",
}

# Statements from other languages or old documentation, with what to write instead.
NOT_STATEMENTS = {
    "retry": "use 'with retry=N { … }'",
    "timeout": "use 'with timeout=SECONDS { … }'",
    "lock": "use 'with lock=token { … }'",
    "async": "use 'with async { … }'",
    "elseif": "write 'else if'",
    "elif": "write 'else if'",
    "finally": "OtterScript has no 'finally': use try { … } catch { … }",
    "template": "'template' was renamed 'module'",
    "while": "OtterScript has no 'while': use foreach over a list, like foreach $i in @Range(0, 10) { … }",
    "raise-error": "use 'throw message;'",
    "set-status": "use 'error;', 'warn;' or 'force normal;'",
}
