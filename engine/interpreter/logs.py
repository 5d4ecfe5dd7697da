"""Execution logs: records with a per-execution increasing seq, in nested scopes.

The engine masks secrets before any sink sees a record. A sink is called synchronously from the
event loop and must be quick: the web application's sink batches records and stores them
elsewhere; the engine keeps none of them, so memory stays flat however much is logged.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Protocol

from engine.values import Value

MASK = "********"
MIN_SECRET_LENGTH = 3  # shorter values would mask ordinary words; a secret that short is no secret


class Level(IntEnum):
    DEBUG = 0
    INFORMATION = 10
    WARNING = 20
    ERROR = 30

    @property
    def label(self) -> str:
        return self.name.lower()


@dataclass(slots=True)
class RunScope:
    """A nested section of the log: an operation, a described block, a loop item."""

    id: int
    parent_id: int | None
    name: str
    path: tuple[str, ...]
    line: int | None
    started: float
    ended: float | None = None
    # the seq of the last record logged before the scope opened (0 when none): where the scope
    # sits among its parent's own lines, for a viewer that has the lines but not the order
    after_seq: int = 0
    # the worst level logged inside (nested scopes included): what the scope's status shows
    worst: Level = Level.DEBUG
    parent: RunScope | None = field(default=None, repr=False, compare=False)
    # async blocks started inside and still running: the scope ends when the last one does
    holds: int = field(default=0, repr=False, compare=False)
    closing: bool = field(default=False, repr=False, compare=False)

    @property
    def status(self) -> str:
        if self.worst >= Level.ERROR:
            return "error"
        if self.worst >= Level.WARNING:
            return "warning"
        return "normal"


@dataclass(slots=True)
class LogRecord:
    seq: int
    scope_id: int | None
    scope: tuple[str, ...]
    level: Level
    message: str
    line: int | None
    time: float = field(default_factory=time.time)


class LogSink(Protocol):
    def scope_opened(self, scope: RunScope) -> None: ...

    def scope_closed(self, scope: RunScope) -> None: ...

    def record(self, record: LogRecord) -> None: ...


class NullSink:
    """Discards everything (benchmarks, and runs nobody watches)."""

    def scope_opened(self, scope: RunScope) -> None:
        pass

    def scope_closed(self, scope: RunScope) -> None:
        pass

    def record(self, record: LogRecord) -> None:
        pass


class ListSink:
    """Keeps everything in memory (tests and small tools)."""

    def __init__(self) -> None:
        self.records: list[LogRecord] = []
        self.scopes: list[RunScope] = []

    def scope_opened(self, scope: RunScope) -> None:
        self.scopes.append(scope)

    def scope_closed(self, scope: RunScope) -> None:
        pass

    def record(self, record: LogRecord) -> None:
        self.records.append(record)

    def messages(self, level: Level | None = None) -> list[str]:
        return [r.message for r in self.records if level is None or r.level == level]


class Masker:
    """Replaces every known secret in a text with ``********``.

    A secret may be a list or a map (a sensitive configuration variable): each of its text
    leaves is a secret. Each is also masked as ``$ToJson`` writes it (quotes, backslashes and
    control characters escaped, with or without non-ASCII escaped; also as `echo` in sh prints
    that, a double backslash made single), as Python's ``repr`` writes it, and one of several
    lines also line by line, as a process prints it. A value the script changes (splits,
    encodes, cuts) is no longer recognised."""

    def __init__(self) -> None:
        self._secrets: set[str] = set()
        self._pattern: re.Pattern[str] | None = None

    def add(self, secret: Value) -> None:
        forms = {variant for leaf in _leaves(secret) for variant in _variants(leaf)}
        new = {f for f in forms if len(f) >= MIN_SECRET_LENGTH} - self._secrets
        if new:
            self._secrets |= new
            ordered = sorted(self._secrets, key=len, reverse=True)
            self._pattern = re.compile("|".join(re.escape(s) for s in ordered))

    def __call__(self, text: str) -> str:
        if self._pattern is None:
            return text
        return self._pattern.sub(MASK, text)


def _leaves(value: Value) -> list[str]:
    """The texts inside a value: itself, a list's items, a map's values (nested ones too)."""
    if isinstance(value, str):
        return [value]
    items = value.values() if isinstance(value, dict) else value
    return [leaf for item in items for leaf in _leaves(item)]


def _variants(secret: str) -> set[str]:
    escaped = {json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1]}
    variants = {secret, *escaped, *(e.replace("\\\\", "\\") for e in escaped)}
    variants.add(repr(secret)[1:-1])  # as Python prints it inside a list (PYExec)
    lines = secret.splitlines()
    if len(lines) > 1:
        variants.update(line.strip() for line in lines)
    return variants


class Logger:
    """Numbers records, tracks scopes, masks secrets, and hands everything to the sink."""

    def __init__(self, sink: LogSink, masker: Masker) -> None:
        self.sink = sink
        self.mask = masker
        self.seq = 0
        self._scope_ids = 0

    def open(self, name: str, parent: RunScope | None, line: int | None) -> RunScope:
        self._scope_ids += 1
        name = self.mask(name)
        path = (*parent.path, name) if parent else (name,)
        scope = RunScope(
            self._scope_ids,
            parent.id if parent else None,
            name,
            path,
            line,
            time.time(),
            after_seq=self.seq,
            parent=parent,
        )
        self.sink.scope_opened(scope)
        return scope

    def close(self, scope: RunScope) -> None:
        if scope.holds:
            scope.closing = True  # closed when the last async block inside ends (release)
            return
        scope.ended = time.time()
        self.sink.scope_closed(scope)

    def hold(self, scope: RunScope | None) -> None:
        """Keep ``scope`` and its parents open until ``release``: an async block runs inside."""
        while scope is not None:
            scope.holds += 1
            scope = scope.parent

    def release(self, scope: RunScope | None) -> None:
        while scope is not None:
            scope.holds -= 1
            if not scope.holds and scope.closing:
                scope.closing = False
                self.close(scope)
            scope = scope.parent

    def write(self, level: Level, message: str, scope: RunScope | None, line: int | None) -> None:
        self.seq += 1
        enclosing = scope
        while enclosing is not None and level > enclosing.worst:
            enclosing.worst = level
            enclosing = enclosing.parent
        self.sink.record(
            LogRecord(
                self.seq,
                scope.id if scope else None,
                scope.path if scope else (),
                level,
                self.mask(message),
                line,
            )
        )
