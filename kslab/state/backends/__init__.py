"""Byte backends under the typed stores: sorted in-memory, RocksDB on disk, and the LRU map.

Each backend implements ``kslab.state.base.KeyValueBackend`` and nothing else: no serdes, no
changelog, keys ordered as unsigned bytes.
"""

from kslab.state.backends.lru import LRUKeyValueBackend
from kslab.state.backends.memory import InMemoryKeyValueBackend
from kslab.state.backends.rocksdb import RocksDBKeyValueBackend, RocksDBTimestampedKeyValueBackend

__all__ = [
    "InMemoryKeyValueBackend",
    "LRUKeyValueBackend",
    "RocksDBKeyValueBackend",
    "RocksDBTimestampedKeyValueBackend",
]
