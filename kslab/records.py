"""The value types records travel in: Record, headers, key-value pairs and their stored forms.

A ``Record`` is immutable: ``with_value`` and friends return a shallow copy, as Kafka's
``Record.withValue`` does, so a processor can forward a changed record without touching its input.
Every type here compares by value and is hashable where its fields are.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import UTC, datetime, timedelta
from operator import itemgetter
from typing import Any, NamedTuple

from kslab.errors import InvalidArgumentError, StreamsError

__all__ = [
    "FixedKeyRecord",
    "Header",
    "Headers",
    "KeyValue",
    "Record",
    "RecordMetadata",
    "TaskId",
    "TestRecord",
    "ValueAndTimestamp",
    "VersionedRecord",
    "Window",
    "Windowed",
    "split_pairs",
]


class Header(NamedTuple):
    """One record header: a string key and raw bytes (or ``None``)."""

    key: str
    value: bytes | None


class Headers:
    """Ordered record headers; duplicate keys are allowed, as on the wire.

    Iterates as ``(key, value)`` pairs. ``last_header(key)`` is the one Kafka reads when a key
    repeats.
    """

    __slots__ = ("_items",)

    def __init__(self, items: Iterable[tuple[str, bytes | None]] | None = None) -> None:
        self._items: list[Header] = []
        if items is not None:
            for key, value in items.items() if isinstance(items, dict) else items:
                self.add(key, value)

    def add(self, key: str, value: bytes | str | None) -> Headers:
        """Append a header; a ``str`` value is stored as its UTF-8 bytes."""
        if not isinstance(key, str):
            msg = f"header key {key!r} must be a str; got {type(key).__name__}"
            raise TypeError(msg)
        if isinstance(value, str):
            value = value.encode()
        elif value is not None and not isinstance(value, bytes):
            value = bytes(value)
        self._items.append(Header(key, value))
        return self

    def remove(self, key: str) -> Headers:
        """Drop every header with this key."""
        self._items = [h for h in self._items if h.key != key]
        return self

    def last_header(self, key: str) -> Header | None:
        """The last header with this key, or ``None``."""
        for header in reversed(self._items):
            if header.key == key:
                return header
        return None

    def headers(self, key: str) -> list[Header]:
        """Every header with this key, in order."""
        return [h for h in self._items if h.key == key]

    def to_list(self) -> list[tuple[str, bytes | None]]:
        """The headers as a plain list of pairs."""
        return [(h.key, h.value) for h in self._items]

    def copy(self) -> Headers:
        """A new ``Headers`` with the same entries (what Java's ``new RecordHeaders(headers)``
        makes for every record built from another's headers)."""
        new = object.__new__(Headers)
        new._items = self._items.copy()
        return new

    def __iter__(self) -> Iterator[Header]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __bool__(self) -> bool:
        return bool(self._items)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Headers):
            return self._items == other._items
        if isinstance(other, list | tuple):
            return [tuple(h) for h in self._items] == [tuple(h) for h in other]
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self._items))

    def __repr__(self) -> str:
        return f"Headers({[tuple(h) for h in self._items]!r})"


def as_headers(headers: Headers | Iterable[tuple[str, bytes | None]] | None) -> Headers:
    """Coerce ``None``, a list of pairs or a dict to ``Headers``."""
    if headers is None:
        return Headers()
    if isinstance(headers, Headers):
        return headers
    return Headers(headers)


class _RecordFields:
    """A record's slots, writable: records are built as this and then switched to their class
    (one class switch costs less than four writes through the slot descriptors; calling this
    class allocates for less than ``object.__new__(_RecordFields)``)."""

    __slots__ = ("_headers", "key", "timestamp", "value")


class Record(_RecordFields):
    """One record inside a topology: key, value, timestamp (ms) and headers. Immutable.

    ``raw_headers`` is the record's own ``Headers``, or ``None`` when it has none: what engines
    and operators pass on to the records and bytes they make from this one, without making the
    empty ``Headers`` that ``headers`` gives (it reads the same slot, at a slot read's cost).
    """

    __slots__ = ()

    raw_headers = _RecordFields._headers  # the slot itself, under its public name

    def __new__(
        cls,
        key: Any,
        value: Any,
        timestamp: int,
        headers: Headers | Iterable[tuple[str, bytes | None]] | None = None,
    ) -> Record:
        if timestamp < 0:
            _negative_timestamp(timestamp)
        if headers is not None:  # its own copy, as Java's constructor makes (none when empty:
            # ``headers`` then gives the record a fresh empty one of its own)
            if headers.__class__ is not Headers:
                headers = as_headers(headers)
            headers = headers.copy() if headers._items else None
        new = _RecordFields()
        new.key = key
        new.value = value
        new.timestamp = timestamp
        new._headers = headers
        try:
            new.__class__ = cls
        except TypeError:  # a subclass with a layout of its own
            return _build(cls, key, value, timestamp, headers)
        return new  # type: ignore[return-value]

    @property
    def headers(self) -> Headers:
        """The record's headers (an empty ``Headers`` when it has none)."""
        headers = self._headers
        if headers is None:
            headers = Headers()
            _set_headers(self, headers)
        return headers

    def __setattr__(self, name: str, value: object) -> None:
        msg = f"{type(self).__name__} is immutable; use with_{name}(...) to get a changed copy"
        raise AttributeError(msg)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle and copy through the constructor (attributes cannot be set afterwards)."""
        return (self.__class__, (self.key, self.value, self.timestamp, self._headers))

    def _copy(self, key: Any, value: Any, timestamp: int, headers: Headers | None) -> Record:
        new = _RecordFields()
        new.key = key
        new.value = value
        new.timestamp = timestamp
        new._headers = headers
        try:
            new.__class__ = self.__class__
        except TypeError:  # a subclass with a layout of its own
            return _build(self.__class__, key, value, timestamp, headers)
        return new  # type: ignore[return-value]

    def with_key(self, key: Any) -> Record:
        """A copy with another key."""
        new = _RecordFields()  # _copy inlined: records are copied per hop
        new.key = key
        new.value = self.value
        new.timestamp = self.timestamp
        headers = self._headers
        new._headers = headers.copy() if headers is not None and headers._items else None
        try:
            new.__class__ = self.__class__
        except TypeError:
            return _build(self.__class__, key, self.value, self.timestamp, new._headers)
        return new  # type: ignore[return-value]

    def with_value(self, value: Any) -> Record:
        """A copy with another value."""
        new = _RecordFields()
        new.key = self.key
        new.value = value
        new.timestamp = self.timestamp
        headers = self._headers
        new._headers = headers.copy() if headers is not None and headers._items else None
        try:
            new.__class__ = self.__class__
        except TypeError:
            return _build(self.__class__, self.key, value, self.timestamp, new._headers)
        return new  # type: ignore[return-value]

    def with_timestamp(self, timestamp: int) -> Record:
        """A copy with another timestamp (ms); negative timestamps are refused as in Kafka."""
        if timestamp < 0:
            _negative_timestamp(timestamp)
        headers = self._headers
        return self._copy(self.key, self.value, timestamp,
                          headers.copy() if headers is not None and headers._items else None)

    def with_headers(self, headers: Headers | Iterable[tuple[str, bytes | None]] | None) -> Record:
        """A copy with other headers."""
        given = as_headers(headers)
        return self._copy(self.key, self.value, self.timestamp,
                          given.copy() if given is headers else given)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Record):
            return NotImplemented
        return (
            self.key == other.key
            and self.value == other.value
            and self.timestamp == other.timestamp
            and self.headers == other.headers
        )

    def __hash__(self) -> int:
        return hash((self.key, self.value, self.timestamp))

    def __repr__(self) -> str:
        extra = f", headers={self._headers!r}" if self._headers else ""
        return (
            f"{type(self).__name__}(key={self.key!r}, value={self.value!r}, "
            f"timestamp={self.timestamp}{extra})"
        )


def _negative_timestamp(timestamp: int) -> None:
    msg = (
        f"Malformed Record: timestamp may not be negative, got {timestamp}; forward records "
        "with timestamps >= 0 (ms since the epoch)"
    )
    raise StreamsError(msg)


def source_record(key: Any, value: Any, timestamp: int) -> Record:
    """A headerless ``Record`` for engines whose timestamp was already checked (a source's
    deserializer refuses negative ones): ``Record(...)`` without the class call's cost."""
    new = _RecordFields()
    new.key = key
    new.value = value
    new.timestamp = timestamp
    new._headers = None
    new.__class__ = Record
    return new  # type: ignore[return-value]


# Slot setters, for the lazy headers and for subclasses a record cannot be switched to.
_set_key = _RecordFields.key.__set__  # type: ignore[attr-defined]
_set_value = _RecordFields.value.__set__  # type: ignore[attr-defined]
_set_timestamp = _RecordFields.timestamp.__set__  # type: ignore[attr-defined]
_set_headers = _RecordFields._headers.__set__  # type: ignore[attr-defined]
_new_object = object.__new__


def _build(cls: type, key: Any, value: Any, timestamp: int, headers: Headers | None) -> Any:
    new = _new_object(cls)
    _set_key(new, key)
    _set_value(new, value)
    _set_timestamp(new, timestamp)
    _set_headers(new, headers)
    return new


class FixedKeyRecord(Record):
    """A record whose key cannot change: what a ``FixedKeyProcessor`` receives and forwards."""

    __slots__ = ()

    def with_key(self, key: Any) -> Record:  # type: ignore[override]
        msg = "FixedKeyRecord has no with_key: a FixedKeyProcessor cannot change the key; use process() instead of process_values() to re-key"  # noqa: E501
        raise AttributeError(msg)


def plain_record(record: Record) -> Record:
    """``record`` as a plain ``Record``, with the same fields and headers object.

    What a ``FixedKeyProcessor`` forwards reaches its children as this: only the fixed-key
    processor itself may not change the key (Java's ``FixedKeyRecord`` is a class of its own,
    and the nodes after ``processValues`` receive ``Record``s)."""
    if record.__class__ is Record:
        return record
    new = _RecordFields()
    new.key = record.key
    new.value = record.value
    new.timestamp = record.timestamp
    new._headers = record._headers
    new.__class__ = Record
    return new  # type: ignore[return-value]


class KeyValue(NamedTuple):
    """A key and a value; plain tuples are accepted wherever one is expected."""

    key: Any
    value: Any

    @classmethod
    def pair(cls, key: Any, value: Any) -> KeyValue:
        """The pair of ``key`` and ``value``, as Java's ``KeyValue.pair(key, value)``."""
        return cls(key, value)

    def __str__(self) -> str:
        """Java's ``KeyValue.toString()``: ``KeyValue(key, value)`` (``repr`` names the fields)."""
        return f"KeyValue({_java_str(self.key)}, {_java_str(self.value)})"


def _java_str(obj: Any) -> str:
    """``String.valueOf(obj)``: ``null`` for ``None``, else ``str``."""
    return "null" if obj is None else str(obj)


class ValueAndTimestamp(NamedTuple):
    """What a timestamped store holds: the value and the timestamp of its last update."""

    value: Any
    timestamp: int


class VersionedRecord(NamedTuple):
    """One version from a versioned store: valid from ``timestamp`` until ``valid_to``."""

    value: Any
    timestamp: int
    valid_to: int | None = None


class Window(NamedTuple):
    """A time window ``[start, end)`` (session windows: ``[start, end]``) in ms."""

    start: int
    end: int


class Windowed(NamedTuple):
    """A key together with the window its aggregate belongs to."""

    key: Any
    window: Window

    def __str__(self) -> str:
        return f"[{self.key}@{self.window.start}/{self.window.end}]"


class TaskId(NamedTuple):
    """One task: a sub-topology run on one partition. Prints as Kafka does, ``0_1``."""

    subtopology: int
    partition: int

    def __str__(self) -> str:
        return f"{self.subtopology}_{self.partition}"


class RecordMetadata(NamedTuple):
    """Where the record being processed came from."""

    topic: str
    partition: int
    offset: int


_UNSET: Any = object()
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class TestRecord:
    """A record as the test driver reads it back: key, value, timestamp and headers.

    ``TestRecord(value)`` (one argument) is a value with a ``None`` key, as Java's
    ``new TestRecord<>(value)``; ``TestRecord(key, value, timestamp, headers)`` takes the
    timestamp as int ms or a ``datetime`` (``None``: the input topic's clock decides). Java's
    argument order ``(key, value, headers, timestamp)`` is accepted too. Records compare by
    key, value, timestamp and headers; ``record_time`` is the timestamp as a UTC ``datetime``.
    A record read from an output topic also tells its ``partition`` (where a partitioner or a
    repartition sent it; ``None`` on a record made by hand), which equality ignores, as Java's
    ``TestRecord`` has no partition.
    """

    __slots__ = ("_headers", "key", "partition", "timestamp", "value")
    __test__ = False  # not a pytest class

    def __init__(
        self,
        key: Any = None,
        value: Any = _UNSET,
        timestamp: int | datetime | None = None,
        headers: Headers | Iterable[tuple[str, bytes | None]] | None = None,
        *,
        partition: int | None = None,
    ) -> None:
        if value is _UNSET:  # TestRecord(value)
            key, value = None, key
        if timestamp.__class__ is not int or timestamp < 0 or (  # type: ignore[operator]
                headers is not None and headers.__class__ is not Headers):
            timestamp, headers = _test_record_time_and_headers(timestamp, headers)
        self.key = key
        self.value = value
        self.timestamp = timestamp
        self._headers = headers  # None: no headers yet (made when asked for)
        self.partition = partition

    @property
    def headers(self) -> Headers:
        """The record's headers (an empty ``Headers``, its own, when it has none)."""
        headers = self._headers
        if headers is None:
            headers = self._headers = Headers()
        return headers

    @headers.setter
    def headers(self, headers: Headers) -> None:
        self._headers = headers

    @property
    def raw_headers(self) -> Headers | None:
        """The headers as given, ``None`` when none were (no empty ``Headers`` made)."""
        return self._headers

    @property
    def record_time(self) -> datetime | None:
        """Java's ``getRecordTime()``: the timestamp as a UTC ``datetime`` (``None`` if unset)."""
        if self.timestamp is None:
            return None
        return _EPOCH + timedelta(milliseconds=self.timestamp)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TestRecord):
            return NotImplemented
        return (self.key, self.value, self.timestamp, self.headers) == (
            other.key,
            other.value,
            other.timestamp,
            other.headers,
        )

    def __hash__(self) -> int:
        return hash((self.key, self.value, self.timestamp))

    def __repr__(self) -> str:
        extra = f", headers={self._headers!r}" if self._headers else ""
        return (
            f"TestRecord(key={self.key!r}, value={self.value!r}, "
            f"timestamp={self.timestamp}{extra})"
        )

    def __str__(self) -> str:
        """Java's ``TestRecord.toString()``, e.g. ``TestRecord[key=k, value=1, headers=
        RecordHeaders(headers = [], isReadOnly = false), recordTime=2019-06-01T10:00:00Z]``."""
        return (
            f"TestRecord[key={_java_str(self.key)}, value={_java_str(self.value)}, "
            f"headers={_java_headers(self.headers)}, recordTime={_java_instant(self.timestamp)}]"
        )


def _is_headers(value: Any) -> bool:
    return isinstance(value, Headers | list | tuple | dict)


def _test_record_time_and_headers(timestamp: Any, headers: Any) -> tuple[int | None, Any]:
    """Sort out Java's argument order, datetimes and bad timestamps for ``TestRecord``."""
    if (timestamp is not None and _is_headers(timestamp)) or (
            headers is not None and not _is_headers(headers)):
        timestamp, headers = headers, timestamp  # Java's (key, value, headers, timestamp)
    if timestamp is not None:
        if isinstance(timestamp, datetime):
            if timestamp.tzinfo is None:
                timestamp = timestamp.replace(tzinfo=UTC)
            timestamp = (timestamp - _EPOCH) // timedelta(milliseconds=1)
        elif isinstance(timestamp, bool) or not hasattr(timestamp, "__index__"):
            msg = (
                f"TestRecord timestamp {timestamp!r} ({type(timestamp).__name__}) is not int "
                "milliseconds or a datetime; pass one of those (or None for the topic's clock)"
            )
            raise TypeError(msg)
        else:
            timestamp = timestamp.__index__()  # numpy integers, ...
        if timestamp < 0:
            raise InvalidArgumentError(invalid_timestamp(timestamp))
    return timestamp, None if headers is None else as_headers(headers)


def invalid_timestamp(timestamp: int) -> str:
    """Java's ``TestRecord`` refusal of a negative timestamp in ms, and what to give instead."""
    return (f"Invalid timestamp: {timestamp}. Timestamp should always be non-negative or null; "
            "give ms since the epoch (>= 0), a datetime, or None for the input topic's clock")


def refuse_negative_ms(timestamp: Any) -> None:
    """Java's ``TestRecord(key, value, headers, Long timestampMs)`` refusal of a negative ``int``
    (``InvalidArgumentError``); a ``datetime`` before the epoch (Java's ``Instant``) passes, for
    the source's timestamp extractor to judge, as Java's ``TestRecord(key, value, Instant)``."""
    if isinstance(timestamp, int) and not isinstance(timestamp, bool) and timestamp < 0:
        raise InvalidArgumentError(invalid_timestamp(timestamp))


def _java_str(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _java_headers(headers: Headers) -> str:
    parts = []
    for key, value in headers:
        shown = "null" if value is None else str([b - 256 if b > 127 else b for b in value])
        parts.append(f"RecordHeader(key = {key}, value = {shown})")
    return f"RecordHeaders(headers = [{', '.join(parts)}], isReadOnly = false)"


def _java_instant(timestamp: int | None) -> str:
    """``Instant.toString()``: ISO-8601 in UTC, fractions only when there are some."""
    if timestamp is None:
        return "null"
    seconds, millis = divmod(timestamp, 1000)
    text = (_EPOCH + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{text}.{millis:03d}Z" if millis else f"{text}Z"


_PAIR_TYPES = frozenset({tuple, list, KeyValue})
_FIRST, _SECOND = itemgetter(0), itemgetter(1)


def split_pairs(items: list[Any]) -> tuple[list[Any], list[Any]] | None:
    """The firsts and the seconds of ``items`` when every one is a tuple, list or
    ``KeyValue`` of two (split in C: ``key, value = item`` gives the same); ``None`` when
    one is anything else, for the caller to unpack item by item (or raise as unpacking does)."""
    if items and (not set(map(type, items)) <= _PAIR_TYPES or set(map(len, items)) != {2}):
        return None
    return list(map(_FIRST, items)), list(map(_SECOND, items))
