"""DSL stores: naming a ``Materialized``, building its store, and the record cache before it.

Java's DSL stores are timestamped key-value stores with a record cache: writes stay in the cache
until the task commits, then each dirty key is written to the store and forwarded downstream once,
as ``Change(latest value, value before the commit)``. Invariant: between two commits a key is
forwarded at most once by a cached store unless the cache overflows (evicting a dirty entry
flushes the store's dirty keys early, as Java's ``NamedCache`` does), and a forward carries the
record context of the key's last write (what Java's ``TimestampedCacheFlushListener`` sees).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kslab.dsl.config import internal
from kslab.records import Record
from kslab.state import Stores
from kslab.state.caching import CachingKeyValueStore

__all__ = [
    "CachingKeyValueStore",
    "MaterializedInternal",
    "cache_forwarding",
    "forward_flushed",
    "forward_flushed_session",
    "store_factory",
]


class MaterializedInternal:
    """A ``Materialized`` resolved for one operator: its store name is fixed (given or made)."""

    def __init__(self, materialized: Any, store_name: str | None, queryable: bool) -> None:
        m = materialized
        self.store_name = store_name
        self.queryable = queryable
        settings = internal(m)
        self.key_serde = settings.key_serde
        self.value_serde = settings.value_serde
        self.logging = settings.logging
        self.log_config = dict(settings.log_config)
        self.caching = settings.caching
        self.supplier = settings.supplier
        self.store_type = settings.store_type
        self.restore_listener = settings.restore_listener
        self.versioned = settings.history_retention is not None
        self.history_retention = settings.history_retention
        self.builder: Any = None  # the StreamsBuilder, for its default store type at build()

    @property
    def queryable_store_name(self) -> str | None:
        """The store name if the user named the store, else ``None``."""
        return self.store_name if self.queryable else None


def store_factory(mat: MaterializedInternal) -> Callable[[], Any]:
    """A function making the store builder for ``mat`` (Java's ``KeyValueStoreMaterializer``)."""

    def build() -> Any:
        builder = _build()
        if mat.restore_listener is not None:
            builder.with_restore_listener(mat.restore_listener)
        return builder

    def _build() -> Any:
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
            builder.with_caching_enabled()  # the builder puts a CachingKeyValueStore in front
        return builder

    return build


def forward_flushed(context: Any, node: Any) -> Callable[..., None]:
    """A flush listener forwarding ``Change(new, old)`` from ``node`` (Java's flush listener)."""
    from kslab.dsl._change import Change

    def listener(key: Any, new: Any, old: Any, record: Record) -> None:
        timestamp = new.timestamp if new is not None else record.timestamp
        change = Change(None if new is None else new.value, None if old is None else old.value)
        previous = context.current
        context.current = node
        try:
            context.forward(Record(key, change, timestamp, record.raw_headers))
        finally:
            context.current = previous

    return listener


def forward_flushed_session(context: Any, node: Any) -> Callable[..., None]:
    """A flush listener forwarding a session's ``Change(new, old)`` at the session's end
    (Java's ``SessionCacheFlushListener``)."""
    from kslab.dsl._change import Change

    def listener(key: Any, new: Any, old: Any, record: Record) -> None:
        previous = context.current
        context.current = node
        try:
            context.forward(Record(key, Change(new, old), key.window.end, record.raw_headers))
        finally:
            context.current = previous

    return listener


def cache_forwarding(store: Any, context: Any, send_old_values: bool, *,
                     session: bool = False) -> bool:
    """Let a cached store forward a windowed aggregation's updates on flush (Java's
    ``TimestampedTupleForwarder``); True if it will, so the processor must not forward."""
    listen = getattr(store, "set_flush_listener", None)
    if listen is None:
        return False
    make = forward_flushed_session if session else forward_flushed
    return bool(listen(make(context, context.current), send_old_values))

