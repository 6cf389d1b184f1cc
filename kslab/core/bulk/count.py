"""A non-windowed ``count`` over a chunk's records, on the store itself, with its output rows.

Per record, exactly what ``KStreamAggregate`` with the count initializer and adder does on an
uncached timestamped store: read, add one, keep the larger timestamp, write through the store
(so its bytes and changelog are the store's own), and forward ``to_stream`` the new count.
"""

from __future__ import annotations

from typing import Any

from kslab.dsl._processors import skip_record
from kslab.records import ValueAndTimestamp

__all__ = ["count_rows"]

_new_tuple = tuple.__new__


def count_rows(context: Any, topic: str, store: Any, sink: Any, keys: list[Any],
               values: list[Any], timestamps: list[int], headers: list[Any],
               first_offset: int) -> list[tuple[Any, ...]]:
    """Count ``keys`` read from ``topic`` into ``store``; the sink's serialized output rows."""
    get, put = store.get, store.put
    out_topic = sink.topic
    key_ser, value_ser = sink._key_ser, sink._value_ser
    out: list[tuple[Any, ...]] = []
    append = out.append
    vat = ValueAndTimestamp
    offset = first_offset
    for key, value, timestamp, header in zip(keys, values, timestamps, headers, strict=True):
        if key is None or value is None:
            context.topic, context.partition, context.offset = topic, 0, offset
            skip_record(context, "null key or value")
            offset += 1
            continue
        stored = get(key)
        if stored is None:
            new = 1
        else:
            new = stored[0] + 1
            if stored[1] > timestamp:
                timestamp = stored[1]
        put(key, _new_tuple(vat, (new, timestamp)))
        append((key_ser(out_topic, key, header), value_ser(out_topic, new, header), header,
                timestamp, 0))
        offset += 1
    return out
