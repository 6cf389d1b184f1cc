"""Processing and production exception handlers and the dead-letter queue, for every engine.

Kafka's handlers, by config: ``processing.exception.handler`` (KIP-1033) for an exception a
processor or punctuator raises; ``default.production.exception.handler`` (or
``production.exception.handler``) for a sink record that cannot be serialized or that the
producer refuses; and ``errors.dead.letter.queue.topic.name`` (KIP-1034), where the built-in
handlers write the source record that failed, with the ``__streams.errors.*`` headers. A handler
is ``"log_and_fail"`` / ``"log_and_continue"`` (Kafka's class names work too) or user code: a
function or an object (a class is instantiated, ``configure(config)`` called if it has one) whose
``handle(context, record, exception)`` returns CONTINUE or FAIL.

As in Java a handler decides at the node that failed: CONTINUE skips only that node's work for
the record (siblings still get it), and a failure a handler turned into FAIL passes every outer
node unhandled. Every skipped record is logged, counted (the task's ``dropped-records-total``)
and, with a DLQ, written there. With the defaults (fail, no DLQ) nothing is wrapped, so the hot
path is untouched. Engines supply only how a DLQ record is sent.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kslab.core.nodes import ProcessorRuntime, SinkRuntime
from kslab.errors import (
    DeserializationError,
    ErrorHandlerContext,
    KslabError,
    ProcessingHandlerResponse,
    ProductionHandlerResponse,
    SerdeError,
    SerializationExceptionOrigin,
    StreamsError,
)
from kslab.records import Headers

if TYPE_CHECKING:
    from kslab.config import StreamsConfig
    from kslab.core.task import StreamTask
    from kslab.records import Record

__all__ = [
    "ErrorHandlerContext",
    "ErrorPolicy",
    "HandlerFailed",
    "ProcessingHandlerResponse",
    "ProductionError",
    "ProductionHandlerResponse",
    "SerializationExceptionOrigin",
    "dlq_headers",
    "production_message",
]

log = logging.getLogger("kslab.core")

# (key, value, headers, timestamp) -> None: how an engine writes one record to the DLQ topic
DeadLetterSender = Callable[[Any, Any, Any, int], None]
FATAL_DESERIALIZATION = "Fatal user code error in deserialization error callback"
FATAL_PROCESSING = "Fatal user code error in processing error callback"
FATAL_PRODUCTION = "Fatal user code error in production error callback"
# Kafka's texts for a handler that answers null: ProcessorNode reuses the production text for
# the processing handler; only a punctuation's (StreamTask.punctuate) names the processing one
NULL_RESPONSE = "Invalid ProductionExceptionHandler response."
NULL_PUNCTUATION_RESPONSE = "Invalid ProcessingExceptionHandler response."
NULL_DESERIALIZATION_RESPONSE = "Invalid DeserializationExceptionHandler response."
DESERIALIZATION_FAIL = (
    "Deserialization exception handler is set to fail upon a deserialization error. If you "
    "would rather have the streaming pipeline continue after a deserialization error, please "
    "set the deserialization.exception.handler appropriately.")


class ProductionError(StreamsError):
    """The producer refused a sink record (e.g. larger than ``message.max.bytes``)."""


class HandlerFailed(StreamsError):
    """An exception handler answered FAIL; outer nodes let it pass (Java's
    ``FailedProcessingException``)."""


# -- handlers ---------------------------------------------------------------------------------


class _BuiltIn:
    """``log_and_fail`` or ``log_and_continue``: the same answer for every error."""

    def __init__(self, name: str, answer: str) -> None:
        self.name = name
        self.answer = answer

    def __call__(self, *_: Any) -> str:
        return self.answer


def _resolve(config_name: str, handler: Any, config: Any, kind: str) -> Any:
    """A built-in handler for a name, else the user's handler object or function."""
    if handler is None or isinstance(handler, str):
        name = handler or "log_and_fail"
        lowered = name.lower().replace("_", "").replace("-", "")
        if "continue" in lowered:
            return _BuiltIn("log_and_continue", "continue")
        if "fail" in lowered or "default" in lowered:
            return _BuiltIn("log_and_fail", "fail")
        msg = (f"unknown {config_name} {handler!r}; use 'log_and_fail' or 'log_and_continue', "
               f"or a {kind} handler (a function or a class with handle(context, record, "
               "exception) returning CONTINUE or FAIL)")
        raise KslabError(msg)
    if isinstance(handler, type):
        try:
            handler = handler()
        except Exception as exc:
            msg = f"cannot create the {config_name} {handler.__name__}(): {exc!r}"
            raise KslabError(msg) from exc
    configure = getattr(handler, "configure", None)
    if callable(configure):
        configure(config.as_dict() if hasattr(config, "as_dict") else dict(config or {}))
    methods = ("handle", "handle_serialization_exception")
    if not any(callable(getattr(handler, m, None)) for m in methods) and not callable(handler):
        msg = (f"{config_name} {handler!r} is neither a handler name nor callable; give a "
               "function or an object with handle(context, record, exception)")
        raise KslabError(msg)
    return handler


def _answer(raw: Any, null_response: str = NULL_RESPONSE) -> str:
    """``"continue"`` or ``"fail"`` for what a handler returned (an enum member or a name);
    ``None`` raises ``TypeError(null_response)``, Java's ``requireNonNull``."""
    if raw is None:
        raise TypeError(null_response)
    name = getattr(raw, "name", raw)
    if isinstance(name, str) and name.lower() in ("continue", "fail", "resume"):
        return "fail" if name.lower() == "fail" else "continue"
    msg = f"an exception handler returned {raw!r}; return CONTINUE or FAIL"
    raise TypeError(msg)


def _name(handler: Any) -> str:
    if isinstance(handler, _BuiltIn):
        return handler.name
    return getattr(handler, "__qualname__", None) or type(handler).__qualname__


# -- DLQ records --------------------------------------------------------------------------------


def _root_cause(error: BaseException) -> BaseException:
    cause = error.__cause__ if isinstance(error, HandlerFailed) and error.__cause__ else error
    if isinstance(cause, KslabError) and cause.__cause__ is not None \
            and not isinstance(cause, SerdeError | ProductionError):
        cause = cause.__cause__
    return cause


def dlq_headers(headers: Any, error: BaseException, topic: Any, partition: Any,
                offset: Any) -> list[tuple[str, bytes | None]]:
    """KIP-1034 error headers after the source record's own headers."""
    cause = _root_cause(error)
    trace = "".join(traceback.format_exception(type(cause), cause, cause.__traceback__))
    out = [(k, v) for k, v in (headers or [])]
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


def deserialization_handler(config: Any) -> Any:
    """The config's deserialization handler: ``"log_and_fail"`` or ``"log_and_continue"`` for
    the built-in ones (which sources apply themselves), else the user's handler, created and
    configured (``handle(context, record, exception)``, asked by ``ask_deserialization``)."""
    handler = _resolve("deserialization.exception.handler",
                       config.get("deserialization.exception.handler")
                       or config.get("default.deserialization.exception.handler"), config,
                       "deserialization")
    return handler.name if isinstance(handler, _BuiltIn) else handler


def ask_deserialization(handler: Any, context: ErrorHandlerContext, record: Any,
                        error: Exception) -> None:
    """Java's ``RecordDeserializer.handleDeserializationFailure`` for a user's handler: return
    when it answers CONTINUE (the source skips the record); raise ``DeserializationError`` for
    FAIL, and ``StreamsError`` when the handler raises or answers ``None``."""
    method = getattr(handler, "handle", handler)
    try:
        answer = _answer(method(context, record, error), NULL_DESERIALIZATION_RESPONSE)
    except Exception as user_error:
        log.error("Deserialization error callback failed after deserialization error for "
                  "record %s: %r", record, error)
        raise StreamsError(FATAL_DESERIALIZATION, node=context.processor_node_id,
                           topic=context.topic, partition=context.partition,
                           offset=context.offset) from user_error
    if answer == "fail":
        raise DeserializationError(
            DESERIALIZATION_FAIL, node=context.processor_node_id, topic=context.topic,
            partition=context.partition, offset=context.offset,
            raw=getattr(record, "value", None)) from error


# -- the policy ---------------------------------------------------------------------------------


class ErrorPolicy:
    """The handlers and DLQ topic of one application's config."""

    def __init__(self, config: StreamsConfig) -> None:
        self.config = config
        self.processing = _resolve("processing.exception.handler",
                                   config.get("processing.exception.handler"), config,
                                   "processing")
        self.production = _resolve(
            "default.production.exception.handler",
            config.get("production.exception.handler")
            or config.get("default.production.exception.handler"), config, "production")
        self.dlq_topic: str | None = config.get("errors.dead.letter.queue.topic.name") \
            or config.get("errors.deadletterqueue.topic.name") or None

    @property
    def processing_name(self) -> str:
        """The processing handler's name, for messages."""
        return _name(self.processing)

    @property
    def production_name(self) -> str:
        """The production handler's name, for messages."""
        return _name(self.production)

    def _fails_always(self, handler: Any) -> bool:
        return isinstance(handler, _BuiltIn) and handler.answer == "fail"

    def install(self, task: StreamTask, send: DeadLetterSender | None,
                on_drop: Callable[[str], None] | None = None) -> TaskGuard | None:
        """Guard ``task``'s nodes where a handler could continue or a DLQ is written.

        Call after ``task.initialize()``. With the defaults (fail, no DLQ) nothing is wrapped
        and ``None`` is returned: failures then leave the task unhandled, as before.
        """
        guard_processors = not self._fails_always(self.processing) or self.dlq_topic is not None
        # sinks are guarded whenever processors are, so a sink failure reaches a processor
        # guard only as HandlerFailed (never handled twice, never by the processing handler)
        guard_sinks = guard_processors or not self._fails_always(self.production)
        if not guard_sinks:
            return None
        guard = TaskGuard(self, task, send, on_drop, guard_processors)
        for node in task.nodes.values():
            if isinstance(node, SinkRuntime):
                node.call = guard.sink(node)
            elif guard_processors and isinstance(node, ProcessorRuntime):
                node.call = guard.processor(node)
        task.guard = guard  # told each step's raw record; runs the punctuations
        return guard

    def dead_letter(self, send: DeadLetterSender | None, raw: Any, error: BaseException) -> bool:
        """Write a raw ``ConsumerRecord``-like tuple to the DLQ (the engines' deserialization
        and producer failures); ``False`` when there is no DLQ."""
        if self.dlq_topic is None or send is None or raw is None:
            return False
        send(raw[4], raw[5], dlq_headers(raw[6], error, raw[0], raw[1], raw[2]), max(raw[3], 0))
        return True


class TaskGuard:
    """The node guards of one task: they call the handlers and write the DLQ."""

    def __init__(self, policy: ErrorPolicy, task: StreamTask, send: DeadLetterSender | None,
                 on_drop: Callable[[str], None] | None, guards_punctuation: bool = True) -> None:
        self.policy = policy
        self.task = task
        self.send = send
        self.on_drop = on_drop
        self.guards_punctuation = guards_punctuation  # (processors' handlers: punctuators')
        self.raw: tuple[Any, ...] | None = None  # the source record being processed (the
        # task sets it for each step: ``StreamTask.guard``)

    # -- wrappers -------------------------------------------------------------------------------

    def sink(self, node: SinkRuntime) -> Any:
        """``node.call`` that hands serialization and send failures to the production handler."""
        call = node.call

        def guarded(record: Record) -> None:
            try:
                call(record)
            except (SerdeError, ProductionError) as exc:
                self.production_error(node, record, exc)

        return guarded

    def processor(self, node: ProcessorRuntime) -> Any:
        """``node.call`` that hands what the processor raises to the processing handler."""
        call = node.call

        def guarded(record: Record) -> None:
            try:
                call(record)
            except HandlerFailed:
                raise
            except Exception as exc:
                self.processing_error(node, record, exc)

        return guarded

    def punctuate(self, fire: Callable[[Any, int], None], schedule: Any, now: int) -> None:
        """``fire(schedule, now)`` for the task (``StepGuard``), with what the punctuator
        raises handed to the processing handler (where processors' failures are)."""
        if not self.guards_punctuation:
            fire(schedule, now)
            return
        try:
            fire(schedule, now)
        except HandlerFailed:
            raise
        except Exception as exc:
            self.punctuation_error(schedule.node.name, now, exc)

    # -- handling -------------------------------------------------------------------------------

    def _context(self, node: str, timestamp: int) -> ErrorHandlerContext:
        context, raw = self.task.context, self.raw
        return ErrorHandlerContext(
            context.topic, context.partition, context.offset,
            context.record.raw_headers if context.record is not None else None, node,
            self.task.id, timestamp, raw[4] if raw else None, raw[5] if raw else None)

    def processing_error(self, node: Any, record: Record, exc: Exception) -> None:
        """Ask the processing handler; FAIL raises ``HandlerFailed``, CONTINUE drops the record."""
        policy, context = self.policy, self.task.context
        handler_context = self._context(node.name, record.timestamp)
        answer = self._ask(policy.processing, FATAL_PROCESSING, node.name, handler_context,
                           record, exc)
        self._maybe_dead_letter(policy.processing, exc)
        if answer == "fail":
            name = policy.processing_name
            msg = (f"Exception caught in process. taskId={self.task.id}, processor={node.name}, "
                   f"topic={context.topic}, partition={context.partition}, "
                   f"offset={context.offset}, key={record.key!r}, value={record.value!r}: "
                   f"{exc!r}; the processing exception handler {name} answered FAIL (set "
                   "processing.exception.handler=log_and_continue to skip such records)")
            log.error("%s", msg)
            raise HandlerFailed(msg, node=node.name, topic=context.topic,
                                partition=context.partition, offset=context.offset,
                                key=record.key, value=record.value) from exc
        log.warning("processor '%s' failed on the record at topic %s, partition %s, offset %s "
                    "(key %r): %r; skipped by processing.exception.handler=%s", node.name,
                    context.topic, context.partition, context.offset, record.key, exc,
                    policy.processing_name)
        context.current, context.record = node, record  # as forward left them before the call
        self._dropped("processing")

    def production_error(self, node: SinkRuntime, record: Record, exc: Exception) -> None:
        """Ask the production handler about a sink record that failed."""
        policy = self.policy
        topic = getattr(exc, "topic", None) or node.topic or "?"
        handler = policy.production
        handler_context = self._context(node.name, record.timestamp)
        # Kafka hands the handler, and chains under its FAIL, the serializer's own exception:
        # the sink's SerializationError (which names node, topic and serde) wraps it
        cause = exc.__cause__ if isinstance(exc, SerdeError) and isinstance(
            exc.__cause__, Exception) else exc
        if isinstance(exc, SerdeError) and not isinstance(handler, _BuiltIn):
            origin = SerializationExceptionOrigin.KEY if "serialize the key" in str(exc) \
                else SerializationExceptionOrigin.VALUE
            method = getattr(handler, "handle_serialization_exception", None)
            if method is None and callable(getattr(handler, "handle", None)):
                answer = "fail"  # Kafka's default for handlers that only handle send errors
            else:
                answer = self._ask(method or handler, FATAL_PRODUCTION, node.name,
                                   handler_context, record, cause, origin)
        elif callable(getattr(handler, "handle", handler)):
            answer = self._ask(handler, FATAL_PRODUCTION, node.name, handler_context, record,
                               cause)
        else:
            answer = "fail"  # a handler of serialization failures only: Kafka's default
        self._maybe_dead_letter(handler, exc)
        name = policy.production_name
        if answer == "fail":
            raise HandlerFailed(production_message(topic, record.key, exc, name),
                                node=node.name, topic=topic, key=record.key) from cause
        log.warning("%s; skipped", production_message(topic, record.key, exc, name))
        context = self.task.context
        context.current, context.record = node, record
        self._dropped("production")

    def punctuation_error(self, node: str, now: int, exc: Exception) -> None:
        """A punctuator raised: the processing handler decides (with no record), as KIP-1033."""
        cause = exc.__cause__ if isinstance(exc, StreamsError) and isinstance(
            exc.__cause__, Exception) else exc
        policy = self.policy
        # Java's punctuation record context: no topic, partition or offset, empty headers
        handler_context = ErrorHandlerContext(None, -1, -1, Headers(), node, self.task.id, now)
        answer = self._ask(policy.processing, FATAL_PROCESSING, node, handler_context, None,
                           cause, null_response=NULL_PUNCTUATION_RESPONSE)
        if self.send is not None and policy.dlq_topic is not None \
                and isinstance(policy.processing, _BuiltIn):  # no source record to write
            self.send(None, None, dlq_headers(None, cause, None, -1, -1), now)
            self._count("dlq")
        if answer == "fail":
            msg = (f"Exception caught while punctuating processor '{node}' at {now}: {cause!r}; "
                   f"the processing exception handler {policy.processing_name} answered FAIL")
            raise HandlerFailed(msg, node=node) from cause
        log.warning("punctuation of '%s' at %d failed: %s; skipped by "
                    "processing.exception.handler=%s", node, now, cause, policy.processing_name)
        self._dropped("processing")

    def _ask(self, handler: Any, fatal: str, node: str, *args: Any,
             null_response: str = NULL_RESPONSE) -> str:
        method = getattr(handler, "handle", handler)
        try:
            return _answer(method(*args), null_response)
        except Exception as user_error:
            log.error("%s for the failure at %s: %r", fatal, args[0], args[2])
            raise HandlerFailed(fatal, node=node) from user_error

    def _maybe_dead_letter(self, handler: Any, exc: BaseException) -> None:
        """The built-in handlers write the failing source record to the DLQ (KIP-1034)."""
        if self.policy.dlq_topic is None or self.send is None \
                or not isinstance(handler, _BuiltIn):
            return
        context, raw = self.task.context, self.raw
        if raw is None:  # a punctuation's forward: no source record
            key = value = headers = None
            timestamp = context.record.timestamp if context.record is not None else 0
        else:
            key, value, headers, timestamp = raw[4], raw[5], raw[6], raw[3]
        self.send(key, value, dlq_headers(headers, exc, context.topic, context.partition,
                                          context.offset), max(timestamp, 0))
        self._count("dlq")

    def _dropped(self, kind: str) -> None:
        self.task.metrics.dropped_records += 1
        self._count(kind)

    def _count(self, kind: str) -> None:
        if self.on_drop is not None:
            self.on_drop(kind)
