"""The exceptions kslab raises; every one names what failed and says how to fix it.

    KslabError                  root of everything kslab raises on purpose
    ├── TopologyError           invalid wiring, found when a topology is built or described
    ├── SerdeError              bytes that a serde cannot read or a value it cannot write
    ├── StreamsError            a failure while records are processed (user code, runtime)
    ├── StoreError              unknown store, wrong store kind, store not queryable yet
    └── NoSuchElementError      a single-record read from an empty output topic

Messages are built as ``msg = ...; raise X(msg)``: the object in quotes, what was expected and
what was got, then after a semicolon what to do.
"""

from __future__ import annotations

__all__ = [
    "KslabError",
    "NoSuchElementError",
    "SerdeError",
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


class StoreError(KslabError):
    """A state store was asked for by a name that does not exist, or used as the wrong kind."""


class NoSuchElementError(KslabError, LookupError):
    """A single-record read found the output topic empty (Java's NoSuchElementException)."""
