"""DSL stores: naming a ``Materialized``, building its store, and the record cache before it.

Java's DSL stores are timestamped key-value stores with a record cache: writes stay in the cache
until the task commits, then each dirty key is written to the store and forwarded downstream once,
as ``Change(latest value, value before the commit)``. Invariant: between two commits a key is
forwarded at most once by a cached store, and the forward happens at commit time with the
record context of the key's last write (what Java's ``TimestampedCacheFlushListener`` sees).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kslab.records import Record, ValueAndTimestamp
from kslab.state import Stores

__all__ = ["CachedStore", "MaterializedInternal", "store_factory"]

_DEFAULT_CACHE_BYTES = 10 * 1024 * 1024


class MaterializedInternal:
    """A ``Materialized`` resolved for one operator: its store name is fixed (given or made)."""

    def __init__(self, materialized: Any, store_name: str | None, queryable: bool) -> None:
        m = materialized
        self.store_name = store_name
        self.queryable = queryable
        self.key_serde = m._key_serde
        self.value_serde = m._value_serde
        self.logging = m._logging
        self.log_config = dict(m._log_config)
        self.caching = m._caching
        self.supplier = m._supplier
        self.store_type = m._store_type
        self.versioned = m._history_retention is not None
        self.history_retention = m._history_retention
        self.builder: Any = None  # the StreamsBuilder, for its default store type at build()

    @property
    def queryable_store_name(self) -> str | None:
        """The store name if the user named the store, else ``None``."""
        return self.store_name if self.queryable else None


def store_factory(mat: MaterializedInternal) -> Callable[[], Any]:
    """A function making the store builder for ``mat`` (Java's ``KeyValueStoreMaterializer``)."""

    def build() -> Any:
        supplier = mat.supplier
        if mat.versioned or getattr(supplier, "history_retention", None) is not None:
            if supplier is None:
                supplier = Stores.persistent_versioned_key_value_store(
                    mat.store_name, mat.history_retention)
            versioned = Stores.versioned_key_value_store_builder(supplier, mat.key_serde,
                                                                 mat.value_serde)
            if mat.logging:
                return versioned.with_logging_enabled(mat.log_config)
            return versioned.with_logging_disabled()  # versioned stores are never cached
        if supplier is None:
            store_type = mat.store_type or getattr(mat.builder, "default_store_type", None)
            if store_type == "in_memory":
                supplier = Stores.in_memory_key_value_store(mat.store_name)
            else:
                supplier = Stores.persistent_timestamped_key_value_store(mat.store_name)
        builder = Stores.timestamped_key_value_store_builder(
            supplier, mat.key_serde, mat.value_serde
        )
        if mat.logging:
            builder.with_logging_enabled(mat.log_config)
        else:
            builder.with_logging_disabled()
        if mat.caching:
            builder.with_caching_enabled()
        return CachingBuilder(builder)

    return build


class CachingBuilder:
    """A store builder whose stores get a ``CachedStore`` in front when caching is enabled."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def build(self) -> Any:
        """A new store, cached if the builder asks for caching."""
        store = self._inner.build()
        return CachedStore(store) if self._inner.caching_enabled else store

    def with_logging_disabled(self) -> CachingBuilder:
        """No changelog."""
        self._inner.with_logging_disabled()
        return self

    def __getattr__(self, name: str) -> Any:
        if name == "_inner":  # not set yet while unpickling (Spark ships topologies pickled)
            raise AttributeError(name)
        return getattr(self._inner, name)

    def __repr__(self) -> str:
        return repr(self._inner)


class CachedStore:
    """Java's ``CachingKeyValueStore`` over a timestamped store, flushed by the task's commit.

    With ``statestore.cache.max.bytes`` 0 the cache is off and every write goes straight through.
    """

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._dirty: dict[bytes, tuple[Any, Any, tuple[Any, ...]]] = {}
        self._listener: Callable[..., None] | None = None
        self._send_old_values = False
        self._context: Any = None
        self.enabled = True

    def init(self, context: Any) -> None:
        """Open the store and decide whether the cache is on (``statestore.cache.max.bytes``)."""
        self._inner.init(context)
        self._context = context
        configs = context.app_configs()
        size = configs.get("statestore.cache.max.bytes")
        if size is None:
            size = configs.get("cache.max.bytes.buffering")
        self.enabled = int(_DEFAULT_CACHE_BYTES if size is None else size) > 0

    def set_flush_listener(self, listener: Callable[..., None], send_old_values: bool) -> bool:
        """Call ``listener(key, new, old, timestamp, headers)`` per flushed key; True if cached."""
        self._listener = listener
        self._send_old_values = send_old_values
        return self.enabled

    def get(self, key: Any) -> ValueAndTimestamp | None:
        """The cached value of ``key``, else the stored one."""
        if self._dirty:
            entry = self._dirty.get(self._inner._serialize_key(key))
            if entry is not None:
                return entry[1]
        return self._inner.get(key)

    def put(self, key: Any, value_and_timestamp: ValueAndTimestamp | None) -> None:
        """Write to the cache (to the store when the cache is off)."""
        if not self.enabled:
            self._inner.put(key, value_and_timestamp)
            return
        if value_and_timestamp is not None and value_and_timestamp.value is None:
            value_and_timestamp = None
        key_bytes = self._inner._serialize_key(key)
        self._dirty.pop(key_bytes, None)
        c = self._context
        self._dirty[key_bytes] = (key, value_and_timestamp, (c.record, c.topic, c.partition,
                                                             c.offset))

    def delete(self, key: Any) -> ValueAndTimestamp | None:
        """Remove ``key``; return what was there."""
        old = self.get(key)
        self.put(key, None)
        return old

    def flush_cache(self) -> None:
        """Write every dirty key to the store and forward it, in last-write order."""
        if not self._dirty:
            return
        dirty, self._dirty = self._dirty, {}
        inner, listener, c = self._inner, self._listener, self._context
        saved = (c.record, c.topic, c.partition, c.offset)
        try:
            for key, new, (record, topic, partition, offset) in dirty.values():
                old = inner.get(key) if new is None or self._send_old_values else None
                if listener is not None and new is None and old is None:
                    continue
                c.record, c.topic, c.partition, c.offset = record, topic, partition, offset
                inner.put(key, new)
                if listener is not None:
                    listener(key, new, old if self._send_old_values else None, record)
        finally:
            c.record, c.topic, c.partition, c.offset = saved

    def flush(self) -> None:
        """Flush the cache, then the store."""
        self.flush_cache()
        self._inner.flush()

    def close(self) -> None:
        """Close the store (the task flushed it before)."""
        self._dirty.clear()
        self._inner.close()

    def __getattr__(self, name: str) -> Any:
        if name == "_inner":  # not set yet while unpickling (Spark ships topologies pickled)
            raise AttributeError(name)
        return getattr(self._inner, name)

    def __repr__(self) -> str:
        return f"<CachedStore {self._inner!r}>"


def forward_flushed(context: Any, node: Any) -> Callable[..., None]:
    """A flush listener forwarding ``Change(new, old)`` from ``node`` (Java's flush listener)."""
    from kslab.dsl._change import Change

    def listener(key: Any, new: Any, old: Any, record: Record) -> None:
        timestamp = new.timestamp if new is not None else record.timestamp
        change = Change(None if new is None else new.value, None if old is None else old.value)
        previous = context.current
        context.current = node
        try:
            context.forward(Record(key, change, timestamp, record._headers))
        finally:
            context.current = previous

    return listener
