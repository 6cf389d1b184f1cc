"""A tumbling-window ``count`` emitting every update, done as its processor does it, per record.

This is ``KStreamWindowAggregate``'s hot path (one window per record, the window still open,
an uncached timestamped window store read and written through its pair methods) with the
processor's own observed stream time and shared ``Window``; a record for a closed window (or
with a null key or value) goes to the real processor, which drops, logs and counts it.
"""

from __future__ import annotations

from typing import Any

from kslab.core.bulk.count import capture_forwards
from kslab.records import Record, Window, Windowed

__all__ = ["tumbling_count"]


def tumbling_count(task: Any, topic: str, aggregate: Any, sink: Any, keys: list[Any],
                   values: list[Any], timestamps: list[int], headers: list[Any],
                   first_offset: int, origins: list[int],
                   key_bytes_of: dict[Any, bytes] | None = None) -> list[tuple[Any, ...]]:
    """Count each record into its tumbling window; the sink's serialized output rows
    (``key_bytes_of``: keys the store already serialized)."""
    processor = aggregate.processor
    serialize, fetch_pair, put_pair = processor.serialize, processor.fetch_pair, \
        processor.put_pair
    size, grace = processor.size, processor.grace
    out_topic = sink.topic
    key_ser, value_ser = sink._key_ser, sink._value_ser
    out: list[tuple[Any, ...]] = []
    append = out.append
    if key_bytes_of is None:
        key_bytes_of = {}
    with capture_forwards(aggregate, sink, out) as process:
        for key, value, timestamp, header, origin in zip(keys, values, timestamps, headers,
                                                         origins, strict=True):
            if key is None or value is None:
                process(topic, first_offset + origin, Record(key, value, timestamp, header))
                continue
            if timestamp > processor.observed:
                processor.observed = timestamp
            start = timestamp - timestamp % size
            window = processor.window
            if window.start != start:
                window = processor.window = Window(start, start + size)
            if window.end <= processor.observed - grace:  # closed: the processor drops it
                process(topic, first_offset + origin, Record(key, value, timestamp, header))
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
            append((key_ser(out_topic, Windowed(key, window), header),
                    value_ser(out_topic, new, header), header, new_timestamp, 0))
    return out
