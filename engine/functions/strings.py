"""Text functions."""

from __future__ import annotations

import html
import json
import re
import urllib.parse
from datetime import UTC, datetime
from xml.sax.saxutils import escape as xml_escape

from engine.registry import function
from engine.values import Value, is_true, to_text

_DOTNET_TOKENS = [
    ("yyyy", "%Y"), ("yy", "%y"), ("MMMM", "%B"), ("MMM", "%b"), ("MM", "%m"), ("dddd", "%A"), ("ddd", "%a"),
    ("dd", "%d"), ("HH", "%H"), ("hh", "%I"), ("mm", "%M"), ("ss", "%S"), ("fff", "%f"), ("tt", "%p"),
]  # fmt: skip


def _text(value: Value, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} must be text, not a list or map")
    return value


def _integer(value: Value, what: str) -> int:
    try:
        return int(_text(value, what).strip())
    except ValueError:
        raise ValueError(f"{what} must be a whole number, not '{to_text(value)}'") from None


@function("ToUpper", returns="$", params=("text",), description="The text in upper case.")
def to_upper(call, text):
    return _text(text, "text").upper()


@function("ToLower", returns="$", params=("text",), description="The text in lower case.")
def to_lower(call, text):
    return _text(text, "text").lower()


def _trim(text: Value, characters: tuple[Value, ...], how: str) -> str:
    chars = "".join(_text(c, "a character to trim") for c in characters) or None
    value = _text(text, "text")
    return {"both": value.strip, "start": value.lstrip, "end": value.rstrip}[how](chars)


@function(
    "Trim",
    returns="$",
    params=("text",),
    variadic=True,
    description="The text without white space (or the given characters) at either end.",
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
    description="Part of the text, from a zero-based offset.",
)
def substring(call, text, offset, length=None):
    value = _text(text, "text")
    start = _integer(offset, "offset")
    if not 0 <= start <= len(value):
        raise ValueError(f"offset {start} is outside the text (length {len(value)})")
    if length is None:
        return value[start:]
    count = _integer(length, "length")
    if count < 0 or start + count > len(value):
        raise ValueError(
            f"length {count} from offset {start} runs past the end of the text (length {len(value)})"
        )
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


@function(
    "PadLeft",
    returns="$",
    params=("text", "length", "padCharacter"),
    optional=1,
    description="The text padded on the left to a length.",
)
def pad_left(call, text, length, pad=" "):
    character = _text(pad, "padCharacter")
    if len(character) != 1:
        raise ValueError("padCharacter must be one character")
    return _text(text, "text").rjust(_integer(length, "length"), character)


@function(
    "PadRight",
    returns="$",
    params=("text", "length", "padCharacter"),
    optional=1,
    description="The text padded on the right to a length.",
)
def pad_right(call, text, length, pad=" "):
    character = _text(pad, "padCharacter")
    if len(character) != 1:
        raise ValueError("padCharacter must be one character")
    return _text(text, "text").ljust(_integer(length, "length"), character)


@function(
    "Split",
    returns="@",
    params=("text", "separator", "count"),
    optional=1,
    description="The text split at a separator.",
)
def split(call, text, separator, count=None):
    sep = _text(separator, "separator")
    if not sep:
        raise ValueError("the separator must not be empty")
    if count is None:
        return _text(text, "text").split(sep)
    return _text(text, "text").split(sep, max(0, _integer(count, "count") - 1))


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
    description="true when the text matches the regular expression.",
)
def matches_regex(call, text, regex):
    return "true" if re.search(_pattern(regex), _text(text, "text")) else "false"


@function(
    "RegexReplace",
    returns="$",
    params=("text", "matchExpression", "replaceWith"),
    description="The text with each regular expression match replaced ($1 for groups).",
)
def regex_replace(call, text, expression, replace_with):
    replacement = re.sub(r"\$(\d+)", r"\\\1", _text(replace_with, "replaceWith"))
    return re.sub(_pattern(expression), replacement, _text(text, "text"))


@function(
    "RegexFind",
    returns="@",
    params=("text", "matchExpression", "matchGroup"),
    optional=1,
    description="Every match of a regular expression (or of one of its groups).",
)
def regex_find(call, text, expression, group=None):
    pattern = _pattern(expression)
    if group is None:
        return [m.group(0) for m in pattern.finditer(_text(text, "text"))]
    key: int | str = int(group) if to_text(group).isdigit() else to_text(group)
    return [m.group(key) or "" for m in pattern.finditer(_text(text, "text"))]


# .NET accepts a quantified anchor (`^inedox-.$*` in Inedo's own samples); Python does not.
# `$*` and `$?` may match zero times, so they match anywhere; `$+` is just `$`.
_QUANTIFIED_ANCHOR = re.compile(r"(?<!\\)([\^$])([*?+])")


def _pattern(expression: Value) -> re.Pattern[str]:
    text = _text(expression, "the regular expression")
    try:
        return re.compile(text)
    except re.error as error:
        compatible = _QUANTIFIED_ANCHOR.sub(lambda m: m.group(1) if m.group(2) == "+" else "", text)
        if compatible != text:
            try:
                return re.compile(compatible)
            except re.error:
                pass
        raise ValueError(f"invalid regular expression: {error}") from None


@function("HtmlEncode", returns="$", params=("text",), description="The text encoded for HTML.")
def html_encode(call, text):
    return html.escape(_text(text, "text"))


@function(
    "XmlEncode", returns="$", params=("text",), description="The text encoded for an XML element."
)
def xml_encode(call, text):
    return xml_escape(_text(text, "text"), {'"': "&quot;", "'": "&apos;"})


@function(
    "JSEncode",
    returns="$",
    params=("text",),
    description="The text encoded for a JavaScript string literal.",
)
def js_encode(call, text):
    return json.dumps(_text(text, "text"))[1:-1].replace("'", "\\'")


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
    description="The line break of Windows or Linux.",
)
def new_line(call, which="current"):
    choice = to_text(which).lower()
    if choice not in ("windows", "linux", "current"):
        raise ValueError("the argument is windows, linux or current")
    return "\r\n" if choice == "windows" else "\n"


def _format_date(moment: datetime, format_text: str | None) -> str:
    if not format_text:
        return moment.isoformat()
    result, position = [], 0
    while position < len(format_text):
        for token, replacement in _DOTNET_TOKENS:
            if format_text.startswith(token, position):
                result.append(
                    moment.strftime(replacement)[:3]
                    if token == "fff"
                    else moment.strftime(replacement)
                )
                position += len(token)
                break
        else:
            single = {"f": moment.strftime("%f")[:1], "d": str(moment.day), "M": str(moment.month), "H": str(moment.hour),
                      "h": str(moment.hour % 12 or 12), "m": str(moment.minute), "s": str(moment.second)}  # fmt: skip
            char = format_text[position]
            result.append(single.get(char, char))
            position += 1
    return "".join(result)


@function(
    "Date",
    returns="$",
    params=("format",),
    optional=1,
    description="The local date and time, in a .NET format like yyyy-MM-dd (ISO 8601 by default).",
)
def date(call, format_text=None):
    return _format_date(
        datetime.now().astimezone(), to_text(format_text) if format_text is not None else None
    )


@function(
    "DateUtc",
    returns="$",
    params=("format",),
    optional=1,
    description="The UTC date and time, in a .NET format like yyyy-MM-dd (ISO 8601 by default).",
)
def date_utc(call, format_text=None):
    return _format_date(
        datetime.now(UTC), to_text(format_text) if format_text is not None else None
    )
