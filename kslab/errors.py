"""The exceptions kslab raises; every one names what failed and says how to fix it.

The tree below holds every exception class kslab defines, in whatever module: each under its
first base, with its other bases after "also", and its module named when it is not this one
(``tests/test_errors_tree.py`` keeps it complete).

    Exception
    ├── KslabError                  root of everything kslab raises on purpose
    │   ├── TopologyError           invalid wiring, found when a topology is built or described
    │   │   ├── MissingTopologyArgumentError    ``None`` given to a Processor API call; also
    │   │   │                       a MissingArgumentError (kslab.topology.topology)
    │   │   ├── MissingDslArgumentError     ``None`` given to a DSL operator; also a
    │   │   │                       MissingArgumentError (kslab.dsl._processors)
    │   │   ├── InvalidConfigError  a DSL config value Java refuses; also an
    │   │   │                       InvalidArgumentError (kslab.dsl.config)
    │   │   ├── SupplierReuseError  a processor supplier that returns one object twice; also
    │   │   │                       an InvalidArgumentError (kslab.topology._nodes)
    │   │   └── JoinGraceError      a grace period the joined table cannot honour; also an
    │   │                           InvalidArgumentError (kslab.dsl._joins)
    │   ├── SerdeError              bytes that a serde cannot read or a value it cannot write
    │   │   ├── _RecordSerdeError   a serde failed on a record at a source or sink node; also
    │   │   │   │                   a StreamsError, as Java's StreamsException
    │   │   │   ├── DeserializationError    a source could not read a record and the
    │   │   │   │                   deserialization handler says fail
    │   │   │   └── SerializationError      a sink could not write a record and the
    │   │   │                       production handler says fail
    │   │   ├── InvalidSerdeError   a serde argument or config Java refuses; also an
    │   │   │   │                   InvalidArgumentError (kslab.serdes._base)
    │   │   │   └── SerdeConfigError    a serde config that is missing or names no serde;
    │   │   │                       also a ConfigError (kslab.serdes._from_config)
    │   │   ├── ChangedSerdeError   a table change that cannot be written or read; also a
    │   │   │                       StreamsError (kslab.dsl._change)
    │   │   └── NullPartitionError  a foreign-key subscription without its partition; also a
    │   │                           MissingArgumentError (kslab.dsl._fk_wire)
    │   ├── StreamsError            a failure while records are processed (user code, runtime)
    │   │   ├── StoreInitError      a processor's ``init`` failed on a store; also a StoreError
    │   │   ├── InvalidScheduleError    a punctuation interval below 1 ms; also an
    │   │   │                       InvalidArgumentError (kslab.core.context)
    │   │   ├── ProductionError     the producer refused a sink record (kslab.core.error_policy)
    │   │   ├── HandlerFailed       an exception handler answered FAIL, so outer nodes let it
    │   │   │                       pass (kslab.core.error_policy)
    │   │   ├── ActiveGroupError    an application reset while its group has members
    │   │   │                       (kslab.runtime.reset)
    │   │   └── SparkUnavailableError   Spark cannot run here; also an ImportError
    │   │                           (kslab.spark.session)
    │   ├── StoreError              unknown store, wrong store kind, store not queryable yet
    │   │   ├── StreamsNotRunningError  a query of a client that stopped or failed; also a
    │   │   │                       StreamsError (kslab.runtime._iq)
    │   │   ├── StreamsNotStartedError  a query of a client not started yet; also a
    │   │   │                       StreamsError (kslab.runtime._iq)
    │   │   ├── NullStoreArgumentError  ``None`` given to a store API; also a
    │   │   │                       MissingArgumentError (kslab.state.base)
    │   │   └── InvalidStoreArgumentError   a negative size or retention for a store; also
    │   │                           an InvalidArgumentError (kslab.state.base)
    │   ├── NoSuchElementError      a single-record read from an empty output topic; also a
    │   │                           LookupError
    │   ├── InvalidArgumentError    a bad argument value (also a ValueError; Java's
    │   │   │                       IllegalArgumentException)
    │   │   └── WindowSpecError     a window spec with an invalid duration; also a
    │   │                           TopologyError (kslab.dsl.windows)
    │   ├── MissingArgumentError    ``None`` where a value is required (also a TypeError; Java's
    │   │   │                       NullPointerException from ``Objects.requireNonNull``)
    │   │   └── NullFieldError      a required field of the foreign-key wire format is
    │   │                           ``None``; also an InvalidArgumentError (kslab.dsl._fk_wire)
    │   ├── ConfigError             a config value Kafka Streams refuses (Java's
    │   │                           ConfigException); also a ValueError
    │   ├── ConfigWarning           a config key kslab accepts but does not act on, named
    │   │                           with what kslab does instead; warned, never raised;
    │   │                           also a UserWarning
    │   └── ExportError             a notebook that cannot be exported (kslab.export._errors)
    ├── CliError                    a one-line message and exit code for the ``kslab`` command;
    │                               never leaves the command (kslab.cli._common)
    ├── DoesNotFit                  a decoded value its Spark column's type cannot hold;
    │                               never leaves kslab.spark.typed, which raises a
    │                               SerdeError naming the record (kslab.spark._types)
    ├── Unordered                   a batch run whose records cannot be put in the record
    │                               path's order; never leaves the executor, which declines
    │                               the run (kslab.core.bulk.tree)
    ├── _Declined                   a write a sliding window's batch form cannot hold (a
    │                               ``None`` aggregate, an expired window); never leaves the
    │                               batch form, which declines the run
    │                               (kslab.dsl._sliding_aggregates)
    ├── _Inexact                    a piped object whose JSON reads back as something else;
    │                               never leaves Json.read_back_column, which then returns
    │                               ``None`` and the source decodes (kslab.serdes._json)
    └── _Unavailable                a notebook renderer that is not installed here; caught
                                    where it is raised (kslab.notebook.render)

Messages are built as ``msg = ...; raise X(msg)``: the object in quotes, what was expected and
what was got, then after a semicolon what to do.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, NamedTuple

__all__ = [
    "ConfigError",
    "ConfigWarning",
    "DeserializationError",
    "DeserializationHandlerResponse",
    "ErrorHandlerContext",
    "InvalidArgumentError",
    "KslabError",
    "MissingArgumentError",
    "NoSuchElementError",
    "ProcessingHandlerResponse",
    "ProductionHandlerResponse",
    "SerdeError",
    "SerializationError",
    "SerializationExceptionOrigin",
    "StoreError",
    "StreamsError",
    "TopologyError",
]


class KslabError(Exception):
    """Root of every exception kslab raises on purpose."""


class TopologyError(KslabError):
    """A topology is wired wrongly: unknown parent, duplicate name, unconnected store, ..."""


class SerdeError(KslabError):
    """A serde could not turn bytes into a value or a value into bytes.

    Carries where the bytes came from (``topic``, ``partition``, ``offset``) and the ``raw``
    bytes themselves, so the bad record can be found and replayed.
    """

    def __init__(
        self,
        message: str,
        *,
        topic: str | None = None,
        partition: int | None = None,
        offset: int | None = None,
        raw: bytes | None = None,
    ) -> None:
        super().__init__(message)
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.raw = raw


class StreamsError(KslabError):
    """Processing failed: user code raised, or the runtime cannot go on.

    When a record was being processed, ``node``, ``topic``, ``partition``, ``offset``, ``key``
    and ``value`` say which record at which node; the original exception is chained.
    """

    def __init__(
        self,
        message: str,
        *,
        node: str | None = None,
        topic: str | None = None,
        partition: int | None = None,
        offset: int | None = None,
        key: object = None,
        value: object = None,
    ) -> None:
        super().__init__(message)
        self.node = node
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.key = key
        self.value = value


class _RecordSerdeError(SerdeError, StreamsError):
    """A serde failed on a record at a source or sink node: both a ``SerdeError`` (``topic``,
    ``partition``, ``offset``, ``raw``) and a ``StreamsError`` (``node``, ``key``, ``value``)."""

    def __init__(
        self,
        message: str,
        *,
        node: str | None = None,
        topic: str | None = None,
        partition: int | None = None,
        offset: int | None = None,
        raw: bytes | None = None,
        key: object = None,
        value: object = None,
    ) -> None:
        super().__init__(message, topic=topic, partition=partition, offset=offset, raw=raw)
        self.node = node
        self.key = key
        self.value = value


class DeserializationError(_RecordSerdeError):
    """A source could not deserialize an input record and the deserialization exception handler
    says fail: Java's ``StreamsException`` around the ``SerializationException``; ``node`` is
    the source and ``raw`` the bytes it could not read."""


class SerializationError(_RecordSerdeError):
    """A sink could not serialize a record and the production exception handler says fail:
    Java's ``StreamsException`` ("Unable to serialize record") around the serializer's error;
    ``node`` is the sink, ``topic`` its topic, ``key`` and ``value`` the record's."""


class StoreError(KslabError):
    """A state store was asked for by a name that does not exist, or used as the wrong kind."""


class StoreInitError(StreamsError, StoreError):
    """A processor's ``init`` failed on a store (an unknown or unconnected name): Java's
    ``StreamsException("failed to initialize processor ...")`` around the store's error, so
    both a ``StreamsError`` naming the node and the ``StoreError`` it was."""


class NoSuchElementError(KslabError, LookupError):
    """A single-record read found the output topic empty (Java's NoSuchElementException)."""


class InvalidArgumentError(KslabError, ValueError):
    """An argument has a value that cannot work: a negative duration or timestamp, ..."""


class ConfigError(KslabError, ValueError):
    """A config value Kafka Streams refuses (Java's ``ConfigException``), named in the message.

    It lives here, beside the other errors, so that serdes and extractors below the config can
    raise it; ``kslab.config`` re-exports it under its old name.
    """


class ConfigWarning(KslabError, UserWarning):
    """A config key kslab accepts but does not act on: issued with ``warnings.warn`` (never
    raised), its message names the key, its value and what kslab does instead, so a test can
    catch it with ``pytest.warns(ConfigWarning)`` and an app can turn it into an error with
    ``warnings.simplefilter("error", ConfigWarning)``."""


class MissingArgumentError(KslabError, TypeError):
    """A required argument is ``None`` (a topic name, a driver, ...)."""


# -- what an exception handler is told and answers (Kafka's o.a.k.streams.errors) --------------

class DeserializationHandlerResponse(Enum):
    """What a deserialization exception handler answers."""

    CONTINUE = "continue"
    FAIL = "fail"


class ProcessingHandlerResponse(Enum):
    """What a processing exception handler answers."""

    CONTINUE = "continue"
    FAIL = "fail"


class ProductionHandlerResponse(Enum):
    """What a production exception handler answers."""

    CONTINUE = "continue"
    FAIL = "fail"


class SerializationExceptionOrigin(Enum):
    """Which part of a sink record failed to serialize."""

    KEY = "key"
    VALUE = "value"


class ErrorHandlerContext(NamedTuple):
    """Where the failure happened, as Kafka's ``ErrorHandlerContext`` tells a handler."""

    topic: str | None
    partition: int
    offset: int
    headers: Any
    processor_node_id: str
    task_id: Any
    timestamp: int
    source_raw_key: bytes | None = None
    source_raw_value: bytes | None = None
