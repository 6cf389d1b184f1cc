"""What every typed store shares: its lifecycle, serde binding, changelog hook and open iterators.

Invariant: a store is usable only between ``init`` and ``close``. Outside that window every
backend and serde slot holds an ``_Unready`` stand-in that raises ``StoreError``, so the hot paths
(``get``/``put``) never test a flag: an uninitialized or closed store fails on the call itself.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from itertools import repeat
from operator import is_
from pathlib import Path
from typing import Any, NoReturn

from kslab.errors import StoreError
from kslab.records import KeyValue
from kslab.state.base import (
    KeyValueBackend,
    NullStoreArgumentError,
    SerdeLike,
    StateStore,
    StoreContext,
    check_serde_spec,
    check_store_name,
    resolve_serde,
)
from kslab.state.iterators import KeyValueIterator

__all__ = ["TypedStore", "preview"]

_PREVIEW_CHARS = 60


class _Unready:
    """Stands in for the backend and serdes of a store that is not open."""

    __slots__ = ("message",)

    def __init__(self, message: str) -> None:
        self.message = message

    def fail(self, *args: object, **kwargs: object) -> NoReturn:
        raise StoreError(self.message)

    def __getattr__(self, name: str) -> Any:
        return self.fail


_NO_KEY = object()  # the key memo's "nothing remembered"
_BYTES = frozenset({bytes})  # what a column of serialized fields holds (checked in C)
_BYTES_OR_NONE = frozenset({bytes, type(None)})
MEMO_KEY_TYPES = (str, int, bytes)
"""Key types whose serialized bytes a store may remember between a ``get`` and a ``put``: they are
immutable, so the same object always serializes to the same bytes."""


# what a byte-backed store remembers beside its bytes (``marks``), where a subclass keeps them
_MARKS = ("_observed", "_seq")


class TypedStore(StateStore):
    """A store that turns objects into bytes with serdes over one ``KeyValueBackend``."""

    __slots__ = (
        "_backend",
        "_bdelete",
        "_bget",
        "_bput",
        "_caching_enabled",
        "_impl",
        "_iterators",
        "_kdec",
        "_kdec_indexed",
        "_kdes",
        "_kenc",
        "_key_serde",
        "_key_spec",
        "_kser",
        "_log",
        "_logging_enabled",
        "_memo_key",
        "_memo_key_bytes",
        "_name",
        "_open",
        "_topic",
        "_value_serde",
        "_value_spec",
        "_vdec",
        "_vdec_indexed",
        "_vdes",
        "_venc",
        "_vser",
    )

    def __init__(
        self,
        name: str,
        backend: KeyValueBackend,
        key_serde: Any = None,
        value_serde: Any = None,
        *,
        logging_enabled: bool = True,
        caching_enabled: bool = False,
    ) -> None:
        self._name = check_store_name(name, type(self).__name__)
        self._impl = backend
        self._key_spec = check_serde_spec(key_serde, "key_serde", name)
        self._value_spec = check_serde_spec(value_serde, "value_serde", name)
        self._logging_enabled = logging_enabled
        self._caching_enabled = caching_enabled
        self._key_serde: SerdeLike | None = None
        self._value_serde: SerdeLike | None = None
        self._topic = ""
        self._memo_key: Any = _NO_KEY
        self._memo_key_bytes = b""
        self._iterators: weakref.WeakSet[KeyValueIterator] = weakref.WeakSet()
        self._detach(
            f"Store '{name}' is not initialized; the engine initializes it when its task starts, "
            "so get it from driver.get_key_value_store() or context.get_state_store(), or call "
            "store.init(context) first"
        )

    # -- StateStore --------------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The store name."""
        return self._name

    @property
    def persistent(self) -> bool:
        """True when the backend keeps data on disk (RocksDB)."""
        return self._impl.persistent

    @property
    def is_open(self) -> bool:
        """True between ``init`` and ``close``."""
        return self._open

    @property
    def logging_enabled(self) -> bool:
        """True when writes go to the changelog."""
        return self._logging_enabled

    @property
    def caching_enabled(self) -> bool:
        """True when the builder asked for caching (recorded only)."""
        return self._caching_enabled

    @property
    def key_serde(self) -> SerdeLike | None:
        """The key serde in use; ``None`` before ``init``."""
        return self._key_serde

    @property
    def value_serde(self) -> SerdeLike | None:
        """The value serde in use (timestamped stores: of the plain value); ``None`` before init."""
        return self._value_serde

    @property
    def changelog_topic(self) -> str | None:
        """The topic serdes see and the changelog is written to; ``None`` before ``init``."""
        return self._topic or None

    def init(self, context: StoreContext, root: Any = None) -> None:
        """Open the backend and bind serdes and the changelog for the owning task."""
        name = self._name
        if self._open:
            msg = (
                f"Store '{name}' is already initialized; a store instance belongs to one task, "
                "so build() another one from its builder"
            )
            raise StoreError(msg)
        directory = None
        if self._impl.persistent:
            state_dir = context.state_dir
            if state_dir is None:
                msg = (
                    f"Store '{name}' is persistent but this engine runs without a state "
                    "directory; use Stores.in_memory_key_value_store("
                    f"'{name}') or give the engine a state.dir"
                )
                raise StoreError(msg)
            directory = Path(state_dir) / name
        self._key_serde = resolve_serde(
            self._key_spec, context.default_key_serde, name, is_key=True
        )
        self._value_serde = resolve_serde(
            self._value_spec, context.default_value_serde, name, is_key=False
        )
        self._topic = context.changelog_topic(name)
        self._impl.open(directory)
        self._log = context.log_change if self._logging_enabled else None
        self._impl.on_evict = self._log_eviction if self._logging_enabled else None
        self._attach()

    def flush(self) -> None:
        """Make written data durable in the backend."""
        self._backend.flush()

    def close(self) -> None:
        """Close open iterators, then the backend; closing twice is harmless."""
        if not self._open:
            return
        for iterator in list(self._iterators):
            iterator._invalidate(f"store '{self._name}' was closed")
        self._detach(
            f"Store '{self._name}' is closed; stores close with their task (driver.close()), "
            "so create a new driver, or call store.init(context) to reopen it"
        )
        self._impl.on_evict = None
        self._impl.close()

    def snapshot(self) -> object:
        """A copy of the stored bytes."""
        return self._backend.snapshot()

    def restore_snapshot(self, snapshot: object) -> None:
        """Replace the stored bytes with ``snapshot``; nothing is logged."""
        self._backend.restore_snapshot(snapshot)

    def __repr__(self) -> str:
        state = "open" if self._open else "not open"
        kind = type(self._impl).__name__.removesuffix("KeyValueBackend")
        return f"<{type(self).__name__} '{self._name}' ({kind}, {state})>"

    # -- shared plumbing ---------------------------------------------------------------------

    def _attach(self) -> None:
        backend = self._impl
        self._backend = backend
        self._bget = backend.get
        self._bput = backend.put
        self._bdelete = backend.delete
        self._kser = self._key_serde.serialize  # type: ignore[union-attr]
        self._memo_key = _NO_KEY  # bytes remembered under another serde would be wrong
        self._kdes = self._key_serde.deserialize  # type: ignore[union-attr]
        self._vser = self._value_serde.serialize  # type: ignore[union-attr]
        self._vdes = self._value_serde.deserialize  # type: ignore[union-attr]
        # One-argument C-level codecs of built-in serdes (serdes._base.fast_serializer): the hot
        # paths try them first and fall back to the serde's own method, which gives the answer
        # or raises its own error; None where the serde has none.
        from kslab.serdes._base import fast_deserializer, fast_serializer  # state never needs
        # kslab.serdes at import time (see state.base.resolve_serde)

        self._kenc = fast_serializer(self._key_serde)
        self._venc = fast_serializer(self._value_serde)
        fast = fast_deserializer(self._key_serde)
        self._kdec, self._kdec_indexed = (None, False) if fast is None else fast
        fast = fast_deserializer(self._value_serde)
        self._vdec, self._vdec_indexed = (None, False) if fast is None else fast
        self._open = True

    def _detach(self, message: str) -> None:
        unready = _Unready(message)
        self._backend = unready
        self._bget = self._bput = self._bdelete = unready.fail
        self._kser = self._kdes = self._vser = self._vdes = unready.fail
        self._kenc = self._venc = self._kdec = self._vdec = None  # hot paths: unready.fail
        self._kdec_indexed = self._vdec_indexed = False
        self._memo_key = _NO_KEY
        self._log = None
        self._open = False

    def _log_eviction(self, key: bytes, value: bytes) -> None:
        # Java's ChangeLoggingKeyValueBytesStore logs a tombstone for each LRU eviction.
        self._log(self._name, key, None)  # type: ignore[misc]

    @property
    def backend(self) -> Any:
        """The bytes backend the store reads and writes (what a record cache in front of it
        writes through and scans)."""
        return self._backend

    @property
    def changelog_writer(self) -> Callable[..., Any] | None:
        """The task's ``log_change`` for this store while it is open and logged, else ``None``:
        what a wrapper writing the store's bytes itself logs them with."""
        return self._log

    def marks(self) -> dict[str, int]:
        """What the store remembers beside its bytes, by name: the stream time it has observed
        (``_observed``, which decides retention) and a window store's duplicate sequence
        (``_seq``); empty for a plain key-value store. An engine keeping the bytes itself
        carries them across runs (Spark's micro-batches); the rest is rebuilt by scanning."""
        return {attr: value for attr in _MARKS
                if isinstance(value := getattr(self, attr, None), int)}

    def restore_marks(self, marks: dict[str, int]) -> None:
        """Set what ``marks`` returned before (on a store over the same bytes)."""
        for attr, value in marks.items():
            if attr in _MARKS:
                setattr(self, attr, value)

    def replace_backend(self, backend: KeyValueBackend) -> None:
        """Put the store, open, on ``backend`` (an engine's own storage, Spark's state): the
        old backend is closed, or, under an adapter that changes the stored layout (dropping
        timestamps), the adapter keeps its behaviour over the new one."""
        holder = self._impl
        replace_inner = getattr(holder, "replace_inner", None)
        if replace_inner is not None:  # an adapter (TimestampDroppingBackend) stays on top
            replace_inner(backend)
        else:
            holder.close()
            self._impl = backend
        self._attach()

    def register_iterator(self, iterator: KeyValueIterator) -> None:
        """Keep ``iterator`` with the store's open iterators: closed (or ended) with it."""
        self._iterators.add(iterator)

    def bytes_iterator(
        self, source: Iterator[tuple[bytes, bytes]], decode_value: Any = None
    ) -> KeyValueIterator:
        """A ``KeyValueIterator`` decoding ``source``'s stored ``(key, value)`` bytes as this store
        reads them, registered with the store (closed with it); ``decode_value`` overrides the
        value's decoding."""
        kind = type(self)
        if (decode_value is None and self._kdec is not None and self._vdec is not None
                and kind.decode_key is TypedStore.decode_key  # no store-specific layout
                and kind.decode_value is TypedStore.decode_value):
            iterator: KeyValueIterator = _FastDecodingIterator(self, source)
        else:
            iterator = KeyValueIterator(
                source, self.decode_key, decode_value or self.decode_value, self._name
            )
        self._iterators.add(iterator)
        return iterator

    def serialize_key(self, key: Any) -> bytes:
        """The key's bytes in the store's layout (its serde's, checked): what wrappers and batch
        runs look keys up by."""
        try:
            key_bytes = self._kser(self._topic, key)
        except StoreError:
            raise
        except Exception as exc:
            raise self._key_failure(key, exc) from exc
        if key_bytes.__class__ is not bytes:
            key_bytes = self._key_bytes(key_bytes, key)
        return key_bytes

    def serialize_value(self, value: Any) -> bytes | None:
        """The value's bytes (``None`` for ``None``), through the store's value serde, checked."""
        if value is None:
            return None
        try:
            value_bytes = self._vser(self._topic, value)
        except StoreError:
            raise
        except Exception as exc:
            raise self._value_failure(value, exc) from exc
        if value_bytes.__class__ is not bytes:
            value_bytes = self._value_bytes(value_bytes, value)
        return value_bytes

    def serialize_keys(self, keys: list[Any]) -> list[bytes]:
        """``serialize_key`` of each key (none ``None``), in order (a batch run's reads and
        writes): through the serde's C-level codec where it takes them all, else one by one
        (which raises the store's error for a key the serde refuses)."""
        encode = self._kenc
        if encode is not None:
            try:
                encoded = list(map(encode, keys))
            except Exception:
                pass  # the serde's own serialize below: the same bytes, or its error
            else:
                if _BYTES.issuperset(map(type, encoded)):
                    return encoded
        return list(map(self.serialize_key, keys))

    def serialize_values(self, values: list[Any]) -> list[bytes | None]:
        """``serialize_value`` of each value, in order (a batch run's writes): through the
        serde's column form where it has one, else one by one (which raises the store's error
        for a value the serde refuses)."""
        column = getattr(self._value_serde, "serialize_column", None)
        if column is not None:
            try:
                serialized = column(self._topic, values)
            except Exception:
                pass  # one by one below: the same bytes, or the store's error
            else:
                if _BYTES_OR_NONE.issuperset(map(type, serialized)):
                    return serialized  # type: ignore[no-any-return]
        return list(map(self.serialize_value, values))

    def encode_values(self, values: list[Any]) -> list[bytes] | None:
        """``serialize_values`` (through the serde's C-level codec where it takes them all:
        it refuses ``None``), or ``None`` when a value is ``None`` or the serde writes one as
        ``None``: a put of it deletes."""
        encode = self._venc
        if encode is not None:
            try:
                encoded = list(map(encode, values))
            except Exception:
                pass  # the serde's own below: the same bytes, or the store's error
            else:  # (a built-in's codec gives bytes, as its serialize)
                return encoded
        if any(map(is_, values, repeat(None))):
            return None
        serialized = self.serialize_values(values)
        return None if None in serialized else serialized  # type: ignore[return-value]

    def decode_key(self, key_bytes: bytes) -> Any:
        """The key stored as ``key_bytes`` (the store's error for bytes it cannot read)."""
        kdec = self._kdec
        if kdec is not None:  # the serde's C-level codec first: see _attach
            try:
                key = kdec(key_bytes)
            except Exception:
                pass  # the serde's own deserialize below gives the answer or its error
            else:
                return key[0] if self._kdec_indexed else key
        try:
            return self._kdes(self._topic, key_bytes)
        except StoreError:
            raise
        except Exception as exc:
            raise self._key_read_failure(key_bytes, exc) from exc

    def decode_value(self, value_bytes: bytes) -> Any:
        """The value stored as ``value_bytes`` (the store's error for bytes it cannot read)."""
        vdec = self._vdec
        if vdec is not None:
            try:
                value = vdec(value_bytes)
            except Exception:
                pass
            else:
                return value[0] if self._vdec_indexed else value
        try:
            return self._vdes(self._topic, value_bytes)
        except StoreError:
            raise
        except Exception as exc:
            raise self._value_read_failure(value_bytes, exc) from exc

    def _key_bytes(self, key_bytes: object, key: Any) -> bytes:
        """Slow path for a key serializer that returned something other than ``bytes``."""
        if isinstance(key_bytes, bytearray | memoryview):
            return bytes(key_bytes)
        if key is None or key_bytes is None:
            raise self._null_key()
        msg = (
            f"Store '{self._name}': key serde {self._key_serde!r} returned "
            f"{type(key_bytes).__name__} for key {preview(key)}, not bytes; fix the serde's "
            "serialize() to return bytes"
        )
        raise StoreError(msg)

    def _value_bytes(self, value_bytes: object, value: Any) -> bytes | None:
        """Slow path for a value serializer that returned something other than ``bytes``."""
        if value_bytes is None:
            return None  # Java: a value that serializes to null is a delete
        if isinstance(value_bytes, bytearray | memoryview):
            return bytes(value_bytes)
        msg = (
            f"Store '{self._name}': value serde {self._value_serde!r} returned "
            f"{type(value_bytes).__name__} for value {preview(value)}, not bytes; fix the "
            "serde's serialize() to return bytes"
        )
        raise StoreError(msg)

    def set_flush_listener(self, listener: Any, send_old_values: bool) -> bool:
        """False: a store without a record cache has nothing to flush, so the caller forwards
        its updates itself (Java's ``WrappedStateStore.setFlushListener`` on an uncached store)."""
        return False

    def _null_key(self) -> NullStoreArgumentError:
        """Java's ``NullPointerException`` for a null key (``MissingArgumentError`` here)."""
        msg = (
            f"Store '{self._name}' got a None key; state stores cannot hold None keys, so "
            "filter or re-key such records before the store"
        )
        return NullStoreArgumentError(msg)

    def _key_failure(self, key: Any, exc: Exception) -> StoreError:
        if key is None:
            return self._null_key()
        msg = (
            f"Store '{self._name}' cannot serialize key {preview(key)} "
            f"({type(key).__name__}) with key serde {self._key_serde!r}: {exc}; give the store "
            f"builder a key serde for {type(key).__name__} keys, e.g. "
            "Stores.key_value_store_builder(supplier, key_serde, value_serde)"
        )
        return StoreError(msg)

    def _value_failure(self, value: Any, exc: Exception) -> StoreError:
        msg = (
            f"Store '{self._name}' cannot serialize value {preview(value)} "
            f"({type(value).__name__}) with value serde {self._value_serde!r}: {exc}; give the "
            f"store builder a value serde for {type(value).__name__} values, e.g. "
            "Stores.key_value_store_builder(supplier, key_serde, value_serde)"
        )
        return StoreError(msg)

    def _key_read_failure(self, data: bytes, exc: Exception) -> StoreError:
        return self._read_failure("key", data, self._key_serde, exc)

    def _value_read_failure(self, data: bytes, exc: Exception) -> StoreError:
        return self._read_failure("value", data, self._value_serde, exc)

    def _read_failure(
        self, what: str, data: bytes, serde: SerdeLike | None, exc: Exception
    ) -> StoreError:
        msg = (
            f"Store '{self._name}' cannot deserialize {what} bytes {data[:24].hex()} with "
            f"{what} serde {serde!r}: {exc}; the store holds data written with another serde, "
            f"so use the same {what} serde for writing and reading"
        )
        return StoreError(msg)


_new_tuple = tuple.__new__


class _FastDecodingIterator(KeyValueIterator):
    """A scan of a store whose serdes both have C-level codecs (``TypedStore._attach``): each
    pair decodes inline and becomes a ``KeyValue`` without a call per field; a field a codec
    refuses takes the store's own decoding, with its error."""

    __slots__ = ("_kdec", "_kidx", "_vdec", "_vidx")

    def __init__(self, store: TypedStore, source: Iterator[tuple[bytes, bytes]]) -> None:
        super().__init__(source, store.decode_key, store.decode_value, store._name)
        self._kdec, self._kidx = store._kdec, store._kdec_indexed
        self._vdec, self._vidx = store._vdec, store._vdec_indexed

    def __iter__(self) -> Iterator[KeyValue]:  # type: ignore[override]
        """What a ``for`` loop runs: ``__next__``'s steps in a generator (a resumed generator
        costs less than a method call per pair). Each step reads this iterator's state, so
        ``has_next``/``peek_next_key``/``next`` and ``close`` in the loop's body act as on
        ``__next__``; a step with a peeked pair, or after a close, is ``__next__`` itself."""
        return self._steps()

    def _steps(self) -> Iterator[KeyValue]:
        kdec, vdec, kidx, vidx = self._kdec, self._vdec, self._kidx, self._vidx
        while True:
            source = self._source
            if source is None or self._pending is not None:
                try:
                    item = self.__next__()  # a peeked pair, exhausted, or closed (raises)
                except StopIteration:
                    return
                yield item
                continue
            entry = next(source, None)
            if entry is None:
                self._source = None  # exhausted: let go of the backend's scan
                return
            key_bytes, value_bytes = entry
            try:
                key = kdec(key_bytes)
                value = vdec(value_bytes)
            except Exception:
                yield KeyValue(self._decode_key(key_bytes), self._decode_value(value_bytes))
                continue
            if kidx:
                key = key[0]
            if vidx:
                value = value[0]
            yield _new_tuple(KeyValue, (key, value))

    def __next__(self) -> KeyValue:
        entry = self._pending
        if entry is not None:
            self._pending = None
            if self._recheck is not None:
                entry = self._current(entry)
        if entry is None:
            source = self._source
            if source is None:
                entry = self._pull()  # closed (raises) or exhausted
            else:  # _pull, inlined
                entry = next(source, None)
                if entry is None:
                    self._source = None  # exhausted: let go of the backend's scan
            if entry is None:
                raise StopIteration
        key_bytes, value_bytes = entry
        try:
            key = self._kdec(key_bytes)
            value = self._vdec(value_bytes)
        except Exception:
            return KeyValue(self._decode_key(key_bytes), self._decode_value(value_bytes))
        if self._kidx:
            key = key[0]
        if self._vidx:
            value = value[0]
        return _new_tuple(KeyValue, (key, value))  # type: ignore[no-any-return]


def preview(value: Any) -> str:
    """``repr(value)``, cut to a length an error message can quote."""
    text = repr(value)
    return text if len(text) <= _PREVIEW_CHARS else text[: _PREVIEW_CHARS - 3] + "..."
