"""Reading an execution's log in pieces, for the log viewer, the websocket and the API: its
index (scopes, counts and the runs of lines, kept by the log sink), lines by seq, search, and
downloads streamed from the database a page at a time. Nothing here reads a whole log at once.

Bad parameters raise Django's ValidationError by parameter name (the API answers 400)."""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property

from asgiref.sync import sync_to_async
from django.core.exceptions import ValidationError
from django.db import DatabaseError, connection, transaction
from django.db.models import BooleanField, F, Func, Max, Min, Q, QuerySet, Value
from django.db.models.expressions import RawSQL
from django.db.models.functions import StrIndex

from engine import Level, PatternError, PatternTimeout, compile_pattern, escape_pattern
from otterweb.execution_logs.events import LEVEL_NAMES, wire_scope
from otterweb.execution_logs.hooks import ExecutionState
from otterweb.execution_logs.models import LogEntry, LogRun, LogScope

# what ?levels= takes: the wire's names, and "info" for short
LEVELS_BY_NAME = {level.label: level.value for level in Level} | {"info": Level.INFORMATION}

LOG_PAGE = 1000  # entries the websocket and the API's plain list send at a time
LINES_LIMIT, LINES_MAX = 1000, 10_000  # lines a request returns: by default, at most
SEARCH_LIMIT, SEARCH_MAX = 500, 5000  # matching seqs a search returns: by default, at most
PATTERN_MAX = 1000  # characters of a search's text or pattern
DOWNLOAD_PAGE = 2000  # rows read from the database at a time by a download
# A scope filter with more scopes in it (a scope and its descendants) than this hands the
# database their ids as one JSON or array value, not one parameter each.
SCOPES_AS_PARAMETERS = 1000
# A regular expression whose plain text has a run this long is first narrowed by that text in
# the database (LIKE), so only the rows holding it are matched in Python (SQLite).
LITERAL_MIN = 3
# A search (a regular expression that backtracks, over a million lines) is stopped after this
# long, so that one request cannot hold a database connection, or SQLite's one writer, for good.
# Counted for the whole search: on PostgreSQL each statement's timeout is what is left of it; on
# SQLite the database's own work checks it every few thousand steps, and each line's match in
# Python is given what is left (the regex package counts that in CPU time: on a busy machine a
# match can run a little past it in wall time).
SEARCH_SECONDS = 10.0

ENTRY_FIELDS = ("seq", "scope_id", "level", "message", "line", "time")


def wire_entry(seq: int, scope_id, level: int, message: str, line, time: datetime) -> dict:
    """A stored entry as the websocket's WireEntry, its message whole (the wire cuts long ones)."""
    return {
        "seq": seq,
        "scope_id": scope_id,
        "level": LEVEL_NAMES.get(level, str(level)),
        "message": message,
        "line": line,
        "time": time.isoformat(),
    }


# ---- the index


def log_index(*, execution: ExecutionState) -> dict:
    """The log's skeleton: what the viewer draws before it fetches any line (a few thousand
    rows for a million lines). Read without a lock while the execution runs, in an order that
    keeps it coherent: ``execution`` was read first (if it has ended, every run is stored),
    then the runs, then the scopes (stored before their lines, so every scope a run names is
    there). Line counts come from the runs, so they agree with them; warnings and errors are
    the sink's counts and may be a batch behind or ahead while the execution runs."""
    execution_id = execution.pk
    runs = list(
        LogRun.objects.filter(execution_id=execution_id)
        .order_by("first_seq")
        .values_list("scope_id", "first_seq", "last_seq", "count")
    )
    lines: dict[int, int] = {}
    for scope_id, _, _, count in runs:
        lines[scope_id] = lines.get(scope_id, 0) + count
    scopes = [
        {
            **wire_scope(s),
            "lines": lines.get(s.scope_id, 0),
            "warnings": s.warnings,
            "errors": s.errors,
        }
        for s in LogScope.objects.filter(execution_id=execution_id).order_by("scope_id")
    ]
    return {
        "execution": execution.pk,
        "run_state": execution.run_state,
        "status": execution.status,
        "outcome": execution.outcome,
        "last_seq": max(execution.last_seq, runs[-1][2] if runs else 0),
        "lines": sum(lines.values()),
        "warnings": execution.log_warnings,
        "errors": execution.log_errors,
        "scopes": scopes,
        "runs": [list(run) for run in runs],
    }


# ---- lines by seq


def log_entries_after(*, execution_id: int, seq: int) -> list[LogEntry]:
    """The execution's stored log entries after ``seq``, in order, at most LOG_PAGE of them:
    what the API and the websocket send a client that has every entry up to ``seq``."""
    entries = LogEntry.objects.filter(execution_id=execution_id, seq__gt=seq).order_by("seq")
    return list(entries[:LOG_PAGE])


def last_stored_seq(*, execution_id: int) -> int:
    """The seq of the execution's last stored entry (0: none)."""
    entries = LogEntry.objects.filter(execution_id=execution_id).order_by("-seq")
    return entries.values_list("seq", flat=True).first() or 0


def log_lines(
    *, execution_id: int, after: int = 0, limit: int | None = None, until: int | None = None
) -> dict:
    """The entries after ``after`` (up to ``until``, included), in seq order, ``limit`` at
    most; ``next`` is the seq to ask after for more, or None when there are no more."""
    limit = _limit(limit, LINES_LIMIT, LINES_MAX)
    entries = LogEntry.objects.filter(execution_id=execution_id, seq__gt=after)
    if until is not None:
        entries = entries.filter(seq__lte=until)
    rows = list(entries.order_by("seq").values_list(*ENTRY_FIELDS)[: limit + 1])
    more = len(rows) > limit
    rows = rows[:limit]
    return {
        "entries": [wire_entry(*row) for row in rows],
        "next": rows[-1][0] if more else None,
    }


def _limit(limit: int | None, default: int, most: int) -> int:
    if limit is None:
        return default
    if not 1 <= limit <= most:
        raise ValidationError({"limit": [f"From 1 to {most:,}, not {limit}."]})
    return limit


# ---- search


@dataclass(frozen=True)
class Search:
    """What a search looks for: ``text`` (or a regular expression), in lines of ``levels``
    (None: any), in ``scope`` and its descendants (None: anywhere)."""

    text: str = ""
    regex: bool = False
    case: bool = False  # case-sensitive
    levels: frozenset[int] | None = None
    scope: int | None = None


def parse_levels(text: str | None) -> frozenset[int] | None:
    """?levels=info,warning: the levels' values; None when not given."""
    if not text:
        return None
    names = [name.strip().lower() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in LEVELS_BY_NAME]
    if unknown:
        known = ", ".join(sorted(LEVELS_BY_NAME))
        raise ValidationError({"levels": [f"No level named {unknown[0]!r}: one of {known}."]})
    return frozenset(LEVELS_BY_NAME[name] for name in names) or None


def search_log(
    *, execution: ExecutionState, search: Search, after: int = 0, limit: int | None = None
):
    """The seqs of the first ``limit`` matching entries after ``after``, in order, ``next``
    (the seq to search after for more, None when there are no more), ``total``, the matches
    in the whole log, and ``last_seq``: the lines searched are those up to it. The database
    matches, the page is read in seq order and stops at ``limit``, and the total is one COUNT
    (none when the page reached the end: a rare match costs one pass); except a regular
    expression on SQLite, matched in Python, which takes one pass for both (each pass calls
    Python once a line). A search that takes longer than SEARCH_SECONDS is stopped (a 400)."""
    limit = _limit(limit, SEARCH_LIMIT, SEARCH_MAX)
    # the lines stored when the search starts (``execution`` is read as it starts), and no
    # later one: a viewer of a running execution searches the lines after ``last_seq`` itself,
    # as they arrive
    execution_id, last_seq = execution.pk, execution.last_seq
    limited = _TimeLimit(SEARCH_SECONDS)
    matching = _matching(execution_id, search, limited).filter(seq__lte=last_seq)
    try:
        with limited:
            seqs, total = _search_page(matching, search, after, limit, limited)
    except DatabaseError as error:
        if limited.reached:
            raise ValidationError(
                {
                    "q": [
                        f"The search took longer than {SEARCH_SECONDS:g} s and was stopped: "
                        "narrow it (plain text, a scope, levels) or simplify the pattern."
                    ]
                }
            ) from None
        if not (search.regex and connection.vendor == "postgresql"):
            raise
        # a pattern Python's re takes and PostgreSQL's does not (their syntaxes differ a little)
        raise ValidationError(
            {"q": [f"Not a regular expression PostgreSQL takes: {error}"]}
        ) from None
    more = len(seqs) > limit
    seqs = seqs[:limit]
    return {
        "total": total,
        "seqs": seqs,
        "next": seqs[-1] if more else None,
        "last_seq": last_seq,
    }


def _search_page(
    matching: QuerySet[LogEntry], search: Search, after: int, limit: int, limited: _TimeLimit
) -> tuple[list[int], int]:
    """The first ``limit`` + 1 matching seqs after ``after``, and how many match in all."""
    if search.regex and connection.vendor == "sqlite":
        return _one_pass(matching, after, limit)
    seqs = list(
        matching.filter(seq__gt=after).order_by("seq").values_list("seq", flat=True)[: limit + 1]
    )
    limited.next_statement()  # the count has what is left of the search's time, no more
    if len(seqs) > limit:
        return seqs, matching.count()
    # the page went to the end of the log: only what is before it is left to count
    return seqs, len(seqs) + (matching.filter(seq__lte=after).count() if after else 0)


class _TimeLimit:
    """Stops the database's work inside it ``seconds`` after it starts, for all its statements
    together: SQLite through a progress handler (its statement fails, "interrupted") and the
    time left given to each line's match in Python (``remaining``), PostgreSQL through a
    statement timeout, set for one transaction, of what is left before each statement
    (``next_statement``). ``reached`` says whether that is why a statement failed."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.reached = False
        self._deadline: float | None = None
        self._transaction = transaction.atomic()

    def remaining(self) -> float:
        """The seconds left (all of them before the search starts)."""
        if self._deadline is None:
            return self.seconds
        return self._deadline - time.monotonic()

    def _expired(self) -> bool:
        self.reached = self.remaining() < 0
        return self.reached

    def __enter__(self) -> None:
        self._deadline = time.monotonic() + self.seconds
        connection.ensure_connection()
        if connection.vendor == "sqlite":
            connection.connection.set_progress_handler(self._expired, 20_000)
        elif connection.vendor == "postgresql":
            self._transaction.__enter__()
            self.next_statement()

    def next_statement(self) -> None:
        """PostgreSQL: the next statements may take what is left of the time, no more."""
        if connection.vendor != "postgresql":
            return
        left = self.remaining()
        if left <= 0:
            self.reached = True
            raise DatabaseError("the search's time is up")
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL statement_timeout = %s", [max(1, math.ceil(left * 1000))])

    def __exit__(self, kind, error, traceback) -> None:
        if connection.vendor == "sqlite":
            connection.connection.set_progress_handler(None, 0)
        elif connection.vendor == "postgresql":
            # 57014: query_canceled, what a statement timeout raises
            cancelled = getattr(getattr(error, "__cause__", None), "sqlstate", None) == "57014"
            if error is not None and (cancelled or self.remaining() < 0):
                self.reached = True
            self._transaction.__exit__(kind, error, traceback)


def _one_pass(matching: QuerySet[LogEntry], after: int, limit: int) -> tuple[list[int], int]:
    """The first ``limit`` + 1 matching seqs after ``after``, and how many match in all."""
    seqs: list[int] = []
    total = 0
    for seq in matching.order_by("seq").values_list("seq", flat=True).iterator(chunk_size=5000):
        total += 1
        if seq > after and len(seqs) <= limit:
            seqs.append(seq)
    return seqs, total


def _matching(execution_id: int, search: Search, limited: _TimeLimit) -> QuerySet[LogEntry]:
    entries = LogEntry.objects.filter(execution_id=execution_id)
    if search.levels is not None:
        entries = entries.filter(level__in=sorted(search.levels))
    if search.scope is not None:
        scopes = _subtree(execution_id, search.scope)
        # the scopes' lines lie between their first and last runs: only that range is read
        bounds = LogRun.objects.filter(_in_scopes(scopes), execution_id=execution_id).aggregate(
            first=Min("first_seq"), last=Max("last_seq")
        )
        if bounds["first"] is None:  # no line in them
            entries = entries.none()
        else:
            lines = (bounds["first"], bounds["last"])
            entries = entries.filter(_in_scopes(scopes), seq__range=lines)
    if not search.text:
        return entries
    if len(search.text) > PATTERN_MAX:
        raise ValidationError({"q": [f"At most {PATTERN_MAX:,} characters."]})
    if search.regex:
        return _regex(entries, search, limited)
    if not search.case:
        if connection.vendor == "sqlite" and not search.text.isascii():
            # SQLite's LIKE folds only ASCII letters: Python's regex folds the rest
            plain = Search(text=escape_pattern(search.text), regex=True)
            return _regex(entries, plain, limited)
        return entries.filter(message__icontains=search.text)
    # case-sensitive: STRPOS on PostgreSQL, INSTR on SQLite (whose LIKE always ignores case;
    # it narrows the rows first, being quicker)
    if connection.vendor == "sqlite" and search.text.isascii():
        entries = entries.filter(message__icontains=search.text)
    return entries.alias(found=StrIndex(F("message"), Value(search.text))).filter(found__gt=0)


def _subtree(execution_id: int, scope_id: int) -> set[int]:
    """``scope_id`` and every scope nested in it, at any depth."""
    children: dict[int | None, list[int]] = {}
    for scope, parent in LogScope.objects.filter(execution_id=execution_id).values_list(
        "scope_id", "parent_id"
    ):
        children.setdefault(parent, []).append(scope)
    if not any(scope_id in ids for ids in children.values()):
        raise ValidationError({"scope": [f"The log has no scope {scope_id}."]})
    found, waiting = set(), [scope_id]
    while waiting:
        scope = waiting.pop()
        found.add(scope)
        waiting.extend(children.get(scope, ()))
    return found


def _in_scopes(ids: set[int]) -> Q:
    if len(ids) <= SCOPES_AS_PARAMETERS:
        return Q(scope_id__in=sorted(ids))
    # thousands of scopes: one value, not one parameter each (SQLite takes 32,766 at most)
    if connection.vendor == "sqlite":
        return Q(scope_id__in=RawSQL("SELECT value FROM json_each(%s)", [json.dumps(sorted(ids))]))
    return Q(scope_id__in=RawSQL("SELECT unnest(%s::bigint[])", [sorted(ids)]))


class _Matches(Func):
    """``otterweb_matches(message)``: the search's compiled pattern, bound to this connection
    for the query (SQLite)."""

    function = "otterweb_matches"
    output_field = BooleanField()


def _regex(entries: QuerySet[LogEntry], search: Search, limited: _TimeLimit) -> QuerySet[LogEntry]:
    """The entries whose message matches: PostgreSQL's regular expressions there (which its
    statement timeout stops), else Python's ``regex`` package, each line given what is left of
    the search's time (a line that takes it all stops the search)."""
    try:
        pattern = compile_pattern(search.text, ignore_case=not search.case, dotnet=False)
    except PatternError as error:
        reason = str(error).removeprefix("invalid regular expression: ")
        raise ValidationError({"q": [f"Not a regular expression: {reason}."]}) from None
    if connection.vendor == "postgresql":
        lookup = "message__regex" if search.case else "message__iregex"
        return entries.filter(**{lookup: search.text})
    literal = _literal(search.text)
    if literal is not None:  # rows without the pattern's plain text cannot match: LIKE skips them
        entries = entries.filter(message__icontains=literal)
    connection.ensure_connection()

    def matches(message: str) -> bool:
        try:
            return pattern.search(message, seconds=limited.remaining()) is not None
        except PatternTimeout:
            limited.reached = True
            raise  # SQLite fails the statement: "user-defined function raised exception"

    connection.connection.create_function(_Matches.function, 1, matches, deterministic=True)
    return entries.filter(_Matches(F("message")))


def _literal(pattern: str) -> str | None:
    """The longest plain text every match of ``pattern`` holds (a run of literal characters
    at its top level), if it has one of LITERAL_MIN characters or more that SQLite's LIKE
    compares as Python does (ASCII); else None."""
    try:
        parsed = re._parser.parse(pattern)
    except (re.error, AttributeError):
        return None
    literal = re._constants.LITERAL
    runs, run = [], ""
    for op, value in parsed:
        if op == literal:
            run += chr(value)
        else:
            runs.append(run)
            run = ""
    runs.append(run)
    best = max(runs, key=len)
    if len(best) < LITERAL_MIN or not best.isascii():
        return None
    return best


# ---- downloads


class LogDownload:
    """An execution's whole log as text or JSON lines, read from the database DOWNLOAD_PAGE
    rows at a time (by seq) and handed out a page at a time: iterate it (WSGI), or iterate
    ``chunks()`` (ASGI, each page read on a thread), never the whole log in memory.

    text: ``<time ISO> <LEVEL> [<scope path>] <message>`` (no brackets at the top level), the
    lines of a message after its first indented by four spaces.
    jsonl: one WireEntry a line, with ``scope``: the scope's path, or null at the top level."""

    FORMATS = {"text": "text/plain; charset=utf-8", "jsonl": "application/jsonl; charset=utf-8"}
    EXTENSIONS = {"text": "log", "jsonl": "jsonl"}

    def __init__(self, *, execution_id: int, format: str) -> None:
        if format not in self.FORMATS:
            raise ValidationError({"format": [f"text or jsonl, not {format[:40]!r}."]})
        self.execution_id = execution_id
        self.format = format

    @property
    def content_type(self) -> str:
        return self.FORMATS[self.format]

    @property
    def filename(self) -> str:
        return f"execution-{self.execution_id}.{self.EXTENSIONS[self.format]}"

    def __iter__(self) -> Iterator[str]:
        after: int | None = 0
        while after is not None:
            text, after = self._page(after)
            if text:
                yield text

    async def chunks(self) -> AsyncIterator[str]:
        page = sync_to_async(self._page)
        after: int | None = 0
        while after is not None:
            text, after = await page(after)
            if text:
                yield text

    def _page(self, after: int) -> tuple[str, int | None]:
        """The text of the page after ``after``, and the seq to read after next (None: done)."""
        rows = list(
            LogEntry.objects.filter(execution_id=self.execution_id, seq__gt=after)
            .order_by("seq")
            .values_list(*ENTRY_FIELDS)[:DOWNLOAD_PAGE]
        )
        write = self._text if self.format == "text" else self._json
        text = "".join(write(*row) for row in rows)
        return text, (rows[-1][0] if len(rows) == DOWNLOAD_PAGE else None)

    @cached_property
    def _paths(self) -> dict[int, str]:
        """Read once, on the thread that reads the first page's lines."""
        return scope_paths(execution_id=self.execution_id)

    def _text(self, seq, scope_id, level, message, line, time) -> str:
        label = LEVEL_NAMES.get(level, str(level)).upper()
        path = self._paths.get(scope_id) if scope_id else None
        where = f" [{path}]" if path else ""
        return f"{time.isoformat()} {label}{where} {message.replace(chr(10), chr(10) + '    ')}\n"

    def _json(self, seq, scope_id, level, message, line, time) -> str:
        entry = wire_entry(seq, scope_id, level, message, line, time)
        entry["scope"] = self._paths.get(scope_id) if scope_id else None
        return json.dumps(entry, ensure_ascii=False) + "\n"


def scope_paths(*, execution_id: int) -> dict[int, str]:
    """Each scope's path, "outer / inner", by scope id."""
    scopes = LogScope.objects.filter(execution_id=execution_id).order_by("scope_id")
    paths: dict[int, str] = {}
    for scope_id, parent, name in scopes.values_list("scope_id", "parent_id", "name"):
        above = paths.get(parent) if parent else None  # a parent opens, so is numbered, first
        paths[scope_id] = f"{above} / {name}" if above else name
    return paths
