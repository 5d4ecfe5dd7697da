"""Text functions."""

from __future__ import annotations

import asyncio
import html
import json
import re
import urllib.parse

from engine.functions.arguments import text as _text
from engine.functions.arguments import whole_number
from engine.patterns import Match, Pattern
from engine.patterns import compile as compile_pattern
from engine.registry import function
from engine.values import Value, is_true, to_text


@function("ToUpper", returns="$", params=("text",), description="The text in upper case.")
def to_upper(call, text):
    return _text(text, "text").upper()


@function("ToLower", returns="$", params=("text",), description="The text in lower case.")
def to_lower(call, text):
    return _text(text, "text").lower()


def _trim(text: Value, characters: tuple[Value, ...], how: str) -> str:
    """Inedo's rule: only the arguments of one character are characters to trim; without any,
    white space is trimmed."""
    chars = "".join(c for c in characters if isinstance(c, str) and len(c) == 1) or None
    value = _text(text, "text")
    return {"both": value.strip, "start": value.lstrip, "end": value.rstrip}[how](chars)


@function(
    "Trim",
    returns="$",
    params=("text",),
    variadic=True,
    description="The text without white space (or the given characters, each one argument of "
    "one character) at either end.",
)
def trim(call, text, *characters):
    return _trim(text, characters, "both")


@function(
    "TrimStart",
    returns="$",
    params=("text",),
    variadic=True,
    description="The text without leading white space (or the given characters).",
)
def trim_start(call, text, *characters):
    return _trim(text, characters, "start")


@function(
    "TrimEnd",
    returns="$",
    params=("text",),
    variadic=True,
    description="The text without trailing white space (or the given characters).",
)
def trim_end(call, text, *characters):
    return _trim(text, characters, "end")


@function(
    "Substring",
    returns="$",
    params=("text", "offset", "length"),
    optional=1,
    description="Part of the text, from a zero-based offset; an offset past the end gives "
    "empty text, a length past the end the rest of the text.",
)
def substring(call, text, offset, length=None):
    value = _text(text, "text")
    start = whole_number(offset, "offset")
    if start < 0:
        raise ValueError(f"offset must not be negative, not {start}")
    if length is None:
        return value[start:]
    count = whole_number(length, "length")
    if count < 0:
        raise ValueError(f"length must not be negative, not {count}")
    return value[start : start + count]


@function(
    "Replace",
    returns="$",
    params=("text", "value", "replaceWith", "ignoreCase"),
    optional=1,
    description="The text with every occurrence of a value replaced.",
)
def replace(call, text, value, replace_with, ignore_case="false"):
    source, old, new = (
        _text(text, "text"),
        _text(value, "value"),
        _text(replace_with, "replaceWith"),
    )
    if not old:
        raise ValueError("the value to replace must not be empty")
    if is_true(ignore_case):
        return re.sub(re.escape(old), lambda _m: new, source, flags=re.IGNORECASE)
    return source.replace(old, new)


def _pad(text: Value, length: Value, pad: Value) -> tuple[str, int, str]:
    """Inedo's rule: the first character of padCharacter pads; empty, a space."""
    count = whole_number(length, "length")
    if count < 0:
        raise ValueError(f"length must not be negative, not {count}")
    return _text(text, "text"), count, _text(pad, "padCharacter")[:1] or " "


@function(
    "PadLeft",
    returns="$",
    params=("text", "length", "padCharacter"),
    optional=1,
    description="The text padded on the left to a length (with spaces, or the first character "
    "of padCharacter); longer text is left as it is.",
)
def pad_left(call, text, length, pad=" "):
    value, count, character = _pad(text, length, pad)
    return value.rjust(count, character)


@function(
    "PadRight",
    returns="$",
    params=("text", "length", "padCharacter"),
    optional=1,
    description="The text padded on the right to a length (with spaces, or the first character "
    "of padCharacter); longer text is left as it is.",
)
def pad_right(call, text, length, pad=" "):
    value, count, character = _pad(text, length, pad)
    return value.ljust(count, character)


@function(
    "Split",
    returns="@",
    params=("text", "separator", "count"),
    optional=1,
    description="The text split at a separator (at each white space character when the "
    "separator is empty), into at most count parts.",
)
def split(call, text, separator, count=None):
    value, sep = _text(text, "text"), _text(separator, "separator")
    most = 0  # no limit
    if count is not None:
        most = whole_number(count, "count")
        if most < 0:
            raise ValueError(f"count must not be negative, not {most}")
        if most <= 1:
            return [value] if most else []
    if not sep:
        return re.split(r"\s", value, maxsplit=max(0, most - 1))
    return value.split(sep, most - 1 if most else -1)


@function(
    "Join",
    returns="$",
    params=("separator", "values"),
    description="The items of a list joined with a separator.",
)
def join(call, separator, values):
    items = values if isinstance(values, list) else [values]
    return _text(separator, "separator").join(to_text(item) for item in items)


@function(
    "Coalesce",
    returns="$",
    variadic=True,
    description="The first argument that is not only white space.",
)
def coalesce(call, *values):
    for value in values:
        text = to_text(value)
        if text.strip():
            return text
    return ""


@function(
    "MatchesRegex",
    returns="$",
    params=("text", "regex"),
    description="true when the text matches the regular expression (anywhere in it).",
)
async def matches_regex(call, text, regex):
    found = await _off_the_loop(_pattern(regex).search, _text(text, "text"))
    return "true" if found else "false"


# .NET substitutions in a replacement: $1, ${name}, $$ and $& (or $0).
_SUBSTITUTION = re.compile(r"\$(?:(\d+)|\{([A-Za-z_]\w*|\d+)\}|(\$)|(&))")


def _substitute(template: str, match: Match) -> str:
    def group(found: re.Match[str]) -> str:
        number, name, dollar, whole = found.groups()
        if dollar:
            return "$"
        key: int | str = 0 if whole else (int(number) if number else name)
        if isinstance(key, str) and key.isdigit():
            key = int(key)
        try:
            return match.group(key) or ""
        except IndexError:  # a group the pattern does not have stays as written
            return found.group(0)

    return _SUBSTITUTION.sub(group, template)


@function(
    "RegexReplace",
    returns="$",
    params=("text", "matchExpression", "replaceWith"),
    description="The text with each regular expression match replaced: $1 or ${name} stand for "
    "a group, $& for the match, $$ for a dollar sign.",
)
async def regex_replace(call, text, expression, replace_with):
    template = _text(replace_with, "replaceWith")
    return await _off_the_loop(
        _pattern(expression).sub, lambda m: _substitute(template, m), _text(text, "text")
    )


@function(
    "RegexFind",
    returns="@",
    params=("text", "matchExpression", "matchGroup"),
    optional=1,
    description="Every match of a regular expression, or of one of its groups (by number or "
    "name; matches where that group took no part are left out).",
)
async def regex_find(call, text, expression, group=None):
    pattern = _pattern(expression)
    matches = await _off_the_loop(pattern.matches, _text(text, "text"))
    name = to_text(group) if group is not None else ""
    if not name:
        return [m.group(0) for m in matches]
    key: int | str = int(name) if name.isdigit() else name
    if (isinstance(key, int) and key > pattern.groups) or (
        isinstance(key, str) and key not in pattern.groupindex
    ):
        return []
    return [m.group(key) for m in matches if m.group(key) is not None]


async def _off_the_loop(match, *args):
    """Match on a thread (the regex package lets go of the GIL meanwhile), so that a pattern
    that runs to its time limit holds up neither the run's log, nor its heartbeat, nor a
    cancel."""
    return await asyncio.to_thread(match, *args)


def _pattern(expression: Value) -> Pattern:
    """The regular expression, .NET's spellings taken, with the engine's time limit per call."""
    return compile_pattern(_text(expression, "the regular expression"))


@function(
    "HtmlEncode",
    returns="$",
    params=("text",),
    description="The text encoded for HTML: & < > \" ' and the characters from U+00A0 up as "
    "character references.",
)
def html_encode(call, text):
    return "".join(
        f"&#{ord(c)};" if 0xA0 <= ord(c) <= 0xFF or ord(c) > 0xFFFF else c
        for c in html.escape(_text(text, "text")).replace("&#x27;", "&#39;")
    )


@function(
    "XmlEncode",
    returns="$",
    params=("text",),
    description="The text encoded for an XML element: & < and >.",
)
def xml_encode(call, text):
    return _text(text, "text").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


@function(
    "JSEncode",
    returns="$",
    params=("text",),
    description="The text encoded for a JavaScript or JSON string literal (quotes, "
    "backslashes and control characters escaped).",
)
def js_encode(call, text):
    return json.dumps(_text(text, "text"), ensure_ascii=False)[1:-1].replace("'", "\\u0027")


@function(
    "UrlEncode", returns="$", params=("text",), description="The text escaped for use in a URL."
)
def url_encode(call, text):
    return urllib.parse.quote(_text(text, "text"), safe="")


@function(
    "NewLine",
    returns="$",
    params=("WindowsOrLinux",),
    optional=1,
    description="The line break of Windows or Linux (current: the server in context's).",
)
def new_line(call, which="current"):
    choice = to_text(which).lower()
    if choice not in ("windows", "linux", "current"):
        raise ValueError("the argument is windows, linux or current")
    return "\r\n" if choice == "windows" else "\n"
