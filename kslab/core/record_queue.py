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
from typing import Any, NamedTuple

from kslab.errors import KslabError, SerdeError, StreamsError
from kslab.records import Headers

__all__ = ["ConsumerRecord", "RecordDeserializer", "RecordQueue", "StampedRecord"]

log = logging.getLogger("kslab.core")

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
    """A deserialized record and the timestamp its extractor gave it."""

    timestamp: int
    key: Any
    value: Any
    raw: ConsumerRecord


class RecordDeserializer:
    """Turns a source's raw records into objects, applying the deserialization error handler."""

    def __init__(
        self,
        source_name: str,
        key_serde: Any,
        value_serde: Any,
        timestamp_extractor: Callable[[ConsumerRecord, int], int] | None,
        handler: str,
        on_skip: Callable[[ConsumerRecord, BaseException], None],
    ) -> None:
        self.source_name = source_name
        self._key = key_serde.deserialize
        self._value = value_serde.deserialize
        self.key_serde = key_serde
        self.value_serde = value_serde
        self._extractor = timestamp_extractor
        self._continue = handler == "log_and_continue"
        self._on_skip = on_skip

    def deserialize(self, raw: ConsumerRecord, partition_time: int) -> StampedRecord | None:
        """The stamped record, or ``None`` when it was skipped (and counted)."""
        topic = raw.topic
        try:
            key = self._key(topic, raw.key, raw.headers)
            value = self._value(topic, raw.value, raw.headers)
        except Exception as exc:  # noqa: BLE001 - any serde failure goes to the handler
            return self._fail(raw, exc)
        extractor = self._extractor
        if extractor is None:
            timestamp = raw.timestamp
            if timestamp < 0:
                msg = (
                    f"Input record from topic '{topic}', partition {raw.partition}, offset "
                    f"{raw.offset} has invalid (negative) timestamp {timestamp}; give the source "
                    "a timestamp_extractor that handles it"
                )
                raise StreamsError(
                    msg, node=self.source_name, topic=topic, partition=raw.partition,
                    offset=raw.offset, key=key, value=value,
                )
            return StampedRecord(timestamp, key, value, raw)
        try:
            timestamp = extractor(raw._replace(key=key, value=value), partition_time)
        except Exception as exc:
            msg = (
                f"timestamp extractor of source '{self.source_name}' failed on the record at "
                f"topic '{topic}', partition {raw.partition}, offset {raw.offset}: {exc!r}; "
                "fix the extractor"
            )
            raise StreamsError(
                msg, node=self.source_name, topic=topic, partition=raw.partition,
                offset=raw.offset, key=key, value=value,
            ) from exc
        if timestamp < 0:
            log.warning(
                "Skipping record due to negative extracted timestamp. topic=[%s] partition=[%s] "
                "offset=[%s] extractedTimestamp=[%s] extractor=[%r]",
                topic, raw.partition, raw.offset, timestamp, extractor,
            )
            self._on_skip(raw, ValueError(f"negative extracted timestamp {timestamp}"))
            return None
        return StampedRecord(timestamp, key, value, raw)

    def _fail(self, raw: ConsumerRecord, exc: Exception) -> None:
        where = f"topic '{raw.topic}', partition {raw.partition}, offset {raw.offset}"
        if self._continue:
            log.warning(
                "Skipping record that source '%s' could not deserialize at %s: %s",
                self.source_name, where, exc,
            )
            self._on_skip(raw, exc)
            return None
        detail = str(exc) if isinstance(exc, KslabError) else repr(exc)
        msg = (
            f"source '{self.source_name}' cannot deserialize the record at {where}: {detail}; "
            "check the source's key/value serdes, or set "
            "default.deserialization.exception.handler=log_and_continue to skip bad records"
        )
        raise SerdeError(
            msg, topic=raw.topic, partition=raw.partition, offset=raw.offset,
            raw=raw.value if not isinstance(exc, SerdeError) or exc.raw is None else exc.raw,
        ) from exc


class RecordQueue:
    """Raw records of one topic partition waiting for the task, oldest first."""

    __slots__ = ("_deserializer", "_raw", "head", "partition", "partition_time", "source", "topic")

    def __init__(self, topic: str, partition: int, source: Any, deserializer: RecordDeserializer):
        self.topic = topic
        self.partition = partition
        self.source = source
        self._deserializer = deserializer
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

    def poll(self) -> StampedRecord:
        """Take the head record (``load_head`` must have returned it)."""
        head = self.head
        assert head is not None
        if head.timestamp > self.partition_time:
            self.partition_time = head.timestamp
        self.head = None
        return head

    def _update_head(self) -> None:
        raw = self._raw
        deserialize = self._deserializer.deserialize
        while raw:
            stamped = deserialize(raw.popleft(), self.partition_time)
            if stamped is not None:
                self.head = stamped
                return

    def __len__(self) -> int:
        return len(self._raw) + (self.head is not None)

    def snapshot(self) -> tuple[Any, ...]:
        """Queue contents and partition time, for ``restore``."""
        return (tuple(self._raw), self.head, self.partition_time)

    def restore(self, snapshot: tuple[Any, ...]) -> None:
        """Put back what ``snapshot`` saw."""
        raw, self.head, self.partition_time = snapshot
        self._raw = deque(raw)
