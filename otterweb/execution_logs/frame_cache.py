"""Each server process keeps running executions' recent log frames, already encoded, so that a
viewer who arrives late gets its backlog mostly from memory instead of reading and encoding it
from the database on its own (20 late viewers meant 20 such reads on daphne's one loop).

A cached frame covers a range of seqs, ``(after, through]``: its text holds every entry stored
in that range, and nothing else. That is exact by construction:
- a frame published live is one chunk of one stored batch, and one sink stores an execution's
  entries in seq order, so nothing is stored between its first and its last seq;
- a page read from the database holds every row in the range it read.
The frames need not follow each other: a gap (a message dropped, lines past the log's limit) is
read from the database, once, and kept too.

How frames come in:
- embedded mode: the worker runs in the web server's process, so publishing a batch adds its
  frames (publish.py);
- distributed mode: each consumer adds the frames of the group messages it receives, so a daphne
  process caches the executions someone watches there. That needs no other service nor any more
  work in the worker, and costs nothing for executions no one watches. (A capped list in Redis,
  written by the worker, would also serve the first viewer of a process from memory, but every
  batch would cost the worker one more write and every late viewer one more read of its whole
  backlog through Redis.) The first late viewers of a process read the older part from the
  database, once for all of them, and the pages they read are kept.

Concurrent reads of the same page (same execution, same seq) are one read: every late viewer
who connects as a run starts wants the page after seq 0.

Memory is bounded: EXECUTION_BYTES per execution (the oldest frames go first) and TOTAL_BYTES
in all (the execution least recently used goes first). An execution's frames go GRACE_SECONDS
after it completes, or IDLE_SECONDS after they were last used (a completion this process never
heard of).
"""

from __future__ import annotations

import asyncio
import bisect
import json
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from channels.db import database_sync_to_async

from otterweb.execution_logs.events import LogFrame, log_frames
from otterweb.execution_logs.selectors import LOG_PAGE, log_entries_after

EXECUTION_BYTES = 16 * 1024 * 1024  # about 120,000 lines of a hundred characters
TOTAL_BYTES = 128 * 1024 * 1024
GRACE_SECONDS = 60.0  # viewers who open the page just as the run ends still get it from memory
IDLE_SECONDS = 15 * 60.0
SWEEP_SECONDS = 1.0
FRAME_BYTES = 120  # what a frame costs besides its text


@dataclass(frozen=True, slots=True)
class CachedFrame:
    """Every entry stored with ``after < seq <= through``, as one ``log`` message."""

    after: int
    through: int
    scope: int  # the highest scope id of its entries (0: none)
    text: str | None  # None: no entry is stored in the range (lines dropped past the limit)

    @property
    def size(self) -> int:
        return FRAME_BYTES + len(self.text or "")

    def entries_after(self, seq: int) -> list:
        """Its wire entries after ``seq``, for a client that has part of it."""
        if self.text is None:
            return []
        return [e for e in json.loads(self.text)["entries"] if e["seq"] > seq]


def live_frame(frame: LogFrame) -> CachedFrame:
    return CachedFrame(
        after=frame["first"] - 1, through=frame["last"], scope=frame["scope"], text=frame["text"]
    )


@dataclass
class _Log:
    """One execution's cached frames, by ``after``. No frame's range lies within another's, so
    ordered by ``after`` they are ordered by ``through`` too."""

    frames: dict[int, CachedFrame] = field(default_factory=dict)
    afters: list[int] = field(default_factory=list)  # sorted
    size: int = 0
    used: float = 0.0
    completed: float | None = None

    def covering(self, seq: int) -> CachedFrame | None:
        """The frame that holds the entry after ``seq``: the one that starts at ``seq`` if any,
        else the last one that starts before it, if it reaches past it."""
        frame = self.frames.get(seq)
        if frame is not None:
            return frame
        index = bisect.bisect_right(self.afters, seq) - 1
        if index >= 0:
            frame = self.frames[self.afters[index]]
            if frame.through > seq:
                return frame
        return None

    def add(self, frame: CachedFrame) -> None:
        if frame.through <= frame.after:
            return
        holder = self.covering(frame.after)
        if holder is not None and holder.after <= frame.after and holder.through >= frame.through:
            return  # already held
        # frames that the new one holds whole go
        start = bisect.bisect_left(self.afters, frame.after)
        end = start
        while end < len(self.afters) and self.frames[self.afters[end]].through <= frame.through:
            end += 1
        for after in self.afters[start:end]:
            self.size -= self.frames.pop(after).size
        self.afters[start:end] = [frame.after]
        self.frames[frame.after] = frame
        self.size += frame.size

    def drop_oldest(self) -> None:
        self.size -= self.frames.pop(self.afters.pop(0)).size


class FrameCache:
    def __init__(
        self,
        *,
        execution_bytes: int = EXECUTION_BYTES,
        total_bytes: int = TOTAL_BYTES,
        grace_seconds: float = GRACE_SECONDS,
        idle_seconds: float = IDLE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.execution_bytes = execution_bytes
        self.total_bytes = total_bytes
        self.grace_seconds = grace_seconds
        self.idle_seconds = idle_seconds
        self.clock = clock
        self.size = 0
        # what was read from the database, for tests and benchmarks
        self.pages_read = 0
        self.entries_read = 0
        self._logs: dict[int, _Log] = {}
        self._reads: dict[tuple[int, int], asyncio.Future[list[CachedFrame]]] = {}
        self._swept = 0.0
        # The sync methods may be called from a worker's thread (publish) while consumers read on
        # the server's loop.
        self._lock = threading.Lock()

    # ---- frames in

    def add(self, execution_id: int, frames: Iterable[CachedFrame], *, create: bool = True) -> None:
        """Keep ``frames`` of the execution (within the memory bounds). ``create=False`` keeps
        them only if the execution has frames here already."""
        now = self.clock()
        with self._lock:
            self._sweep(now)
            log = self._logs.get(execution_id)
            if log is None:
                if not create:
                    return
                log = self._logs[execution_id] = _Log()
            log.used = now
            before = log.size
            for frame in frames:
                log.add(frame)
            while log.size > self.execution_bytes and len(log.afters) > 1:
                log.drop_oldest()
            self.size += log.size - before
            self._bound(keep=execution_id)

    def add_live(self, execution_id: int, frames: list[LogFrame]) -> None:
        """The frames of a batch as published."""
        self.add(execution_id, [live_frame(f) for f in frames])

    def completed(self, execution_id: int) -> None:
        """The execution has ended: its frames go after the grace period."""
        with self._lock:
            log = self._logs.get(execution_id)
            if log is not None and log.completed is None:
                log.completed = self.clock()

    def clear(self) -> None:
        with self._lock:
            self._logs.clear()
            self._reads.clear()
            self.size = self.pages_read = self.entries_read = 0

    # ---- frames out

    def frame_after(self, execution_id: int, seq: int) -> CachedFrame | None:
        """The cached frame holding the entry stored after ``seq``, if there is one."""
        now = self.clock()
        with self._lock:
            self._sweep(now)
            log = self._logs.get(execution_id)
            if log is None:
                return None
            log.used = now
            return log.covering(seq)

    async def read(self, execution_id: int, seq: int, *, keep: bool = True) -> list[CachedFrame]:
        """The next page of entries stored after ``seq``, from the database, as frames that follow
        each other from ``seq``; [] when nothing is stored after it. Concurrent calls for the
        same page share one read. ``keep``: cache the page (a running execution's)."""
        key = (execution_id, seq)
        shared = self._reads.get(key)
        if shared is None:
            shared = asyncio.ensure_future(self._read(execution_id, seq, keep))
            self._reads[key] = shared
            shared.add_done_callback(lambda _: self._reads.pop(key, None))
        # one viewer leaving must not cancel the read the others wait for
        return await asyncio.shield(shared)

    async def _read(self, execution_id: int, seq: int, keep: bool) -> list[CachedFrame]:
        until = self._next_after(execution_id, seq)
        # Not on the one thread of the consumers' other queries: new viewers' permission and
        # state checks need not wait behind pages of someone's backlog.
        frames, entries = await database_sync_to_async(read_page, thread_sensitive=False)(
            execution_id, seq, until
        )
        self.pages_read += 1
        self.entries_read += entries
        self.add(execution_id, frames, create=keep)
        return frames

    def _next_after(self, execution_id: int, seq: int) -> int | None:
        """Where the first cached frame after ``seq`` starts: a page read there can stop."""
        with self._lock:
            log = self._logs.get(execution_id)
            if log is None:
                return None
            index = bisect.bisect_right(log.afters, seq)
            return log.afters[index] if index < len(log.afters) else None

    # ---- bounds

    def _sweep(self, now: float) -> None:
        if now - self._swept < SWEEP_SECONDS:
            return
        self._swept = now
        for execution_id, log in list(self._logs.items()):
            ended = log.completed is not None and now - log.completed > self.grace_seconds
            if ended or now - log.used > self.idle_seconds:
                self.size -= self._logs.pop(execution_id).size

    def _bound(self, *, keep: int) -> None:
        """Over TOTAL_BYTES, the executions least recently used go, then ``keep``'s oldest
        frames."""
        if self.size <= self.total_bytes:
            return
        for execution_id, _log in sorted(self._logs.items(), key=lambda item: item[1].used):
            if self.size <= self.total_bytes:
                return
            if execution_id != keep:
                self.size -= self._logs.pop(execution_id).size
        log = self._logs[keep]
        while self.size > self.total_bytes and len(log.afters) > 1:
            before = log.size
            log.drop_oldest()
            self.size -= before - log.size


def read_page(execution_id: int, seq: int, until: int | None) -> tuple[list[CachedFrame], int]:
    """Up to LOG_PAGE entries stored after ``seq`` (up to ``until`` if given), encoded as frames
    whose ranges follow each other from ``seq``, and how many entries were read. The last frame
    reaches ``until`` when the page holds every entry up to it."""
    entries = log_entries_after(execution_id=execution_id, seq=seq)
    whole = len(entries) < LOG_PAGE  # every entry stored after seq is in the page
    if until is not None and (whole or (entries and entries[-1].seq >= until)):
        entries = [e for e in entries if e.seq <= until]
        through = until
    elif entries:
        through = entries[-1].seq
    else:
        return [], 0
    if not entries:
        return [CachedFrame(after=seq, through=through, scope=0, text=None)], 0
    frames = []
    after = seq
    encoded = log_frames(entries)
    for index, frame in enumerate(encoded):
        last = through if index == len(encoded) - 1 else frame["last"]
        frames.append(
            CachedFrame(after=after, through=last, scope=frame["scope"], text=frame["text"])
        )
        after = last
    return frames, len(entries)


frame_cache = FrameCache()
