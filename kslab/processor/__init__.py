"""The Processor API users write against: processors, their context and punctuation types.

Only contracts live here; the engine-agnostic implementation of the context is in
``kslab.core``. ``init`` and ``close`` default to no-ops, so a processor needs only ``process``.
Java's built-in timestamp extractors (``kslab.processor.timestamps``) are exported from here.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kslab.processor.timestamps import (
    FailOnInvalidTimestamp,
    LogAndSkipOnInvalidTimestamp,
    TimestampExtractor,
    UsePartitionTimeOnInvalidTimestamp,
    WallclockTimestampExtractor,
)

if TYPE_CHECKING:
    from kslab.records import FixedKeyRecord, Record, RecordMetadata, TaskId

__all__ = [
    "Cancellable",
    "FailOnInvalidTimestamp",
    "FixedKeyProcessor",
    "FixedKeyProcessorContext",
    "LogAndSkipOnInvalidTimestamp",
    "Processor",
    "ProcessorContext",
    "PunctuationType",
    "Punctuator",
    "TimestampExtractor",
    "UsePartitionTimeOnInvalidTimestamp",
    "WallclockTimestampExtractor",
]

Punctuator = Callable[[int], None]
"""A punctuation callback: receives the stream time or wall-clock time it fires at (ms)."""


class PunctuationType(enum.Enum):
    """Which clock drives a punctuation: stream time (data-driven) or the wall clock."""

    STREAM_TIME = "STREAM_TIME"
    WALL_CLOCK_TIME = "WALL_CLOCK_TIME"


class Cancellable(ABC):
    """Returned by ``schedule``: ``cancel()`` stops the punctuation."""

    @abstractmethod
    def cancel(self) -> None:
        """Stop the punctuation; it will not fire again."""


class ProcessorContext(ABC):
    """What a processor can do besides computing: forward, schedule, reach stores, commit."""

    @abstractmethod
    def forward(self, record: Record, child_name: str | None = None) -> None:
        """Send a record to every child, or to the one named ``child_name``."""

    @abstractmethod
    def schedule(
        self, interval: Any, punctuation_type: PunctuationType, punctuator: Punctuator
    ) -> Cancellable:
        """Call ``punctuator(timestamp)`` every ``interval`` ms of stream or wall-clock time."""

    @abstractmethod
    def get_state_store(self, name: str) -> Any:
        """The typed view of a store connected to this processor."""

    @abstractmethod
    def commit(self) -> None:
        """Ask for a commit as soon as possible."""

    @property
    @abstractmethod
    def application_id(self) -> str:
        """The ``application.id`` this topology runs under."""

    @property
    @abstractmethod
    def task_id(self) -> TaskId:
        """The task (sub-topology, partition) this processor instance belongs to."""

    @abstractmethod
    def record_metadata(self) -> RecordMetadata | None:
        """Topic, partition and offset of the record being processed; ``None`` in punctuation."""

    @abstractmethod
    def current_stream_time_ms(self) -> int:
        """The task's stream time: the largest timestamp it has processed."""

    @abstractmethod
    def current_system_time_ms(self) -> int:
        """The engine's wall clock (mocked in the test driver)."""

    @abstractmethod
    def app_configs(self) -> dict[str, Any]:
        """The configuration the topology runs with."""


class FixedKeyProcessorContext(ProcessorContext):
    """The context of a ``FixedKeyProcessor``: it forwards ``FixedKeyRecord``s only."""


class Processor(ABC):
    """A node that handles one record at a time and may forward any number of records.

    Subclass it and pass a zero-argument supplier (the class itself, or a lambda) to
    ``Topology.add_processor``; the supplier must return a new instance on every call.
    """

    def init(self, context: ProcessorContext) -> None:  # noqa: B027 - optional hook
        """Called once before the first record; keep the context, fetch stores, schedule."""

    @abstractmethod
    def process(self, record: Record) -> None:
        """Handle one record."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release what ``init`` set up. Stores are closed by kslab, not here."""


class FixedKeyProcessor(ABC):
    """A processor that may change values but never keys: it receives ``FixedKeyRecord``s."""

    def init(self, context: FixedKeyProcessorContext) -> None:  # noqa: B027
        """Called once before the first record."""

    @abstractmethod
    def process(self, record: FixedKeyRecord) -> None:
        """Handle one record; forward ``record.with_value(...)`` to change the value."""

    def close(self) -> None:  # noqa: B027
        """Release what ``init`` set up."""
