"""A tumbling-window ``count`` emitting every update, done as its processor does it.

This is ``KStreamWindowAggregate``'s hot path (one window per record, the window still open,
an uncached timestamped window store read and written through its pair methods) with the
processor's own observed stream time and shared ``Window``. A run of records of one window
that is open in the store and stays open (no null, nothing late enough to drop) is counted at
once: each key's window read and written once, every update's output and changelog record as
the record path writes them. Other records go one at a time; one for a closed window (or with
a null key or value) goes to the real processor, which drops, logs and counts it.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from itertools import repeat
from operator import add
from typing import Any

from kslab.core.bulk.columns import LogBatch
from kslab.core.bulk.count import Tally, _same_bytes, capture_forwards
from kslab.records import Record, Window, Windowed
from kslab.serdes import TimeWindowed
from kslab.state.window import window_key

__all__ = ["tumbling_count"]

_RUN = 16  # the shortest run of one window worth counting at once
_LONG = struct.Struct(">q")  # a windowed key's start after its bytes; a stored timestamp


class _Output:
    """The output's and the changelog's records so far, as columns, in the record path's
    order; the changelog's wait until the store writes one itself (or the chunk ends)."""

    __slots__ = ("changelog", "headers", "keys", "log_keys", "log_timestamps", "log_values",
                 "timestamps", "values")

    def __init__(self, changelog: Callable[[LogBatch], None] | None) -> None:
        self.keys: list[Any] = []
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
            self.changelog(LogBatch(self.log_keys, self.log_values, None,  # type: ignore[misc]
                                    self.log_timestamps))
            self.log_keys, self.log_values, self.log_timestamps = [], [], []

    def batch(self) -> LogBatch:
        """The output, once the changelog's last records are handed over."""
        self.flush_changelog()
        return LogBatch(self.keys, self.values, self.headers, self.timestamps)


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


def tumbling_count(task: Any, topic: str, aggregate: Any, sink: Any, keys: list[Any],
                   values: list[Any], timestamps: list[int], headers: list[Any],
                   first_offset: int, origins: list[int],
                   key_bytes_of: dict[Any, bytes] | None = None,
                   changelog: Callable[[LogBatch], None] | None = None
                   ) -> tuple[LogBatch, int]:
    """Count each record into its tumbling window; the sink's output and how many records
    were counted in runs at once (``key_bytes_of``: keys the store already serialized;
    ``changelog``: appends to the changelog's log, when the engine lets records be appended
    there in batches; each batch goes before the store writes a record itself)."""
    processor = aggregate.processor
    store = processor.store
    serialize, fetch_pair, put_pair = processor.serialize, processor.fetch_pair, \
        processor.put_pair
    size, grace = processor.size, processor.grace
    out_topic = sink.topic
    key_ser, value_ser = sink._key_ser, sink._value_ser
    output = _Output(changelog)
    parts = _run_parts(store, sink, changelog, key_bytes_of)
    captured: list[tuple[Any, ...]] = []
    if key_bytes_of is None:
        key_bytes_of = {}
    count = len(keys)
    at_once = 0
    i = 0
    with capture_forwards(aggregate, sink, captured) as process:
        while i < count:
            # no runs at once (parts None): every record one at a time, in one loop
            end = count if parts is None else _run_end(processor, store, keys, values,
                                                       timestamps, i)
            if parts is not None and end - i >= _RUN and _count_run(
                    processor, store, sink, parts, output, keys[i:end], values[i:end],
                    timestamps[i:end], headers[i:end], key_bytes_of):
                at_once += end - i
                i = end
                continue
            if output.changelog is not None:
                output.flush_changelog()
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
                stored = fetch_pair(key_bytes, start)
                if stored is None:
                    new, new_timestamp = 1, timestamp
                else:
                    new, new_timestamp = stored[0] + 1, stored[1]
                    if timestamp > new_timestamp:
                        new_timestamp = timestamp
                put_pair(key_bytes, new, new_timestamp, start)
                output.keys.append(key_ser(out_topic, Windowed(key, window), header))
                output.values.append(value_ser(out_topic, new, header))
                output.headers.append(header)
                output.timestamps.append(new_timestamp)
            i = max(end, i + 1)
    return output.batch(), at_once


def _run_end(processor: Any, store: Any, keys: list[Any], values: list[Any],
             timestamps: list[int], first: int) -> int:
    """Where the run from ``first`` ends: records of one window that the store holds as
    open (no new window, none expired), with no null, none late enough to be dropped."""
    size, grace = processor.size, processor.grace
    timestamp = timestamps[first]
    start = timestamp - timestamp % size
    if not store.holds_open(start):
        return first  # a new window (segments roll), an expired one: the store decides
    end = start + size
    latest = processor.observed
    if end <= latest - grace:
        return first  # closed already: the processor drops its records
    i, count = first, len(keys)
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
               key_bytes_of: dict[Any, bytes]) -> bool:
    """Count a run of one window (see ``_run_end``) at once: each key's window read once,
    written once, every update's changelog and output record. ``False``, with nothing
    changed, when a key or a stored value is not the common case."""
    same_keys, same_values = parts
    bget, vdec, vidx, venc = store._bget, store._vdec, store._vdec_indexed, store._venc
    timestamp = timestamps[0]
    start = timestamp - timestamp % processor.size
    suffix = window_key(b"", start)
    try:
        tally = Tally(keys, key_bytes_of)
        binary = list(map(add, tally.distinct_bytes, repeat(suffix)))  # each window's key
        tally.read(map(bget, binary), vdec, vidx)
        news, stamped, _ = tally.run(timestamps)
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
    except Exception:
        return False  # the record-at-a-time loop gives the outcome or the error
    store.put_open_window(start, binary,  # first-seen order, as the record path adds keys
                          list(map(add, map(_LONG.pack, tally.stamps), map(venc, tally.counts))))
    if output.changelog is not None:
        output.log_keys += map(binary.__getitem__, tally.ids)
        output.log_values += raws
        output.log_timestamps += stamped
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
