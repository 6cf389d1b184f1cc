"""The live runtime's side of error handling: DLQ records go out through the thread's producer.

The semantics (handler choice, node guards, dropped-records counting, logging, DLQ records with
their ``__streams.errors.*`` headers) live in ``kslab.core.error_policy``; this module adds the
client's per-kind counters and the errors the stream thread raises when no guard is installed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kslab.core import error_policy as core
from kslab.core.error_policy import HandlerFailed, ProductionError, dlq_headers
from kslab.errors import DeserializationError, KslabError, SerdeError

if TYPE_CHECKING:
    from kslab.core.task import StreamTask
    from kslab.runtime.streams import KafkaStreams

__all__ = ["ErrorPolicy", "HandlerFailed", "ProductionError", "dlq_headers"]


class ErrorPolicy:
    """The handlers of one ``KafkaStreams``: the core policy plus the client's counters."""

    def __init__(self, streams: KafkaStreams) -> None:
        self.streams = streams
        self.core = core.ErrorPolicy(streams.config)
        # "continue" or "fail": what the collector does with a record the broker refuses
        # (a user production handler is asked about serialization failures only)
        self.production = "continue" if self.core.production_name == "log_and_continue" \
            else "fail"
        self.dlq_topic = self.core.dlq_topic

    def install(self, task: StreamTask, thread: Any) -> None:
        """Guard ``task``'s nodes (only where a handler could continue or a DLQ is written)."""
        self.core.install(task, self._sender(thread), self._count)

    def _count(self, kind: str) -> None:
        self.streams.dropped[kind] += 1

    def _sender(self, thread: Any) -> Any:
        collector = getattr(thread, "collector", None)
        topic = self.dlq_topic
        if collector is None or topic is None:
            return None

        def send(key: Any, value: Any, headers: Any, timestamp: int) -> None:
            collector.send(topic, key, value, headers, max(timestamp, 0), None, None)

        return send

    def write_dead_letter(self, thread: Any, key: Any, value: Any, headers: Any,
                          timestamp: int) -> None:
        """Send one record to the DLQ through ``thread``'s producer and count it."""
        send = self._sender(thread)
        if send is not None:
            send(key, value, headers, timestamp)
            self._count("dlq")

    def failure(self, thread: Any, task: StreamTask | None, raw: Any,
                exc: KslabError) -> KslabError:
        """The error a failing record raises out of the thread: a sink's serialization or
        send failure names topic, key and cause; a deserialization failure goes to the DLQ."""
        if isinstance(exc, HandlerFailed) or task is None:
            return exc
        if isinstance(exc, DeserializationError):
            if self.core.dead_letter(self._sender(thread), raw, exc):
                self._count("dlq")
            return exc
        if isinstance(exc, ProductionError | SerdeError):  # a sink's (sources raise the above)
            record = task.context.record  # forward leaves the failing sink's record here
            key = record.key if record is not None else None
            topic = exc.topic or "?"
            error = HandlerFailed(core.production_message(topic, key, exc, "log_and_fail"),
                                  topic=topic, key=key)
            error.__cause__ = exc
            return error
        return exc

