"""The key-value store processors and tests use: objects in, serdes to bytes, a backend underneath.

Invariant: every write reaches the backend first and then, when logging is on, the changelog as
exactly the bytes the backend holds (``put(k, None)`` and ``delete`` log a tombstone), so
replaying a store's changelog into an empty store rebuilds the same bytes. Ordering and range
bounds are those of the serialized keys, as in Kafka Streams.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kslab.errors import StoreError
from kslab.state._frames import to_pandas, to_polars
from kslab.state._typed import MEMO_KEY_TYPES, TypedStore
from kslab.state.base import NullStoreArgumentError, resolve_serde
from kslab.state.iterators import KeyValueIterator

__all__ = ["KEY_SERDE", "KeyValueStore"]


class _KeySerde:
    """The default of ``prefix_serde``: the store's key serde (an explicit ``None`` is refused,
    as Java's ``requireNonNull(prefixKeySerializer)``)."""

    def __repr__(self) -> str:
        return "KEY_SERDE"


KEY_SERDE: Any = _KeySerde()


class KeyValueStore(TypedStore):
    """Java's ``KeyValueStore<K, V>``: point reads and writes, ordered scans, changelog writes.

    >>> from kslab.state import Stores
    >>> builder = Stores.key_value_store_builder(Stores.in_memory_key_value_store("counts"))
    >>> builder.build()
    <KeyValueStore 'counts' (InMemory, not open)>
    """

    # what kslab.state.write_behind keeps while a store holds its writes (unset otherwise;
    # here so a store can switch to WriteBehindKeyValueStore and back; the engine that holds it
    # keeps a weak reference)
    __slots__ = ("__weakref__", "_held", "_held_batch", "_held_context", "_held_get",
                 "_held_key_bound", "_held_key_class", "_held_owner", "_held_puts",
                 "_held_value_bound", "_held_value_class")

    store_kind = "key_value"

    def get(self, key: Any) -> Any:
        """The value stored for ``key``, or ``None``."""
        if key is self._memo_key:  # the usual get-then-put of one key serializes it once
            key_bytes = self._memo_key_bytes
        else:
            kenc = self._kenc
            if kenc is None:
                key_bytes = self._key_to_bytes(self._topic, key)
            else:  # the serde's C-level codec, inlined: see TypedStore._attach
                try:
                    key_bytes = kenc(key)
                except Exception:
                    key_bytes = self._key_to_bytes(self._topic, key)
                else:
                    if key.__class__ in MEMO_KEY_TYPES:
                        self._memo_key = key
                        self._memo_key_bytes = key_bytes
        value_bytes = self._bget(key_bytes)
        if value_bytes is None:
            return None
        vdec = self._vdec
        if vdec is not None:
            try:
                value = vdec(value_bytes)
            except Exception:
                pass  # the serde's own deserialize below gives the answer or its error
            else:
                return value[0] if self._vdec_indexed else value
        try:
            return self._vdes(self._topic, value_bytes)
        except StoreError:
            raise
        except Exception as exc:
            raise self._value_read_failure(value_bytes, exc) from exc

    def put(self, key: Any, value: Any) -> None:
        """Store ``value`` for ``key``; ``None`` deletes the key, as in Java."""
        if key is self._memo_key:
            key_bytes = self._memo_key_bytes
        else:
            kenc = self._kenc
            if kenc is None:
                key_bytes = self._key_to_bytes(self._topic, key)
            else:
                try:
                    key_bytes = kenc(key)
                except Exception:
                    key_bytes = self._key_to_bytes(self._topic, key)
                else:
                    if key.__class__ in MEMO_KEY_TYPES:
                        self._memo_key = key
                        self._memo_key_bytes = key_bytes
        if value is None:
            self.delete_bytes(key_bytes)
            return
        venc = self._venc
        value_bytes = None
        if venc is not None:
            try:
                value_bytes = venc(value)
            except Exception:
                pass  # the serde's own serialize below gives the bytes or its error
        if value_bytes is None:
            value_bytes = self.serialize_value(value)  # None: delete
            if value_bytes is None:
                self.delete_bytes(key_bytes)
                return
        self._bput(key_bytes, value_bytes)
        log = self._log
        if log is not None:
            log(self._name, key_bytes, value_bytes)

    def _key_to_bytes(self, topic: str, key: Any) -> bytes:
        """Serialize ``key``; remember the bytes when the key is of an immutable type."""
        try:
            key_bytes = self._kser(topic, key)
        except StoreError:
            raise
        except Exception as exc:
            raise self._key_failure(key, exc) from exc
        if key_bytes.__class__ is not bytes:
            key_bytes = self._key_bytes(key_bytes, key)
        if key.__class__ in MEMO_KEY_TYPES:
            self._memo_key = key
            self._memo_key_bytes = key_bytes
        return key_bytes

    def put_if_absent(self, key: Any, value: Any) -> Any:
        """Store ``value`` only if ``key`` has none; return the value that was there."""
        key_bytes = self.serialize_key(key)
        value_bytes = self.serialize_value(value)
        if value_bytes is None:
            old = self._bget(key_bytes)
        else:
            old = self._backend.put_if_absent(key_bytes, value_bytes)
        if old is None:
            self._log_write(key_bytes, value_bytes)
            return None
        return self.decode_value(old)

    def put_all(self, entries: Iterable[tuple[Any, Any]]) -> None:
        """Store every ``(key, value)`` pair in order; every key is checked before any write."""
        pairs = [(self.serialize_key(k), self.serialize_value(v)) for k, v in entries]
        self._backend.put_all(pairs)
        if self._log is not None:
            for key_bytes, value_bytes in pairs:
                self._log_write(key_bytes, value_bytes)

    def delete(self, key: Any) -> Any:
        """Remove ``key``; return the value that was there (a tombstone is logged either way)."""
        old = self.delete_bytes(self.serialize_key(key))
        return None if old is None else self.decode_value(old)

    def range(self, from_key: Any = None, to_key: Any = None) -> KeyValueIterator:
        """Entries with ``from_key <= key <= to_key`` by serialized key; ``None`` is open-ended."""
        return self.bytes_iterator(self._backend.range(*self._bounds(from_key, to_key)))

    def reverse_range(self, from_key: Any = None, to_key: Any = None) -> KeyValueIterator:
        """As ``range``, from the largest key down."""
        return self.bytes_iterator(self._backend.reverse_range(*self._bounds(from_key, to_key)))

    def all(self) -> KeyValueIterator:
        """Every entry in key order."""
        return self.bytes_iterator(self._backend.all())

    def reverse_all(self) -> KeyValueIterator:
        """Every entry from the largest key down."""
        return self.bytes_iterator(self._backend.reverse_all())

    def prefix_scan(self, prefix: Any, prefix_serde: Any = KEY_SERDE) -> KeyValueIterator:
        """Entries whose serialized key starts with ``prefix`` serialized by ``prefix_serde``.

        ``prefix_serde`` defaults to the store's key serde (a ``None`` prefix or serde raises
        ``MissingArgumentError``, as Java's ``NullPointerException``); it serializes with the
        store's changelog topic, as the key serde does.
        """
        key_prefix = self.prefix_key_bytes(prefix, prefix_serde)
        return self.bytes_iterator(self._backend.prefix_scan(key_prefix))

    def set_flush_listener(self, listener: Any, send_old_values: bool) -> bool:
        """False: a store without a record cache has nothing to flush, so the caller forwards
        its updates itself (Java's ``setFlushListener`` on an uncached store)."""
        return False

    def approximate_num_entries(self) -> int:
        """How many keys the store holds (exact in memory, RocksDB's estimate on disk)."""
        return self._backend.approximate_num_entries()

    def to_pandas(self) -> Any:
        """The contents as a pandas DataFrame with columns ``key`` and ``value``, in key order."""
        return to_pandas(self._columns())

    def to_polars(self) -> Any:
        """The contents as a polars DataFrame with columns ``key`` and ``value``, in key order."""
        return to_polars(self._columns())

    # -- engine hooks -------------------------------------------------------------------------

    def restore_batch(self, records: Iterable[tuple[Any, ...]]) -> None:
        """Apply changelog ``(key, value[, timestamp])`` records, unlogged; ``None`` deletes."""
        self._backend.restore_batch([(record[0], record[1]) for record in records])

    # -- helpers -------------------------------------------------------------------------------

    def delete_bytes(self, key_bytes: bytes) -> bytes | None:
        """Delete the entry under ``key_bytes``, logged; returns its old bytes."""
        old = self._bdelete(key_bytes)
        log = self._log
        if log is not None:
            log(self._name, key_bytes, None)
        return old

    def _log_write(self, key_bytes: bytes, value_bytes: bytes | None) -> None:
        log = self._log
        if log is not None:
            log(self._name, key_bytes, value_bytes)

    def _bounds(self, from_key: Any, to_key: Any) -> tuple[bytes | None, bytes | None]:
        lower = None if from_key is None else self.serialize_key(from_key)
        upper = None if to_key is None else self.serialize_key(to_key)
        return lower, upper

    def prefix_key_bytes(self, prefix: Any, prefix_serde: Any) -> bytes:
        """The bytes ``prefix_scan`` looks keys up by: ``prefix`` through ``prefix_serde``."""
        if prefix is None:
            msg = (f"prefix_scan on store '{self._name}' got prefix None (prefix cannot be null); "
                   "pass a prefix")
            raise NullStoreArgumentError(msg)
        if prefix_serde is KEY_SERDE:
            return self.serialize_key(prefix)
        if prefix_serde is None:
            msg = "prefixKeySerializer cannot be null"
            raise NullStoreArgumentError(msg)
        serialize = getattr(prefix_serde, "serialize", None)
        if serialize is None and isinstance(prefix_serde, str | type):
            serialize = resolve_serde(prefix_serde, None, self._name, is_key=True).serialize
        if serialize is None:
            msg = (
                f"prefix_scan on store '{self._name}' got prefix_serde={prefix_serde!r}; pass a "
                "serde (anything with serialize(topic, data)) or a serde name such as 'string'"
            )
            raise StoreError(msg)
        try:
            data = serialize(self._topic, prefix)
        except Exception as exc:
            msg = (
                f"prefix_scan on store '{self._name}' cannot serialize prefix {prefix!r} with "
                f"{prefix_serde!r}: {exc}; pass a prefix_serde that accepts it"
            )
            raise StoreError(msg) from exc
        if not isinstance(data, bytes | bytearray):
            msg = (
                f"prefix_scan on store '{self._name}': {prefix_serde!r} serialized prefix "
                f"{prefix!r} to {data!r}, not bytes; pass a serde that returns bytes"
            )
            raise StoreError(msg)
        return bytes(data)

    def _columns(self) -> dict[str, list[Any]]:
        keys: list[Any] = []
        values: list[Any] = []
        with self.all() as entries:
            for key, value in entries:
                keys.append(key)
                values.append(value)
        return {"key": keys, "value": values}
