"""The persistent key-value backend: one RocksDB database (``rocksdict``, raw bytes) per store.

Invariant: the database lives in the directory ``open`` is given (``state_dir / store_name``) and
every acknowledged write survives the process, even one killed without ``close``: writes go
through RocksDB's write-ahead log, which reopening replays. So ``flush`` is cheap and the test
driver may call it after every record; Java instead disables the WAL and flushes memtables on
commit, which costs about a millisecond per flush here. Scans read a consistent snapshot taken
when they start, and bound themselves in Python: rocksdict's ``ReadOptions`` bounds are not kept
alive with the iterator, so they could be read after being freed.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Iterable, Iterator
from pathlib import Path

from rocksdict import Options, Rdict, WriteBatch

from kslab.errors import StoreError
from kslab.state.backends._keys import is_inverted
from kslab.state.base import KeyValueBackend

__all__ = ["RocksDBKeyValueBackend", "RocksDBTimestampedKeyValueBackend"]

_ESTIMATE_NUM_KEYS = "rocksdb.estimate-num-keys"

_log = logging.getLogger("kslab.state")


class RocksDBKeyValueBackend(KeyValueBackend):
    """Java's ``RocksDBStore`` over bytes, opened at ``init`` and closed with the task."""

    persistent = True
    last_write_wins = True
    timestamped = False

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self._db: Rdict | None = None
        self.path: Path | None = None

    def open(self, directory: Path | None) -> None:
        """Open or create the database in ``directory``."""
        if directory is None:
            msg = (
                f"Store '{self.name}' is persistent but got no directory; open it through a "
                "store whose context has a state_dir"
            )
            raise StoreError(msg)
        options = Options(raw_mode=True)
        options.create_if_missing(True)
        # the store's table files are opened by this thread: RocksDB's default starts a pool of
        # 16 threads per open for that, which costs more than a store's few files (an open
        # took 4.4-5.3 ms in /dev/shm, 2.1-2.7 ms with one thread)
        options.set_max_file_opening_threads(1)
        try:
            directory.mkdir(parents=True, exist_ok=True)
            db = Rdict(str(directory), options)
        except Exception as exc:
            msg = (
                f"Store '{self.name}' cannot open RocksDB at {directory}: {exc}; if another "
                "store instance or process has it open, close that one first"
            )
            raise StoreError(msg) from exc
        self._db = db
        self.path = directory
        # Point operations go straight to rocksdict, without a Python frame of ours.
        self.get = db.get  # type: ignore[method-assign]
        self.put = db.put  # type: ignore[method-assign]

    def close(self) -> None:
        """Close the database; its files stay for the next ``open``."""
        db, self._db = self._db, None
        if db is not None:
            db.close()
        self.__dict__.pop("get", None)
        self.__dict__.pop("put", None)

    def flush(self) -> None:
        """Hand the write-ahead log to the OS (every write is already there)."""
        if self._db is not None:
            self._db.flush_wal(False)

    def get(self, key: bytes) -> bytes | None:  # replaced by Rdict.get while open
        """The value at ``key``, or ``None``."""
        return self._opened().get(key)

    def put(self, key: bytes, value: bytes) -> None:  # replaced by Rdict.put while open
        """Write ``value`` at ``key``."""
        self._opened().put(key, value)

    def put_if_absent(self, key: bytes, value: bytes) -> bytes | None:
        """Write only when ``key`` is absent; return the value that was there."""
        db = self._opened()
        old = db.get(key)
        if old is None:
            db.put(key, value)
        return old

    def put_all(self, entries: Iterable[tuple[bytes, bytes | None]]) -> None:
        """Write every pair in one atomic batch; a ``None`` value deletes."""
        batch = WriteBatch(raw_mode=True)
        for key, value in entries:
            if value is None:
                batch.delete(key)
            else:
                batch.put(key, value)
        self._opened().write(batch)

    def delete_all(self, keys: Iterable[bytes]) -> None:
        """Remove every key in one atomic batch (no read of the old values)."""
        batch = WriteBatch(raw_mode=True)
        for key in keys:
            batch.delete(key)
        self._opened().write(batch)

    def delete(self, key: bytes) -> bytes | None:
        """Remove ``key``; return the value that was there."""
        db = self._opened()
        old = db.get(key)
        if old is not None:
            db.delete(key)
        return old

    def range(self, from_key: bytes | None, to_key: bytes | None) -> Iterator[tuple[bytes, bytes]]:
        """Pairs with ``from_key <= key <= to_key``, ascending."""
        if is_inverted(self.name, from_key, to_key):
            return iter(())
        items = self._opened().items(from_key=from_key)
        if to_key is None:
            return iter(items)
        return itertools.takewhile(lambda item: item[0] <= to_key, items)

    def reverse_range(
        self, from_key: bytes | None, to_key: bytes | None
    ) -> Iterator[tuple[bytes, bytes]]:
        """Pairs with ``from_key <= key <= to_key``, descending."""
        if is_inverted(self.name, from_key, to_key):
            return iter(())
        items = self._opened().items(backwards=True, from_key=to_key)
        if from_key is None:
            return iter(items)
        return itertools.takewhile(lambda item: item[0] >= from_key, items)

    def prefix_scan(self, prefix: bytes) -> Iterator[tuple[bytes, bytes]]:
        """Pairs whose key starts with ``prefix``, ascending."""
        items = self._opened().items(from_key=prefix or None)
        return itertools.takewhile(lambda item: item[0].startswith(prefix), items)

    def approximate_num_entries(self) -> int:
        """RocksDB's estimate of the number of keys, as Java reports it."""
        return int(self._opened().property_int_value(_ESTIMATE_NUM_KEYS) or 0)

    def snapshot(self) -> list[tuple[bytes, bytes]]:
        """Every pair, in key order."""
        return list(self._opened().items())

    def restore_snapshot(self, snapshot: object) -> None:
        """Delete every key, then write the pairs of ``snapshot`` in one batch."""
        db = self._opened()
        first = next(iter(db.keys()), None)
        if first is not None:
            last = next(iter(db.keys(backwards=True)))
            db.delete_range(first, last + b"\x00")
        self.put_all(snapshot)  # type: ignore[arg-type]

    def _opened(self) -> Rdict:
        db = self._db
        if db is None:
            msg = f"RocksDB for store '{self.name}' is not open; init the store first"
            raise StoreError(msg)
        return db


class RocksDBTimestampedKeyValueBackend(RocksDBKeyValueBackend):
    """Java's ``RocksDBTimestampedStore``: the same storage, marked as holding values with their
    timestamps, so a timestamped builder keeps them instead of dropping them."""

    timestamped = True

    def open(self, directory: Path | None) -> None:
        """Open or create the database, logging the mode as Java's store does."""
        super().open(directory)
        _log.info("Opening store %s in regular mode", self.name)
