"""The builders that turn a key-value supplier and serdes into typed stores.

Invariant: ``build()`` asks the supplier for a new backend every time, so each task (and each
call) gets an independent store; the builder itself only records names, serdes and flags.
"""

from __future__ import annotations

from typing import Any

from kslab.errors import StoreError
from kslab.state.base import NullStoreArgumentError, StoreBuilder
from kslab.state.keyvalue import KeyValueStore
from kslab.state.suppliers import KeyValueBytesStoreSupplier
from kslab.state.timestamped import TimestampDroppingBackend, TimestampedKeyValueStore

__all__ = ["KeyValueStoreBuilder", "TimestampedKeyValueStoreBuilder"]


class KeyValueStoreBuilder(StoreBuilder):
    """Builds ``KeyValueStore``s (``Stores.key_value_store_builder``)."""

    def __init__(
        self, supplier: KeyValueBytesStoreSupplier, key_serde: Any = None, value_serde: Any = None
    ) -> None:
        self._supplier = _check_supplier(supplier, type(self).__name__)
        super().__init__(supplier.name, key_serde, value_serde)

    @property
    def supplier(self) -> KeyValueBytesStoreSupplier:
        """The supplier that makes each store's backend."""
        return self._supplier

    @property
    def persistent(self) -> bool:
        """True when built stores keep their data on disk."""
        return self._supplier.persistent

    def build(self) -> Any:
        """A new, uninitialized ``KeyValueStore`` (behind the record cache if enabled)."""
        return _cached(self, KeyValueStore(
            self._name,
            self._supplier.get(),
            self._key_serde,
            self._value_serde,
            logging_enabled=self._logging_enabled,
            caching_enabled=self._caching_enabled,
        ))


class TimestampedKeyValueStoreBuilder(KeyValueStoreBuilder):
    """Builds ``TimestampedKeyValueStore``s (``Stores.timestamped_key_value_store_builder``).

    Over a persistent backend that is not timestamped (``Stores.persistent_key_value_store``)
    timestamps are dropped on write and read back as -1, as in Java.
    """

    def build(self) -> Any:
        """A new, uninitialized ``TimestampedKeyValueStore`` (cached if enabled)."""
        backend = self._supplier.get()
        if backend.persistent and not backend.timestamped:
            backend = TimestampDroppingBackend(backend)
        return _cached(self, TimestampedKeyValueStore(
            self._name,
            backend,
            self._key_serde,
            self._value_serde,
            logging_enabled=self._logging_enabled,
            caching_enabled=self._caching_enabled,
        ))


def _cached(builder: StoreBuilder, store: Any) -> Any:
    """``store`` behind a ``CachingKeyValueStore`` when the builder asks for caching (Java)."""
    if not builder.caching_enabled:
        return store
    from kslab.state.caching import CachingKeyValueStore

    return CachingKeyValueStore(store)


def _check_supplier(supplier: object, what: str) -> KeyValueBytesStoreSupplier:
    """``supplier`` if it makes key-value backends and has a metrics scope, as Java checks."""
    if supplier is None:
        msg = "storeSupplier can't be null"
        raise NullStoreArgumentError(msg)
    if not isinstance(supplier, KeyValueBytesStoreSupplier):
        msg = (
            f"{what} got {supplier!r}, not a key-value store supplier; pass one from "
            "Stores.in_memory_key_value_store(name), Stores.persistent_key_value_store(name), "
            "Stores.persistent_timestamped_key_value_store(name) or Stores.lru_map(name, size)"
        )
        raise StoreError(msg)
    if supplier.metrics_scope is None:
        msg = "storeSupplier's metricsScope can't be null"
        raise NullStoreArgumentError(msg)
    return supplier
