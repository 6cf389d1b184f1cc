"""``Stores``: the factory of store suppliers and builders, as Java's ``state.Stores``.

Invariant: every factory validates its arguments when called, so a bad name or size fails on the
line that wrote it, not when a task later opens the store.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from kslab.state.base import InvalidStoreArgumentError, NullStoreArgumentError, check_store_name
from kslab.state.builders import KeyValueStoreBuilder, TimestampedKeyValueStoreBuilder
from kslab.state.suppliers import (
    InMemoryKeyValueBytesStoreSupplier,
    KeyValueBytesStoreSupplier,
    LRUKeyValueBytesStoreSupplier,
    RocksDBKeyValueBytesStoreSupplier,
)
from kslab.state.versioned import VersionedBytesStoreSupplier, VersionedKeyValueStoreBuilder
from kslab.state.windowed_builders import (
    SessionBytesStoreSupplier,
    SessionStoreBuilder,
    TimestampedWindowStoreBuilder,
    WindowBytesStoreSupplier,
    WindowStoreBuilder,
)

__all__ = ["Stores"]


class Stores:
    """Suppliers name a backend; builders add serdes, changelog and caching flags.

    >>> builder = Stores.key_value_store_builder(
    ...     Stores.persistent_key_value_store("counts"), "string", "long"
    ... ).with_logging_disabled()
    >>> builder.name, builder.persistent, builder.logging_enabled
    ('counts', True, False)
    """

    @staticmethod
    def in_memory_key_value_store(name: str) -> InMemoryKeyValueBytesStoreSupplier:
        """A supplier of sorted in-memory key-value backends."""
        check_store_name(name, "in_memory_key_value_store")
        return InMemoryKeyValueBytesStoreSupplier(name)

    @staticmethod
    def persistent_key_value_store(name: str) -> RocksDBKeyValueBytesStoreSupplier:
        """A supplier of RocksDB key-value backends."""
        check_store_name(name, "persistent_key_value_store")
        return RocksDBKeyValueBytesStoreSupplier(name, timestamped=False)

    @staticmethod
    def persistent_timestamped_key_value_store(name: str) -> RocksDBKeyValueBytesStoreSupplier:
        """A supplier of RocksDB backends meant for timestamped values."""
        check_store_name(name, "persistent_timestamped_key_value_store")
        return RocksDBKeyValueBytesStoreSupplier(name, timestamped=True)

    @staticmethod
    def lru_map(name: str, max_cache_size: int) -> LRUKeyValueBytesStoreSupplier:
        """A supplier of in-memory maps that keep the ``max_cache_size`` most recently used keys."""
        check_store_name(name, "lru_map")
        if isinstance(max_cache_size, int) and max_cache_size < 0:
            msg = "maxCacheSize cannot be negative"
            raise InvalidStoreArgumentError(msg)
        return LRUKeyValueBytesStoreSupplier(name, max_cache_size)

    @staticmethod
    def key_value_store_builder(
        supplier: KeyValueBytesStoreSupplier, key_serde: Any = None, value_serde: Any = None
    ) -> KeyValueStoreBuilder:
        """A builder of ``KeyValueStore``s; ``None`` serdes mean the configured defaults."""
        _require_supplier(supplier)
        return KeyValueStoreBuilder(supplier, key_serde, value_serde)

    @staticmethod
    def timestamped_key_value_store_builder(
        supplier: KeyValueBytesStoreSupplier, key_serde: Any = None, value_serde: Any = None
    ) -> TimestampedKeyValueStoreBuilder:
        """A builder of ``TimestampedKeyValueStore``s; ``None`` serdes mean the defaults."""
        _require_supplier(supplier)
        return TimestampedKeyValueStoreBuilder(supplier, key_serde, value_serde)

    @staticmethod
    def in_memory_window_store(name: str, retention_period: Any, window_size: Any,
                               retain_duplicates: bool = False) -> WindowBytesStoreSupplier:
        """A supplier of in-memory window stores (timestamped builders accept it too)."""
        check_store_name(name, "in_memory_window_store")
        _check_window_durations(name, retention_period, window_size)
        return WindowBytesStoreSupplier(name, retention_period, window_size, retain_duplicates,
                                        persistent=False, timestamped=True)

    @staticmethod
    def persistent_window_store(name: str, retention_period: Any, window_size: Any,
                                retain_duplicates: bool = False) -> WindowBytesStoreSupplier:
        """A supplier of RocksDB window stores."""
        check_store_name(name, "persistent_window_store")
        _check_window_durations(name, retention_period, window_size)
        return WindowBytesStoreSupplier(name, retention_period, window_size, retain_duplicates,
                                        persistent=True, timestamped=False)

    @staticmethod
    def persistent_timestamped_window_store(
        name: str, retention_period: Any, window_size: Any, retain_duplicates: bool = False
    ) -> WindowBytesStoreSupplier:
        """A supplier of RocksDB window stores meant for timestamped values."""
        check_store_name(name, "persistent_timestamped_window_store")
        _check_window_durations(name, retention_period, window_size)
        return WindowBytesStoreSupplier(name, retention_period, window_size, retain_duplicates,
                                        persistent=True, timestamped=True)

    @staticmethod
    def in_memory_session_store(name: str, retention_period: Any) -> SessionBytesStoreSupplier:
        """A supplier of in-memory session stores."""
        check_store_name(name, "in_memory_session_store")
        _check_not_negative(name, retention_period, "retentionPeriod")
        return SessionBytesStoreSupplier(name, retention_period, persistent=False)

    @staticmethod
    def persistent_session_store(name: str, retention_period: Any) -> SessionBytesStoreSupplier:
        """A supplier of RocksDB session stores."""
        check_store_name(name, "persistent_session_store")
        _check_not_negative(name, retention_period, "retentionPeriod")
        return SessionBytesStoreSupplier(name, retention_period, persistent=True)

    @staticmethod
    def window_store_builder(supplier: WindowBytesStoreSupplier, key_serde: Any = None,
                             value_serde: Any = None) -> WindowStoreBuilder:
        """A builder of ``WindowStore``s."""
        _require_supplier(supplier)
        return WindowStoreBuilder(supplier, key_serde, value_serde)

    @staticmethod
    def timestamped_window_store_builder(
        supplier: WindowBytesStoreSupplier, key_serde: Any = None, value_serde: Any = None
    ) -> TimestampedWindowStoreBuilder:
        """A builder of ``TimestampedWindowStore``s."""
        _require_supplier(supplier)
        return TimestampedWindowStoreBuilder(supplier, key_serde, value_serde)

    @staticmethod
    def session_store_builder(supplier: SessionBytesStoreSupplier, key_serde: Any = None,
                              value_serde: Any = None) -> SessionStoreBuilder:
        """A builder of ``SessionStore``s."""
        _require_supplier(supplier)
        return SessionStoreBuilder(supplier, key_serde, value_serde)

    @staticmethod
    def persistent_versioned_key_value_store(
        name: str, history_retention: Any, segment_interval: Any = None
    ) -> VersionedBytesStoreSupplier:
        """A supplier of versioned stores keeping ``history_retention`` ms of history."""
        check_store_name(name, "persistent_versioned_key_value_store")
        _check_not_negative(name, history_retention, "historyRetention")
        interval = None
        if segment_interval is not None:
            interval = _millis(segment_interval)
            if interval is None:
                msg = (f"Store '{name}' got segment_interval={segment_interval!r}; pass int ms "
                       "or a timedelta")
                raise InvalidStoreArgumentError(msg)
            if interval < 1:
                msg = "segmentInterval cannot be zero or negative"
                raise InvalidStoreArgumentError(msg)
        return VersionedBytesStoreSupplier(name, history_retention, segment_interval=interval)

    @staticmethod
    def versioned_key_value_store_builder(
        supplier: VersionedBytesStoreSupplier, key_serde: Any = None, value_serde: Any = None
    ) -> VersionedKeyValueStoreBuilder:
        """A builder of ``VersionedKeyValueStore``s."""
        _require_supplier(supplier)
        return VersionedKeyValueStoreBuilder(supplier, key_serde, value_serde)


def _require_supplier(supplier: object) -> None:
    """Java's ``Objects.requireNonNull(supplier, "supplier cannot be null")``."""
    if supplier is None:
        msg = "supplier cannot be null"
        raise NullStoreArgumentError(msg)


def _millis(duration: Any) -> int | None:
    """``duration`` (int ms or ``timedelta``) in milliseconds; ``None`` for anything else, which
    the supplier then rejects with its own message."""
    if isinstance(duration, dt.timedelta):
        return duration // dt.timedelta(milliseconds=1)
    if isinstance(duration, int) and not isinstance(duration, bool):
        return duration
    return None


def _check_not_negative(name: str, duration: Any, what: str) -> None:
    """Java's ``IllegalArgumentException("<what> cannot be negative")``."""
    millis = _millis(duration)
    if millis is not None and millis < 0:
        msg = f"{what} cannot be negative"
        raise InvalidStoreArgumentError(msg)


def _check_window_durations(name: str, retention_period: Any, window_size: Any) -> None:
    """The negative-duration checks of Java's window ``Stores`` factories, in Java's order (the
    supplier checks the size against the retention, printing them as Java does per store kind)."""
    _check_not_negative(name, retention_period, "retentionPeriod")
    _check_not_negative(name, window_size, "windowSize")
