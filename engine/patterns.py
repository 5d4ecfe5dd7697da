"""Regular expressions that come from users: every one the engine runs goes through
here, and so does the log search's on SQLite.

They run on the ``regex`` package, not ``re``: its syntax is closer to .NET's (which OtterScript's
scripts are written in), and each match takes a time limit. A call (a search, a replace, a find of
every match) that takes longer than its limit (``REGEX_SECONDS`` unless told) stops with
``PatternTimeout``, a ValueError, which a function call or an operation turns into a script
error that ``try``/``catch`` catches; it never holds the worker. Matching lets go of the GIL,
so the process's other threads (a web request, the event loop's helpers) keep going meanwhile.

``compile`` also takes .NET's spellings that ``regex`` does not: ``(?'name'...)``, ``\\k<name>``
and ``\\k'name'`` (named groups and back references), and a quantified anchor (``$*``, which
Inedo's own samples write)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TypeAlias

import regex

from engine.limits import REGEX_SECONDS

Match: TypeAlias = regex.Match[str]
SHOWN_MAX = 200  # characters of a pattern an error message shows

# .NET names groups (?<name>...) or (?'name'...) and refers back with \k<name> or \k'name'.
_NAMED_GROUP = regex.compile(r"(?<!\\)\(\?'([A-Za-z_]\w*)'")
_BACK_REFERENCE = regex.compile(r"\\k(?:<([A-Za-z_]\w*)>|'([A-Za-z_]\w*)')")
# .NET accepts a quantified anchor (`^inedox-.$*`); `$*` and `$?` may match zero times, so they
# match anywhere; `$+` is just `$`.
_QUANTIFIED_ANCHOR = regex.compile(r"(?<!\\)([\^$])([*?+])")


class PatternError(ValueError):
    """The text is not a regular expression."""


class PatternTimeout(ValueError):
    """A regular expression took longer than its limit and was stopped."""

    def __init__(self, pattern: str, seconds: float, name: str = "") -> None:
        self.pattern = pattern
        self.seconds = seconds
        self.name = name
        prefix = f"{name}: " if name else ""
        super().__init__(
            f"{prefix}the regular expression took longer than {seconds:g} s and was stopped: "
            f"{shown(pattern)} (simplify it: repetitions inside repetitions can backtrack "
            "without end)"
        )

    def __reduce__(self):  # pickled whole (from a worker process), not from its message
        return (PatternTimeout, (self.pattern, self.seconds, self.name))


def shown(pattern: str) -> str:
    """The pattern as an error message shows it: quoted, cut to SHOWN_MAX characters."""
    if len(pattern) > SHOWN_MAX:
        return repr(pattern[:SHOWN_MAX]) + f"… ({len(pattern):,} characters)"
    return repr(pattern)


def escape(text: str) -> str:
    """``text`` as a pattern that matches it literally."""
    return regex.escape(text, special_only=True)


class Pattern:
    """A compiled regular expression whose every call has a time limit of ``seconds``."""

    __slots__ = ("compiled", "name", "seconds", "text")

    def __init__(
        self, compiled: regex.Pattern[str], text: str, seconds: float, name: str = ""
    ) -> None:
        self.compiled = compiled
        self.text = text  # as the user wrote it, for messages
        self.seconds = seconds
        self.name = name  # what messages say it is (an operation's argument), if anything

    def __repr__(self) -> str:
        return f"Pattern({self.text!r}, seconds={self.seconds:g})"

    @property
    def groups(self) -> int:
        return self.compiled.groups

    @property
    def groupindex(self) -> Mapping[str, int]:
        return self.compiled.groupindex

    def search(self, string: str, *, seconds: float | None = None) -> Match | None:
        """The first match anywhere in ``string``, or None; ``seconds`` (this call's own limit,
        for a caller with a deadline) stands for the pattern's when given."""
        limit = self.seconds if seconds is None else seconds
        if limit <= 0:
            raise self._timeout(self.seconds)
        try:
            return self.compiled.search(string, timeout=limit, concurrent=True)
        except TimeoutError:
            raise self._timeout(limit) from None

    def matches(self, string: str) -> list[Match]:
        """Every match in ``string``, the limit counting for them all."""
        try:
            return list(self.compiled.finditer(string, timeout=self.seconds, concurrent=True))
        except TimeoutError:
            raise self._timeout(self.seconds) from None

    def subn(self, replacement: Callable[[Match], str], string: str) -> tuple[str, int]:
        """``string`` with each match replaced by what ``replacement`` makes of it, and how
        many were replaced. ``replacement`` is a function: no template syntax applies."""
        deadline = time.monotonic() + self.seconds

        def replace(match: Match) -> str:
            # the package counts only its own matching: the replacements count too
            if time.monotonic() > deadline:
                raise self._timeout(self.seconds)
            return replacement(match)

        try:
            return self.compiled.subn(replace, string, timeout=self.seconds, concurrent=True)
        except TimeoutError:
            raise self._timeout(self.seconds) from None

    def _timeout(self, seconds: float) -> PatternTimeout:
        return PatternTimeout(self.text, seconds, self.name)

    def sub(self, replacement: Callable[[Match], str], string: str) -> str:
        return self.subn(replacement, string)[0]


def compile(
    text: str,
    *,
    ignore_case: bool = False,
    dotnet: bool = True,
    seconds: float = REGEX_SECONDS,
    name: str = "",
) -> Pattern:
    """``text`` compiled, with the time limit ``seconds`` per call; with ``dotnet``, .NET's
    spellings are taken too. A PatternError (a ValueError) says what is wrong with it; its
    messages and PatternTimeout's start with ``name`` (an operation's argument) when given."""
    flags = regex.IGNORECASE if ignore_case else 0
    source = text
    if dotnet:
        source = _NAMED_GROUP.sub(lambda m: f"(?P<{m.group(1)}>", source)
        source = _BACK_REFERENCE.sub(lambda m: f"(?P={m.group(1) or m.group(2)})", source)
    try:
        return Pattern(regex.compile(source, flags), text, seconds, name)
    except regex.error as error:
        if dotnet:
            compatible = _QUANTIFIED_ANCHOR.sub(
                lambda m: m.group(1) if m.group(2) == "+" else "", source
            )
            if compatible != source:
                try:
                    return Pattern(regex.compile(compatible, flags), text, seconds, name)
                except regex.error:
                    pass
        prefix = f"{name}: " if name else ""
        raise PatternError(f"{prefix}invalid regular expression: {error}") from None
