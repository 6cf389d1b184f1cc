"""Java's built-in timestamp extractors, and the names a config may give them.

An extractor is anything with ``extract(record, partition_time) -> int`` (or a plain function of
those two arguments): ``record`` is the consumed record with its deserialized key and value,
``partition_time`` the largest valid timestamp the partition has handed out (-1 if none). A
negative result makes the engine skip the record and count it in ``dropped-records-total``.

Two markers let an engine take a shortcut with the same result: ``uses_record_timestamp`` (read
the record's own timestamp and fail on a negative one, as ``FailOnInvalidTimestamp`` does) and
``uses_wall_clock`` (the engine's wall clock: the mocked one in the TopologyTestDriver, which
``advance_wall_clock_time`` moves, where Java's extractor would read ``System.currentTimeMillis``).
"""

from __future__ import annotations

import logging
import time
from abc import ABC, abstractmethod
from typing import Any, NoReturn

from kslab.config import JAVA_PROCESSOR_PACKAGE
from kslab.errors import ConfigError, TopologyError

__all__ = [
    "FailOnInvalidTimestamp",
    "LogAndSkipOnInvalidTimestamp",
    "TimestampExtractor",
    "UsePartitionTimeOnInvalidTimestamp",
    "WallclockTimestampExtractor",
    "resolve_timestamp_extractor",
]

log = logging.getLogger("kslab.processor")


class TimestampExtractor(ABC):
    """Java's ``TimestampExtractor``: the timestamp of a consumed record, in ms since the epoch.

    Return a negative value to have the record skipped (and counted), or raise to stop the task.
    """

    @abstractmethod
    def extract(self, record: Any, partition_time: int) -> int:
        """The record's timestamp; ``partition_time`` is -1 while the partition has none."""

    def __call__(self, record: Any, partition_time: int) -> int:
        return self.extract(record, partition_time)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class ExtractRecordMetadataTimestamp(TimestampExtractor):
    """The record's own (metadata) timestamp; a negative one goes to ``on_invalid_timestamp``."""

    def extract(self, record: Any, partition_time: int) -> int:
        """``record.timestamp``, unless it is negative."""
        timestamp: int = record.timestamp
        if timestamp < 0:
            return self.on_invalid_timestamp(record, timestamp, partition_time)
        return timestamp

    @abstractmethod
    def on_invalid_timestamp(self, record: Any, record_timestamp: int,
                             partition_time: int) -> int:
        """The timestamp to use instead of a negative one (negative again: the record is
        dropped)."""


class FailOnInvalidTimestamp(ExtractRecordMetadataTimestamp):
    """Java's ``FailOnInvalidTimestamp`` (its default): a record's own timestamp; a negative one
    stops the task with a ``StreamsError`` (Kafka also reads repartition topics with it)."""

    uses_record_timestamp = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A subclass that changes what is extracted loses the engine's shortcut."""
        super().__init_subclass__(**kwargs)
        base = FailOnInvalidTimestamp
        if cls.extract is not base.extract or \
                cls.on_invalid_timestamp is not base.on_invalid_timestamp:
            cls.uses_record_timestamp = False

    def on_invalid_timestamp(self, record: Any, record_timestamp: int,
                             partition_time: int) -> int:
        """Log and raise ``StreamsError`` with Java's message naming the record."""
        from kslab.errors import StreamsError

        msg = invalid_timestamp_message(record)
        log.error(msg)
        raise StreamsError(msg)


def invalid_timestamp_message(record: Any) -> str:
    """Java's ``FailOnInvalidTimestamp`` message for ``record``."""
    return (
        f"Input record {record} has invalid (negative) timestamp. Possibly because a "
        "pre-0.10 producer client was used to write this record to Kafka without embedding "
        "a timestamp, or because the input topic was created before upgrading the Kafka "
        "cluster to 0.10+. Use a different TimestampExtractor to process this data."
    )


class LogAndSkipOnInvalidTimestamp(ExtractRecordMetadataTimestamp):
    """Java's ``LogAndSkipOnInvalidTimestamp``: a record's own timestamp; a negative one is
    logged and returned as is, so the record is skipped and counted as dropped."""

    def on_invalid_timestamp(self, record: Any, record_timestamp: int,
                             partition_time: int) -> int:
        """Warn as Java does and hand back the negative timestamp."""
        log.warning(
            "Input record %s will be dropped because it has an invalid (negative) timestamp.",
            record,
        )
        return record_timestamp


class UsePartitionTimeOnInvalidTimestamp(ExtractRecordMetadataTimestamp):
    """Java's ``UsePartitionTimeOnInvalidTimestamp``: a record's own timestamp; a negative one is
    replaced by the partition time, and a ``StreamsError`` while that is unknown."""

    def on_invalid_timestamp(self, record: Any, record_timestamp: int,
                             partition_time: int) -> int:
        """``partition_time``, unless it is negative too."""
        if partition_time < 0:
            from kslab.errors import StreamsError

            msg = (
                f"Could not infer new timestamp for input record {record} because partition "
                "time is unknown."
            )
            raise StreamsError(msg)
        return partition_time


class WallclockTimestampExtractor(TimestampExtractor):
    """Java's ``WallclockTimestampExtractor``: the current wall-clock time (ms), whatever the
    record says; an engine substitutes its own clock (the driver's mocked one)."""

    uses_wall_clock = True

    def extract(self, record: Any, partition_time: int) -> int:
        """The system time now, in ms since the epoch."""
        return int(time.time() * 1000)


_BUILT_IN: dict[str, type[TimestampExtractor]] = {
    cls.__name__: cls
    for cls in (FailOnInvalidTimestamp, LogAndSkipOnInvalidTimestamp,
                UsePartitionTimeOnInvalidTimestamp, WallclockTimestampExtractor)
}


def resolve_timestamp_extractor(value: Any, source: str | None = None) -> Any:
    """An extractor instance or function for what a config or a source names: an instance, a
    function, an extractor class, or a built-in one's (Java fully qualified) class name."""
    if isinstance(value, str):
        cls = _BUILT_IN.get(value.removeprefix(JAVA_PROCESSOR_PACKAGE))
        if cls is None:
            _unknown_class(value, source)
        return cls()
    if isinstance(value, type) and hasattr(value, "extract"):
        return value()  # a class, as Java configs name one
    return value


def _unknown_class(value: str, source: str | None) -> NoReturn:
    """Refuse a class name that is no built-in extractor: Java's ConfigException message for the
    config, or naming the source that was given it."""
    if source is None:
        msg = (
            f"Invalid value {value} for configuration default.timestamp.extractor: Class "
            f"{value} could not be found."
        )
        raise ConfigError(msg)
    known = ", ".join(sorted(_BUILT_IN))
    msg = (
        f"Source '{source}' has timestamp_extractor={value!r}, which names no built-in "
        f"extractor ({known}); pass one of those, an extractor or a function "
        "(record, partition_time) -> int"
    )
    raise TopologyError(msg)
