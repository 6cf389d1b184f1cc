"""The ``count`` at the end of a bulk chain: per record, on the store, in record-path order.

An uncached non-windowed count is done on the store directly, exactly as ``KStreamAggregate``
with the count initializer and adder does it (read, add one, keep the larger timestamp, write
through the store, so bytes and changelog are the store's own). Any other count (a record
cache, windows) runs its real processor per record, with the task's context set as the record
path sets it and a commit after each record; only what it forwards is taken over: ``to_stream``
and the sink become one serialization into the output rows.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from kslab.dsl._processors import skip_record
from kslab.errors import KslabError
from kslab.records import Record, ValueAndTimestamp

__all__ = ["capture_forwards", "count_direct", "count_with_processor"]

_new_tuple = tuple.__new__
_TIMESTAMP = struct.Struct(">q")  # the store's layout: timestamp, then the value's bytes
_MEMO = (str, int, bytes)  # immutable key types: one serialization per key and chunk
_STORE_PARTS = ("_kser", "_vser", "_vdes", "_bget", "_bput", "_topic", "_name", "_log")


def _byte_level(store: Any) -> tuple[Any, ...] | None:
    """The store's own serializers, backend calls and changelog writer, if it exposes them."""
    parts = tuple(getattr(store, name, None) for name in _STORE_PARTS)
    if any(part is None for part in parts[:-1]) or not getattr(store, "is_open", False):
        return None
    return parts


def count_direct(context: Any, topic: str, store: Any, sink: Any, keys: list[Any],
                 values: list[Any], timestamps: list[int], headers: list[Any],
                 first_offset: int, origins: list[int],
                 changelog: list[tuple[Any, ...]] | None = None) -> list[tuple[Any, ...]]:
    """Count ``keys`` read from ``topic`` into an uncached timestamped store; output rows.

    The store's bytes are written as its own ``get``/``put`` write them (8-byte timestamp,
    then the value serde's bytes; the changelog gets the value bytes at that timestamp).
    With ``changelog`` (the engine said its writes only append to the topic's log), the
    changelog rows are collected there for one append instead of one write per update.
    """
    parts = _byte_level(store)
    if parts is None:
        return _count_through_store(context, topic, store, sink, keys, values, timestamps,
                                    headers, first_offset, origins)
    kser, vser, vdes, bget, bput, store_topic, name, log = parts
    collect = None if changelog is None else changelog.append
    pack, unpack = _TIMESTAMP.pack, _TIMESTAMP.unpack_from
    out_topic = sink.topic
    key_ser, value_ser = sink._key_ser, sink._value_ser
    out: list[tuple[Any, ...]] = []
    append = out.append
    key_bytes_of: dict[Any, bytes] = {}
    last_key: Any = None
    key_bytes = b""
    for key, value, timestamp, header, origin in zip(keys, values, timestamps, headers,
                                                     origins, strict=True):
        if key is None or value is None:
            context.topic, context.partition = topic, 0
            context.offset = first_offset + origin
            skip_record(context, "null key or value")
            continue
        key_bytes = key_bytes_of.get(key)  # type: ignore[assignment]  # one serde: one type
        if key_bytes is None:
            key_bytes = kser(store_topic, key)
            if key_bytes.__class__ is not bytes:
                key_bytes = bytes(key_bytes)
            key_bytes_of[key] = key_bytes
        last_key = key
        stored = bget(key_bytes)
        if stored is None:
            new = 1
        else:
            new = vdes(store_topic, stored[8:]) + 1
            old_timestamp = unpack(stored)[0]
            if old_timestamp > timestamp:
                timestamp = old_timestamp
        raw = vser(store_topic, new)
        bput(key_bytes, pack(timestamp) + raw)
        if collect is not None:
            collect((key_bytes, raw, None, timestamp, 0))
        elif log is not None:
            log(name, key_bytes, raw, timestamp)
        append((key_ser(out_topic, key, header), value_ser(out_topic, new, header), header,
                timestamp, 0))
    if last_key is not None and last_key.__class__ in _MEMO:  # as the store's get-then-put
        store._memo_key, store._memo_key_bytes = last_key, key_bytes  # of the last key leaves it
    return out


def _count_through_store(context: Any, topic: str, store: Any, sink: Any, keys: list[Any],
                         values: list[Any], timestamps: list[int], headers: list[Any],
                         first_offset: int, origins: list[int]) -> list[tuple[Any, ...]]:
    """``count_direct`` through the store's ``get`` and ``put``."""
    get, put = store.get, store.put
    out_topic = sink.topic
    key_ser, value_ser = sink._key_ser, sink._value_ser
    out: list[tuple[Any, ...]] = []
    append = out.append
    vat = ValueAndTimestamp
    for key, value, timestamp, header, origin in zip(keys, values, timestamps, headers,
                                                     origins, strict=True):
        if key is None or value is None:
            context.topic, context.partition = topic, 0
            context.offset = first_offset + origin
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


@contextmanager
def capture_forwards(aggregate: Any, sink: Any, out: list[tuple[Any, ...]]
                     ) -> Iterator[Callable[[str, int, Record], None]]:
    """While open, what ``aggregate`` forwards lands serialized in ``out``; yields
    ``process(topic, offset, record)``, which runs its processor as the record path does."""
    context = aggregate.context
    run = aggregate.processor.process
    children = aggregate.children
    aggregate.children = [_Capture(children[0].name, sink, out)]

    def process(topic: str, offset: int, record: Record) -> None:
        context.topic, context.partition, context.offset = topic, 0, offset
        context.record = record
        context.current = aggregate
        try:
            run(record)
        except KslabError:
            raise
        except Exception as exc:
            raise context.processing_error(aggregate.name, record, exc) from exc

    try:
        yield process
    finally:
        aggregate.children = children
        context.current = None


def count_with_processor(task: Any, topic: str, aggregate: Any, sink: Any, keys: list[Any],
                         values: list[Any], timestamps: list[int], headers: list[Any],
                         first_offset: int, origins: list[int]) -> list[tuple[Any, ...]]:
    """Run the count's processor on each record, committing after each consumed record (so a
    record cache emits once per key and consumed record, as the record path does); the rows.

    ``origins`` is the consumed record (offset ``first_offset + origin``) each record came
    from: a flat_map may hand the count several records of one consumed record.
    """
    commit = task.commit
    out: list[tuple[Any, ...]] = []
    count = len(keys)
    with capture_forwards(aggregate, sink, out) as process:
        for i, (key, value, timestamp, header, origin) in enumerate(
                zip(keys, values, timestamps, headers, origins, strict=True)):
            process(topic, first_offset + origin, Record(key, value, timestamp, header))
            if i + 1 == count or origins[i + 1] != origin:
                commit()
    return out
