"""Error handling of the live runtime: production and processing exception handlers and the DLQ.

Kafka's handlers, by config: ``default.production.exception.handler`` (``log_and_fail``, the
default, or ``log_and_continue``) for a sink record that cannot be serialized or that the
producer refuses; ``processing.exception.handler`` (KIP-1033: ``log_and_fail`` or
``log_and_continue``) for an exception raised by a processor; and the dead-letter queue
(KIP-1034, ``errors.dead.letter.queue.topic.name``) that receives the source record that
triggered the failure, with the ``__streams.errors.*`` headers, for every error kind. As in
Java, a handler decides at the node that failed: continuing skips only that node's work for
the record (siblings still get it), and a failure that a handler already turned into FAIL
passes every outer node unhandled. Invariant: every skipped record is logged, counted (task
``dropped-records-total`` and the client's per-kind counter) and, with a DLQ, written there.
"""

from __future__ import annotations

import logging
import traceback
from typing import TYPE_CHECKING, Any

from kslab.core.nodes import ProcessorRuntime, SinkRuntime
from kslab.errors import DeserializationError, KslabError, SerdeError, StreamsError

if TYPE_CHECKING:
    from kslab.core.task import StreamTask
    from kslab.runtime.streams import KafkaStreams

__all__ = ["ErrorPolicy", "HandlerFailed", "ProductionError", "dlq_headers", "handler_choice"]

log = logging.getLogger("kslab.runtime")


class ProductionError(StreamsError):
    """The producer refused a sink record (e.g. larger than ``message.max.bytes``)."""


class HandlerFailed(StreamsError):
    """An exception handler answered FAIL; outer nodes let it pass (Java's
    ``FailedProcessingException``)."""


def handler_choice(config_name: str, handler: Any) -> str:
    """``"fail"`` or ``"continue"`` for a handler given by name (Kafka's class names work too)."""
    name = handler if isinstance(handler, str) else getattr(handler, "__name__", str(handler))
    lowered = name.lower().replace("_", "").replace("-", "")
    if "continue" in lowered:
        return "continue"
    if "fail" in lowered or "default" in lowered:
        return "fail"
    msg = f"unknown {config_name} {handler!r}; use 'log_and_fail' or 'log_and_continue'"
    raise KslabError(msg)


def dlq_headers(headers: Any, error: BaseException, topic: Any, partition: Any,
                offset: Any) -> list[tuple[str, bytes | None]]:
    """KIP-1034 error headers after the source record's own headers."""
    cause = error.__cause__ if isinstance(error, HandlerFailed) and error.__cause__ else error
    if isinstance(cause, KslabError) and cause.__cause__ is not None \
            and not isinstance(cause, SerdeError | ProductionError):
        cause = cause.__cause__
    trace = "".join(traceback.format_exception(type(cause), cause, cause.__traceback__))
    out = list(headers or [])
    out += [
        ("__streams.errors.exception", type(cause).__qualname__.encode()),
        ("__streams.errors.message", str(cause).encode()),
        ("__streams.errors.stacktrace", trace.encode()),
        ("__streams.errors.topic", None if topic is None else str(topic).encode()),
        ("__streams.errors.partition", str(partition).encode()),
        ("__streams.errors.offset", str(offset).encode()),
    ]
    return out


def production_message(topic: str, key: Any, error: BaseException, handler: str) -> str:
    """What a failed sink record reports: topic, key and cause, and how to skip such records."""
    return (f"sending a record to topic '{topic}' failed (key {key!r}): {error}; the "
            f"production exception handler is {handler}; set "
            "default.production.exception.handler=log_and_continue to skip such records")


class ErrorPolicy:
    """The handlers of one ``KafkaStreams`` and the node guards that apply them in a task."""

    def __init__(self, streams: KafkaStreams) -> None:
        config = streams.config
        self.streams = streams
        self.production = handler_choice(
            "default.production.exception.handler",
            config.get("production.exception.handler")
            or config.get("default.production.exception.handler"))
        self.processing = handler_choice("processing.exception.handler",
                                         config.get("processing.exception.handler"))
        self.dlq_topic: str | None = config.get("errors.dead.letter.queue.topic.name") \
            or config.get("errors.deadletterqueue.topic.name") or None

    # -- guards ---------------------------------------------------------------------------------

    def install(self, task: StreamTask, thread: Any) -> None:
        """Guard ``task``'s nodes where a handler could continue or write the DLQ.

        With the defaults (fail, no DLQ) nothing is wrapped: the hot path stays as it is and
        the thread reports failures through ``failure``.
        """
        guard_processors = self.processing == "continue" or self.dlq_topic is not None
        # sinks are guarded whenever processors are, so a sink failure reaches a processor
        # guard only as HandlerFailed (never handled twice, never by the processing handler)
        guard_sinks = guard_processors or self.production == "continue"
        for node in task.nodes.values():
            if guard_sinks and isinstance(node, SinkRuntime):
                node.call = self._sink_guard(node, task, thread)
            elif guard_processors and isinstance(node, ProcessorRuntime):
                node.call = self._processor_guard(node, task, thread)
        if guard_processors:
            task._punctuate = self._punctuation_guard(task, thread)  # type: ignore[method-assign]
        if self.dlq_topic is not None:
            _track_source_records(task, thread)

    def _sink_guard(self, node: SinkRuntime, task: StreamTask, thread: Any) -> Any:
        call = node.call

        def guarded(record: Any) -> None:
            try:
                call(record)
            except (SerdeError, ProductionError) as exc:
                self._production_error(task, thread, node, record, exc)

        return guarded

    def _processor_guard(self, node: ProcessorRuntime, task: StreamTask, thread: Any) -> Any:
        call = node.call

        def guarded(record: Any) -> None:
            try:
                call(record)
            except HandlerFailed:
                raise
            except Exception as exc:
                self._processing_error(task, thread, node, record, exc)

        return guarded

    def _punctuation_guard(self, task: StreamTask, thread: Any) -> Any:
        punctuate = task._punctuate

        def guarded(schedule: Any, now: int) -> None:
            try:
                punctuate(schedule, now)
            except HandlerFailed:
                raise
            except Exception as exc:  # KIP-1033: a punctuator's error goes to the handler too
                if self.dlq_topic is not None:  # no source record: no key, value or topic
                    self.write_dead_letter(thread, None, None,
                                           dlq_headers(None, exc, None, -1, -1), now)
                if self.processing == "fail":
                    msg = f"{exc}; the processing exception handler is log_and_fail"
                    raise HandlerFailed(msg, node=schedule.node.name) from exc
                log.warning("punctuation of '%s' at %d failed: %s; skipped by "
                            "processing.exception.handler=log_and_continue", schedule.node.name,
                            now, exc)
                task.metrics.dropped_records += 1
                self.streams.dropped["processing"] += 1

        return guarded

    # -- handling -------------------------------------------------------------------------------

    def _production_error(self, task: StreamTask, thread: Any, node: Any, record: Any,
                          exc: Exception) -> None:
        topic = getattr(exc, "topic", None) or getattr(node, "topic", None) or "?"
        self._dead_letter(task, thread, exc)
        if self.production == "fail":
            raise HandlerFailed(production_message(topic, record.key, exc, "log_and_fail"),
                                node=node.name, topic=topic, key=record.key) from exc
        log.warning("%s; skipped", production_message(topic, record.key, exc,
                                                      "log_and_continue"))
        self._resume(task, node, record, "production")

    def _processing_error(self, task: StreamTask, thread: Any, node: Any, record: Any,
                          exc: Exception) -> None:
        context = task.context
        located = exc if isinstance(exc, StreamsError) and exc.node is not None \
            else context.processing_error(node.name, record, exc)
        self._dead_letter(task, thread, exc)
        if self.processing == "fail":
            msg = (f"{located}; the processing exception handler is log_and_fail (set "
                   "processing.exception.handler=log_and_continue to skip such records)")
            raise HandlerFailed(msg, node=node.name, topic=context.topic,
                                partition=context.partition, offset=context.offset,
                                key=record.key, value=record.value) from exc
        log.warning("%s; skipped by processing.exception.handler=log_and_continue", located)
        self._resume(task, node, record, "processing")

    def _resume(self, task: StreamTask, node: Any, record: Any, kind: str) -> None:
        context = task.context
        context.current, context.record = node, record  # as forward left them before the call
        task.metrics.dropped_records += 1
        self.streams.dropped[kind] += 1

    def _dead_letter(self, task: StreamTask, thread: Any, exc: BaseException) -> None:
        if self.dlq_topic is None:
            return
        context = task.context
        raw = getattr(thread, "current_raw", None)
        if raw is None:  # a punctuation: no source record
            key = value = None
            headers: Any = None
            timestamp = context.record.timestamp if context.record is not None else 0
        else:
            key, value, headers, timestamp = raw[4], raw[5], raw[6], raw[3]
        self.write_dead_letter(thread, key, value, dlq_headers(
            headers, exc, context.topic, context.partition, context.offset), timestamp)

    def write_dead_letter(self, thread: Any, key: Any, value: Any, headers: Any,
                          timestamp: int) -> None:
        """Send one record to the DLQ through ``thread``'s producer and count it."""
        collector = getattr(thread, "collector", None)
        if collector is None or self.dlq_topic is None:
            return
        collector.send(self.dlq_topic, key, value, headers, max(timestamp, 0), None, None)
        self.streams.dropped["dlq"] += 1

    # -- failures seen by the thread (no guard installed) ---------------------------------------

    def failure(self, thread: Any, task: StreamTask | None, raw: Any,
                exc: KslabError) -> KslabError:
        """The error a failing record raises out of the thread: a sink's serialization or
        send failure names topic, key and cause; a deserialization failure goes to the DLQ."""
        if isinstance(exc, HandlerFailed) or task is None:
            return exc
        context = task.context
        if isinstance(exc, DeserializationError):
            if self.dlq_topic is not None and raw is not None:
                self.write_dead_letter(thread, raw[4], raw[5], dlq_headers(
                    raw[6], exc, raw[0], raw[1], raw[2]), raw[3])
            return exc
        if isinstance(exc, ProductionError | SerdeError):  # a sink's (sources raise the above)
            record = context.record  # forward leaves the failing sink's record here
            key = record.key if record is not None else None
            topic = exc.topic or "?"
            error = HandlerFailed(production_message(topic, key, exc, "log_and_fail"),
                                  topic=topic, key=key)
            error.__cause__ = exc
            return error
        return exc


def _track_source_records(task: StreamTask, thread: Any) -> None:
    """Remember the raw record each processing step starts from (the DLQ writes it)."""
    run, process_now = task._run, task.process_now

    def tracked_run(source: Any, stamped: tuple) -> None:
        thread.current_raw = stamped[3]
        try:
            run(source, stamped)
        finally:
            thread.current_raw = None  # punctuations that follow have no source record

    def tracked_process_now(raw: tuple, queue: Any = None) -> bool:
        thread.current_raw = raw
        try:
            return process_now(raw, queue)
        finally:
            thread.current_raw = None

    task._run = tracked_run  # type: ignore[method-assign]
    task.process_now = tracked_process_now  # type: ignore[method-assign]
