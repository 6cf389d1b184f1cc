"""The test driver's output topics: typed reads of what a driver produced to one topic.

An output topic reads the driver's queue for the topic (two output topics on one topic share
its records), decoding a column at a time where the serde allows, as Kafka's
``TestOutputTopic`` reads one record at a time.
"""

from __future__ import annotations

from itertools import chain, repeat
from typing import TYPE_CHECKING, Any

from kslab.core.bulk.sinks import built_in
from kslab.core.gc_pause import collections_off
from kslab.errors import (
    KslabError,
    MissingArgumentError,
    NoSuchElementError,
    SerdeError,
)
from kslab.records import KeyValue, TestRecord
from kslab.serdes._base import fast_deserializer, fixed_struct
from kslab.testing._log import TEXT
from kslab.testing.frames import records_frame

if TYPE_CHECKING:
    from kslab.testing.driver import TopologyTestDriver

__all__ = ["TestOutputTopic", "check_topic_name", "topic_serdes"]


class TestOutputTopic:
    """Reads, deserializes and removes the records a driver produced to one topic."""

    __test__ = False

    def __init__(self, driver: TopologyTestDriver, name: str, key_serde: Any, value_serde: Any):
        self.key_serde, self.value_serde = topic_serdes(
            driver, name, "TestOutputTopic", key_serde, value_serde, "create_output_topic")
        self.name = name
        self._driver = driver

    def _take(self) -> tuple[Any, ...]:
        queue = self._driver.output_log(self.name)
        if not queue:
            raise NoSuchElementError(self._empty_message(queue.total))
        return queue.popleft()

    def _empty_message(self, written: int) -> str:
        # Java's messages first ("Empty topic: <name>"), then what to do about it
        if written:
            return (f"Empty topic: {self.name} (all {written} record(s) were read; check "
                    "is_empty() before reading)")
        produced = sorted(self._driver.produced_topic_names()) or "none"
        return (f"Uninitialized topic: {self.name} (nothing was written to it; topics "
                f"written so far: {produced}; check the topic name, or is_empty() before "
                "reading)")

    def _decode(self, raw: tuple[Any, ...]) -> TestRecord:
        key_bytes, value_bytes, headers, timestamp, partition = raw
        topic = self.name
        try:
            key = self.key_serde.deserialize(topic, key_bytes, headers)
            value = self.value_serde.deserialize(topic, value_bytes, headers)
        except Exception as exc:
            msg = (
                f"output topic '{topic}' cannot deserialize a record with "
                f"{self.key_serde!r}/{self.value_serde!r}: {exc}; pass the topic's serdes to "
                "create_output_topic(name, key_serde=..., value_serde=...)"
            )
            raise SerdeError(msg, topic=topic, raw=value_bytes) from exc
        return TestRecord(key, value, timestamp, headers, partition=partition)

    def read_value(self) -> Any:
        """The next record's value."""
        return self.read_record().value

    def read_key_value(self) -> KeyValue:
        """The next record as ``KeyValue(key, value)``."""
        rec = self.read_record()
        return KeyValue(rec.key, rec.value)

    def read_record(self) -> TestRecord:
        """The next record with key, value, timestamp, headers and its partition."""
        return self._decode(self._take())

    def read_values_to_list(self) -> list[Any]:
        """Every remaining value."""
        return self._drain(where=False)[1]

    def read_key_values_to_list(self) -> list[KeyValue]:
        """Every remaining record as ``KeyValue``."""
        keys, values, _, _, _ = self._drain(where=False)
        with collections_off():
            return list(map(tuple.__new__, repeat(KeyValue), zip(keys, values, strict=True)))

    def read_key_values_to_map(self) -> dict[Any, Any]:
        """The last value per key (a tombstone leaves ``None``); ``None`` keys are refused."""
        keys, values, _, _, _ = self._drain(where=False)
        if None in keys:
            msg = (
                "Null keys not allowed with readKeyValuesToMap method: output topic "
                f"'{self.name}' has a record with a None key; use read_key_values_to_list"
            )
            raise KslabError(msg)
        return dict(zip(keys, values, strict=True))

    def read_records_to_list(self) -> list[TestRecord]:
        """Every remaining record, each with its partition."""
        keys, values, headers, timestamps, partitions = self._drain()
        with collections_off():
            return [TestRecord(k, v, ts, h, partition=p) for k, v, ts, h, p
                    in zip(keys, values, timestamps, headers, partitions, strict=True)]

    def _drain(self, *, where: bool = True
               ) -> tuple[list[Any], list[Any], list[Any], list[int], list[int]]:
        """Every remaining record, decoded, as columns; a bad record raises with its location
        after the good ones before it were read, as one-by-one reads would. ``where=False``:
        keys, values and headers only (timestamps and partitions come back empty). Values a
        sink wrote from objects come back as the fresh copies the log keeps of them where
        this topic's value serde is of the sink's built-in class (``Json``: what decoding
        gives, ``RecordLog``'s read-back runs)."""
        log = self._driver.output_log(self.name)
        mark = log.mark()
        topic = self.name
        key_de, value_de = self.key_serde.deserialize, self.value_serde.deserialize
        with collections_off():
            columns, unpacked = log.drain_unpacking(
                _struct_of(self.key_serde), _struct_of(self.value_serde), where=where,
                read_back=type(self.value_serde) if built_in(self.value_serde) else None)
            keys, values, headers, timestamps, partitions = columns
            try:
                if not unpacked[0]:
                    keys = _decode_column(self.key_serde, key_de, topic, keys, headers)
                if not unpacked[1]:
                    values = _decode_column(self.value_serde, value_de, topic, values, headers)
            except Exception:  # undo the drain and read one by one up to the bad record
                log.truncate(mark)
                while log:
                    self.read_record()
                raise
        return keys, values, headers, timestamps, partitions

    def _drain_rows(self) -> list[tuple[Any, ...]]:
        keys, values, headers, timestamps, partitions = self._drain()
        return list(zip(keys, values, timestamps, headers, partitions, strict=True))

    def to_pandas(self, expand: bool = False) -> Any:
        """Drain into a pandas frame (``key``, ``value``, ``timestamp``, ``headers``;
        ``partition`` when the topic has several partitions)."""
        return records_frame(self._drain_rows(), kind="pandas", expand=expand,
                             with_partition=self._driver.partition_count(self.name) > 1)

    def to_polars(self, expand: bool = False) -> Any:
        """Drain into a polars frame."""
        return records_frame(self._drain_rows(), kind="polars", expand=expand,
                             with_partition=self._driver.partition_count(self.name) > 1)

    def is_empty(self) -> bool:
        """True when nothing is left to read."""
        return not self._driver.output_log(self.name)

    def get_queue_size(self) -> int:
        """How many records are left to read."""
        return len(self._driver.output_log(self.name))

    def __repr__(self) -> str:
        return (f"TestOutputTopic[topic='{self.name}', size={self.get_queue_size()}, "
                f"key_serde={self.key_serde!r}, value_serde={self.value_serde!r}]")


def check_topic_name(name: Any, maker: str) -> None:
    """Refuse a topic name that is not a str, naming ``maker`` (the method or class given it)
    and what it got."""
    if name is None:
        msg = f"{maker} needs a topic name; got None"
        raise MissingArgumentError(msg)
    if not isinstance(name, str):
        msg = f"{maker} needs a topic name (str); got {type(name).__name__} {name!r}"
        raise MissingArgumentError(msg)


def topic_serdes(driver: Any, name: Any, kind: str, key_serde: Any, value_serde: Any,
                 made_by: str) -> tuple[Any, Any]:
    """The serdes of a ``kind`` topic made directly (``TestInputTopic(driver, name, ...)``):
    those given, else the ones ``driver.<made_by>(name)`` picks (the source's or the sink's);
    a topic without a driver or a topic name is refused, naming ``kind`` and the fix."""
    if driver is None:
        msg = f"{kind} needs a TopologyTestDriver; make it with driver.create_..._topic(name)"
        raise MissingArgumentError(msg)
    check_topic_name(name, kind)
    if key_serde is None or value_serde is None:
        default = getattr(driver, made_by)(name)
        key_serde = key_serde if key_serde is not None else default.key_serde
        value_serde = value_serde if value_serde is not None else default.value_serde
    return key_serde, value_serde


def _decode_column(
    serde: Any, deserialize: Any, topic: str, column: list[Any], headers: list[Any]
) -> list[Any]:
    """``deserialize(topic, data, headers)`` of every field, in C through the serde's fast codec
    (``serdes._base.fast_deserializer``) when it has one and takes every field (no ``None``),
    or the serde's own ``deserialize_column`` (windowed keys)."""
    column_reader = getattr(serde, "deserialize_column", None)
    if column_reader is not None:
        return column_reader(topic, column, headers)  # type: ignore[no-any-return]
    fast = fast_deserializer(serde)
    if fast is not None:
        decode, indexed = fast
        try:
            decoded = map(decode, column)
            return list(chain.from_iterable(decoded) if indexed else decoded)
        except Exception:
            pass  # a None or a bad field: the serde's own method gives the value or its error
    return list(map(deserialize, repeat(topic), column, headers))


def _struct_of(serde: Any) -> Any:
    """How the log may decode a column of ``serde`` itself (``RecordLog.drain_unpacking``):
    the ``struct.Struct`` of a fixed-width built-in serde (its fast deserializer is the
    struct's bound ``unpack``, see ``serdes._base.fast_deserializer``), ``TEXT`` for the
    UTF-8 ``String`` (``bytes.decode``), else ``None``."""
    fast = fast_deserializer(serde)
    if fast is not None and fast[0] is bytes.decode:
        return TEXT
    return fixed_struct(serde)
