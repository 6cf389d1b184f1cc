"""The ``count`` at the end of a bulk chain: per record, on the store, in record-path order.

An uncached non-windowed count is done on the store directly, exactly as ``KStreamAggregate``
with the count initializer and adder does it (read, add one, keep the larger timestamp, write
through the store, so bytes and changelog are the store's own). Any other count (a record
cache, windows) runs its real processor per record, with the task's context set as the record
path sets it and a commit after each record; only what it forwards is taken over: ``to_stream``
and the sink become one serialization into the output rows.
"""

from __future__ import annotations

from typing import Any

from kslab.dsl._processors import skip_record
from kslab.errors import KslabError
from kslab.records import Record, ValueAndTimestamp

__all__ = ["count_direct", "count_with_processor"]

_new_tuple = tuple.__new__


def count_direct(context: Any, topic: str, store: Any, sink: Any, keys: list[Any],
                 values: list[Any], timestamps: list[int], headers: list[Any],
                 first_offset: int) -> list[tuple[Any, ...]]:
    """Count ``keys`` read from ``topic`` into an uncached timestamped store; output rows."""
    get, put = store.get, store.put
    out_topic = sink.topic
    key_ser, value_ser = sink._key_ser, sink._value_ser
    out: list[tuple[Any, ...]] = []
    append = out.append
    vat = ValueAndTimestamp
    offset = first_offset - 1
    for key, value, timestamp, header in zip(keys, values, timestamps, headers, strict=True):
        offset += 1
        if key is None or value is None:
            context.topic, context.partition, context.offset = topic, 0, offset
            skip_record(context, "null key or value")
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
    return out


class _Capture:
    """Stands in for ``to_stream`` -> sink under the count: serializes each forwarded change."""

    __slots__ = ("append", "call", "key_ser", "name", "topic", "value_ser")

    def __init__(self, name: str, sink: Any, out: list[tuple[Any, ...]]) -> None:
        self.name = name
        self.topic = sink.topic
        self.key_ser, self.value_ser = sink._key_ser, sink._value_ser
        self.append = out.append
        self.call = self._write

    def _write(self, record: Record) -> None:
        headers = record._headers
        topic = self.topic
        self.append((self.key_ser(topic, record.key, headers),
                     self.value_ser(topic, record.value.new_value, headers),
                     headers, record.timestamp, 0))


def count_with_processor(task: Any, topic: str, aggregate: Any, sink: Any, keys: list[Any],
                         values: list[Any], timestamps: list[int], headers: list[Any],
                         offsets: list[int]) -> list[tuple[Any, ...]]:
    """Run the count's processor on each record, committing after each; the output rows."""
    context = task.context
    commit = task.commit
    process = aggregate.processor.process
    out: list[tuple[Any, ...]] = []
    children = aggregate.children
    aggregate.children = [_Capture(children[0].name, sink, out)]
    try:
        for key, value, timestamp, header, offset in zip(keys, values, timestamps, headers,
                                                         offsets, strict=True):
            context.topic, context.partition, context.offset = topic, 0, offset
            record = context.record = Record(key, value, timestamp, header)
            context.current = aggregate
            try:
                process(record)
            except KslabError:
                raise
            except Exception as exc:
                raise context.processing_error(aggregate.name, record, exc) from exc
            commit()
    finally:
        aggregate.children = children
        context.current = None
    return out
