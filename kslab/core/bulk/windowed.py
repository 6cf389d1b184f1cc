"""A tumbling-window ``count`` emitting every update, done as its processor does it.

This is ``KStreamWindowAggregate``'s hot path (one window per record, the window still open,
a timestamped window store read and written through its pair methods) with the processor's
own observed stream time and shared ``Window``. A run of records of one window that is open in
the store and stays open (no null, nothing late enough to drop) is counted at once: each key's
window read and written once, every update's output and changelog record as the record path
writes them. Behind a record cache (which the driver flushes after every record), a run also
leaves the cache as each record's get, put and flush would (``_CacheRun``). Other records go
one at a time; one for a closed window (or with a null key or value) goes to the real
processor, which drops, logs and counts it; behind a cache every one does, then the commit.
"""

from __future__ import annotations

import struct
from bisect import bisect_left
from collections.abc import Callable
from itertools import islice, repeat
from operator import add, le
from typing import Any

from kslab.core.bulk.columns import ByteColumn, LogBatch, fixed_width
from kslab.core.bulk.count import (
    Tally,
    _same_bytes,
    capture_forwards,
    flush_final_entries,
    replays_cache,
)
from kslab.records import Record, Window, Windowed
from kslab.serdes import TimeWindowed
from kslab.state.cache import NODE_OVERHEAD, entry_size, headers_size
from kslab.state.caching_window import CachingWindowStore
from kslab.state.window import TimestampedWindowStore, window_key

__all__ = ["replays_window_cache", "tumbling_count"]

_RUN = 16  # the shortest run of one window worth counting at once
_LONG = struct.Struct(">q")  # a windowed key's start after its bytes; a stored timestamp


class _Output:
    """The output's and the changelog's records so far, as columns, in the record path's
    order; the changelog's wait until the store writes one itself (or the chunk ends)."""

    __slots__ = ("changelog", "headers", "key_dictionaries", "keys", "log_keys",
                 "log_timestamps", "log_values", "log_width", "timestamps", "values", "width")

    def __init__(self, changelog: Callable[[LogBatch], None] | None, width: int | None,
                 log_width: int | None) -> None:
        self.width, self.log_width = width, log_width  # of every value (fixed-width serdes)
        self.keys: list[Any] = []
        self.key_dictionaries: list[tuple[int, list[bytes], list[int]]] = []  # of runs' keys
        self.values: list[Any] = []
        self.headers: list[Any] = []
        self.timestamps: list[int] = []
        self.changelog = changelog
        self.log_keys: list[bytes] = []
        self.log_values: list[bytes] = []
        self.log_timestamps: list[int] = []

    def add_rows(self, rows: list[tuple[Any, ...]]) -> None:
        """Move the processor's forwarded rows (captured) to the columns."""
        for key, value, header, timestamp, _ in rows:
            self.keys.append(key)
            self.values.append(value)
            self.headers.append(header)
            self.timestamps.append(timestamp)
        rows.clear()

    def flush_changelog(self) -> None:
        """Hand over the changelog records collected so far (before the store writes one)."""
        if self.log_timestamps:
            self.changelog(LogBatch(  # type: ignore[misc]
                self.log_keys, ByteColumn(self.log_values, self.log_width), None,
                self.log_timestamps))
            self.log_keys, self.log_values, self.log_timestamps = [], [], []

    def batch(self) -> LogBatch:
        """The output, once the changelog's last records are handed over."""
        self.flush_changelog()
        return LogBatch(ByteColumn(self.keys, dictionaries=self.key_dictionaries),
                        ByteColumn(self.values, self.width), self.headers, self.timestamps)


def _run_parts(store: Any, sink: Any, changelog: Callable[[LogBatch], None] | None,
               key_bytes_of: dict[Any, bytes] | None) -> tuple[Any, ...] | None:
    """Whether the sink writes the store's key and value bytes, when runs can be counted at
    once; ``None`` when the record-at-a-time loop must do it all (the store logs its writes
    itself, a codec is not a C-level one, keys unserialized)."""
    if key_bytes_of is None or (changelog is None and store._log is not None) \
            or store._vdec is None or store._venc is None or sink._value_enc is None:
        return None
    sink_serde = sink.key_serde
    same_keys = type(sink_serde) is TimeWindowed \
        and _same_bytes(sink_serde._inner, store._key_serde)
    same_values = _same_bytes(sink.value_serde, store._value_serde)
    return same_keys, same_values


def replays_window_cache(task: Any, aggregate: Any, store: Any) -> bool:
    """True when ``store`` is a record cache in front of a plain timestamped window store
    (no index, no duplicates) whose use by ``aggregate`` the count can replay exactly
    (``replays_cache``)."""
    return type(store) is CachingWindowStore and store._cache is not None \
        and not store._index and type(store.wrapped) is TimestampedWindowStore \
        and not store.wrapped._retain_duplicates and replays_cache(task, aggregate, store)


def tumbling_count(task: Any, topic: str, aggregate: Any, sink: Any, keys: list[Any],
                   values: list[Any], timestamps: list[int], headers: list[Any],
                   first_offset: int, origins: list[int],
                   key_bytes_of: dict[Any, bytes] | None = None,
                   changelog: Callable[[LogBatch], None] | None = None, cached: bool = False
                   ) -> tuple[LogBatch, int]:
    """Count each record into its tumbling window; the sink's output and how many records
    were counted in runs at once (``key_bytes_of``: keys the store already serialized;
    ``changelog``: appends to the changelog's log, when the engine lets records be appended
    there in batches; each batch goes before the store writes a record itself). ``cached``:
    the processor's store is a record cache ``replays_window_cache`` accepts, and every
    consumed record gave one update (the commit after each record is done here)."""
    processor = aggregate.processor
    store = processor.store
    inner = store.wrapped if cached else store
    serialize, size, grace = processor.serialize, processor.size, processor.grace
    out_topic = sink.topic
    key_ser, value_ser = sink._key_ser, sink._value_ser
    output = _Output(changelog, fixed_width(sink.value_serde), fixed_width(inner._value_serde))
    parts = _run_parts(inner, sink, changelog, key_bytes_of)
    captured: list[tuple[Any, ...]] = []
    if key_bytes_of is None:
        key_bytes_of = {}
    run_cache = _CacheRun(store, topic, first_offset) if cached else None
    ordered = all(map(le, timestamps, islice(timestamps, 1, None)))
    count = len(keys)
    at_once = 0
    i = 0
    with capture_forwards(aggregate, sink, captured) as process:
        while i < count:
            # no runs at once (parts None): every record one at a time, in one loop
            end = count if parts is None else _run_end(processor, inner, keys, values,
                                                       timestamps, i, ordered)
            if parts is not None and end - i >= _RUN and _count_run(
                    processor, inner, sink, parts, output, keys[i:end], values[i:end],
                    timestamps[i:end], headers[i:end], key_bytes_of, run_cache,
                    origins[i:end], ordered or None):
                at_once += end - i
                i = end
                continue
            if output.changelog is not None:
                output.flush_changelog()
            if cached:  # the processor, then the commit's flush forwards its update
                for k in range(i, max(end, i + 1)):
                    process(topic, first_offset + origins[k],
                            Record(keys[k], values[k], timestamps[k], headers[k]))
                    task.commit()
                    output.add_rows(captured)
                i = max(end, i + 1)
                continue
            for k in range(i, max(end, i + 1)):  # one at a time, as the processor does it
                key, value, timestamp, header = keys[k], values[k], timestamps[k], headers[k]
                if key is None or value is None:
                    process(topic, first_offset + origins[k],
                            Record(key, value, timestamp, header))
                    output.add_rows(captured)
                    continue
                if timestamp > processor.observed:
                    processor.observed = timestamp
                start = timestamp - timestamp % size
                window = processor.window
                if window.start != start:
                    window = processor.window = Window(start, start + size)
                if window.end <= processor.observed - grace:  # closed: the processor drops it
                    process(topic, first_offset + origins[k],
                            Record(key, value, timestamp, header))
                    output.add_rows(captured)
                    continue
                key_bytes = key_bytes_of.get(key)
                if key_bytes is None:
                    key_bytes = key_bytes_of[key] = serialize(key)
                stored = processor.fetch_pair(key_bytes, start)
                if stored is None:
                    new, new_timestamp = 1, timestamp
                else:
                    new, new_timestamp = stored[0] + 1, stored[1]
                    if timestamp > new_timestamp:
                        new_timestamp = timestamp
                processor.put_pair(key_bytes, new, new_timestamp, start)
                output.keys.append(key_ser(out_topic, Windowed(key, window), header))
                output.values.append(value_ser(out_topic, new, header))
                output.headers.append(header)
                output.timestamps.append(new_timestamp)
            i = max(end, i + 1)
    return output.batch(), at_once


def _run_end(processor: Any, store: Any, keys: list[Any], values: list[Any],
             timestamps: list[int], first: int, ordered: bool) -> int:
    """Where the run from ``first`` ends: records of one window that the store holds as
    open (no new window, none expired), with no null, none late enough to be dropped
    (``ordered``: the timestamps are in order, found by bisection)."""
    size, grace = processor.size, processor.grace
    timestamp = timestamps[first]
    start = timestamp - timestamp % size
    if not store.holds_open(start):
        return first  # a new window (segments roll), an expired one: the store decides
    end = start + size
    latest = processor.observed
    if end <= latest - grace:
        return first  # closed already: the processor drops its records
    count = len(keys)
    if ordered:  # the run ends at the window's end, or at a null (never closed within)
        i = bisect_left(timestamps, end, first)
        for column in (keys, values):
            try:
                i = column.index(None, first, i)
            except ValueError:
                pass
        return i
    i = first
    while i < count:
        timestamp = timestamps[i]
        if timestamp < start or timestamp >= end or keys[i] is None or values[i] is None:
            break
        if timestamp > latest:
            latest = timestamp
            if end <= latest - grace:
                break  # closed from this record on
        i += 1
    return i


def _count_run(processor: Any, store: Any, sink: Any, parts: tuple[Any, ...], output: _Output,
               keys: list[Any], values: list[Any], timestamps: list[int], headers: list[Any],
               key_bytes_of: dict[Any, bytes], cached: _CacheRun | None,
               origins: list[int], ordered: bool | None) -> bool:
    """Count a run of one window (see ``_run_end``) at once: each key's window read once
    (from the record cache first, when ``cached``), written once, every update's changelog
    and output record (``ordered``: the chunk's timestamps are in order; ``None``: unknown).
    ``False``, with nothing changed, when a key or a stored value is not the common case
    (or the cache might evict)."""
    same_keys, same_values = parts
    bget, vdec, vidx, venc = store._bget, store._vdec, store._vdec_indexed, store._venc
    timestamp = timestamps[0]
    start = timestamp - timestamp % processor.size
    suffix = window_key(b"", start)
    try:
        tally = Tally(keys, key_bytes_of)
        binary = list(map(add, tally.distinct_bytes, repeat(suffix)))  # each window's key
        tally.read(map(bget, binary) if cached is None else cached.read(start, binary, bget),
                   vdec, vidx)
        news, stamped, last = tally.run(timestamps, ordered)
        raws = list(map(venc, news))
        if same_keys:
            window_keys = list(map(add, tally.distinct_bytes, repeat(_LONG.pack(start))))
            out_keys = list(map(window_keys.__getitem__, tally.ids))
        else:
            window = Window(start, start + processor.size)
            topic, key_ser = sink.topic, sink._key_ser
            out_keys = [key_ser(topic, Windowed(key, window), header)
                        for key, header in zip(keys, headers, strict=True)]
        out_values = raws if same_values else list(map(sink._value_enc, news))
        finals = list(map(add, map(_LONG.pack, tally.stamps), map(venc, tally.counts)))
        if cached is not None and not cached.fits(raws, headers, output.log_width):
            return False
    except Exception:
        return False  # the record-at-a-time loop gives the outcome or the error
    store.put_open_window(start, binary, finals)  # first-seen order, as the record path adds
    if cached is not None:
        cached.flushed(keys, values, timestamps, headers, origins, news, stamped, last, finals)
    if output.changelog is not None:
        output.log_keys += map(binary.__getitem__, tally.ids)
        output.log_values += raws
        output.log_timestamps += stamped
    if same_keys:  # each output key one of the run's distinct windows' keys
        output.key_dictionaries.append((len(output.keys), window_keys, tally.ids))
    output.keys += out_keys
    output.values += out_values
    output.headers += headers
    output.timestamps += stamped
    latest = max(timestamps)
    if latest > processor.observed:
        processor.observed = latest
    if processor.window.start != start:
        processor.window = Window(start, start + processor.size)
    return True


class _CacheRun:
    """A run's use of the window store's record cache, as each record's get, put and the
    commit's flush leave it: per key one read (the cached window, else the store's), and one
    final clean entry with its last update's value and record context, in LRU order."""

    __slots__ = ("cache", "first_offset", "keys", "misses", "named", "store", "topic")

    def __init__(self, store: Any, topic: str, first_offset: int) -> None:
        self.store, self.topic, self.first_offset = store, topic, first_offset
        self.cache, self.named = store._cache, store._named
        self.keys: list[bytes] = []  # the run's windows' cache keys (first-seen order)
        self.misses = 0

    def read(self, start: int, binary: list[bytes], bget: Callable[[bytes], Any]
             ) -> list[bytes | None]:
        """Each window's stored bytes before the run: the cached entry's (a hit), else the
        store's (a miss; the caching store does not cache what it reads)."""
        prefix = self.store._cache_key(b"", start)  # the segment, the same for the run
        self.keys = list(map(add, repeat(prefix), binary))
        entries = list(map(self.named._entries.get, self.keys))
        self.misses = entries.count(None)
        return [bget(key) if entry is None else entry.value
                for key, entry in zip(binary, entries, strict=True)]

    def fits(self, raws: list[bytes], headers: list[Any], width: int | None) -> bool:
        """True when no put of the run can evict (the most the cache can grow by);
        ``width``: of every value in ``raws``, when a fixed-width serde wrote them."""
        widest = entry_size(8 + (width or max(map(len, raws))), self.topic,
                            max(map(headers_size, headers)) if any(headers) else 0)
        return self.cache.fits(sum(map(len, self.keys))
                               + len(self.keys) * (NODE_OVERHEAD + widest))

    def flushed(self, keys: list[Any], values: list[Any], timestamps: list[int],
                headers: list[Any], origins: list[int], news: list[int],
                stamped: list[int], last: list[int], finals: list[bytes]) -> None:
        """Leave the cache as the run's gets, puts and flushes would (``finals``: each
        window's stored bytes after the run)."""
        flush_final_entries(self.store, self.keys, finals, last, self.topic, self.first_offset,
                            (keys, values, timestamps, headers, origins), news, stamped, 0,
                            self.misses, key_objects=False)
