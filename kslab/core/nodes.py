"""Running nodes: what a task builds from the topology's node records to move records along.

A runtime node owns one processor instance (or a source's serdes, or a sink's) and its children
as runtime nodes. ``call`` is what the context's ``forward`` invokes for the node (the user's own
``process`` for a processor, to save a hop per record); ``forward`` wraps what it raises, so the
innermost node where user code raised turns the exception into a ``StreamsError`` naming itself
and the record, and outer nodes let it pass: the error always names the node that failed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from types import MethodType
from typing import TYPE_CHECKING, Any

from kslab.errors import (
    KslabError,
    SerializationError,
    StoreError,
    StoreInitError,
    StreamsError,
)
from kslab.records import FixedKeyRecord, Headers, Record
from kslab.serdes._base import fast_serializer

log = logging.getLogger("kslab.core")

if TYPE_CHECKING:
    from kslab.core.context import TaskContext

__all__ = [
    "FixedKeyProcessorRuntime", "ProcessorRuntime", "RuntimeNode", "SinkRuntime", "SourceRuntime",
    "codec_writer",
]


class RuntimeNode:
    """A node as it runs in one task: a name, children, and ``process(record)``."""

    __slots__ = ("call", "children", "children_by_name", "context", "name")

    def __init__(self, name: str, context: TaskContext) -> None:
        self.name = name
        self.context = context
        self.children: list[RuntimeNode] = []
        self.children_by_name: dict[str, RuntimeNode] = {}
        self.call: Any = self.process  # what forward invokes with each record

    def add_child(self, child: RuntimeNode) -> None:
        """Connect ``child`` downstream of this node."""
        self.children.append(child)
        self.children_by_name[child.name] = child

    def init(self) -> None:
        """Prepare to process; processors call their user ``init`` here."""

    def close(self) -> None:
        """Release what ``init`` acquired."""

    def process(self, record: Record) -> None:
        """Handle one record."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class SourceRuntime(RuntimeNode):
    """Hands records read from its topics to its children."""

    __slots__ = ("key_serde", "value_serde")

    def __init__(self, name: str, context: TaskContext, key_serde: Any, value_serde: Any):
        super().__init__(name, context)
        self.key_serde = key_serde
        self.value_serde = value_serde

    def process(self, record: Record) -> None:
        """Forward to every child."""
        self.context.forward(record)


class ProcessorRuntime(RuntimeNode):
    """Runs one instance of a user processor."""

    __slots__ = ("fixed_key", "processor", "stores", "supplier")

    def __init__(
        self,
        name: str,
        context: TaskContext,
        supplier: Any,
        stores: list[str],
        *,
        fixed_key: bool = False,
    ) -> None:
        super().__init__(name, context)
        self.supplier = supplier
        self.stores = stores
        self.fixed_key = fixed_key
        self.processor: Any = None

    def init(self) -> None:
        """Create the processor from its supplier and call its ``init``."""
        processor = self.supplier()
        if processor is None or not hasattr(processor, "process"):
            msg = (
                f"the supplier of processor '{self.name}' returned {processor!r}, not a "
                "Processor; pass a class or a function that returns a new Processor instance"
            )
            raise StreamsError(msg, node=self.name)
        self.processor = processor
        self.call = self._call_for(processor)
        init = getattr(processor, "init", None)
        if init is not None:
            try:
                init(self.context.for_node(self))
            except Exception as exc:  # Java's ProcessorNode.init wraps every failure
                detail = str(exc) if isinstance(exc, KslabError) else f"its init() raised {exc!r}"
                msg = f"failed to initialize processor {self.name}: {detail}"
                error = StoreInitError if isinstance(exc, StoreError) else StreamsError
                raise error(msg, node=self.name) from exc

    def _call_for(self, processor: Any) -> Any:
        """What ``forward`` invokes: the processor's own ``process`` (``forward`` keeps the
        record context and wraps errors, as ``process`` below does for direct calls)."""
        return processor.process

    def close(self) -> None:
        """Call the processor's ``close``; what it raises fails as Java's ``ProcessorNode``."""
        close = getattr(self.processor, "close", None)
        if close is not None:
            try:
                close()
            except Exception as exc:
                msg = f"failed to close processor {self.name}: {exc!r}"
                raise StreamsError(msg, node=self.name) from exc

    def process(self, record: Record) -> None:
        """Run the user's ``process``; turn what it raises into a located ``StreamsError``."""
        context = self.context
        previous = context.record
        context.record = record
        try:
            self.processor.process(record)
        except KslabError:
            raise
        except Exception as exc:
            raise context.processing_error(self.name, record, exc) from exc
        context.record = previous


class FixedKeyProcessorRuntime(ProcessorRuntime):
    """Runs a ``FixedKeyProcessor``: what it receives is a ``FixedKeyRecord``."""

    __slots__ = ()

    def _call_for(self, processor: Any) -> Any:
        process = processor.process

        def call(record: Record) -> None:
            if type(record) is not FixedKeyRecord:
                record = FixedKeyRecord(record.key, record.value, record.timestamp,
                                        record.raw_headers)
            process(record)

        return call

    def process(self, record: Record) -> None:
        """Hand the processor a ``FixedKeyRecord`` view of ``record``."""
        if type(record) is not FixedKeyRecord:
            record = FixedKeyRecord(record.key, record.value, record.timestamp, record.raw_headers)
        ProcessorRuntime.process(self, record)


class SinkRuntime(RuntimeNode):
    """Serializes what reaches it and hands it to the engine's record collector."""

    __slots__ = ("_key_enc", "_key_ser", "_value_enc", "_value_ser", "_writer", "key_serde",
                 "partitioner", "topic", "topic_extractor", "value_serde")

    def __init__(
        self,
        name: str,
        context: TaskContext,
        topic: str | None,
        topic_extractor: Any,
        key_serde: Any,
        value_serde: Any,
        partitioner: Any,
    ) -> None:
        super().__init__(name, context)
        self.topic = topic
        self.topic_extractor = topic_extractor
        self.key_serde = key_serde
        self.value_serde = value_serde
        self._key_ser = key_serde.serialize
        self._value_ser = value_serde.serialize
        self._key_enc = fast_serializer(key_serde)
        self._value_enc = fast_serializer(value_serde)
        self.partitioner = partitioner
        self._writer: Any = None

    @property
    def has_direct_writer(self) -> bool:
        """Whether the engine gave the sink a direct writer to its topic (``init``)."""
        return self._writer is not None

    def init(self) -> None:
        """Ask the engine for a direct writer to a fixed topic, if it offers one."""
        # a partitioner that picks the default's partition 0 on a one-partition topic (as the
        # DSL's windowed one) keeps the direct writer, which engines offer only for such topics
        if self.topic is not None and (
                self.partitioner is None
                or getattr(self.partitioner, "default_on_one_partition", False)):
            self._writer = self.context.writer(self.topic)
            if self._writer is not None:
                self.call = self._write
                if self._key_enc is not None and self._value_enc is not None:
                    # bound, so ``call`` stays a method of this node, as for ``_write``
                    self.call = MethodType(self._encoding_writer(), self)

    def _encoding_writer(self) -> Callable[[Any, Record], None]:
        """``codec_writer`` over the direct writer, or the writer owner's own
        ``encoding_writer(key_encode, value_encode, fallback)`` when the writer is the bound
        ``append`` of an owner offering one (the driver's output logs, whose ``append`` for
        it knows the values' width); either way ``codec_writer``'s rule, with ``_write`` as
        the fallback."""
        owner = getattr(self._writer, "__self__", None)
        make = getattr(owner, "encoding_writer", None)
        if make is not None and self._writer == getattr(owner, "append", None):
            return make(self._key_enc, self._value_enc, self._write)
        return codec_writer(self._key_enc, self._value_enc, self._write,  # type: ignore[arg-type]
                            self._writer)

    def _serialize(self, topic: str, record: Record) -> tuple[bytes | None, bytes | None]:
        """The key's and value's bytes through the serdes' own methods, or the sink's
        ``SerializationError`` naming the node, topic, serde and what to do about it.

        Both serializers get the record's own headers, an empty ``Headers`` when it has none
        (never ``None``, as Kafka's ``RecordCollectorImpl`` hands ``record.headers()``), and
        what they add is written with the record: the record then carries them (its
        ``headers``, as in Kafka, where the forwarded record's headers are that object)."""
        headers = record.raw_headers
        if headers is None:
            headers = Headers()
            try:
                return self._serialize_with(topic, record, headers)
            finally:
                if headers:
                    added = record.headers  # (the record's own, made now)
                    for key, value in headers:
                        added.add(key, value)
        return self._serialize_with(topic, record, headers)

    def _serialize_with(self, topic: str, record: Record,
                        headers: Headers) -> tuple[bytes | None, bytes | None]:
        try:
            key_bytes = self._key_ser(topic, record.key, headers)
        except Exception as exc:
            raise self._serde_error(topic, "key", record.key, self.key_serde, exc) from exc
        try:
            value_bytes = self._value_ser(topic, record.value, headers)
        except Exception as exc:
            raise self._serde_error(topic, "value", record.value, self.value_serde, exc) from exc
        return key_bytes, value_bytes

    def _write(self, record: Record) -> None:
        """``process`` for a fixed topic with a direct writer: serialize and append (the
        fallback of every encoding writer: the same bytes, or the serde's error)."""
        key_bytes, value_bytes = self._serialize(self.topic, record)  # type: ignore[arg-type]
        self._writer(key_bytes, value_bytes, record.raw_headers, record.timestamp, 0)  # type: ignore[misc]

    def process(self, record: Record) -> None:
        """Write ``record`` to this sink's topic."""
        context = self.context
        topic = self.topic
        if topic is None:
            topic = context.extract_topic(self, record)
        # no timestamp check: a Record refuses negative timestamps when it is made
        writer = self._writer
        if writer is not None:
            key_bytes, value_bytes = self._serialize(topic, record)
            writer(key_bytes, value_bytes, record.raw_headers, record.timestamp, 0)
            return
        partition = None
        if self.partitioner is not None:
            # asked before serializing, as Kafka's RecordCollectorImpl does: a record sent to
            # no partition is dropped unserialized (and counted, with Kafka's warning)
            partition = context.custom_partition(self, topic, record.key, record.value)
            if partition is not None and not isinstance(partition, int) and not partition:
                log.warning("Skipping record as partitioner returned empty partitions. "
                            "topic=[%s]", topic)
                context.record_dropped()
                return
        key_bytes, value_bytes = self._serialize(topic, record)
        context.send(topic, key_bytes, value_bytes, record.raw_headers, record.timestamp,
                     partition, self.name)

    def _serde_error(
        self, topic: str, what: str, obj: Any, serde: Any, exc: Exception
    ) -> SerializationError:
        detail = str(exc) if isinstance(exc, KslabError) else repr(exc)
        msg = (
            f"sink '{self.name}' cannot serialize the {what} {obj!r} "
            f"({type(obj).__name__}) for topic '{topic}' with {serde!r}: {detail}; "
            f"give the sink a matching {what}_serde (e.g. Produced.with_(...)) or set "
            f"default.{what}.serde"
        )
        context = self.context
        record = context.record
        return SerializationError(
            msg, node=self.name, topic=topic, partition=context.partition, offset=context.offset,
            key=None if record is None else record.key,
            value=None if record is None else record.value,
        )


def codec_writer(
    key_encode: Callable[[Any], bytes],
    value_encode: Callable[[Any], bytes],
    fallback: Callable[[Record], None],
    append: Callable[[bytes | None, bytes | None, Any, int, int], None],
) -> Callable[[Any, Record], None]:
    """A sink's whole hot path to a direct writer, as a ``write(node, record)`` to bind to the
    node as its ``call``: the record's key and value through the serdes' one-argument C codecs
    (``serdes._base.fast_serializer``), ``None`` staying ``None`` (as in every serde that has
    them), then ``append(key_bytes, value_bytes, headers, timestamp, 0)``. A record a codec
    refuses (a wrong type, a value out of range) goes whole to ``fallback(record)``, which
    serializes it through the serdes' own methods for the same bytes or the same error
    (``SinkRuntime._write``: a ``SerializationError`` naming the node, topic and serde).

    The one copy of this rule: engines give a sink only an ``append`` (the runtime's topic
    writer, the driver's loop-back writer) or, for an ``append`` of their own, build their
    ``encoding_writer`` on this function (the driver's output logs).
    """

    def write(node: Any, record: Record) -> None:
        key, value = record.key, record.value
        try:
            key_bytes = None if key is None else key_encode(key)
            value_bytes = None if value is None else value_encode(value)
        except Exception:
            fallback(record)
            return
        append(key_bytes, value_bytes, record.raw_headers, record.timestamp, 0)

    return write
