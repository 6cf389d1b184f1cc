"""The sliding-window aggregation (Java's ``KStreamSlidingWindowAggregate``, KIP-450) and its
batch form.

Per record (a ``None`` key or value is skipped with its warning; a record whose own window has
closed is dropped with Java's expired-window warning): the key's windows within ``2 * diff``
before it are read newest first (a record earlier than ``diff``: from 0, oldest first) and
the rule creates or updates the windows the record falls in, its left window ``[ts - diff,
ts]`` and its right window ``[ts + 1, ts + 1 + diff]`` (``_reverse``, ``_early``,
``_create``), each update forwarded at once (or, behind a record cache, by the commit's
flush). The rule reads and writes through an ``io`` (``_StoreIO`` on the record path,
``_HeldIO`` in the batch form), so both forms run the same code.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from kslab.dsl._change import Change
from kslab.dsl._processors import skip_record
from kslab.dsl._window_aggregates import (
    WindowedProcessor,
    WindowedSupplier,
    no_forward,
    skip_expired,
)
from kslab.processor import Processor, ProcessorContext
from kslab.processor.batch import Batch, BatchRun
from kslab.records import Record, ValueAndTimestamp, Window, Windowed
from kslab.state.fresh import IMMUTABLE, fresh_value, fresh_values

__all__ = ["SlidingWindowAggregateSupplier"]

_NO_TIMESTAMP = -1


class SlidingWindowAggregateSupplier(WindowedSupplier):
    """Java's ``KStreamSlidingWindowAggregate`` (KIP-450)."""

    def __call__(self) -> Processor:
        return _SlidingWindowProcessor(self)


class _StoreIO:
    """The record path's reads, writes and forwards: the store and ``emit``."""

    def __init__(self, processor: _SlidingWindowProcessor) -> None:
        self.p = processor

    def backward(self, record: Record, time_from: int, time_to: int) -> list[tuple[int, Any]]:
        with self.p.store.backward_fetch(record.key, time_from, time_to) as it:
            return [(kv.key, kv.value) for kv in it]

    def forward(self, record: Record, time_from: int, time_to: int) -> list[tuple[int, Any]]:
        with self.p.store.fetch(record.key, time_from, time_to) as it:
            return [(kv.key, kv.value) for kv in it]

    def put(self, record: Record, start: int, value: ValueAndTimestamp) -> None:
        self.p.store.put(record.key, value, start)

    def emit(self, record: Record, window: Window, old: Any, new: Any, timestamp: int) -> None:
        self.p.emit(record, window, old, new, timestamp)

    def skip(self, record: Record, close_time: int, window: str, observed: int) -> None:
        skip_expired(self.p.ctx, record.timestamp, close_time, window, observed)


class _Declined(Exception):
    """The batch form cannot hold a write (a ``None`` aggregate, an expired window)."""


class _HeldIO:
    """The batch form's: the store's held writes (``windows``, ``put``), the updates
    collected (``puts``: position, start, value, timestamp; ``forwards`` where the processor
    forwards them itself), skips deferred to phase two."""

    def __init__(self, processor: _SlidingWindowProcessor, writes: Any, run: BatchRun,
                 batch: Batch, forwarding: bool) -> None:
        self.p, self.writes, self.run, self.batch = processor, writes, run, batch
        self.forwarding = forwarding
        self.position = 0
        self.key_bytes = b""
        self.puts: list[tuple[int, int, Any, int]] = []
        self.forwards: list[tuple[int, Window, Any, Any, int]] = []

    def _windows(self, time_from: int, time_to: int) -> list[tuple[int, Any]]:
        return [(start, ValueAndTimestamp(value, timestamp)) for start, (value, timestamp)
                in self.writes.windows(self.key_bytes, time_from, time_to,
                                       position=self.position)]

    def backward(self, record: Record, time_from: int, time_to: int) -> list[tuple[int, Any]]:
        return self._windows(time_from, time_to)[::-1]

    def forward(self, record: Record, time_from: int, time_to: int) -> list[tuple[int, Any]]:
        return self._windows(time_from, time_to)

    def put(self, record: Record, start: int, value: ValueAndTimestamp) -> None:
        writes = self.writes
        if value.value is None or writes.expires(start) or not writes.put(
                self.key_bytes, start, value.value, value.timestamp, self.position):
            raise _Declined
        self.puts.append((self.position, start, value.value, value.timestamp))

    def emit(self, record: Record, window: Window, old: Any, new: Any, timestamp: int) -> None:
        if self.forwarding:
            self.forwards.append((self.position, window, old, new, timestamp))

    def skip(self, record: Record, close_time: int, window: str, observed: int) -> None:
        self.run.defer(self.batch.origin[self.position], partial(
            skip_expired, self.p.ctx, record.timestamp, close_time, window, observed),
            self.position)


class _SlidingWindowProcessor(WindowedProcessor):
    end_inclusive = True

    def init(self, context: ProcessorContext) -> None:
        super().init(context)
        self.io: Any = _StoreIO(self)

    def closes_at(self, end: int) -> int:
        """A sliding window closes once its end is before the close time (``_slide``)."""
        return end + self.s.windows.grace_ms + 1

    def process(self, record: Record) -> None:
        if record.key is None or record.value is None:
            skip_record(self.ctx, self.null_reason)
            return
        timestamp = record.timestamp
        if timestamp > self.observed:
            self.observed = timestamp
        self.diff = self.s.windows.diff_ms
        close_time = self.observed - self.s.windows.grace_ms
        if self._slide(self.io, record, close_time, self.observed) and not self.updates:
            self.emit_final(record, close_time)

    def _slide(self, io: Any, record: Record, close_time: int, observed: int) -> bool:
        """The rule for one record (stream time ``observed``); False when no final emission
        follows it (dropped, or earlier than ``diff``, as Java)."""
        timestamp, diff = record.timestamp, self.s.windows.diff_ms
        if timestamp + diff < close_time:
            io.skip(record, close_time, f"[{timestamp},{timestamp + diff}]", observed)
            return False
        if timestamp < diff:  # as Java: no final emission after an early record
            self._early(io, record, close_time, observed)
            return False
        self._reverse(io, record, close_time, observed)
        return True

    def process_batch(self, batch: Batch, run: BatchRun) -> Batch | None:
        """``process`` over a run of an aggregation emitting every update: record by record
        in order, the same rule (``_slide``) over the key's windows as the store's held
        writes see them (``windows``: the store's in the run's span, read once per key, the
        run's writes laid over them), its writes held; a skipped record's warning deferred to
        phase two. What it forwards: each update, or, behind a record cache, what each
        commit's flush forwards (``Flushed``). ``None`` (record by record) on window close,
        for an aggregate becoming ``None``, a write into an expired window, or when the
        store cannot hold the writes."""
        if not self.updates:
            return None
        held = getattr(self.store, "held_writes", None)
        writes = None if held is None else held(batch, run)
        if writes is None or not hasattr(writes, "windows"):
            return None
        cached = self.forward is no_forward
        keys, values, origin = batch.keys, batch.values, batch.origin
        timestamps = run.timestamps(batch)
        positions = [position for position, (key, value) in enumerate(zip(
            keys, values, strict=True)) if key is not None and value is not None]
        if len(positions) < len(keys):
            for position in sorted(set(range(len(keys))) - set(positions)):
                run.defer(origin[position], partial(skip_record, self.ctx, self.null_reason),
                          position)
        if not positions:
            return Batch([], [], [])
        windows = self.s.windows
        diff, grace = windows.diff_ms, windows.grace_ms
        stamps = list(map(timestamps.__getitem__, positions))
        writes.load_span(max(0, min(stamps) - 2 * diff), max(stamps) + 1)
        key_bytes = writes.serialize_keys(list(map(keys.__getitem__, positions)))
        io = _HeldIO(self, writes, run, batch, not cached)
        observed = self.observed
        try:
            for position, timestamp, kb in zip(positions, stamps, key_bytes, strict=True):
                if timestamp > observed:
                    observed = timestamp
                io.position, io.key_bytes = position, kb
                record = Record(keys[position], values[position], timestamp)
                self._slide(io, record, observed - grace, observed)
        except _Declined:
            return None
        flushed = writes.flushed()
        if flushed is None:
            return None
        run.hold(writes)
        last = positions[-1]
        run.defer(origin[last], partial(_settle, self, observed, diff), last)
        if not cached:
            forwards = io.forwards
            parents = [forward[0] for forward in forwards]
            return Batch([Windowed(keys[forward[0]], forward[1]) for forward in forwards],
                         [Change(forward[3], forward[2] if self.s.send_old_values else None)
                          for forward in forwards],
                         list(map(origin.__getitem__, parents)),
                         [forward[4] for forward in forwards], parents=parents)
        puts = io.puts if flushed.updates is None else list(map(io.puts.__getitem__,
                                                                 flushed.updates))
        olds = flushed.olds
        parents = [put[0] for put in puts]
        windowed, bytes_of = writes.windowed, dict(zip(positions, key_bytes, strict=True))
        news = fresh_values([put[2] for put in puts])  # (copies of what the cache keeps,
        return Batch([windowed(bytes_of[put[0]], put[1]) for put in puts],  # as its flush
                     [Change(news[i], None if olds is None else olds[i])  # forwards them)
                      for i, put in enumerate(puts)],
                     list(map(origin.__getitem__, parents)), [put[3] for put in puts],
                     parents=parents, at_commit=True)

    def emit_lower(self) -> int:
        if self.last_emit == _NO_TIMESTAMP:
            return 0
        return max(0, self.last_emit - self.s.windows.diff_ms)

    def emit_upper(self, close_time: int) -> int:
        # sliding windows include their end: a window closes when its end < close time
        return close_time - self.s.windows.diff_ms - 1

    def _reverse(self, io: Any, record: Record, close_time: int, observed: int) -> None:
        timestamp, diff = record.timestamp, self.s.windows.diff_ms
        starts: set[int] = set()
        left_agg = right_agg = previous = None
        left_created = right_created = False
        for start, value in io.backward(record, max(0, timestamp - 2 * diff), timestamp + 1):
            starts.add(start)
            end = start + diff
            if start == timestamp + 1:
                right_created = True
            elif end > timestamp:
                if right_agg is None:
                    right_agg = value
                self._update(io, Window(start, end), value, record, close_time, observed)
            elif end == timestamp:
                left_created = True
                self._update(io, Window(start, end), value, record, close_time, observed)
                if value.timestamp < timestamp:
                    previous = value.timestamp
                else:
                    return
            else:
                left_agg = value
                previous = value.timestamp
                break
        self._create(io, record, close_time, observed, starts, right_agg, left_agg,
                     left_created, right_created, previous)

    def _early(self, io: Any, record: Record, close_time: int, observed: int) -> None:
        timestamp, diff = record.timestamp, self.s.windows.diff_ms
        combined = right_agg = previous = None
        right_created = False
        starts: set[int] = set()
        for start, value in io.forward(record, 0, timestamp + 1):
            starts.add(start)
            if start == 0:
                combined = value
                if value.timestamp < timestamp:
                    previous = value.timestamp
            elif start <= timestamp:
                right_agg = value
                self._update(io, Window(start, start + diff), value, record, close_time,
                             observed)
            elif start == timestamp + 1:
                right_created = True
        if right_agg is None and combined is not None and combined.timestamp > timestamp:
            right_agg = combined
        if not right_created and right_agg is not None and right_agg.timestamp > timestamp:
            self._right_window(io, record, right_agg)
        if previous is not None and previous + 1 not in starts:
            self._update(io, Window(previous + 1, previous + 1 + diff),
                         ValueAndTimestamp(self.s.initializer(), timestamp), record,
                         close_time, observed)
        start_value = combined if combined is not None else \
            ValueAndTimestamp(self.s.initializer(), timestamp)
        self._update(io, Window(0, diff), start_value, record, close_time, observed)

    def _create(self, io: Any, record: Record, close_time: int, observed: int,
                starts: set[int], right_agg: Any, left_agg: Any, left_created: bool,
                right_created: bool, previous: int | None) -> None:
        timestamp, diff = record.timestamp, self.s.windows.diff_ms
        if previous is not None:
            prev_start = previous + 1
            if prev_start not in starts and prev_start + diff >= timestamp:
                self._update(io, Window(prev_start, prev_start + diff),
                             ValueAndTimestamp(self.s.initializer(), timestamp), record,
                             close_time, observed)
        if not left_created:
            if previous is not None and timestamp - diff <= previous:
                value = ValueAndTimestamp(left_agg.value, timestamp)
            else:
                value = ValueAndTimestamp(self.s.initializer(), timestamp)
            self._update(io, Window(timestamp - diff, timestamp), value, record, close_time,
                         observed)
        if not right_created and right_agg is not None and right_agg.timestamp > timestamp:
            self._right_window(io, record, right_agg)

    def _right_window(self, io: Any, record: Record, right_agg: ValueAndTimestamp) -> None:
        start = record.timestamp + 1
        diff = self.s.windows.diff_ms
        io.put(record, start, right_agg)
        io.emit(record, Window(start, start + diff), None, right_agg.value,
                right_agg.timestamp)

    def _update(self, io: Any, window: Window, value: ValueAndTimestamp, record: Record,
                close_time: int, observed: int) -> None:
        if window.end >= close_time:
            old = value.value  # (its own object: a window's value is another's copy, and a
            if old.__class__ not in IMMUTABLE:  # batch run's may be an update it made)
                old = fresh_value(old)
            new = self.s.aggregator(record.key, record.value, old)
            new_ts = record.timestamp if old is None else max(record.timestamp, value.timestamp)
            io.put(record, window.start, ValueAndTimestamp(new, new_ts))
            io.emit(record, window, old, new, new_ts)
        else:
            io.skip(record, close_time, f"[{window.start},{window.end}]", observed)


def _settle(processor: _SlidingWindowProcessor, observed: int, diff: int) -> None:
    """Phase two: the processor's stream time and window difference as the records left
    them."""
    processor.observed = observed
    processor.diff = diff
