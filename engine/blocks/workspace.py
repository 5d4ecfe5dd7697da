"""What the two directions share: the block types, the error, and the checks on the shape of
a workspace's JSON (each says what it expected and what it found)."""

from __future__ import annotations

import re
from typing import Any

from engine import ast
from engine.visitor import snake_case

WORKSPACE_KEY = "otterscript"
RAW = "otter_raw"
COMMENT = re.compile(r"#[^\n]*|//[^\n]*|/\*(?:(?!\*/)[\s\S])*\*/")


def block_type(node_type: type[ast.Statement]) -> str:
    return "otter_" + snake_case(node_type.__name__)


STATEMENT_TYPES: dict[str, type[ast.Statement]] = {
    block_type(cls): cls for cls in ast.node_types() if issubclass(cls, ast.Statement)
}


class BlocksError(ValueError):
    """Workspace JSON that does not describe a script."""


def plain_text(comments: tuple[str, ...]) -> str:
    """Comments as the text of a comment icon: without their markers."""
    return "\n".join(ast.comment_text(comment) for comment in comments)


def json_kind(value: Any) -> str:
    """What a JSON value is, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "text"
    return "a list" if isinstance(value, list) else "an object"


def shown(value: Any) -> str:
    """A short picture of a JSON value for a message: text quoted and cut, else its kind."""
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:40] + "...")
    return json_kind(value)


def as_object(value: Any, what: str) -> dict[str, Any]:
    """``value`` when it is a JSON object, {} when it is absent (null)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise BlocksError(f"{what} must be a JSON object, not {json_kind(value)}")
    return value


def as_list(value: Any, what: str) -> list[Any]:
    """``value`` when it is a JSON list, [] when it is absent (null)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise BlocksError(f"{what} must be a list, not {json_kind(value)}")
    return value


def as_text(value: Any, what: str) -> str:
    """A field's or a setting's text: text, a number or a boolean (Blockly's TRUE/FALSE)."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, str | int | float):
        return str(value)
    raise BlocksError(f"{what} must be text, not {json_kind(value)}")


def as_comments(value: Any, what: str) -> tuple[str, ...]:
    """A list of comments, each as written (``# ...``, ``// ...`` or ``/* ... */``)."""
    return tuple(as_comment(item, what) for item in as_list(value, what))


def as_comment(value: Any, what: str) -> str:
    if not isinstance(value, str) or not COMMENT.fullmatch(value):
        raise BlocksError(
            f"{what} must be comments (# ..., // ... or /* ... */), not {shown(value)}"
        )
    return value
