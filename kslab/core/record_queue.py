"""The queue of raw records of one input partition, with its head record deserialized.

Invariant (Kafka's ``RecordQueue``): the head is always a record that deserialized and got a
valid timestamp, so the partition group can order partitions by their head timestamps; records
that fail are raised or, under ``log_and_continue``, counted, logged and skipped — never lost
silently. ``partition_time`` is the largest timestamp this partition has handed out.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from itertools import repeat
from typing import Any, NamedTuple

from kslab.core.error_policy import ask_deserialization
from kslab.errors import (
    DeserializationError,
    ErrorHandlerContext,
    KslabError,
    SerdeError,
    StreamsError,
)
from kslab.records import Headers
from kslab.serdes._base import fast_deserializer

__all__ = ["ConsumerRecord", "RecordDeserializer", "RecordQueue", "StampedRecord"]

log = logging.getLogger("kslab.core")
_MISSING = object()  # "not decoded yet" in RecordDeserializer.deserialize

UNKNOWN = -1


class ConsumerRecord(NamedTuple):
    """A record as read from a topic partition: bytes before the source, objects after it."""

    topic: str
    partition: int
    offset: int
    timestamp: int
    key: Any
    value: Any
    headers: Headers | None = None


class StampedRecord(NamedTuple):
    """A deserialized record and its timestamp (the hot path uses plain tuples of this shape)."""

    timestamp: int
    key: Any
    value: Any
    raw: tuple


class RecordDeserializer:
    """Turns a source's raw records into objects, applying the deserialization error handler."""

    def __init__(
        self,
        source_name: str,
        key_serde: Any,
        value_serde: Any,
        timestamp_extractor: Callable[[ConsumerRecord, int], int] | None,
        handler: Any,
        on_skip: Callable[[ConsumerRecord, BaseException], None],
        task_id: Any = None,
    ) -> None:
        self.source_name = source_name
        self._key = key_serde.deserialize
        self._value = value_serde.deserialize
        # The serdes' C-level codecs (serdes._base.fast_deserializer), tried first: where one
        # refuses, the serde's own deserialize gives the value or the error.
        fast_key, fast_value = fast_deserializer(key_serde), fast_deserializer(value_serde)
        self._kdec, self._kidx = fast_key or (None, False)
        self._vdec, self._vidx = fast_value or (None, False)
        self.key_serde = key_serde
        self.value_serde = value_serde
        self._extractor = timestamp_extractor
        # a built-in handler's name, or the user's handler (asked about each failure)
        self._continue = handler == "log_and_continue"
        self._handler = None if isinstance(handler, str) else handler
        self._task_id = task_id
        self._on_skip = on_skip

    @property
    def timestamp_extractor(self) -> Callable[[ConsumerRecord, int], int] | None:
        """The source's extractor, ``extractor(record, partition_time)``; ``None`` for the
        record's own timestamp (a negative one fails)."""
        return self._extractor

    def timestamps_of(self, topic: str, partition: int, offsets: Any, timestamps: list[int],
                      keys: list[Any], values: list[Any], headers: list[Any],
                      partition_time: int) -> list[int] | None:
        """The batch form of the timestamps ``deserialize`` gives a run of decoded records:
        each record's own, or the extractor's, called once per record in order with the
        partition time so far and the record (``ConsumerRecord``) as ``_extract`` calls it.
        ``None`` where the record path would not just take them: a negative one (it fails
        or skips the record with its warning) or an extractor's result that is not an
        ``int``."""
        extractor = self._extractor
        if extractor is None:
            return timestamps if min(timestamps) >= 0 else None
        extracted: list[int] = []
        for record in map(ConsumerRecord, repeat(topic), repeat(partition), offsets,
                          timestamps, keys, values, headers):
            stamp = extractor(record, partition_time)
            if stamp.__class__ is not int or stamp < 0:
                return None
            if stamp > partition_time:
                partition_time = stamp
            extracted.append(stamp)
        return extracted

    def inline_codecs(self) -> tuple[Callable[[bytes], Any], bool, Callable[[bytes], Any],
                                     bool] | None:
        """The key's and value's C-level codecs and whether each hands back a 1-tuple
        (``serdes._base.fast_deserializer``), for a loop that decodes rows itself where the
        record's own timestamp is used (no extractor); ``None`` when that cannot be done. A
        row a codec refuses goes through ``deserialize`` for the outcome or the error."""
        if self._extractor is not None or self._kdec is None or self._vdec is None:
            return None
        return self._kdec, self._kidx, self._vdec, self._vidx

    def deserialize(self, raw: tuple, partition_time: int) -> tuple | None:
        """``(timestamp, key, value, raw)``, or ``None`` when skipped (and counted).

        ``raw`` is a ``ConsumerRecord`` or a plain tuple in its field order: the hot path
        indexes instead of building named tuples.
        """
        topic, _partition, _offset, timestamp, key_bytes, value_bytes, headers = raw
        key = value = _MISSING
        kdec, vdec = self._kdec, self._vdec
        if kdec is not None:  # built-in serdes: None is None
            if key_bytes is None:
                key = None
            else:
                try:
                    key = kdec(key_bytes)
                except Exception:
                    pass
                else:
                    if self._kidx:
                        key = key[0]
        if vdec is not None:
            if value_bytes is None:
                value = None
            else:
                try:
                    value = vdec(value_bytes)
                except Exception:
                    pass
                else:
                    if self._vidx:
                        value = value[0]
        if headers is None and (key is _MISSING or value is _MISSING):
            headers = Headers()  # a deserializer always gets headers, as Kafka's do
        try:
            if key is _MISSING:
                key = self._key(topic, key_bytes, headers)
            if value is _MISSING:
                value = self._value(topic, value_bytes, headers)
        except Exception as exc:
            return self._fail(ConsumerRecord(*raw), exc)
        if self._extractor is None:
            if timestamp < 0:
                self._negative(ConsumerRecord(*raw), key, value)
            return (timestamp, key, value, raw)
        return self._extract(ConsumerRecord(*raw), key, value, partition_time)

    def _negative(self, raw: ConsumerRecord, key: Any, value: Any) -> None:
        """The record's own negative timestamp: ``FailOnInvalidTimestamp``'s error."""
        from kslab.processor.timestamps import invalid_timestamp_message

        msg = invalid_timestamp_message(raw._replace(key=key, value=value))
        log.error(msg)
        raise StreamsError(
            msg, node=self.source_name, topic=raw.topic, partition=raw.partition,
            offset=raw.offset, key=key, value=value,
        )

    def _extract(self, raw: ConsumerRecord, key: Any, value: Any,
                 partition_time: int) -> tuple | None:
        """The extractor's timestamp; a ``StreamsError`` it raises stops the task as it is, any
        other error as Java's "Fatal user code error"; a negative timestamp drops the record."""
        extractor = self._extractor
        topic = raw.topic
        record = raw._replace(key=key, value=value)
        try:
            timestamp = extractor(record, partition_time)
        except StreamsError:
            raise
        except Exception as exc:
            msg = (f"Fatal user code error in TimestampExtractor callback for record {record}. "
                   f"The timestamp extractor of source '{self.source_name}' raised {exc!r}; "
                   "fix the extractor")
            raise StreamsError(
                msg, node=self.source_name, topic=topic, partition=raw.partition,
                offset=raw.offset, key=key, value=value,
            ) from exc
        if timestamp < 0:
            log.warning(
                "Skipping record due to negative extracted timestamp. topic=[%s] partition=[%s] "
                "offset=[%s] extractedTimestamp=[%s] extractor=[%s]",
                topic, raw.partition, raw.offset, timestamp, _extractor_name(extractor),
            )
            self._on_skip(raw, ValueError(f"negative extracted timestamp {timestamp}"))
            return None
        return (timestamp, key, value, raw)

    def _fail(self, raw: ConsumerRecord, exc: Exception) -> None:
        where = f"topic '{raw.topic}', partition {raw.partition}, offset {raw.offset}"
        if self._handler is not None:
            headers = raw.headers if raw.headers is not None else Headers()
            ask_deserialization(self._handler, ErrorHandlerContext(
                raw.topic, raw.partition, raw.offset, headers, self.source_name, self._task_id,
                raw.timestamp, raw.key, raw.value), raw._replace(headers=headers), exc)
            log.warning("Skipping record that source '%s' could not deserialize at %s: %s "
                        "(the deserialization exception handler answered CONTINUE)",
                        self.source_name, where, exc)
            self._on_skip(raw, exc)
            return None
        if self._continue:
            log.warning(
                "Skipping record that source '%s' could not deserialize at %s: %s",
                self.source_name, where, exc,
            )
            self._on_skip(raw, exc)
            return None
        if isinstance(exc, KslabError):  # the serde already said what to check
            detail = f"{exc}; or set"
        else:
            detail = f"{exc!r}; check the source's key/value serdes, or set"
        msg = (
            f"source '{self.source_name}' cannot deserialize the record at {where}: {detail} "
            "default.deserialization.exception.handler=log_and_continue to skip bad records"
        )
        raise DeserializationError(
            msg, node=self.source_name, topic=raw.topic, partition=raw.partition,
            offset=raw.offset,
            raw=raw.value if not isinstance(exc, SerdeError) or exc.raw is None else exc.raw,
        ) from exc


def _extractor_name(extractor: Any) -> str:
    """The extractor's class (or function) name, as Java logs its class's canonical name."""
    owner = getattr(extractor, "__self__", None)
    named = type(owner) if owner is not None else extractor
    if not hasattr(named, "__qualname__"):
        named = type(named)
    return f"{named.__module__}.{named.__qualname__}"


class RecordQueue:
    """Raw records of one topic partition waiting for the task, oldest first."""

    __slots__ = ("_raw", "deserializer", "head", "partition", "partition_time", "source", "topic")

    def __init__(self, topic: str, partition: int, source: Any, deserializer: RecordDeserializer):
        self.topic = topic
        self.partition = partition
        self.source = source
        self.deserializer = deserializer  # its source's (shared by the source's partitions)
        self._raw: deque[ConsumerRecord] = deque()
        self.head: StampedRecord | None = None
        self.partition_time = UNKNOWN

    def add(self, record: ConsumerRecord) -> None:
        """Append a raw record; it is deserialized when it reaches the head."""
        self._raw.append(record)

    def load_head(self) -> StampedRecord | None:
        """The head record, deserializing raw records until one is valid (or none is left)."""
        if self.head is None and self._raw:
            self._update_head()
        return self.head

    def poll(self) -> tuple:
        """Take the head record (``load_head`` must have returned it)."""
        head = self.head
        if head[0] > self.partition_time:
            self.partition_time = head[0]
        self.head = None
        return head

    def _update_head(self) -> None:
        raw = self._raw
        deserialize = self.deserializer.deserialize
        while raw:
            stamped = deserialize(raw.popleft(), self.partition_time)
            if stamped is not None:
                self.head = stamped
                return

    def take_run(self, below: int | None) -> list[tuple]:
        """Take out the raw records at the front whose own timestamps are at least 0 and
        below ``below`` (``None``: no bound), in order: the records a partition group takes
        next one after another (``PartitionGroup.run_after``). Nothing when a head is loaded
        (it was deserialized already: the group takes it first)."""
        raw = self._raw
        if self.head is not None or not raw:
            return []
        count = 0
        for record in raw:
            timestamp = record[3]
            if timestamp < 0 or (below is not None and timestamp >= below):
                break
            count += 1
        if count == len(raw):
            taken = list(raw)
            raw.clear()
            return taken
        popleft = raw.popleft
        return [popleft() for _ in range(count)]

    def put_back(self, records: list[tuple]) -> None:
        """Put raw records taken out (``take_run``) back at the front, in their order: the
        ones an engine did not process (it stopped on an error)."""
        self._raw.extendleft(reversed(records))

    def __len__(self) -> int:
        return len(self._raw) + (self.head is not None)

    def first_offset(self) -> int | None:
        """The offset of the oldest record not yet taken (head or raw), ``None`` when empty:
        where a commit resumes (Kafka commits a task's queued head, not what it fetched)."""
        if self.head is not None:
            return self.head[3][2]
        return self._raw[0][2] if self._raw else None

    def snapshot(self) -> tuple[Any, ...]:
        """Queue contents and partition time, for ``restore``."""
        return (tuple(self._raw), self.head, self.partition_time)

    def restore(self, snapshot: tuple[Any, ...]) -> None:
        """Put back what ``snapshot`` saw."""
        raw, self.head, self.partition_time = snapshot
        self._raw = deque(raw)
