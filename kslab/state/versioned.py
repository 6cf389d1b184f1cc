"""Versioned key-value stores (KIP-889): every value of a key with the time it became valid.

The backend holds, per serialized key, the key's versions as one value: a list of
``(timestamp, value bytes or tombstone)`` sorted by timestamp. Invariant: a version is readable
while ``get(key, as_of)`` asks for a time at or after ``observed stream time - history
retention``; a put older than that is refused (``PUT_RETURN_CODE_NOT_PUT``, counted as a dropped
record), and versions that can no longer be asked for are dropped, as Java's
``RocksDBVersionedStore`` does. Tombstones are versions too (they bound older versions put
later), and the latest version of a key never expires. The changelog
carries, as Java's, every put and delete (refused ones too) as a plain ``(key bytes, value
bytes or tombstone)`` record stamped with the version's timestamp, so a replay rebuilds it.
"""

from __future__ import annotations

import datetime as dt
import logging
import struct
from collections.abc import Iterable
from typing import Any

from kslab.errors import StoreError
from kslab.records import ValueAndTimestamp, VersionedRecord
from kslab.state._frames import to_pandas, to_polars
from kslab.state._typed import TypedStore
from kslab.state.backends.memory import InMemoryKeyValueBackend
from kslab.state.backends.rocksdb import RocksDBKeyValueBackend
from kslab.state.base import (
    KeyValueBackend,
    NullStoreArgumentError,
    StoreBuilder,
    StoreSupplier,
)

__all__ = [
    "PUT_RETURN_CODE_NOT_PUT",
    "PUT_RETURN_CODE_VALID_TO_UNDEFINED",
    "VersionedBytesStoreSupplier",
    "VersionedKeyValueStore",
    "VersionedKeyValueStoreBuilder",
]

PUT_RETURN_CODE_NOT_PUT = -(2**63)
PUT_RETURN_CODE_VALID_TO_UNDEFINED = -1

log = logging.getLogger("kslab.state")
_ENTRY = struct.Struct(">qi")


def _require_key(key: Any) -> None:
    """Java's ``Objects.requireNonNull(key, "key cannot be null")`` of the metered versioned
    store's ``put``, ``get`` and ``delete``."""
    if key is None:
        msg = "key cannot be null"
        raise NullStoreArgumentError(msg)


def _encode(versions: list[tuple[int, bytes | None]]) -> bytes:
    return b"".join(_ENTRY.pack(ts, -1 if v is None else len(v)) + (v or b"")
                    for ts, v in versions)


def _decode(data: bytes) -> list[tuple[int, bytes | None]]:
    versions = []
    pos = 0
    while pos < len(data):
        ts, size = _ENTRY.unpack_from(data, pos)
        pos += 12
        if size < 0:
            versions.append((ts, None))
        else:
            versions.append((ts, data[pos:pos + size]))
            pos += size
    return versions


class VersionedKeyValueStore(TypedStore):
    """Java's ``VersionedKeyValueStore<K, V>``: ``put(key, value, timestamp)``, ``get(key, as_of)``.

    >>> from kslab.state import Stores
    >>> supplier = Stores.persistent_versioned_key_value_store("prices", 60_000)
    >>> Stores.versioned_key_value_store_builder(supplier, "string", "long").build()
    <VersionedKeyValueStore 'prices' (RocksDB, not open)>
    """

    __slots__ = ("_dropped", "_history", "_observed")

    store_kind = "versioned_key_value"

    def __init__(self, name: str, backend: KeyValueBackend, key_serde: Any = None,
                 value_serde: Any = None, *, history_retention: int,
                 logging_enabled: bool = True) -> None:
        super().__init__(name, backend, key_serde, value_serde, logging_enabled=logging_enabled)
        self._history = history_retention
        self._observed = -(2**63)
        self._dropped: Any = None  # the task's dropped-records counter, once open

    def init(self, context: Any, root: Any = None) -> None:
        """Open the backend; expired writes count as the task's dropped records (Java's
        ``expiredRecordSensor``)."""
        super().init(context, root)
        self._dropped = getattr(context, "record_dropped", None)

    def _expired(self, message: str) -> None:
        log.warning(message)
        if self._dropped is not None:
            self._dropped()

    @property
    def history_retention(self) -> int:
        """How far back (ms of stream time) ``get(key, as_of)`` can look."""
        return self._history

    def put(self, key: Any, value: Any, timestamp: int | None = None) -> int:
        """Add a version; returns its ``valid_to``, -1 if it is the latest, or NOT_PUT."""
        _require_key(key)
        if timestamp is None and isinstance(value, ValueAndTimestamp):
            value, timestamp = value.value, value.timestamp
        if timestamp is None:
            msg = f"Versioned store '{self._name}' needs put(key, value, timestamp)"
            raise StoreError(msg)
        key_bytes = self.serialize_key(key)
        raw = self.serialize_value(value)
        code = self.put_bytes(key_bytes, raw, timestamp)
        if code == PUT_RETURN_CODE_NOT_PUT:
            self._expired("Skipping record for expired put.")
        if self._log is not None:  # as Java's ChangeLoggingVersionedKeyValueBytesStore: always
            self._log(self._name, key_bytes, raw, timestamp)
        return code

    def put_bytes(self, key_bytes: bytes, raw: bytes | None, timestamp: int) -> int:
        """Write ``raw`` (``None``: a tombstone) for ``key_bytes`` at ``timestamp``, logged; Java's
        put return code."""
        self._observed = max(self._observed, timestamp)
        if timestamp < self._observed - self._history:
            return PUT_RETURN_CODE_NOT_PUT  # restores skip it silently, as Java's
        stored = self._bget(key_bytes)
        versions = [] if stored is None else _decode(stored)
        versions = [v for v in versions if v[0] != timestamp]
        versions.append((timestamp, raw))
        versions.sort(key=lambda v: v[0])
        later = [ts for ts, _ in versions if ts > timestamp]
        versions = self._expire(versions)
        if not versions:  # tombstones stay: they bound older versions put later (Java)
            self._bdelete(key_bytes)
        else:
            self._bput(key_bytes, _encode(versions))
        return later[0] if later else PUT_RETURN_CODE_VALID_TO_UNDEFINED

    def _expire(self, versions: list[tuple[int, bytes | None]]) -> list[tuple[int, bytes | None]]:
        horizon = self._observed - self._history
        keep = []
        for i, (ts, value) in enumerate(versions):
            valid_to = versions[i + 1][0] if i + 1 < len(versions) else None
            if valid_to is not None and valid_to <= horizon:
                continue
            keep.append((ts, value))
        if keep and keep[-1][1] is None and keep[-1][0] <= horizon:
            keep.clear()  # a latest tombstone no read or put can still see: as if nothing
        return keep

    def delete(self, key: Any, timestamp: int) -> VersionedRecord | None:
        """Add a tombstone at ``timestamp``; returns the version that was valid then (``None``
        when the delete is older than history retention and so does not happen, as Java's)."""
        _require_key(key)
        if timestamp < self._observed - self._history:
            self._expired("Skipping record for expired delete.")
            if self._log is not None:  # Java's change-logging layer logs it all the same
                self._log(self._name, self.serialize_key(key), None, timestamp)
            return None
        previous = self.get(key, timestamp)
        self.put(key, None, timestamp)
        return previous

    def get(self, key: Any, as_of_timestamp: int | None = None) -> VersionedRecord | None:
        """The latest version, or the one valid at ``as_of_timestamp``; ``None`` if none."""
        _require_key(key)
        if isinstance(as_of_timestamp, dt.datetime):
            as_of_timestamp = int(as_of_timestamp.timestamp() * 1000)
        stored = self._bget(self.serialize_key(key))
        if stored is None:
            return None
        versions = _decode(stored)
        if as_of_timestamp is None:
            ts, value = versions[-1]
            return None if value is None else VersionedRecord(self.decode_value(value), ts)
        if as_of_timestamp < self._observed - self._history:
            # the latest version of a key never expires: Java still returns it when it is
            # valid at ``as_of_timestamp``; anything older is gone
            ts, value = versions[-1]
            if value is not None and ts <= as_of_timestamp:
                return VersionedRecord(self.decode_value(value), ts)
            log.warning("Returning null for expired get.")
            return None
        for i in range(len(versions) - 1, -1, -1):
            ts, value = versions[i]
            if ts <= as_of_timestamp:
                if value is None:
                    return None
                valid_to = versions[i + 1][0] if i + 1 < len(versions) else None
                return VersionedRecord(self.decode_value(value), ts, valid_to)
        return None

    def versions(self, key: Any, from_time: int | None = None, to_time: int | None = None, *,
                 ascending: bool = False) -> list[VersionedRecord]:
        """``key``'s versions valid at some time in ``[from_time, to_time]`` (``None``: open),
        newest first unless ``ascending``; tombstones are left out (IQv2's
        ``MultiVersionedKeyQuery``, as Java's ``RocksDBVersionedStore.get(key, from, to,
        order)``: past history retention only the latest version can still answer)."""
        _require_key(key)
        low = -(2**63) if from_time is None else from_time
        high = 2**63 - 1 if to_time is None else to_time
        stored = self._bget(self.serialize_key(key))
        versions = [] if stored is None else _decode(stored)
        if high < self._observed - self._history:
            versions = versions[-1:]  # the latest version of a key never expires
        out = []
        for i, (ts, value) in enumerate(versions):
            valid_to = versions[i + 1][0] if i + 1 < len(versions) else None
            if value is not None and ts <= high and (valid_to is None or valid_to > low):
                out.append(VersionedRecord(self.decode_value(value), ts, valid_to))
        return out if ascending else out[::-1]

    def to_pandas(self) -> Any:
        """Every version: columns ``key``, ``value``, ``timestamp``, ``valid_to``."""
        return to_pandas(self._columns())

    def to_polars(self) -> Any:
        """Every version as a polars DataFrame."""
        return to_polars(self._columns())

    def _columns(self) -> dict[str, list[Any]]:
        columns: dict[str, list[Any]] = {"key": [], "value": [], "timestamp": [],
                                         "valid_to": []}
        for key_bytes, stored in self._backend.all():
            versions = _decode(stored)
            for i, (ts, value) in enumerate(versions):
                if value is None:
                    continue
                columns["key"].append(self.decode_key(key_bytes))
                columns["value"].append(self.decode_value(value))
                columns["timestamp"].append(ts)
                columns["valid_to"].append(versions[i + 1][0] if i + 1 < len(versions) else None)
        return columns

    def restore_batch(self, records: Iterable[tuple[Any, ...]]) -> None:
        for record in records:
            timestamp = record[2] if len(record) > 2 and record[2] is not None else 0
            self.put_bytes(record[0], record[1], timestamp)


def _default_segment_interval(history_retention: int) -> int:
    """Java's ``RocksDbVersionedKeyValueBytesStoreSupplier.defaultSegmentInterval``."""
    if history_retention <= 60_000:
        return max(history_retention // 3, 2_000)
    if history_retention <= 300_000:
        return max(history_retention // 5, 20_000)
    if history_retention <= 3_600_000:
        return max(history_retention // 12, 60_000)
    return max(history_retention // 24, 300_000)


class VersionedBytesStoreSupplier(StoreSupplier):
    """Supplies versioned store backends (RocksDB, or in memory for tests)."""

    def __init__(self, name: str, history_retention: Any, *, persistent: bool = True,
                 segment_interval: int | None = None) -> None:
        super().__init__(name)
        if isinstance(history_retention, dt.timedelta):
            history_retention = int(history_retention.total_seconds() * 1000)
        if isinstance(history_retention, bool) or not isinstance(history_retention, int) or \
                history_retention < 0:
            msg = (f"Store '{name}' got history_retention={history_retention!r}; pass "
                   "non-negative int ms")
            raise StoreError(msg)
        self.history_retention = history_retention
        self.persistent = persistent
        self.segment_interval = _default_segment_interval(history_retention) \
            if segment_interval is None else segment_interval
        self.metrics_scope = "rocksdb"

    def history_retention_ms(self) -> int:
        """How far back (ms) reads can look (Java's ``historyRetentionMs()``)."""
        return self.history_retention

    def segment_interval_ms(self) -> int:
        """Java's ``segmentIntervalMs()``: the given interval, or the default for the history
        retention (kslab keeps versions per key, so it only describes the store)."""
        return self.segment_interval

    def get(self) -> KeyValueBackend:
        """A new, unopened backend."""
        if self.persistent:
            return RocksDBKeyValueBackend(self.name)
        return InMemoryKeyValueBackend(self.name)


class VersionedKeyValueStoreBuilder(StoreBuilder):
    """Builds ``VersionedKeyValueStore``s; their changelogs are compacted topics."""

    def __init__(self, supplier: VersionedBytesStoreSupplier, key_serde: Any = None,
                 value_serde: Any = None) -> None:
        if supplier is None:
            msg = "storeSupplier can't be null"
            raise NullStoreArgumentError(msg)
        if not isinstance(supplier, VersionedBytesStoreSupplier):
            msg = (f"VersionedKeyValueStoreBuilder got {supplier!r}; pass "
                   "Stores.persistent_versioned_key_value_store(name, history_retention)")
            raise StoreError(msg)
        self._supplier = supplier
        super().__init__(supplier.name, key_serde, value_serde)

    def with_caching_enabled(self) -> VersionedKeyValueStoreBuilder:
        """Refused, as in Java: versioned stores have no record cache."""
        msg = "Versioned stores do not support caching"
        raise StoreError(msg)

    @property
    def persistent(self) -> bool:
        """True for RocksDB."""
        return self._supplier.persistent

    @property
    def history_retention(self) -> int:
        """The history retention of built stores (the grace a versioned join may use)."""
        return self._supplier.history_retention

    @property
    def log_config(self) -> dict[str, str]:
        """Compacted, with ``min.compaction.lag.ms`` = history retention + 1 day, as Java."""
        if not self._logging_enabled:
            return {}
        config = {"cleanup.policy": "compact",
                  "min.compaction.lag.ms": str(self._supplier.history_retention + 86_400_000)}
        config.update(self._log_config)
        return config

    def build(self) -> VersionedKeyValueStore:
        """A new, uninitialized versioned store."""
        return VersionedKeyValueStore(self._name, self._supplier.get(), self._key_serde,
                                      self._value_serde,
                                      history_retention=self._supplier.history_retention,
                                      logging_enabled=self._logging_enabled)
