"""What a client's threads tell it: the one protocol between ``KafkaStreams`` and its stream
and global threads (the threads never reach into the client's private state).

A thread is handed a ``ThreadEvents`` when it is made; ``KafkaStreams`` implements it over its
state machine, its uncaught-exception handling and its error counters.
"""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["ThreadEvents"]


class ThreadEvents(Protocol):
    """A stream thread's rebalances and end, and the records a thread skipped or the broker
    refused, told to the client that owns it."""

    def rebalancing(self) -> None:
        """The thread's partitions are being revoked or assigned (the client rebalances)."""

    def rebalanced(self) -> None:
        """The thread has its new assignment (the client runs once every thread has)."""

    def finished(self, thread: Any) -> None:
        """``thread`` ended (its ``failed`` says why, ``None`` for a clean end)."""

    def global_failed(self, error: BaseException) -> None:
        """The global thread died of ``error`` (the client goes to ERROR, as Java's)."""

    def skipped_record(self, record: Any, error: BaseException) -> None:
        """A record the deserialization handler skipped (counted; to the DLQ if any)."""

    def production_error(self, message: Any, error: Exception, skipped: bool) -> None:
        """A record the broker refused (``skipped``: the production handler continued)."""
