"""The key-value store suppliers ``Stores`` hands out: which backend a store gets, and its name.

Invariant: ``get()`` returns a new, unopened backend on every call, so two stores built from one
supplier never share data; persistent backends open their directory only at the store's ``init``,
when the task's state directory is known.
"""

from __future__ import annotations

from abc import abstractmethod

from kslab.errors import StoreError
from kslab.state.backends.lru import LRUKeyValueBackend
from kslab.state.backends.memory import InMemoryKeyValueBackend
from kslab.state.backends.rocksdb import (
    RocksDBKeyValueBackend,
    RocksDBTimestampedKeyValueBackend,
)
from kslab.state.base import KeyValueBackend, StoreSupplier

__all__ = [
    "InMemoryKeyValueBytesStoreSupplier",
    "KeyValueBytesStoreSupplier",
    "LRUKeyValueBytesStoreSupplier",
    "RocksDBKeyValueBytesStoreSupplier",
]


class KeyValueBytesStoreSupplier(StoreSupplier):
    """Java's ``KeyValueBytesStoreSupplier``: makes ``KeyValueBackend``s.

    ``timestamped`` says whether the backend is meant to hold timestamped values; a timestamped
    builder over a persistent supplier that is not drops timestamps, as Java's adapter does.
    """

    timestamped: bool = False

    @abstractmethod
    def get(self) -> KeyValueBackend:
        """A new, unopened backend."""


class InMemoryKeyValueBytesStoreSupplier(KeyValueBytesStoreSupplier):
    """Supplies the sorted in-memory backend (``Stores.in_memory_key_value_store``)."""

    metrics_scope = "in-memory"
    persistent = False
    timestamped = True  # Java wraps in-memory stores in a marker that accepts timestamps as is

    def get(self) -> InMemoryKeyValueBackend:
        """A new, empty in-memory backend."""
        return InMemoryKeyValueBackend(self.name)


class RocksDBKeyValueBytesStoreSupplier(KeyValueBytesStoreSupplier):
    """Supplies the RocksDB backend (``Stores.persistent_[timestamped_]key_value_store``)."""

    metrics_scope = "rocksdb"
    persistent = True

    def __init__(self, name: str, timestamped: bool = False) -> None:
        super().__init__(name)
        self.timestamped = timestamped

    def get(self) -> RocksDBKeyValueBackend:
        """A new RocksDB backend (timestamped or not), opened at the store's ``init``."""
        if self.timestamped:
            return RocksDBTimestampedKeyValueBackend(self.name)
        return RocksDBKeyValueBackend(self.name)

    def __repr__(self) -> str:
        return f"RocksDBKeyValueBytesStoreSupplier({self.name!r}, timestamped={self.timestamped})"


class LRUKeyValueBytesStoreSupplier(KeyValueBytesStoreSupplier):
    """Supplies the bounded LRU backend (``Stores.lru_map``)."""

    metrics_scope = "in-memory-lru"
    persistent = False
    timestamped = True

    def __init__(self, name: str, max_cache_size: int) -> None:
        super().__init__(name)
        if isinstance(max_cache_size, bool) or not isinstance(max_cache_size, int):
            msg = (
                f"lru_map('{name}') got max_cache_size={max_cache_size!r}; pass an int number "
                "of entries"
            )
            raise StoreError(msg)
        if max_cache_size < 0:
            msg = (
                f"lru_map('{name}') got max_cache_size={max_cache_size}; maxCacheSize cannot be "
                "negative, pass 0 or more"
            )
            raise StoreError(msg)
        self.max_cache_size = max_cache_size

    def get(self) -> LRUKeyValueBackend:
        """A new, empty LRU backend."""
        return LRUKeyValueBackend(self.name, self.max_cache_size)

    def __repr__(self) -> str:
        return f"LRUKeyValueBytesStoreSupplier({self.name!r}, max_cache_size={self.max_cache_size})"
