"""The session-windowed aggregation (Java's ``KStreamSessionWindowAggregate``) and its batch
form.

Per record (a ``None`` key is skipped with its warning): the key's sessions overlapping
``[ts - gap, ts + gap]`` are merged (the initializer, then the merger over each in the store's
order: ``merge_session``, which both forms call); a merged session ending before the close time
(stream time - grace - gap) drops the record with Java's expired-window warning; else the
merged sessions are removed (a tombstone forwarded for each) and the new one put with the
aggregator's result, which is forwarded at the session's end. Behind a record cache the removes
and the put are cached and the commit's flush forwards them (``forward_flushed_session``).

The batch form (``process_batch``) runs the same rule over a run, record by record, against
the store's held writes (``SessionStore.held_writes``, ``CachingSessionStore.held_writes``):
an overlay of each key's sessions read once, the run's writes held for phase two.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import Any

from kslab.dsl._change import Change
from kslab.dsl._processors import skip_record
from kslab.dsl._window_aggregates import (
    ClosedWindows,
    WindowedProcessor,
    WindowedSupplier,
    no_forward,
    skip_expired,
)
from kslab.processor import Processor
from kslab.processor.batch import Batch, BatchRun
from kslab.records import Record, Window, Windowed
from kslab.state.fresh import IMMUTABLE, fresh_value
from kslab.state.session import session_key

__all__ = ["SessionWindowAggregateSupplier", "merge_session"]


def merge_session(s: Any, key: Any, value: Any, timestamp: int,
                  found: Iterable[tuple[int, int, Any]], close_time: int
                  ) -> tuple[int, int, Any, bool]:
    """Java's session merge of a record at ``timestamp`` with the ``found`` sessions
    (``(start, end, value)`` in the store's order): the initializer, then the merger over
    each one; the merged session's start and end, its aggregate, and whether it is still
    open (its end not before ``close_time``): then the aggregator has added the record, else
    it was not called. Each found aggregate reaches the merger as an object of its own
    (``fresh_value``): a batch run's found sessions may be updates it made and forwarded."""
    agg = s.initializer()
    start = end = timestamp
    merger = s.merger
    for session_start, session_end, stored in found:
        agg = merger(key, agg, stored if stored.__class__ in IMMUTABLE else fresh_value(stored))
        if session_start < start:
            start = session_start
        if session_end > end:
            end = session_end
    if end < close_time:
        return start, end, agg, False
    return start, end, s.aggregator(key, value, agg), True


class SessionWindowAggregateSupplier(WindowedSupplier):
    """Java's ``KStreamSessionWindowAggregate``: merges sessions within the inactivity gap."""

    session = True

    def __call__(self) -> Processor:
        return _SessionWindowProcessor(self)


class _SessionWindowProcessor(WindowedProcessor):
    end_inclusive = True

    def process(self, record: Record) -> None:
        key = record.key
        if key is None:
            skip_record(self.ctx, "null key")
            return
        s = self.s
        timestamp = record.timestamp
        if timestamp > self.observed:
            self.observed = timestamp
        gap = s.windows.gap_ms
        close_time = self.observed - s.windows.grace_ms - gap
        with self.store.find_sessions(key, timestamp - gap, timestamp + gap) as it:
            merged = list(it)
        start, end, agg, live = merge_session(
            s, key, record.value, timestamp,
            [(kv.key.window.start, kv.key.window.end, kv.value) for kv in merged], close_time)
        if not live:
            skip_expired(self.ctx, timestamp, close_time, f"[{start},{end}]", self.observed)
        else:
            if (start, end) != (timestamp, timestamp):
                for session, value in merged:
                    self.store.remove(session)
                    self._emit(session, value, None)
            session = Windowed(key, Window(start, end))
            self.store.put(session, agg)
            self._emit(session, None, agg)
        if not self.updates:
            self.emit_final(record, close_time)

    def process_batch(self, batch: Batch, run: BatchRun) -> Batch | None:
        """``process`` over a run of an aggregation emitting every update: record by record
        in order, ``merge_session`` over the key's sessions as the store's held writes see
        them (each key's read once), the removes and the put held; a record for a closed
        session or with a ``None`` key is skipped in phase two with its warning. What it
        forwards: each update (a tombstone per removed session, then the new session), or,
        behind a record cache, what each commit's flush forwards. ``None`` (record by record)
        on window close, for an aggregate becoming ``None``, a write the store would drop,
        records with headers (the record path forwards without them), or when the store
        cannot hold the writes."""
        if not self.updates:
            return None
        cached = self.forward is no_forward
        held = getattr(self.store, "held_writes", None)
        writes = None if held is None else held(batch, run)
        if writes is None:
            return None
        keys, values, origin = batch.keys, batch.values, batch.origin
        timestamps = run.timestamps(batch)
        if not cached and any(run.headers(batch)):
            return None
        s = self.s
        gap, grace, send_old = s.windows.gap_ms, s.windows.grace_ms, s.send_old_values
        positions = [position for position, key in enumerate(keys) if key is not None]
        if len(positions) < len(keys):
            for position in sorted(set(range(len(keys))) - set(positions)):
                run.defer(origin[position], partial(skip_record, self.ctx, "null key"),
                          position)
        if not positions:
            return Batch([], [], [])
        stamps = list(map(timestamps.__getitem__, positions))
        writes.load_span(min(stamps) - gap, max(stamps) + gap)
        key_bytes = dict(zip(positions, writes.serialize_keys(
            list(map(keys.__getitem__, positions))), strict=True))
        observed = self.observed
        forwards: list[tuple[int, Any, Any, Any]] = []  # position, windowed key, new, old
        for position, timestamp in zip(positions, stamps, strict=True):
            key = keys[position]
            if timestamp > observed:
                observed = timestamp
            close_time = observed - grace - gap
            kb = key_bytes[position]
            found = writes.sessions(kb, timestamp - gap, timestamp + gap, position=position)
            start, end, agg, live = merge_session(
                s, key, values[position], timestamp,
                [(start, end, value) for _, start, end, value in found], close_time)
            if not live:
                run.defer(origin[position], partial(
                    skip_expired, self.ctx, timestamp, close_time, f"[{start},{end}]",
                    observed), position)
                continue
            if agg is None:
                return None
            removed = found if (start, end) != (timestamp, timestamp) else []
            session = Windowed(key, Window(start, end))
            if not writes.update(position, kb, removed, session_key(kb, start, end), start,
                                 end, session, agg):
                return None
            if not cached:
                key_object = writes.key_object
                forwards.extend((position, Windowed(key_object(kb), Window(rs, re)), None,
                                 value if send_old else None) for _, rs, re, value in removed)
                forwards.append((position, session, agg, None))
        if not writes.flushed():
            return None
        if cached:
            forwards = writes.forwards
        run.hold(writes)
        run.defer(origin[positions[-1]], partial(setattr, self, "observed", observed),
                  positions[-1])
        parents = [forward[0] for forward in forwards]
        return Batch([forward[1] for forward in forwards],
                     [Change(forward[2], forward[3]) for forward in forwards],
                     list(map(origin.__getitem__, parents)),
                     [forward[1].window.end for forward in forwards],
                     parents=parents, at_commit=cached)

    def _emit(self, session: Windowed, old: Any, new: Any) -> None:
        if not self.updates:
            return
        old = old if self.s.send_old_values else None
        self.forward(Record(session, Change(new, old), session.window.end))

    def close_time(self) -> int:
        windows = self.s.windows
        return self.observed - windows.grace_ms - windows.gap_ms

    def closes_at(self, end: int) -> int:
        """A session closes once its end is before the close time (``merge_session``)."""
        windows = self.s.windows
        return end + windows.grace_ms + windows.gap_ms + 1

    def emit_lower(self) -> int:
        return max(0, self.last_emit)

    def emit_upper(self, close_time: int) -> int:
        # sessions include their end: a session closes when its end < close time
        return close_time - 1

    def should_fetch(self, lower: int, upper: int) -> bool:
        return upper >= lower  # a session may be a single point [t, t]

    def closed_windows(self, lower: int, upper: int) -> Any:
        return _ClosedSessions(self.store.find_sessions(lower, upper))


class _ClosedSessions(ClosedWindows):
    """A session store scan by end time seen as ``(Windowed, value, window end)`` triples."""

    def __enter__(self) -> Any:
        return ((kv.key, kv.value, kv.key.window.end) for kv in self.iterator)
