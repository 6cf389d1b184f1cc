"""The contracts of the state layer: store context, stores, byte backends, suppliers, builders.

A store is a typed view over a byte backend, as in Kafka Streams (``Metered`` over ``bytes``).
Invariant: a backend holds only ``bytes`` keys and values and orders keys by unsigned
lexicographic byte order (Python's ``bytes`` order, RocksDB's default comparator, Java's
``Bytes.compareTo``), so every backend answers a range scan with the same keys in the same order.

Window, session and versioned stores follow the same pattern: a supplier names a backend and makes
a fresh one per ``get()``, a builder adds serdes and the logging/caching flags, and ``build()``
returns a typed ``StateStore``.

Over 600 lines because it is the state layer's one contract: every interface a store, backend,
supplier and builder implements, imported from one place by the layer's modules.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, Self

from kslab.errors import InvalidArgumentError, MissingArgumentError, StoreError

if TYPE_CHECKING:
    from kslab.records import TaskId

__all__ = [
    "InvalidStoreArgumentError",
    "KeyValueBackend",
    "NullStoreArgumentError",
    "SerdeLike",
    "StateSerdes",
    "StateStore",
    "StoreBuilder",
    "StoreContext",
    "StoreSupplier",
    "ValueAndTimestampSerde",
    "check_restore_listener",
    "check_serde_spec",
    "check_store_name",
    "resolve_serde",
]


class NullStoreArgumentError(StoreError, MissingArgumentError):
    """A store API got ``None`` where Java's ``Objects.requireNonNull`` throws (a name, a key)."""


class InvalidStoreArgumentError(StoreError, InvalidArgumentError):
    """A store factory got a value Java rejects with ``IllegalArgumentException`` (a negative
    size or retention)."""


class SerdeLike(Protocol):
    """What a store needs of a serde: ``kslab.serdes.Serde`` or any object with these methods."""

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        """Bytes for ``data``; ``None`` for ``None``."""

    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        """The value in ``data``; ``None`` for ``None``."""


class StoreContext(Protocol):
    """What a store needs from the task that owns it; the execution core implements it.

    ``log_change`` sends one changelog record: the core adds the partition (the task's) and the
    timestamp, which is ``timestamp`` when given (timestamped stores pass the value's timestamp,
    as Java's ``ChangeLoggingTimestampedKeyValueBytesStore`` does) and otherwise the time of the
    record being processed. ``value=None`` is a tombstone.
    """

    @property
    def application_id(self) -> str:
        """The ``application.id``."""

    @property
    def task_id(self) -> TaskId:
        """The task this store instance belongs to."""

    @property
    def state_dir(self) -> Path | None:
        """This task's directory; a persistent store lives in ``state_dir / store_name``."""

    @property
    def default_key_serde(self) -> SerdeLike:
        """Used when a builder's key serde is ``None``."""

    @property
    def default_value_serde(self) -> SerdeLike:
        """Used when a builder's value serde is ``None``."""

    def changelog_topic(self, store_name: str) -> str:
        """``<application.id>-<store>-changelog``, or the topic a read-only store reuses."""

    def log_change(
        self, store_name: str, key: bytes, value: bytes | None, timestamp: int | None = None,
        headers: Any = None,
    ) -> None:
        """Send one changelog record for ``store_name`` (with ``headers`` if given)."""


    def register(self, store: StateStore, callback: Any) -> None:
        """Give ``store`` its own restore listener (Java's ``register(store, callback)`` with a
        notifying restore callback); see ``check_restore_listener``."""


RESTORE_METHODS = ("on_restore_start", "on_batch_restored", "on_restore_end")


def check_restore_listener(listener: Any, store_name: str) -> Any:
    """``listener`` if it can hear a store's restores, else a ``StoreError`` naming the store.

    A store's own restore listener is Java's notifying restore callback
    (``AbstractNotifyingBatchingRestoreCallback``): any of ``on_restore_start(topic_partition,
    store_name, start_offset, end_offset)``, ``on_batch_restored(topic_partition, store_name,
    batch_end_offset, num_restored)`` and ``on_restore_end(topic_partition, store_name,
    total_restored)``. The records themselves always go through the store's ``restore_batch``
    (kslab's one restore path), so an object with only Java's ``restore``/``restore_all`` would
    do nothing here, and is refused.
    """
    if not any(callable(getattr(listener, m, None)) for m in RESTORE_METHODS):
        msg = (f"the restore listener {listener!r} for store '{store_name}' has none of "
               f"{', '.join(RESTORE_METHODS)}; kslab restores records through the store's "
               "restore_batch, so give the listener at least one of those methods")
        raise StoreError(msg)
    return listener


class StateStore(ABC):
    """A store a task owns: opened by ``init``, flushed on commit, closed with the task.

    Besides a store's own API, the engines' hooks: ``snapshot``/``restore_snapshot`` copy and
    roll back the stored bytes (the test driver's ``snapshot()``), and ``restore_batch`` replays
    changelog records into the backend without logging them again. ``store_kind`` tells engines
    which typed accessor serves the store (``"key_value"``, ``"timestamped_key_value"``, later
    ``"window"``, ``"session"``, ...).
    """

    __slots__ = ()

    store_kind: str = ""

    @property
    @abstractmethod
    def name(self) -> str:
        """The store name, unique within a topology."""

    @property
    @abstractmethod
    def persistent(self) -> bool:
        """True when the store keeps its data on disk across restarts."""

    @property
    @abstractmethod
    def is_open(self) -> bool:
        """True between ``init`` and ``close``."""

    @abstractmethod
    def init(self, context: StoreContext, root: Any = None) -> None:
        """Open the backend and bind serdes and the changelog for the owning task.

        ``root`` is Java's root store (the outermost wrapper), for stores that register it.
        """

    @abstractmethod
    def flush(self) -> None:
        """Make written data durable in the backend (called on every commit)."""

    @abstractmethod
    def close(self) -> None:
        """Close open iterators and the backend; closing twice is harmless."""

    @abstractmethod
    def snapshot(self) -> object:
        """A copy of the stored bytes, to give back to ``restore_snapshot`` of this store."""

    @abstractmethod
    def restore_snapshot(self, snapshot: object) -> None:
        """Replace the stored bytes with ``snapshot``; nothing is logged."""

    @abstractmethod
    def restore_batch(self, records: Iterable[tuple[Any, ...]]) -> None:
        """Apply changelog records ``(key, value)`` or ``(key, value, timestamp)``, unlogged."""


class KeyValueBackend(ABC):
    """Sorted ``bytes`` → ``bytes`` storage under a key-value store; no serdes, no changelog.

    ``put`` takes ``bytes`` only (the typed view turns ``None`` into ``delete``); ``put_all`` and
    ``restore_batch`` take ``(key, value_or_None)`` pairs. Scans are inclusive on both bounds, a
    ``None`` bound is open, and ``from > to`` yields nothing. Backends that drop entries on their
    own (the LRU map) call ``on_evict(key, value)`` for each one.
    """

    persistent: bool = False
    timestamped: bool = False  # Java's TimestampedBytesStore marker: values carry timestamps
    on_evict: Callable[[bytes, bytes], None] | None = None
    # True when writing each key's last value once (``put_all``) leaves the backend as writing
    # every value in order would: what lets a batch run hold its writes (False for a backend
    # whose state depends on the order of writes, as the LRU map's, or not known to)
    last_write_wins: bool = False

    def __init__(self, name: str) -> None:
        self.name = name

    @abstractmethod
    def open(self, directory: Path | None) -> None:
        """Open (or create) the storage; ``directory`` is given to persistent backends only."""

    @abstractmethod
    def close(self) -> None:
        """Release the storage; in-memory backends drop their data, as Java's do."""

    @abstractmethod
    def flush(self) -> None:
        """Make written data durable."""

    @abstractmethod
    def get(self, key: bytes) -> bytes | None:
        """The value at ``key``, or ``None``."""

    @abstractmethod
    def put(self, key: bytes, value: bytes) -> None:
        """Write ``value`` at ``key``."""

    @abstractmethod
    def put_if_absent(self, key: bytes, value: bytes) -> bytes | None:
        """Write only when ``key`` is absent; return the value that was there."""

    @abstractmethod
    def put_all(self, entries: Iterable[tuple[bytes, bytes | None]]) -> None:
        """Write every pair in order; a ``None`` value deletes."""

    @abstractmethod
    def delete(self, key: bytes) -> bytes | None:
        """Remove ``key``; return the value that was there."""

    def delete_all(self, keys: Iterable[bytes]) -> None:
        """Remove every key (a store's expired segment at once); absent ones are skipped."""
        for key in keys:
            self.delete(key)

    @abstractmethod
    def range(self, from_key: bytes | None, to_key: bytes | None) -> Iterator[tuple[bytes, bytes]]:
        """Pairs with ``from_key <= key <= to_key``, ascending."""

    @abstractmethod
    def reverse_range(
        self, from_key: bytes | None, to_key: bytes | None
    ) -> Iterator[tuple[bytes, bytes]]:
        """Pairs with ``from_key <= key <= to_key``, descending."""

    @abstractmethod
    def prefix_scan(self, prefix: bytes) -> Iterator[tuple[bytes, bytes]]:
        """Pairs whose key starts with ``prefix``, ascending."""

    @abstractmethod
    def approximate_num_entries(self) -> int:
        """How many keys the backend holds (an estimate for RocksDB)."""

    @abstractmethod
    def snapshot(self) -> object:
        """A copy of the contents, cheap to take and to give back to ``restore_snapshot``."""

    @abstractmethod
    def restore_snapshot(self, snapshot: object) -> None:
        """Replace the contents with ``snapshot``."""

    def all(self) -> Iterator[tuple[bytes, bytes]]:
        """Every pair, ascending."""
        return self.range(None, None)

    def reverse_all(self) -> Iterator[tuple[bytes, bytes]]:
        """Every pair, descending."""
        return self.reverse_range(None, None)

    def restore_batch(self, entries: Iterable[tuple[bytes, bytes | None]]) -> None:
        """Write changelog pairs; unlike ``put_all`` this never reports evictions."""
        self.put_all(entries)


class StoreSupplier(ABC):
    """Names a backend kind and makes a fresh backend per ``get()`` (Java's ``StoreSupplier``)."""

    metrics_scope: str = ""
    persistent: bool = False

    def __init__(self, name: str) -> None:
        self.name = check_store_name(name, type(self).__name__)

    @abstractmethod
    def get(self) -> Any:
        """A new, unopened backend; the store opens it in ``init``."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class StoreBuilder(ABC):
    """Makes a typed store from a supplier and serdes, with changelog and cache flags.

    Logging is on and caching off until changed, as in Java. Caching is only recorded for now:
    kslab has no record cache yet, so every write reaches the backend and the changelog at once
    (the test driver commits after every record, where Java's cache would be flushed anyway).
    """

    def __init__(self, name: str, key_serde: Any = None, value_serde: Any = None) -> None:
        self._name = check_store_name(name, type(self).__name__)
        self._key_serde = check_serde_spec(key_serde, "key_serde", self._name)
        self._value_serde = check_serde_spec(value_serde, "value_serde", self._name)
        self._logging_enabled = True
        self._log_config: dict[str, str] = {}
        self._caching_enabled = False
        self._restore_listener: Any = None

    @property
    def name(self) -> str:
        """The name of the stores this builder makes."""
        return self._name

    @property
    def key_serde(self) -> Any:
        """The key serde as given (``None``: the context's default)."""
        return self._key_serde

    @property
    def value_serde(self) -> Any:
        """The value serde as given (``None``: the context's default)."""
        return self._value_serde

    @property
    def logging_enabled(self) -> bool:
        """True when built stores write a changelog."""
        return self._logging_enabled

    @property
    def log_config(self) -> dict[str, str]:
        """Topic configs for the changelog (a copy)."""
        return dict(self._log_config)

    @property
    def caching_enabled(self) -> bool:
        """True when caching was asked for (recorded only; see the class docstring)."""
        return self._caching_enabled

    @property
    @abstractmethod
    def persistent(self) -> bool:
        """True when built stores keep their data on disk."""

    @property
    def restore_listener(self) -> Any:
        """The built stores' own restore listener (``None``: only the client's global one)."""
        return self._restore_listener

    def with_restore_listener(self, listener: Any) -> Self:
        """Tell ``listener`` about the changelog restores of the stores this builder makes
        (kslab's shortcut for a store whose ``init`` calls ``context.register(store, listener)``;
        the methods are ``check_restore_listener``'s). The live runtime calls it on the stream
        thread restoring the task, beside the client's global restore listener."""
        self._restore_listener = check_restore_listener(listener, self._name)
        return self

    def with_logging_enabled(self, topic_config: dict[str, Any] | None = None) -> Self:
        """Write a changelog; ``topic_config`` entries are added to its topic configs."""
        if topic_config is not None and not isinstance(topic_config, dict):
            msg = (
                f"with_logging_enabled for store '{self._name}' got {topic_config!r}; "
                "pass a dict of topic configs, e.g. {'min.insync.replicas': '1'}"
            )
            raise StoreError(msg)
        self._logging_enabled = True
        self._log_config.update({str(k): str(v) for k, v in (topic_config or {}).items()})
        return self

    def with_logging_disabled(self) -> Self:
        """Write no changelog (the store is then not fault tolerant) and drop topic configs."""
        self._logging_enabled = False
        self._log_config.clear()
        return self

    def with_caching_enabled(self) -> Self:
        """Ask for a record cache in front of the store."""
        self._caching_enabled = True
        return self

    def with_caching_disabled(self) -> Self:
        """No record cache."""
        self._caching_enabled = False
        return self

    @abstractmethod
    def build(self) -> StateStore:
        """A new, uninitialized store; every call returns an independent instance."""

    def __repr__(self) -> str:
        return (
            f"<{type(self).__name__} '{self._name}' logging={self._logging_enabled} "
            f"caching={self._caching_enabled}>"
        )


def check_store_name(name: object, what: str) -> str:
    """``name`` if it is a non-empty ``str``; ``None`` fails with Java's message."""
    if name is None:
        msg = "name cannot be null"
        raise NullStoreArgumentError(msg)
    if not isinstance(name, str) or not name:
        msg = f"{what} got store name {name!r}; pass a non-empty str such as 'counts'"
        raise StoreError(msg)
    return name


def check_serde_spec(spec: Any, role: str, store_name: str) -> Any:
    """``spec`` if it can name a serde (``None``, a name, a class, a serde); else ``StoreError``."""
    if spec is None or isinstance(spec, str | type):
        return spec
    if callable(getattr(spec, "serialize", None)) and callable(getattr(spec, "deserialize", None)):
        return spec
    msg = (
        f"Store '{store_name}' got {role}={spec!r}, which is not a serde; pass a serde such as "
        "serdes.String(), a name such as 'string', or None for the configured default"
    )
    raise StoreError(msg)


class ChangelogBackedMemoryStore(StateStore):
    """An in-memory store made durable only by its changelog (buffers, the outer-join store).

    Holds what such stores share: the name, the open flag, and on ``init`` the serdes (the
    task's defaults where none were given; ``_bind_serdes`` binds ``key_serde`` and
    ``value_serde``, a store with other serdes overrides it) and the changelog writer
    ``self._log`` (``None`` when logging is disabled).
    """

    # its changelog holds the store's own binary layout, not its serdes' output: a restore
    # from test records passes bytes through unchanged (TopologyTestDriver)
    raw_changelog = True

    def __init__(self, name: str, key_serde: Any = None, value_serde: Any = None, *,
                 logging_enabled: bool) -> None:
        self._name = name
        self._key_spec = key_serde
        self._value_spec = value_serde
        self._logging_enabled = logging_enabled
        self._open = False
        self._log: Callable[..., None] | None = None
        self.topic = ""
        self.key_serde: Any = None
        self.value_serde: Any = None

    @property
    def name(self) -> str:
        """The store name."""
        return self._name

    @property
    def persistent(self) -> bool:
        """In memory; durable through its changelog."""
        return False

    @property
    def is_open(self) -> bool:
        """True between ``init`` and ``close``."""
        return self._open

    def init(self, context: StoreContext, root: Any = None) -> None:
        """Bind serdes and the changelog."""
        self._bind_serdes(context)
        self.topic = context.changelog_topic(self._name)
        self._log = context.log_change if self._logging_enabled else None
        self._open = True

    def capture_changelog(self, writer: Callable[..., None]) -> None:
        """Send the store's changelog writes to ``writer`` (``log_change``'s arguments) instead
        of the task's changelog: an engine keeping the store's state itself (Spark) takes them
        so. Until the next ``init``."""
        self._log = writer

    def _bind_serdes(self, context: StoreContext) -> None:
        """Resolve ``key_serde`` and ``value_serde`` against the task's defaults."""
        self.key_serde = resolve_serde(self._key_spec, context.default_key_serde, self._name,
                                       is_key=True)
        self.value_serde = resolve_serde(self._value_spec, context.default_value_serde,
                                         self._name, is_key=False)


def resolve_serde(spec: Any, default: Any, store_name: str, *, is_key: bool) -> SerdeLike:
    """The serde object for a builder's ``spec``, falling back to the context's ``default``."""
    role = "key" if is_key else "value"
    chosen = default if spec is None else spec
    if chosen is None:
        msg = (
            f"Store '{store_name}' has no {role} serde and the engine configures no default; "
            f"pass one to the store builder or set default.{role}.serde"
        )
        raise StoreError(msg)
    try:
        # Imported here so that kslab.state never needs kslab.serdes at import time.
        from kslab.serdes import resolve
    except ImportError:
        resolve = None
    if resolve is not None:
        try:
            return resolve(chosen, is_key=is_key)
        except Exception as exc:
            msg = f"Store '{store_name}' cannot use {chosen!r} as its {role} serde: {exc}"
            raise StoreError(msg) from exc
    if isinstance(chosen, str | type):
        msg = (
            f"Store '{store_name}' names its {role} serde {chosen!r}, but kslab.serdes cannot "
            "resolve names here; pass a serde object instead"
        )
        raise StoreError(msg)
    return chosen


_INCOMPATIBLE = (
    "A serializer ({serde}) is not compatible to the actual {role} type ({role} type: {type}). "
    "Change the default Serdes in StreamConfig or provide correct Serdes via method parameters."
)


def _builtin_serde(cls: Any, what: str) -> Any:
    """Java's ``Serdes.serdeFrom(Class)`` for a Python type (``str``, ``int``, ``bytes``, ...)."""
    if cls is None:
        msg = f"{what} class cannot be null"
        raise MissingArgumentError(msg)
    from kslab.serdes import resolve

    try:
        return resolve(cls)
    except Exception as exc:
        msg = f"Unknown class for built-in serializer. {exc}"
        raise InvalidArgumentError(msg) from exc


def _type_mismatch(exc: Exception) -> bool:
    """Whether a serializer failed because of the data's type (Java's ``ClassCastException``)."""
    return isinstance(exc, TypeError | AttributeError) or \
        isinstance(exc.__cause__, TypeError | AttributeError)


def _incompatible(serde: Any, data: Any, *, is_key: bool) -> Exception:
    """Java's ``StreamsException`` for data a serializer cannot take (its exact wording)."""
    from kslab.errors import StreamsError

    role = "key" if is_key else "value"
    shown = f"unknown because {role} is null" if data is None else type(data).__name__
    return StreamsError(_INCOMPATIBLE.format(serde=serde, role=role, type=shown))


class StateSerdes:
    """Java's ``StateSerdes``: a store's key and value serdes bound to the topic they use.

    >>> import kslab as ks
    >>> s = StateSerdes("t", ks.serdes.String(), ks.serdes.Long())
    >>> s.raw_key("k"), s.value_from(s.raw_value(7))
    (b'k', 7)
    """

    __slots__ = ("_key_serde", "_topic", "_value_serde")

    def __init__(self, topic: str, key_serde: Any, value_serde: Any) -> None:
        for arg, what in ((topic, "topic"), (key_serde, "key serde"),
                          (value_serde, "value serde")):
            if arg is None:
                msg = f"{what} cannot be null"
                raise MissingArgumentError(msg)
        self._topic, self._key_serde, self._value_serde = topic, key_serde, value_serde

    @classmethod
    def with_builtin_types(cls, topic: str, key_class: Any, value_class: Any) -> StateSerdes:
        """Serdes for built-in types (``str``, ``int``, ``float``, ``bytes``, ...), as Java's
        ``withBuiltinTypes``; an unknown type is an ``InvalidArgumentError``."""
        if topic is None:
            msg = "topic cannot be null"
            raise MissingArgumentError(msg)
        return cls(topic, _builtin_serde(key_class, "key"), _builtin_serde(value_class, "value"))

    @property
    def topic(self) -> str:
        """The topic the serdes are called with (the store's changelog topic)."""
        return self._topic

    @property
    def key_serde(self) -> Any:
        """The key serde."""
        return self._key_serde

    @property
    def value_serde(self) -> Any:
        """The value serde."""
        return self._value_serde

    def key_from(self, raw_key: bytes | None) -> Any:
        """The key in ``raw_key``."""
        return self._key_serde.deserialize(self._topic, raw_key)

    def value_from(self, raw_value: bytes | None) -> Any:
        """The value in ``raw_value``."""
        return self._value_serde.deserialize(self._topic, raw_value)

    def raw_key(self, key: Any) -> bytes | None:
        """``key`` serialized; a key of the wrong type is Java's ``StreamsException``."""
        try:
            return self._key_serde.serialize(self._topic, key)
        except Exception as exc:
            if not _type_mismatch(exc):
                raise
            raise _incompatible(self._key_serde, key, is_key=True) from exc

    def raw_value(self, value: Any) -> bytes | None:
        """``value`` serialized; a value of the wrong type is Java's ``StreamsException``, naming
        the plain serde and value inside a ``ValueAndTimestamp``."""
        try:
            return self._value_serde.serialize(self._topic, value)
        except Exception as exc:
            if not _type_mismatch(exc):
                raise
            serde = getattr(self._value_serde, "value_serde", self._value_serde)
            shown = value.value if isinstance(self._value_serde, ValueAndTimestampSerde) \
                and value is not None else value
            raise _incompatible(serde, shown, is_key=False) from exc


class ValueAndTimestampSerde:
    """Java's ``ValueAndTimestampSerde``: a timestamped store's value bytes, the 8-byte
    big-endian timestamp then the plain value's bytes (``None`` for a ``None`` value)."""

    __slots__ = ("value_serde",)

    def __init__(self, value_serde: Any) -> None:
        if value_serde is None:
            msg = "valueSerde was null"
            raise MissingArgumentError(msg)
        self.value_serde = value_serde

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        """``timestamp + value`` bytes of a ``ValueAndTimestamp``; ``None`` for ``None`` or a
        value that serializes to ``None``."""
        if data is None:
            return None
        return self.serialize_value(topic, data.value, data.timestamp, headers)

    def serialize_value(self, topic: str, value: Any, timestamp: int,
                        headers: Any = None) -> bytes | None:
        """Java's ``serialize(topic, value, timestamp)``."""
        if value is None:
            return None
        raw = self.value_serde.serialize(topic, value, headers)
        if raw is None:
            return None
        return timestamp.to_bytes(8, "big", signed=True) + raw

    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        """The ``ValueAndTimestamp`` in ``data``; ``None`` for ``None``."""
        if data is None:
            return None
        from kslab.records import ValueAndTimestamp

        value = self.value_serde.deserialize(topic, data[8:], headers)
        return ValueAndTimestamp(value, int.from_bytes(data[:8], "big", signed=True))

    @staticmethod
    def values_are_same_and_time_is_increasing(old: bytes | None, new: bytes | None) -> bool:
        """Java's ``valuesAreSameAndTimeIsIncreasing``: the same value bytes at a strictly later
        timestamp (an idempotent update a table may drop)."""
        if old is new:
            return True
        if old is None or new is None or len(old) != len(new):
            return False
        if int.from_bytes(new[:8], "big", signed=True) <= \
                int.from_bytes(old[:8], "big", signed=True):
            return False
        return old[8:] == new[8:]

    def __repr__(self) -> str:
        return f"ValueAndTimestampSerde({self.value_serde!r})"
