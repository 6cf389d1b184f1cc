"""The test driver's input and output topics: typed pipes in, typed reads out.

An input topic serializes what it is given with its serdes (by default the source's) and keeps
its own clock for records piped without a timestamp, as Kafka's ``TestInputTopic`` does. Output
topics are in ``kslab.testing.output_topic`` (``TestOutputTopic``, re-exported here).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import islice
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, Any

from kslab.core.bulk.sinks import Written, built_in
from kslab.core.gc_pause import collections_off
from kslab.errors import (
    InvalidArgumentError,
    MissingArgumentError,
    SerdeError,
)
from kslab.records import TestRecord, as_headers, refuse_negative_ms, split_pairs
from kslab.serdes._base import fast_serializer
from kslab.testing import progress
from kslab.testing.frames import RowDicts, frame_columns, to_millis
from kslab.testing.output_topic import TestOutputTopic, topic_serdes

if TYPE_CHECKING:
    from kslab.testing.driver import TopologyTestDriver

__all__ = ["TestInputTopic", "TestOutputTopic"]

# Batched pipes serialize rows ahead of processing, a chunk at a time: the first chunk is
# small, the next ones as many rows as fit the byte budget (at most _MAX_CHUNK). Large chunks
# let the bulk path read and write a key once per chunk; the budget keeps memory flat for
# large records.
_FIRST_CHUNK = 256
_MAX_CHUNK = 32768
_CHUNK_BYTES = 4 << 20


def _next_chunk(rows: int, size: int) -> int:
    """Rows for the chunk after one of ``rows`` rows that serialized to ``size`` bytes."""
    if size <= 0:
        return _MAX_CHUNK
    return max(1, min(_MAX_CHUNK, rows * _CHUNK_BYTES // size))


def _size(raw: list[tuple[Any, ...]]) -> int:
    """Serialized bytes of a chunk's keys and values (iterators in C: no call per row)."""
    return sum(map(len, filter(None, map(_KEY, raw)))) \
        + sum(map(len, filter(None, map(_VALUE, raw))))


def _plain(timestamps: list[Any], headers: list[Any], partitions: list[Any]) -> bool:
    """True when no row of a chunk has headers or a partition and every timestamp is a
    non-negative ``int`` (checked in C): then its keys and values serialize a column at a
    time."""
    count = len(timestamps)
    return headers.count(None) == count and partitions.count(None) == count \
        and set(map(type, timestamps)) == {int} and min(timestamps) >= 0


def _column_bytes(serde: Any, encode: Callable[[Any], bytes] | None, topic: str,
                  items: list[Any]) -> list[Any] | None:
    """A chunk's keys or values serialized a column at a time: through the serde's C-level
    codec (``_plain_bytes``), else, for a built-in serde, its column form
    (``Serde.serialize_column``: the same bytes its ``serialize`` writes, one call per
    item). ``None`` when neither can (a user's serde is called row by row, key then value,
    as piping one by one calls it) or when one item is refused (the rows then go one by
    one, which raises at that row)."""
    if encode is not None:
        return _plain_bytes(encode, items)
    if not built_in(serde):
        return None
    try:
        return serde.serialize_column(topic, items)  # type: ignore[no-any-return]
    except Exception:
        return None


def _plain_bytes(encode: Callable[[Any], bytes], items: list[Any]) -> list[Any] | None:
    """Each item through a serde's C-level codec (``None`` stays ``None``), or ``None`` when
    the codec refuses one (the serde's own method then gives its bytes or its error)."""
    try:
        if items.count(None):
            return [None if item is None else encode(item) for item in items]
        return list(map(encode, items))
    except Exception:
        return None


def _record_columns(records: list[TestRecord]) -> list[list[Any]]:
    """``TestRecord``s as the five columns ``_pipe_chunks`` takes (keys, values, timestamps,
    headers, partitions; no partition)."""
    return [list(map(_RECORD_KEY, records)), list(map(_RECORD_VALUE, records)),
            list(map(_RECORD_TIMESTAMP, records)), list(map(_RECORD_HEADERS, records)),
            [None] * len(records)]


def _taking(items: Iterable[Any], columns_of: Callable[[list[Any]], list[list[Any]]]
            ) -> Callable[[int], list[list[Any]] | None]:
    """``_pipe_chunks``'s ``take`` over ``items``: ``columns_of`` the next ``n`` of them."""
    iterator = iter(items)

    def take(n: int) -> list[list[Any]] | None:
        batch = list(islice(iterator, n))
        return columns_of(batch) if batch else None

    return take


def _slicing(columns: list[list[Any]]) -> Callable[[int], list[list[Any]] | None]:
    """``_pipe_chunks``'s ``take`` over whole columns: the next ``n`` rows of each."""
    position = 0

    def take(n: int) -> list[list[Any]] | None:
        nonlocal position
        if position >= len(columns[0]):
            return None
        start, position = position, position + n
        return [column[start:position] for column in columns]

    return take


_RECORD_KEY, _RECORD_VALUE, _RECORD_TIMESTAMP, _RECORD_HEADERS = map(
    attrgetter, ("key", "value", "timestamp", "raw_headers"))
_KEY, _VALUE = itemgetter(0), itemgetter(1)


class TestInputTopic:
    """Pipes records into one topic of a ``TopologyTestDriver``."""

    __test__ = False

    def __init__(self, driver: TopologyTestDriver, name: str, key_serde: Any, value_serde: Any,
                 start_timestamp: Any = 0, auto_advance: Any = 0) -> None:
        self.key_serde, self.value_serde = topic_serdes(
            driver, name, "TestInputTopic", key_serde, value_serde, "create_input_topic")
        self.name = name
        self._driver = driver
        self._time = to_millis(start_timestamp) or 0
        if self._time < 0:
            msg = (
                f"start_timestamp {start_timestamp!r} of input topic '{name}' is negative; "
                "give ms since the epoch (>= 0) or a datetime"
            )
            raise InvalidArgumentError(msg)
        advance = to_millis(auto_advance) or 0
        if advance < 0:
            msg = (
                f"auto_advance {auto_advance!r} of input topic '{name}' is negative; "
                "it must be >= 0 (ms or a timedelta)"
            )
            raise InvalidArgumentError(msg)
        self._advance = advance

    def advance_time(self, advance: Any) -> None:
        """Move this topic's clock forward by ``advance`` ms (records piped without time)."""
        if advance is None:
            msg = f"advance_time of input topic '{self.name}' needs a duration; got None"
            raise MissingArgumentError(msg)
        ms = to_millis(advance)
        if ms is None or ms < 0:
            msg = (
                f"advance {advance!r} of input topic '{self.name}' must be a non-negative "
                "duration (ms or a timedelta)"
            )
            raise InvalidArgumentError(msg)
        self._time += ms

    def pipe_input(self, *args: Any, timestamp: Any = None, headers: Any = None,
                   partition: int | None = None) -> None:
        """Pipe one record: ``(value)``, ``(key, value)``, ``(key, value, timestamp)``, ...

        One positional argument is the value with a ``None`` key, or a ``TestRecord`` (whose
        timestamp, if unset, is ``timestamp=`` or else the topic's clock).
        """
        if len(args) == 3:
            self.pipe_row(args[0], args[1], args[2], headers, partition)
            return
        if len(args) == 1:
            if isinstance(args[0], TestRecord):
                rec = args[0]
                self.pipe_row(rec.key, rec.value,
                              rec.timestamp if rec.timestamp is not None else timestamp,
                              rec.raw_headers if headers is None else headers, partition)
                return
            key, value = None, args[0]
        elif 2 <= len(args) <= 4:
            key, value = args[0], args[1]
            if len(args) >= 3:
                timestamp = args[2]
            if len(args) == 4:
                headers = args[3]
        else:
            msg = (
                f"pipe_input takes (value), (key, value), (key, value, timestamp) or "
                f"(key, value, timestamp, headers); got {len(args)} positional arguments"
            )
            raise TypeError(msg)
        self.pipe_row(key, value, timestamp, headers, partition)

    def pipe_row(self, key: Any, value: Any, timestamp: Any, headers: Any,
                 partition: int | None) -> None:
        """Pipe one record given as a row, as ``pipe_input`` does once it has sorted its
        arguments: ``timestamp`` ``None`` takes the topic's clock (and advances it), headers
        in any form ``Headers`` takes, ``partition`` ``None`` the default partitioner's."""
        refuse_negative_ms(timestamp)  # as Java's TestRecord, before the topology sees it
        hdrs = None if headers is None else as_headers(headers)
        topic = self.name
        if timestamp is None:
            timestamp = self._time
            self._time += self._advance
        elif type(timestamp) is not int:
            timestamp = to_millis(timestamp)
        try:
            key_bytes = self.key_serde.serialize(topic, key, hdrs)
        except Exception as exc:
            msg = (
                f"input topic '{topic}' cannot serialize key {key!r} with {self.key_serde!r}: "
                f"{exc}; pass key_serde= to create_input_topic"
            )
            raise SerdeError(msg, topic=topic) from exc
        try:
            value_bytes = self.value_serde.serialize(topic, value, hdrs)
        except Exception as exc:
            msg = (
                f"input topic '{topic}' cannot serialize value {value!r} with "
                f"{self.value_serde!r}: {exc}; pass value_serde= to create_input_topic"
            )
            raise SerdeError(msg, topic=topic) from exc
        self._driver.pipe_raw(topic, key_bytes, value_bytes, hdrs, timestamp, partition)

    def pipe_value_list(self, values: Iterable[Any], start_timestamp: Any = None,
                        advance: Any = None) -> None:
        """Pipe values with ``None`` keys; optionally from ``start_timestamp`` every ``advance``."""
        self._pipe_many(((None, v) for v in values), start_timestamp, advance)

    def pipe_key_value_list(self, pairs: Iterable[Any], start_timestamp: Any = None,
                            advance: Any = None) -> None:
        """Pipe ``(key, value)`` pairs (or ``KeyValue``s)."""
        self._pipe_many(pairs, start_timestamp, advance)

    def _pipe_many(self, pairs: Iterable[Any], start: Any, advance: Any) -> None:
        """Pipe ``(key, value)`` pairs a chunk at a time, as columns: where every pair of a
        chunk is a tuple, list or ``KeyValue`` of two, split in C, else unpacked one by one
        (as ``for key, value in pairs`` does, or raises); timestamps from ``start`` every
        ``advance`` (``None``: the topic's clock stamps them)."""
        ts = to_millis(start)
        step = to_millis(advance) or 0

        def columns_of(batch: list[Any]) -> list[list[Any]]:
            nonlocal ts
            n = len(batch)
            pairs = split_pairs(batch)
            if pairs is not None:
                keys, values = pairs
            else:
                keys, values = [], []
                for key, value in batch:
                    keys.append(key)
                    values.append(value)
            if ts is None:
                stamps: list[Any] = [None] * n
            else:
                stamps = list(range(ts, ts + n * step, step)) if step else [ts] * n
                ts += n * step
            return [keys, values, stamps, [None] * n, [None] * n]

        with collections_off():  # the rows die by reference counting (see core.gc_pause)
            self._pipe_chunks(_taking(pairs, columns_of), progress.count(pairs))

    def _pipe_chunks(self, take: Callable[[int], list[list[Any]] | None], total: int = 0) -> None:
        """Pipe a chunk at a time: ``take(n)`` gives the next (at most) ``n`` records' keys,
        values, timestamps, headers and partitions, ``None`` at the end. A plain chunk
        (``_plain_bytes``) goes to the driver as columns, any other row by row. A serde error
        pipes the rows before the bad one and then raises, as piping them one by one would;
        callers pause the cyclic GC for the whole pipe (resuming it per chunk ran a
        collection per chunk). ``total`` rows (when known) report their progress per chunk;
        an interrupt leaves the driver as after the rows it processed. Values that are a
        frame's ``RowDicts`` go along as fresh (``Written``)."""
        progress.tracked(total, f"piping {self.name}", lambda bar: self._chunks(take, bar))

    def _chunks(self, take: Callable[[int], list[list[Any]] | None],
                bar: progress.Reporter) -> None:
        topic = self.name
        # the serdes' C-level codecs (serdes._base.fast_serializer) when both have one
        key_enc, value_enc = fast_serializer(self.key_serde), fast_serializer(self.value_serde)
        chunk = _FIRST_CHUNK
        while (columns := take(chunk)) is not None:
            keys, values, timestamps, headers, partitions = columns
            key_bytes = value_bytes = None
            clocked = timestamps.count(None) == len(timestamps) and self._time >= 0
            if clocked:  # the topic's clock stamps each row, as _serialize_rows would
                timestamps = self._clock_column(len(timestamps))
            if _plain(timestamps, headers, partitions):
                key_bytes = _column_bytes(self.key_serde, key_enc, topic, keys)
                value_bytes = None if key_bytes is None else _column_bytes(
                    self.value_serde, value_enc, topic, values)
            if clocked and (key_bytes is None or value_bytes is None):
                self._time = timestamps[0]  # (the rows below stamp themselves)
            if key_bytes is None or value_bytes is None:  # row by row (or its error)
                raw = self._serialize_rows(list(zip(*columns, strict=True)), key_enc, value_enc)
                self._driver.pipe_raw_rows(topic, raw)
                size = _size(raw)
            else:
                rows = values.__class__ is RowDicts  # (a frame's: fresh, maybe typed)
                self._driver.pipe_raw_columns(
                    topic, (key_bytes, value_bytes, headers, timestamps, partitions),
                    Written(self.key_serde, keys, self.value_serde, values, rows,
                            values.value_types if rows else None))
                size = sum(map(len, filter(None, key_bytes))) \
                    + sum(map(len, filter(None, value_bytes)))
            bar.update(len(timestamps))
            chunk = _next_chunk(len(timestamps), size)

    def _clock_column(self, count: int) -> list[int]:
        """The topic clock's timestamps for ``count`` rows piped without one, in order (the
        clock moves past them, as stamping them one by one moves it)."""
        start, step = self._time, self._advance
        self._time = start + count * step
        return list(range(start, self._time, step)) if step else [start] * count

    def _serialize_rows(self, batch: list[tuple[Any, Any, Any, Any, Any]], key_enc: Any,
                        value_enc: Any) -> list[tuple[Any, ...]]:
        """``batch`` serialized row by row (headers, the topic's clock, datetimes); at a row
        its serdes refuse, the rows before it are piped and the row's error raised."""
        topic = self.name
        key_ser, value_ser = self.key_serde.serialize, self.value_serde.serialize
        values = _value_column(self.value_serde, topic, batch) if value_enc is None else None
        next_value = None if values is None else iter(values).__next__  # (the column form
        fast = key_enc is not None and value_enc is not None  # took every value)
        raw: list[tuple[Any, ...]] = []
        for key, value, timestamp, headers, partition in batch:
            hdrs = None if headers is None else as_headers(headers)
            if timestamp is None:
                timestamp = self._time
                self._time += self._advance
            elif type(timestamp) is not int:
                timestamp = to_millis(timestamp)
            try:
                if next_value is not None:
                    vb = next_value()
                    kb = None if key is None else key_enc(key) if key_enc is not None \
                        else key_ser(topic, key, hdrs)
                elif fast:
                    kb = None if key is None else key_enc(key)
                    vb = None if value is None else value_enc(value)
                else:
                    kb, vb = key_ser(topic, key, hdrs), value_ser(topic, value, hdrs)
            except Exception:
                try:  # the serdes' own methods: the same bytes, or their error
                    kb, vb = key_ser(topic, key, hdrs), value_ser(topic, value, hdrs)
                except Exception:  # redo this one on the slow path, which raises the message
                    self._driver.pipe_raw_rows(topic, raw)
                    self.pipe_row(key, value, timestamp, hdrs, partition)
                    msg = "unreachable: pipe_row raises for the row that failed here"
                    raise AssertionError(msg) from None
            raw.append((kb, vb, hdrs, timestamp, partition))
        return raw

    def pipe_record_list(self, records: Iterable[TestRecord]) -> None:
        """Pipe ``TestRecord``s (a ``None`` timestamp takes the topic's clock)."""
        with collections_off():
            self._pipe_chunks(_taking(records, _record_columns), progress.count(records))

    def pipe_dataframe(
        self,
        df: Any,
        key: str | None = "key",
        value: str | Sequence[str] | None = "value",
        timestamp: str | None = "timestamp",
        headers: str | None = None,
        partition: str | None = None,
    ) -> int:
        """Pipe every row of a pandas or polars frame; returns the number of rows piped.

        ``value=None`` (or a list of columns) makes each row's other (or listed) columns a dict.
        A missing ``timestamp`` column means the topic's clock, as for ``pipe_input``.
        """
        if partition is None and "partition" in df.columns and \
                self._driver.partition_count(self.name) > 1:
            partition = "partition"
        # (a frame's row dicts, made a chunk at a time with the cyclic GC paused, go along;
        # the columns die before it resumes: its first collection would walk their lists,
        # each item in turn, all new since it paused)
        with collections_off():
            columns = frame_columns(df, key=key, value=value, timestamp=timestamp,
                                    headers=headers, partition=partition)
            count = len(columns[0])
            self._pipe_chunks(_slicing(columns), count)
            del columns
        return count

    def __repr__(self) -> str:
        return (f"TestInputTopic[topic='{self.name}', key_serde={self.key_serde!r}, "
                f"value_serde={self.value_serde!r}, current_time={self._time}, "
                f"auto_advance={self._advance}]")


def _value_column(serde: Any, topic: str, batch: list[tuple[Any, ...]]) -> list[Any] | None:
    """The values of a chunk of header-less rows through the serde's column form
    (``Serde.serialize_column``), or ``None`` (headers, no column form, or a value it
    refuses: the rows are serialized one by one, which raises at the right row)."""
    column = getattr(serde, "serialize_column", None)
    if column is None or any(row[3] is not None for row in batch):
        return None
    try:
        return column(topic, [row[1] for row in batch])  # type: ignore[no-any-return]
    except Exception:
        return None
