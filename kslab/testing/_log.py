"""Compact, append-only logs of serialized records: the driver's topics and its history.

Keys and values are copied back to back into two ``bytearray`` columns, with the end offset of
each record's key and value in typed arrays (``~end`` marks a ``None``), timestamps (and
partitions, once one other than 0 is seen) in typed arrays too, and the rare headers aside by
index. A record costs its bytes plus a few machine words; the serializers' ``bytes`` die at
once (orjson's keep ~4 KB of buffer each: keeping them would cost 800 MB per 200k JSON
records), an append is a few C calls, and a bulk read slices each column in one pass
(bench/README.md). Invariant: records are only appended; reading moves a cursor, and
``truncate`` (for ``restore``) is the only way records disappear.

A fixed-width encoding writer (a ``Struct``'s ``pack``: ``Long`` counts) leaves its values' end
offsets implicit while every value in the log is that wide: ``_value_ends`` may then be shorter
than ``_timestamps``, each missing end one width after the one before. Anything that reads the
ends, writes another value, or lets the widths vary first calls ``_fill_value_ends``.

Read-back runs: where a column appended carries the fresh objects its fields read back as
(``ByteColumn.read_back``: a sink's ``Json`` values, copied as they were written), the log
keeps them beside the bytes until a reader drains those records; a drain through the same
serde class then hands them out instead of decoding (once: a drain drops them, and a record
read again after ``truncate`` is decoded). At most ``_HELD`` unread records' objects are kept.
"""

from __future__ import annotations

import struct as _struct
import sys
from array import array
from collections.abc import Callable, Iterator, Sequence
from itertools import chain, repeat
from operator import sub
from typing import Any

from kslab.core.bulk.columns import ByteColumn
from kslab.core.nodes import codec_writer

__all__ = ["TEXT", "RecordLog"]

# ``drain_unpacking``'s codec for a column of UTF-8 text (the ``String`` serde's bytes)
TEXT: Any = "utf-8 text"
# read-back objects a log keeps for unread records at most (beyond: dropped, the bytes decoded)
_HELD = 1 << 18


class RecordLog:
    """Serialized records ``(key, value, headers, timestamp, partition[, topic])`` in order.

    Headers are rare and kept aside by index; a log made ``with_topics`` keeps a topic id per
    record (the history, which holds every input topic).
    """

    __slots__ = ("_headers", "_key_dictionaries", "_key_ends", "_keys", "_partitions",
                 "_read_back", "_start", "_timestamps", "_topic_ids", "_topics", "_topics_by_name",
                 "_value_ends", "_value_width", "_values")

    def __init__(self, *, with_topics: bool = False) -> None:
        self._keys = bytearray()
        self._values = bytearray()
        self._key_ends = array("q")
        self._value_ends = array("q")
        self._timestamps = array("q")
        self._partitions: array | None = None  # made at the first partition other than 0
        self._headers: dict[int, Any] = {}
        self._start = 0
        # Every value in the log is exactly this many bytes (None: no value yet; -1: unknown),
        # so a read can unpack the column whole (drain_unpacking). Only an encoding writer of
        # a fixed-width codec keeps it; every other write makes it unknown.
        self._value_width: int | None = None
        self._topic_ids: array | None = array("i") if with_topics else None
        self._topics: list[str | None] = []
        self._topics_by_name: dict[str | None, int] = {}
        # runs of keys drawn from a few distinct ones, in order: (the run's first record,
        # the distinct keys' bytes, each record's index among them); a drain maps them
        # instead of slicing each key (see ByteColumn.dictionaries)
        self._key_dictionaries: list[tuple[int, list[bytes], list[int]]] = []
        # read-back runs (module docstring): (the run's first record, the serde class, the
        # objects its deserialize gives for the run's values)
        self._read_back: list[tuple[int, type, list[Any]]] = []

    def append(self, key: bytes | None, value: bytes | None, headers: Any, timestamp: int,
               partition: int, topic: str | None = None) -> None:
        """Add one record at the end."""
        self._fill_value_ends()
        self._value_width = -1
        if headers:
            self._headers[len(self._timestamps)] = headers
        if key is None:
            self._key_ends.append(~len(self._keys))
        else:
            keys = self._keys
            keys += key
            self._key_ends.append(len(keys))
        if value is None:
            self._value_ends.append(~len(self._values))
        else:
            values = self._values
            values += value
            self._value_ends.append(len(values))
        self._timestamps.append(timestamp)
        partitions = self._partitions
        if partitions is not None:
            partitions.append(partition)
        elif partition:
            self._partition_column(len(self._timestamps) - 1).append(partition)
        if self._topic_ids is not None:
            self._topic_ids.append(self._topic_id(topic))

    def encoding_writer(self, key_encode: Callable[[Any], bytes],
                        value_encode: Callable[[Any], bytes],
                        fallback: Callable[[Any], None]) -> Callable[[Any, Any], None]:
        """A sink's ``write(node, record)`` (``core.nodes.codec_writer``: the key and value
        through one-argument codecs, ``None`` staying ``None``, a record a codec refuses to
        ``fallback(record)``, which serializes it the slow way or raises the serde's error)
        appending at partition 0 through a leaner ``append`` than the general one, which
        leaves the values' ends implicit while ``value_encode`` is a ``Struct``'s ``pack``
        and every value in the log is that wide (the module docstring)."""
        if self._topic_ids is not None:  # a log with topics needs append's topic argument
            return lambda node, record: fallback(record)
        width = getattr(getattr(value_encode, "__self__", None), "size", -1)  # a Struct's pack
        if width <= 0:
            width = -1
        if self._value_width != width:
            self._fill_value_ends()
            self._value_width = width if self._value_width is None else -1
        if width < 0:
            width = -2  # never the log's width: this writer writes every end
        return codec_writer(key_encode, value_encode, fallback, self._sink_append(width))

    def _sink_append(self, width: int) -> Callable[[Any, Any, Any, int, int], None]:
        """``append`` for an encoding writer at partition 0 (the only one a sink's direct
        writer writes) whose values are ``width`` bytes when not ``None`` (``-2``: any width)."""
        keys, values = self._keys, self._values
        end_key, end_value = self._key_ends.append, self._value_ends.append
        timestamps = self._timestamps
        add_timestamp = timestamps.append
        all_headers = self._headers
        fill = self._fill_value_ends

        def append(key: bytes | None, value: bytes | None, headers: Any, timestamp: int,
                   _partition: int) -> None:
            nonlocal keys, values  # ``+=`` on the bytearrays: the same objects, one less call
            if headers:
                all_headers[len(timestamps)] = headers
            if key is None:
                end_key(~len(keys))
            else:
                keys += key
                end_key(len(keys))
            if value is None:
                fill()
                self._value_width = -1
                end_value(~len(values))
            else:
                values += value
                if self._value_width != width:  # else the end stays implicit (module doc)
                    end_value(len(values))
            add_timestamp(timestamp)
            if self._partitions is not None:
                self._partitions.append(0)

        return append

    def _fill_value_ends(self) -> None:
        """Write the implicit value ends a fixed-width writer left (see the module docstring)."""
        ends = self._value_ends
        missing = len(self._timestamps) - len(ends)
        if missing:
            width = self._value_width
            base = _end_before(ends, len(ends))
            ends.extend(range(base + width, base + width * missing + 1, width))

    def _partition_column(self, before: int) -> array:
        """The partition column, made when the first record of a partition other than 0 comes,
        with 0 for the ``before`` records already in the log."""
        self._partitions = array("i", bytes(4 * before))
        return self._partitions

    def _topic_id(self, topic: str | None) -> int:
        topic_id = self._topics_by_name.get(topic, -1)
        if topic_id < 0:
            topic_id = self._topics_by_name[topic] = len(self._topics)
            self._topics.append(topic)
        return topic_id

    def extend(self, rows: list[tuple[Any, ...]], topic: str | None = None) -> None:
        """Append ``(key, value, headers, timestamp, partition)`` rows, all of ``topic``."""
        if rows:
            keys, values, headers, timestamps, partitions = zip(*rows, strict=True)
            self.extend_columns(keys, values, headers, timestamps, partitions, topic)

    def extend_columns(self, keys: Sequence[bytes | None] | ByteColumn,
                       values: Sequence[bytes | None] | ByteColumn,
                       headers: Sequence[Any] | None, timestamps: Sequence[int],
                       partitions: Sequence[int | None] | None = None,
                       topic: str | None = None) -> None:
        """Append records given as columns, all of ``topic``: ``headers`` ``None`` for none,
        ``partitions`` ``None`` for partition 0. A ``ByteColumn`` is laid out once however
        many logs take it (a store's bytes go to its changelog and a sink's topic)."""
        count = len(timestamps)
        if not count:
            return
        first = len(self._timestamps)
        if headers is not None and any(headers):
            for index, item in enumerate(headers, len(self._timestamps)):
                if item:
                    self._headers[index] = item
        keys = _as_column(keys)
        if keys.dictionaries:
            first = len(self._timestamps)
            self._key_dictionaries += [(first + at, distinct, ids)
                                       for at, distinct, ids in keys.dictionaries]
        _append_column(self._keys, self._key_ends, keys)
        values = _as_column(values)
        if values.read_back is not None and self._topic_ids is None:
            self._hold(first, values.read_back)
        layout = values.layout()
        width = self._value_width
        if layout is not None and layout[2] == layout[3] > 0 and width in (None, layout[2]):
            # every value exactly as wide as every one before: their ends stay implicit, and
            # reads may unpack the column (see the module docstring)
            self._values += layout[0]
            self._value_width = layout[2]
        else:
            self._fill_value_ends()
            _append_column(self._values, self._value_ends, values)
            self._value_width = -1
        if partitions is not None and self._partitions is None and any(partitions):
            self._partition_column(len(self._timestamps))
        # (an array of the list first: array.extend converts item by item, far slower)
        self._timestamps.extend(timestamps if timestamps.__class__ is array
                                else _int64s(timestamps))
        if self._partitions is not None:
            self._partitions.extend(array("i", bytes(4 * count)) if partitions is None
                                    else _int32s(partitions))
        if self._topic_ids is not None:
            self._topic_ids.extend([self._topic_id(topic)] * count)

    def _hold(self, first: int, read_back: tuple[type, list[Any]]) -> None:
        """Keep a column's read-back objects from record ``first`` on, while the unread
        records' objects kept stay within ``_HELD`` (else none are kept)."""
        runs = self._read_back
        if runs and runs[-1][0] + len(runs[-1][2]) != first:
            runs.clear()  # (records without objects in between: those are decoded)
        kind, objects = read_back
        if first + len(objects) - (runs[0][0] if runs else first) > _HELD:
            runs.clear()
            return
        runs.append((first, kind, objects))

    def _taken_back(self, start: int, end: int, kind: Any) -> list[Any] | None:
        """The read-back objects of records ``start`` to ``end`` (the last) when runs of
        ``kind`` hold every one of them, else ``None``; either way the runs are dropped (the
        records are being read)."""
        runs = self._read_back
        if not runs:
            return None
        self._read_back = []
        if kind is None or runs[0][0] > start or runs[-1][0] + len(runs[-1][2]) != end \
                or any(run[1] is not kind for run in runs):
            return None  # (runs are contiguous: _hold keeps them so)
        objects = runs[0][2]
        if runs[0][0] != start:  # (records read one by one before)
            objects = objects[start - runs[0][0]:]
        if len(runs) > 1:
            objects = list(chain(objects, *(run[2] for run in runs[1:])))
        return objects

    def record(self, index: int) -> tuple[Any, ...]:
        """Record ``index`` (absolute) as ``(key, value, headers, timestamp, partition)``."""
        self._fill_value_ends()
        return (_field(self._keys, self._key_ends, index),
                _field(self._values, self._value_ends, index),
                self._headers.get(index), self._timestamps[index],
                0 if self._partitions is None else self._partitions[index])

    def topic(self, index: int) -> str | None:
        """The topic of record ``index`` (logs made ``with_topics`` only)."""
        if self._topic_ids is None:
            return None
        return self._topics[self._topic_ids[index]]

    # -- a queue for readers ----------------------------------------------------------------

    def popleft(self) -> tuple[Any, ...]:
        """Take the oldest unread record."""
        if self._start >= len(self._timestamps):
            msg = "pop from an empty record log"
            raise IndexError(msg)
        record = self.record(self._start)
        self._start += 1
        return record

    def clear(self) -> None:
        """Mark every record read."""
        self._start = len(self._timestamps)
        self._read_back = []

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        """The unread records, oldest first."""
        for index in range(self._start, len(self._timestamps)):
            yield self.record(index)

    def drain_columns(self) -> tuple[list[Any], list[Any], list[Any], list[int], list[int]]:
        """Unread records as columns ``(keys, values, headers, timestamps, partitions)``.

        The bulk read behind ``read_*_to_list`` and frames: one slicing pass per column.
        """
        return self.drain_unpacking(None, None)[0]

    def drain_unpacking(
        self, key_struct: Any, value_struct: Any, *, where: bool = True,
        read_back: type | None = None,
    ) -> tuple[tuple[list[Any], list[Any], list[Any], list[int], list[int]], tuple[bool, bool]]:
        """``drain_columns``, where a column of fields all exactly ``struct.Struct`` wide (a
        fixed-width serde's bytes) comes back unpacked in one C pass instead of sliced, and a
        ``TEXT`` column of ASCII fields with no ``None`` as ``str`` sliced from one decoded
        string; the second item says which of keys and values were (``None``: never decode
        that column here: it comes back as bytes, reported undecoded, for the reader's serde,
        key dictionaries or not). ``where=False`` leaves the timestamp and partition columns empty
        (reads of keys and values only). ``read_back``: the class of the reader's value serde,
        whose read-back objects, where runs hold every value drained, come back as the values
        (reported decoded; module docstring).
        """
        self._fill_value_ends()
        start, end = self._start, len(self._timestamps)
        all_headers, partitions = self._headers, self._partitions
        headers = ([all_headers.get(i) for i in range(start, end)]
                   if all_headers else [None] * (end - start))
        keys = self._dictionary_keys(start, end, key_struct)
        if keys is None:
            keys = _text(self._keys, self._key_ends, start, end) if key_struct is TEXT \
                else _unpacked(self._keys, self._key_ends, start, end, key_struct, -1)
        values = self._taken_back(start, end, read_back)
        if values is None:
            values = _text(self._values, self._value_ends, start, end) \
                if value_struct is TEXT else _unpacked(self._values, self._value_ends, start,
                                                       end, value_struct, self._value_width)
        columns = (_column(self._keys, self._key_ends, start, end) if keys is None else keys,
                   _column(self._values, self._value_ends, start, end) if values is None
                   else values,
                   headers,
                   self._timestamps[start:end].tolist() if where else [],
                   [] if not where else [0] * (end - start) if partitions is None
                   else partitions[start:end].tolist())
        self._start = end
        # key dictionaries hand back keys as bytes when given no codec: not decoded
        return columns, (keys is not None and key_struct is not None, values is not None)

    def _dictionary_keys(self, start: int, end: int, key_struct: Any) -> list[Any] | None:
        """Keys ``start`` to ``end`` (the last) as ``bytes`` (``TEXT``: as ASCII ``str``)
        where key dictionaries hold most of them: their distinct keys read once and shared,
        the others sliced; ``None`` when none does (or a ``TEXT`` key is not ASCII, or the
        keys unpack whole): the usual reads then. Bytes are still to decode (a ``None``
        ``key_struct``: the reader's serde does it)."""
        dictionaries = self._key_dictionaries
        if key_struct not in (None, TEXT) or not dictionaries \
                or dictionaries[-1][0] + len(dictionaries[-1][2]) <= start:
            return None
        read = _text if key_struct is TEXT else _column  # the keys no dictionary holds
        data, ends = self._keys, self._key_ends
        keys: list[Any] = []
        position = start
        for first, distinct, ids in dictionaries:
            last = min(first + len(ids), end)
            if last <= position:
                continue
            if first > position:  # keys appended otherwise in between
                between = read(data, ends, position, first)
                if between is None:
                    return None
                keys += between
            if key_struct is TEXT:
                if not all(map(bytes.isascii, distinct)):
                    return None
                distinct = [key.decode("ascii") for key in distinct]
            keys += map(distinct.__getitem__, ids[max(position, first) - first:last - first])
            position = last
        if position < end:
            after = read(data, ends, position, end)
            if after is None:
                return None
            keys += after
        return keys

    def __len__(self) -> int:
        return len(self._timestamps) - self._start

    def __bool__(self) -> bool:
        return len(self._timestamps) > self._start

    # -- snapshots ----------------------------------------------------------------------------

    @property
    def total(self) -> int:
        """Records ever appended (read ones included)."""
        return len(self._timestamps)

    def mark(self) -> tuple[int, int]:
        """A position to ``truncate`` back to: (records appended, records read)."""
        return len(self._timestamps), self._start

    def truncate(self, mark: tuple[int, int]) -> None:
        """Drop what was appended after ``mark`` and unread what was read since."""
        total, start = mark
        self._fill_value_ends()
        if total < len(self._timestamps):
            del self._keys[_end_before(self._key_ends, total):]
            del self._values[_end_before(self._value_ends, total):]
            for column in (self._key_ends, self._value_ends, self._timestamps,
                           self._partitions, self._topic_ids):
                if column is not None:
                    del column[total:]
            for index in [i for i in self._headers if i >= total]:
                del self._headers[index]
            self._read_back = []  # (records appended after the mark are gone)
            dictionaries = self._key_dictionaries
            while dictionaries and dictionaries[-1][0] >= total:
                dictionaries.pop()
            if dictionaries and dictionaries[-1][0] + len(dictionaries[-1][2]) > total:
                first, distinct, ids = dictionaries[-1]
                dictionaries[-1] = (first, distinct, ids[:total - first])
        self._start = start


def _as_column(fields: Sequence[bytes | None] | ByteColumn) -> ByteColumn:
    """``fields`` as a ``ByteColumn`` (a column already, or a plain sequence)."""
    if fields.__class__ is ByteColumn:
        return fields  # type: ignore[return-value]
    return ByteColumn(fields)  # type: ignore[arg-type]


def _append_column(data: bytearray, ends: array, column: ByteColumn) -> None:
    """Append ``column``'s fields: their bytes to ``data``, their end offsets to ``ends``."""
    layout = column.layout()
    position = len(data)
    if layout is not None:  # the usual case, all in C
        data += layout[0]
        column.extend_ends(ends, position)
        return
    fields = column.fields
    for field in fields:  # some None among them (or none at all)
        if field is None:
            ends.append(~position)
        else:
            position += len(field)
            ends.append(position)
    data += b"".join([field for field in fields if field is not None])


def _int64s(numbers: Sequence[int]) -> array:
    """``array("q", numbers)``; a long list of ints through numpy's ``fromiter``, half the
    instructions (``array`` parses each item through ``PyArg_Parse``, and 3.11 reads a
    timestamp's 64 bits through ``_PyLong_AsByteArray``)."""
    count = len(numbers)
    if count < _NUMPY_FROM or numbers.__class__ is not list or \
            not set(map(type, numbers)) <= _INT:  # (numpy would take 1.5 as 1)
        return array("q", numbers)
    import numpy

    laid_out = array("q")
    laid_out.frombytes(numpy.fromiter(numbers, numpy.int64, count).tobytes())
    return laid_out


def _int32s(partitions: Sequence[int | None]) -> array:
    """``array("i", partitions)``, a ``None`` as 0; a long list of ints through numpy's
    ``fromiter`` (as ``_int64s``: ``array`` parses each item through ``PyArg_Parse``)."""
    count = len(partitions)
    if count >= _NUMPY_FROM and partitions.__class__ is list:
        kinds = set(map(type, partitions))
        if kinds <= _INT:
            import numpy

            laid_out = array("i")
            laid_out.frombytes(numpy.fromiter(partitions, numpy.int32, count).tobytes())
            return laid_out
        if type(None) not in kinds:
            return array("i", partitions)  # (raises the error of what is not an int)
    elif partitions.count(None) == 0:
        return array("i", partitions)
    return array("i", [partition or 0 for partition in partitions])


_NUMPY_FROM = 64
_INT = {int}


def _end_before(ends: array, index: int) -> int:
    """Where the bytes of record ``index`` start: the end of the record before it."""
    if index == 0:
        return 0
    end = ends[index - 1]
    return ~end if end < 0 else end


def _field(data: bytearray, ends: array, index: int) -> bytes | None:
    end = ends[index]
    if end < 0:
        return None
    return bytes(data[_end_before(ends, index):end])


def _unpacked(data: bytearray, ends: array, start: int, stop: int, struct: Any,
              width: int | None) -> list[Any] | None:
    """Records ``start`` to ``stop`` (the last) unpacked with ``struct`` when every field of the
    column is known to be ``width`` == ``struct.size`` bytes; ``None`` otherwise."""
    if struct is None or start == stop or width != struct.size:
        return None
    with memoryview(data) as view:
        fields = view[_end_before(ends, start):]
        typecode = _ARRAY_TYPECODES.get(struct.format)
        if typecode is None:
            return list(chain.from_iterable(struct.iter_unpack(fields)))
        numbers = array(typecode)  # the same numbers, without a tuple per field
        numbers.frombytes(fields)
    if _SWAP:
        numbers.byteswap()
    return numbers.tolist()


# Big-endian struct formats an ``array`` of the same width reads (after a byte swap here)
_ARRAY_TYPECODES = {fmt: code for fmt, code in ((">q", "q"), (">i", "i"), (">h", "h"),
                                                (">d", "d"), (">f", "f"))
                    if array(code).itemsize == _struct.calcsize(fmt)}
_SWAP = sys.byteorder == "little"


def _offsets(ends: array, start: int, stop: int) -> tuple[int, list[int]]:
    """Where record ``start``'s bytes begin, and the end offsets of records ``start`` to
    ``stop`` counted from there (negative where a field is ``None``)."""
    base = _end_before(ends, start)
    offsets = ends[start:stop].tolist()
    if base:
        offsets = list(map(sub, offsets, repeat(base)))
    return base, offsets


def _text(data: bytearray, ends: array, start: int, stop: int) -> list[str] | None:
    """Records ``start`` to ``stop`` as ``str`` when their fields are all ASCII and none is
    ``None`` (then byte offsets are character offsets); ``None`` otherwise."""
    if start == stop:
        return None
    base, offsets = _offsets(ends, start, stop)
    with memoryview(data) as view:  # just these records' bytes (a drain reads gaps too)
        buffer = bytes(view[base:_end_before(ends, stop)])
    if not buffer.isascii() or min(offsets) < 0:
        return None
    text = buffer.decode("ascii")  # (previous end, end) pairs: the first list is one longer
    return [text[a:b] for a, b in zip([0, *offsets], offsets, strict=False)]


def _column(data: bytearray, ends: array, start: int, stop: int) -> list[bytes | None]:
    """The fields of records ``start`` to ``stop`` as bytes."""
    if start == stop:
        return []
    base, offsets = _offsets(ends, start, stop)
    with memoryview(data) as view:  # one copy of just these records' bytes
        buffer = bytes(view[base:_end_before(ends, stop)])
    if min(offsets) >= 0:  # no None: one comprehension over (previous end, end) pairs
        return [buffer[a:b] for a, b in zip([0, *offsets], offsets, strict=False)]
    out: list[bytes | None] = []
    append = out.append
    position = 0
    for end in ends[start:stop]:
        if end < 0:
            append(None)
        else:
            end -= base
            append(buffer[position:end])
            position = end
    return out
