"""The processors of windowed aggregations over time (tumbling/hopping) windows, and what sliding
and session windows share with them (``kslab.dsl._sliding_aggregates``,
``kslab.dsl._session_aggregates``).

Each keeps its own observed stream time (the largest timestamp it has seen) and drops a record
for every window it would update that has already closed (end + grace at or before stream time
for time windows, end before it for sliding and session windows), logging Java's
"Skipping record for expired window" line and counting ``dropped-records-total``. Invariant:
with ``EmitStrategy.on_window_update()`` (the default) every update of a window forwards
``Change(new, old)`` keyed by ``Windowed(key, window)`` at once; with ``on_window_close()``
(KIP-825) nothing is forwarded on update and, after each record, the windows that closed since
the last emission are read from the store in time order and forwarded once each, at most once per
``__emit.interval.ms.kstreams.windowed.aggregation__`` of wall-clock time (1 s; the driver sets 0).
Each such emission is measured as Java's node-level ``window-aggregate-final-emit-total``,
``-rate``, ``-latency-avg`` and ``-latency-max`` wherever the engine's context offers
``node_metrics()``.

Over 600 lines because the shared base (observed stream time, grace, late records, final
emission) and the time windows' processor with its batch form (runs of one window, the updates
as columns) belong together; sliding and session windows, whose batch forms keep an overlay of
each key's windows, live in their own modules.
"""

from __future__ import annotations

import logging
import struct
from bisect import bisect_left
from collections.abc import Callable
from functools import partial
from itertools import accumulate, chain, compress, islice, pairwise, repeat
from operator import add, le, mod, ne, or_, sub
from typing import Any

from kslab.dsl._aggregates import count_adder, count_initializer
from kslab.dsl._change import Change, Changes
from kslab.dsl._processors import skip_record
from kslab.dsl._stores import cache_forwarding
from kslab.dsl._tally import count_updates, key_types, tally_keys
from kslab.dsl.windows import TimeWindows
from kslab.processor import Processor, ProcessorContext, PunctuationType
from kslab.processor.batch import Batch, BatchRun, Encoded, Flushed
from kslab.records import Headers, Record, ValueAndTimestamp, Window, Windowed
from kslab.sensors import AvgMaxSensor, RateTotalSensor
from kslab.serdes import TimeWindowed
from kslab.state.fresh import IMMUTABLE, fresh_value, fresh_values
from kslab.state.window import TimestampedWindowStore

__all__ = [
    "ClosedWindows",
    "EmitFinalMetrics",
    "TimeWindowAggregateSupplier",
    "WindowedProcessor",
    "WindowedSupplier",
    "merger_for",
    "no_forward",
    "reducer_aggregator",
    "skip_expired",
]

log = logging.getLogger("kslab.dsl")

_NO_TIMESTAMP = -1
_new_tuple = tuple.__new__  # a NamedTuple's own __new__ is a Python function
_NONE = type(None)
_pack_start = struct.Struct(">q").pack  # a windowed key's start, after the key's bytes
EMIT_INTERVAL_CONFIG = "__emit.interval.ms.kstreams.windowed.aggregation__"
IDLE_ADVANCE_CONFIG = "kslab.idle.stream.time.advance.ms"


def reducer_aggregator(reducer: Callable[[Any, Any], Any]) -> Callable[[Any, Any, Any], Any]:
    """Java's ``aggregatorForReducer``: the first value starts the aggregate."""
    def aggregate(key: Any, value: Any, agg: Any) -> Any:
        return value if agg is None else reducer(agg, value)
    return aggregate


def merger_for(aggregator: Callable[[Any, Any, Any], Any]) -> Callable[[Any, Any, Any], Any]:
    """Java's ``mergerForAggregator``: merging folds the second aggregate into the first."""
    def merge(key: Any, one: Any, two: Any) -> Any:
        return aggregator(key, two, one)
    return merge


def skip_expired(context: Any, timestamp: int, close_time: int, window: str,
                 stream_time: int) -> None:
    """Log a record dropped for an expired window in Java's words and count it."""
    metadata = context.record_metadata()
    if metadata is not None:
        log.warning("Skipping record for expired window. topic=[%s] partition=[%s] offset=[%s] "
                    "timestamp=[%s] window=%s expiration=[%s] streamTime=[%s]", metadata.topic,
                    metadata.partition, metadata.offset, timestamp, window, close_time,
                    stream_time)
    else:
        log.warning("Skipping record for expired window. Topic, partition, and offset not known. "
                    "timestamp=[%s] window=%s expiration=[%s] streamTime=[%s]", timestamp, window,
                    close_time, stream_time)
    dropped = getattr(context, "record_dropped", None)
    if dropped is not None:
        dropped()


class _WindowGetter:
    """Reads a windowed aggregate by ``Windowed`` key (Java's window aggregate value getter)."""

    def __init__(self, store_name: str, session: bool) -> None:
        self.store_name = store_name
        self.session = session
        self.store: Any = None

    def init(self, context: ProcessorContext) -> None:
        """Find the store."""
        self.store = context.get_state_store(self.store_name)

    def get(self, windowed: Windowed, as_of: int | None = None) -> Any:
        """The ``ValueAndTimestamp`` of the window, or ``None``."""
        if self.session:
            value = self.store.fetch_session(windowed.key, windowed.window.start,
                                             windowed.window.end)
            return None if value is None else ValueAndTimestamp(value, windowed.window.end)
        return self.store.fetch(windowed.key, windowed.window.start)

    def is_versioned(self) -> bool:
        """Window stores are not versioned."""
        return False

    def close(self) -> None:
        """Nothing to release."""


class _GetterSupplier:
    def __init__(self, store_name: str, session: bool) -> None:
        self.store_name = store_name
        self.session = session

    def get(self) -> _WindowGetter:
        return _WindowGetter(self.store_name, self.session)

    def store_names(self) -> list[str]:
        return [self.store_name]


class WindowedSupplier:
    """What the windowed aggregation suppliers share: store, functions, old values, view."""

    session = False

    def __init__(self, store_name: str, windows: Any, initializer: Callable[[], Any],
                 aggregator: Callable[[Any, Any, Any], Any],
                 merger: Callable[[Any, Any, Any], Any] | None = None,
                 emit_on_close: bool = False) -> None:
        self.store_name = store_name
        self.windows = windows
        self.initializer = initializer
        self.aggregator = aggregator
        self.merger = merger
        self.emit_on_close = emit_on_close
        self.send_old_values = False

    def enable_sending_old_values(self, force_materialization: bool) -> bool:
        """Always possible: the aggregate is stored."""
        self.send_old_values = True
        return True

    def view(self) -> _GetterSupplier:
        """Getters reading the window store by ``Windowed`` key."""
        return _GetterSupplier(self.store_name, self.session)


def no_forward(record: Record, child_name: str | None = None) -> None:
    """Stands in for ``forward`` when a cached store forwards on flush."""


_EMIT = "window-aggregate-final-emit"


class EmitFinalMetrics:
    """Java's node-level ``window-aggregate-final-emit-*`` sensors on Kafka's sampled stats:
    records emitted on window close (``-total``, ``-rate`` per second) and how long each
    emission took (``-latency-avg``, ``-latency-max``, ms; NaN before the first)."""

    def __init__(self, metrics: dict[str, float], clock: Callable[[], int]) -> None:
        self.clock = clock
        self.emitted = RateTotalSensor(metrics, _EMIT, clock)
        self.latency = AvgMaxSensor(metrics, f"{_EMIT}-latency", clock)

    def record(self, emitted: int, started_ms: int) -> None:
        """Count one emission of ``emitted`` records that began at ``started_ms``."""
        self.emitted.record(float(emitted))
        self.latency.record(float(self.clock() - started_ms))


def emit_final_metrics(context: Any) -> EmitFinalMetrics | None:
    """The emit-final sensors of the node ``context`` is initializing, where the engine keeps
    node metrics (``context.node_metrics()``: the node's mutable metric dict)."""
    node_metrics = getattr(context, "node_metrics", None)
    if node_metrics is None:
        return None
    return EmitFinalMetrics(node_metrics(), context.current_system_time_ms)


class WindowedProcessor(Processor):
    null_reason = "null key or value"
    end_inclusive = False  # sliding and session windows contain their end

    def __init__(self, supplier: Any) -> None:
        self.s = supplier
        self.observed = _NO_TIMESTAMP
        self.updates = not supplier.emit_on_close
        self.last_emit = _NO_TIMESTAMP  # the window close time of the last final emission
        self.next_emit = 0
        self.emit_interval = 1000
        self.emit_metrics: EmitFinalMetrics | None = None

    def init(self, context: ProcessorContext) -> None:
        self.ctx = context
        self.store = context.get_state_store(self.s.store_name)
        self.forward = context.forward
        self.emit_metrics = emit_final_metrics(context)
        if self.updates and cache_forwarding(self.store, context, self.s.send_old_values,
                                             session=self.s.session):
            self.forward = no_forward  # the record cache forwards updates on flush
        if not self.updates:
            interval = context.app_configs().get(EMIT_INTERVAL_CONFIG)
            self.emit_interval = 1000 if interval is None else int(interval)
            metadata = getattr(context, "processor_metadata_for_key", None)
            last = None if metadata is None else metadata(self.s.store_name)
            if last is not None:
                self.last_emit = last
            idle = context.app_configs().get(IDLE_ADVANCE_CONFIG)
            if idle is not None and int(idle) > 0:  # opt in: windows close on a quiet input
                context.schedule(1, PunctuationType.STREAM_TIME, self._on_stream_time)

    def _on_stream_time(self, timestamp: int) -> None:
        """Stream time advanced without a record (idle advance): emit what closed."""
        if timestamp > self.observed:
            self.observed = timestamp
            self.emit_final(None, self.close_time())

    def close_time(self) -> int:
        """The window close time at the observed stream time."""
        return self.observed - self.s.windows.grace_ms

    @property
    def store_name(self) -> str:
        """The window (or session) store this aggregation keeps its windows in."""
        return str(self.s.store_name)

    def closes_at(self, end: int) -> int:
        """The stream time at which a window ending at ``end`` closes (a record for it is then
        dropped as for an expired window): ``end + grace``, as ``process`` compares
        ``window.end > close_time``. Sliding and session windows keep their end inclusive."""
        return end + self.s.windows.grace_ms

    def window_state(self, end: int) -> str:
        """Where a window ending at ``end`` stands at the observed stream time: ``"open"``
        (stream time before its end, or at it where windows contain their end), ``"grace"``
        (past its end, still counting late records)
        or ``"closed"`` (its end + grace reached: final, and a record for it is dropped)."""
        if self.observed < end or (self.end_inclusive and self.observed == end):
            return "open"
        return "grace" if self.observed < self.closes_at(end) else "closed"

    def emit(self, record: Record, window: Window, old: Any, new: Any, timestamp: int) -> None:
        if not self.updates:
            return
        old = old if self.s.send_old_values else None
        self.forward(Record(Windowed(record.key, window), Change(new, old), timestamp,
                            record.raw_headers))

    def emit_final(self, record: Record | None, close_time: int) -> None:
        """Forward the windows closed since the last emission (``on_window_close`` only)."""
        if self.updates:
            return
        now = self.ctx.current_system_time_ms()
        if now < self.next_emit:  # throttled by the emit interval
            return
        self.next_emit = now + self.emit_interval
        if self.last_emit != _NO_TIMESTAMP and self.last_emit >= close_time:
            return
        upper = self.emit_upper(close_time)
        if upper < 0:  # no window has closed yet
            return
        lower = self.emit_lower()
        if not self.should_fetch(lower, upper):
            return
        headers = Headers() if record is None else record.raw_headers
        forward = self.forward
        emitted = 0
        with self.closed_windows(lower, upper) as closed:
            for windowed, value, timestamp in closed:
                emitted += 1
                forward(Record(windowed, Change(value, None), timestamp, headers))
        if self.emit_metrics is not None:
            self.emit_metrics.record(emitted, now)
        self.last_emit = close_time
        remember = getattr(self.ctx, "add_processor_metadata_key_value", None)
        if remember is not None:
            remember(self.s.store_name, close_time)

    def emit_lower(self) -> int:
        """The smallest window start (inclusive) to emit."""
        raise NotImplementedError

    def emit_upper(self, close_time: int) -> int:
        """The largest window start (inclusive) to emit."""
        raise NotImplementedError

    def should_fetch(self, lower: int, upper: int) -> bool:
        """False when no new window can have closed in ``[lower, upper]``."""
        return True

    def closed_windows(self, lower: int, upper: int) -> Any:
        """``(Windowed, value, timestamp)`` of every window starting in ``[lower, upper]``."""
        return ClosedWindows(self.store.fetch_all(lower, upper))


class _Part:
    """Updates of a window aggregation batch form in a row: each one's batch position, new
    aggregate, old one (``None`` where old values are not sent) and timestamp, of windows at
    ``start`` (a run: its windowed keys' bytes ``distinct[ids[i]]``), or one by one
    (``start`` ``None``: each update's start in ``starts``, its key bytes ``distinct[i]``,
    ``ids`` ``None``). A run's columns are held as they are given."""

    __slots__ = ("distinct", "ids", "news", "olds", "positions", "stamps", "start", "starts")

    def __init__(self, positions: list[int], start: int | None, news: list[Any],
                 olds: list[Any] | None, stamps: list[int], distinct: list[bytes],
                 ids: list[int] | None) -> None:
        self.positions, self.start, self.news, self.olds = positions, start, news, olds
        self.stamps, self.distinct, self.ids = stamps, distinct, ids
        self.starts: list[int] = []

    def window_starts(self) -> Any:
        """Each update's window start."""
        return self.starts if self.start is None else repeat(self.start, len(self.news))

    def window_keys(self) -> list[bytes]:
        """Each update's windowed key bytes."""
        ids = self.ids
        return self.distinct if ids is None else list(map(self.distinct.__getitem__, ids))


def _joined(columns: list[Any]) -> list[Any]:
    """The columns one after another (the one column itself, when there is one)."""
    return columns[0] if len(columns) == 1 else list(chain.from_iterable(columns))


class _Updates:
    """A window aggregation batch form's updates so far, in the record path's order, as
    parts (``_Part``); ``olds``: whether old values are kept; ``one_each``: one update per
    record of the batch, in order."""

    __slots__ = ("olds", "one_each", "parts")

    def __init__(self, olds: bool) -> None:
        self.parts: list[_Part] = []
        self.olds = olds
        self.one_each = False

    def add_run(self, start: int, positions: list[int], key_bytes: list[bytes],
                ids: list[int], news: list[Any], olds: list[Any] | None,
                stamps: list[int]) -> None:
        """A run's updates of the windows at ``start`` (update ``i``: key ``key_bytes[ids[i]]``;
        the lists are held as they are)."""
        window_keys = list(map(bytes.__add__, key_bytes, repeat(_pack_start(start))))
        self.parts.append(_Part(positions, start, news, olds if self.olds else None, stamps,
                                window_keys, ids))

    def add(self, position: int, start: int, key_bytes: bytes, new: Any, old: Any,
            stamp: int) -> None:
        """One update."""
        parts = self.parts
        if not parts or parts[-1].start is not None:
            parts.append(_Part([], None, [], [] if self.olds else None, [], [], None))
        part = parts[-1]
        part.positions.append(position)
        part.starts.append(start)
        part.news.append(new)
        if part.olds is not None:
            part.olds.append(old)
        part.stamps.append(stamp)
        part.distinct.append(key_bytes + _pack_start(start))

    def batch(self, batch: Batch, size: int, writes: Any, flushed: Flushed,
              cached: bool) -> Batch:
        """What the processor forwards: every update (``cached``: what the record cache's
        flushes forward instead), its ``Windowed`` key and ``Change`` built only if read
        (and, of several runs, their positions and new aggregates joined only if read)."""
        parts = self.parts
        if not parts:
            return Batch([], [], [], [])
        stamps = _joined([part.stamps for part in parts])
        olds = _joined([part.olds for part in parts]) if self.olds else None
        window_keys = _joined([part.window_keys() for part in parts])
        distinct: list[bytes] | None = None
        ids: list[int] | None = None
        if all(part.ids is not None for part in parts):  # the runs' distinct keys
            distinct = _joined([part.distinct for part in parts])
            offsets = accumulate([len(part.distinct) for part in parts[:-1]], initial=0)
            ids = _joined([part.ids if not offset else list(map(add, part.ids,
                                                                  repeat(offset)))
                           for part, offset in zip(parts, offsets, strict=True)])
        if cached and flushed.updates is not None:  # each key's last update of a consumed
            forwarded = flushed.updates  # record: picked from the columns joined
            all_starts = list(chain.from_iterable(part.window_starts() for part in parts))
            positions, starts, news, stamps, window_keys = (
                list(map(column.__getitem__, forwarded)) for column in (
                    _joined([part.positions for part in parts]), all_starts,
                    _joined([part.news for part in parts]), stamps, window_keys))
            keys: Any = _WindowedKeys(batch.keys, positions, starts, size)
            values: Any = news
            origin = list(map(batch.origin.__getitem__, positions))
            distinct = ids = parents = None
        else:
            keys = _WindowedKeys(batch.keys, None, parts, size)
            values = parts[0].news if len(parts) == 1 else partial(
                _joined, [part.news for part in parts])
            parents = None if self.one_each else _joined([part.positions for part in parts])
            origin = batch.origin if parents is None else list(map(batch.origin.__getitem__,
                                                                   parents))
        if cached:  # copies of what the cache keeps, as its flush forwards them
            values = fresh_values(values if values.__class__ is list else values())
        return Batch(keys, Changes(values, flushed.olds if cached else olds,
                                   Encoded(writes.value_serde, flushed.value_bytes)),
                     origin, stamps,
                     Encoded(TimeWindowed(writes.key_serde), window_keys, distinct, ids),
                     parents=parents, at_commit=cached)


class _WindowedKeys:
    """The ``Windowed`` keys of window updates, built when read (a sink given their bytes
    never builds them): ``Windowed(keys[positions[i]], Window(start, start + size))`` with
    each update's position and start (``positions`` ``None`` and ``starts`` the ``_Part``
    list: theirs), one ``Window`` per start."""

    __slots__ = ("keys", "positions", "size", "starts")

    def __init__(self, keys: list[Any], positions: list[int] | None, starts: Any,
                 size: int) -> None:
        self.keys, self.positions, self.starts, self.size = keys, positions, starts, size

    def __call__(self) -> list[Windowed]:
        size, starts, positions = self.size, self.starts, self.positions
        if positions is None:  # the parts'
            positions = _joined([part.positions for part in starts])
            starts = list(chain.from_iterable(part.window_starts() for part in starts))
        windows = {start: Window(start, start + size) for start in set(starts)}
        return list(map(_new_tuple, repeat(Windowed), zip(
            map(self.keys.__getitem__, positions), map(windows.__getitem__, starts),
            strict=True)))


class ClosedWindows:
    """A window store scan seen as ``(Windowed, value, timestamp)`` triples."""

    def __init__(self, iterator: Any) -> None:
        self.iterator = iterator

    def __enter__(self) -> Any:
        return ((kv.key, kv.value.value, kv.value.timestamp) for kv in self.iterator)

    def __exit__(self, *exc: object) -> None:
        self.iterator.close()


class TimeWindowAggregateSupplier(WindowedSupplier):
    """Java's ``KStreamWindowAggregate`` over ``TimeWindows``."""

    def __call__(self) -> Processor:
        return _TimeWindowProcessor(self)


class _TimeWindowProcessor(WindowedProcessor):
    def init(self, context: ProcessorContext) -> None:
        super().init(context)
        store = self.store
        windows = self.s.windows
        self.size, self.advance, self.grace = windows.size_ms, windows.advance_ms, windows.grace_ms
        self.serialize = getattr(store, "serialize_key", None)
        if self.serialize is not None:  # a kslab window store: skip re-serializing the key
            self.fetch, self.put = store.fetch_serialized, store.put_serialized
        else:
            self.fetch, self.put = store.fetch, store.put
        # a kslab timestamped window store itself (not a cache or other wrapper in front of
        # it): values and timestamps without ValueAndTimestamp
        self.pairs = isinstance(store, TimestampedWindowStore)
        if self.pairs:
            self.fetch_pair, self.put_pair = store.fetch_pair, store.put_pair
        self.window: Window = Window(-1, -1)  # the last tumbling window (shared by all keys)

    def process(self, record: Record) -> None:
        key = record.key
        if key is None:  # as Java: a null value is aggregated (the aggregator sees None)
            skip_record(self.ctx, "null key")
            return
        timestamp = record.timestamp
        if timestamp > self.observed:
            self.observed = timestamp
        close_time = self.observed - self.grace
        key_bytes = key if self.serialize is None else self.serialize(key)
        size, advance = self.size, self.advance
        if advance == size and timestamp >= 0:  # tumbling: exactly one window
            start = timestamp - timestamp % size
            window = self.window
            if window.start != start:
                window = self.window = Window(start, start + size)
            if self.pairs and window.end > close_time:
                self._update_pair(record, key_bytes, start, window)
            else:
                self._update(record, key_bytes, start, window, close_time)
        else:
            for start, window in self.s.windows.windows_for(timestamp).items():
                self._update(record, key_bytes, start, window, close_time)
        if not self.updates:
            self.emit_final(record, close_time)

    def process_batch(self, batch: Batch, run: BatchRun) -> Batch | None:
        """``process`` over a run of a window aggregation that emits every update: per record
        and window in order, the aggregator over the window's value as the store's held
        writes see it (tumbling windows in runs of one window: ``_fold_runs``); a record for
        a closed window is skipped in phase two with its warning. The updates go out as
        columns: their ``Windowed`` keys and ``Change`` values unbuilt, with the key and value
        bytes the store wrote (``Encoded``). ``None`` (record by record) on window close, for
        windows other than ``TimeWindows``, or when the store cannot hold the writes (or an
        aggregate became ``None``)."""
        if not self.updates or type(self.s.windows) is not TimeWindows:
            return None
        held = getattr(self.store, "held_writes", None)
        writes = None if held is None else held(batch, run)
        if writes is None:
            return None
        keys, origin = batch.keys, batch.origin
        timestamps = run.timestamps(batch)
        types = key_types(keys)
        if _NONE in types:
            positions: Any = [position for position, key in enumerate(keys) if key is not None]
            for position in sorted(set(range(len(keys))) - set(positions)):
                run.defer(origin[position], self._skip_null_key, position)
            timestamps = list(map(timestamps.__getitem__, positions))
            types.discard(_NONE)
        else:
            positions = range(len(keys))  # (a range: every record's)
        keyed = list(map(keys.__getitem__, positions)) if len(positions) < len(keys) else keys
        updates = _Updates(self.s.send_old_values)
        fold = self._fold_runs if self.advance == self.size else self._fold_each
        if not fold(batch, run, writes, positions, timestamps, keyed, types, updates):
            return None
        flushed = writes.flushed()  # a cached store's: what the commits after each record
        if flushed is None:  # flush, as its flush listener sends them
            return None
        run.hold(writes)
        if positions:  # the processor's own stream time, as the records leave it
            observed = max(self.observed, max(timestamps))
            run.defer(origin[positions[-1]], partial(setattr, self, "observed", observed),
                      positions[-1])
        return updates.batch(batch, self.size, writes, flushed, self.forward is no_forward)

    def _counts(self) -> bool:
        """True for ``count()``: the aggregate is the number of records."""
        return self.s.initializer is count_initializer and self.s.aggregator is count_adder

    def _fold_runs(self, batch: Batch, run: BatchRun, writes: Any, positions: Any,
                   timestamps: list[int], keys: list[Any], types: set[type],
                   updates: _Updates) -> bool:
        """Tumbling windows: the records in runs of one window (records in time order make
        long ones), each run's keys told apart once (``tally_keys``) and read once
        (``fetch_window``), the aggregator over them in order (a count in C), the run's
        writes held at once (``put_window``); each record's window and stream time worked
        out in C (``keys``: the records' at ``positions``, of ``types``). ``False``: never
        (an aggregate that became ``None`` is found by ``flushed``)."""
        size, grace = self.size, self.grace
        n = len(positions)
        ordered = all(map(le, timestamps, islice(timestamps, 1, None)))
        closed: list[bool] | None = None
        if ordered and (not n or timestamps[0] >= self.observed):
            # each record the latest so far: its window open; a run ends where the next
            # window starts (found by bisection)
            bounds = [0]
            while bounds[-1] < n:
                stamp = timestamps[bounds[-1]]
                bounds.append(bisect_left(timestamps, stamp - stamp % size + size,
                                          bounds[-1]))
            starts: Any = None
        else:
            starts = list(map(sub, timestamps, map(mod, timestamps, repeat(size))))
            changes = list(map(ne, starts, islice(starts, 1, None)))  # a new window at i + 1
            seen = list(accumulate(timestamps, max, initial=self.observed))[1:]
            closed = list(map(le, map(add, starts, repeat(size + grace)), seen))
            if any(closed):
                changes = list(map(or_, changes, map(ne, closed, islice(closed, 1, None))))
            else:
                closed = None
            bounds = [0, *compress(range(1, n), changes), n]
        values, origin = batch.values, batch.origin
        counts = self._counts()
        key_serde, serialize = writes.key_serde, writes.serialize_keys
        for first, end in pairwise(bounds):
            stamp = timestamps[first]
            start = stamp - stamp % size
            if closed is not None and closed[first]:  # the processor drops them
                window = f"[{start},{start + size})"
                for i in range(first, end):
                    run.defer(origin[positions[i]], partial(
                        skip_expired, self.ctx, timestamps[i], seen[i] - grace, window,
                        seen[i]), positions[i])
                continue
            if end - first == n:  # the whole batch: its columns
                where, stamped, run_keys = positions, timestamps, keys
            else:
                where, stamped, run_keys = (positions[first:end], timestamps[first:end],
                                            keys[first:end])
            tally = tally_keys(run_keys, key_serde, serialize, types)  # distinct (bytes),
            # each one's id
            distinct, ids = tally.distinct, tally.ids
            stored = writes.fetch_window(start, distinct)
            if counts:
                olds, news, stamps = count_updates(ids, stored, stamped, updates.olds,
                                                   ordered or None)
            else:
                olds, news, stamps = self._fold_run(ids, stored, where, stamped,
                                                    batch.keys, values)
            writes.put_window(start, distinct, ids, news, stamps, where)
            updates.add_run(start, where, distinct, ids, news, olds, stamps)
        updates.one_each = closed is None and n == len(batch.origin)
        return True

    def _fold_run(self, ids: list[int], stored: list[Any], positions: list[int],
                  timestamps: list[int], keys: list[Any], values: list[Any]
                  ) -> tuple[list[Any], list[Any], list[int]]:
        """The aggregator once per update of a run of one window, in order, over each key's
        window value as the run's updates leave it (``stored``: before the run)."""
        initializer, aggregator = self.s.initializer, self.s.aggregator
        current = list(stored)
        olds: list[Any] = []
        news: list[Any] = []
        stamps: list[int] = []
        for key_id, position, timestamp in zip(ids, positions, timestamps, strict=True):
            held = current[key_id]
            if held is None:
                old, stamp = initializer(), timestamp
            else:
                old, stamp = held
                if old.__class__ not in IMMUTABLE:  # its own object (kslab.state.fresh)
                    old = fresh_value(old)
                if timestamp > stamp:
                    stamp = timestamp
            new = aggregator(keys[position], values[position], old)
            current[key_id] = (new, stamp)
            olds.append(old)
            news.append(new)
            stamps.append(stamp)
        return olds, news, stamps

    def _fold_each(self, batch: Batch, run: BatchRun, writes: Any, positions: Any,
                   timestamps: list[int], keys: list[Any], types: set[type],
                   updates: _Updates) -> bool:
        """Any ``TimeWindows``: per record and window in order, the aggregator over the
        window's value as the held writes see it (``keys``: the records' at
        ``positions``, of ``types``). ``False``: an aggregate became ``None``."""
        tally = tally_keys(keys, writes.key_serde, writes.serialize_keys, types)
        s = self.s
        initializer, aggregator, grace = s.initializer, s.aggregator, self.grace
        windows_for, fetch, put = s.windows.windows_for, writes.fetch, writes.put
        keys, values, origin = batch.keys, batch.values, batch.origin
        observed = self.observed
        for position, key, timestamp in zip(positions, map(tally.distinct.__getitem__,
                                                           tally.ids), timestamps,
                                            strict=True):
            if timestamp > observed:
                observed = timestamp
            close_time = observed - grace
            for start, window in windows_for(timestamp).items():
                if window.end <= close_time:
                    run.defer(origin[position], partial(
                        skip_expired, self.ctx, timestamp, close_time,
                        f"[{start},{window.end})", observed), position)
                    continue
                stored = fetch(key, start, position)
                if stored is None:
                    old, stamp = initializer(), timestamp
                else:
                    old, stamp = stored
                    if old.__class__ not in IMMUTABLE:  # its own object (kslab.state.fresh)
                        old = fresh_value(old)
                    if timestamp > stamp:
                        stamp = timestamp
                new = aggregator(keys[position], values[position], old)
                if not put(key, start, new, stamp, position):
                    return False
                updates.add(position, start, key, new, old, stamp)
        return True

    def _skip_null_key(self) -> None:
        skip_record(self.ctx, "null key")

    def emit_lower(self) -> int:
        if self.last_emit == _NO_TIMESTAMP:
            return 0
        return max(0, self.last_emit - self.size) + 1

    def emit_upper(self, close_time: int) -> int:
        return close_time - self.size

    def should_fetch(self, lower: int, upper: int) -> bool:
        if self.last_emit == _NO_TIMESTAMP:
            return True
        windows = self.s.windows
        return windows.windows_for(upper) != windows.windows_for(lower - 1)

    def _update_pair(self, record: Record, key_bytes: bytes, start: int, window: Window) -> None:
        """``_update`` of an open window through the store's pair methods (the hot path)."""
        s = self.s
        timestamp = record.timestamp
        stored = self.fetch_pair(key_bytes, start)
        if stored is None:
            old = s.initializer()
            new_ts = timestamp
        else:
            old, new_ts = stored
            if timestamp > new_ts:
                new_ts = timestamp
        new = s.aggregator(record.key, record.value, old)
        self.put_pair(key_bytes, new, new_ts, start)
        if self.updates:
            self.forward(Record(Windowed(record.key, window),
                                Change(new, old if s.send_old_values else None), new_ts,
                                record.raw_headers))

    def _update(self, record: Record, key_bytes: Any, start: int, window: Window,
                close_time: int) -> None:
        timestamp = record.timestamp
        if window.end <= close_time:
            skip_expired(self.ctx, timestamp, close_time, f"[{start},{window.end})",
                         self.observed)
            return
        s = self.s
        stored = self.fetch(key_bytes, start)
        if stored is None:
            old = s.initializer()
            new_ts = timestamp
        else:
            old = stored.value
            new_ts = timestamp if timestamp > stored.timestamp else stored.timestamp
        new = s.aggregator(record.key, record.value, old)
        # Java's ValueAndTimestamp.make(null, ts) is null: a None aggregate deletes the window
        self.put(key_bytes, None if new is None else ValueAndTimestamp(new, new_ts), start)
        if self.updates:
            self.forward(Record(Windowed(record.key, window),
                                Change(new, old if s.send_old_values else None), new_ts,
                                record.raw_headers))
