"""Suppliers and builders of window and session stores (Java's ``WindowBytesStoreSupplier`` etc.).

Invariant: a supplier validates retention and window size when made (as ``Stores`` does in Java),
``get()`` returns a new, unopened byte backend, and a builder's ``changelog_topic_config`` is what
Kafka Streams sets on the changelog topic: ``compact,delete`` (``delete`` for stores retaining
duplicates) with ``retention.ms = retention + windowstore.changelog.additional.retention.ms``.
"""

from __future__ import annotations

import logging
from typing import Any

from kslab.errors import StoreError
from kslab.state.backends.memory import InMemoryKeyValueBackend
from kslab.state.backends.rocksdb import RocksDBKeyValueBackend
from kslab.state.base import (
    InvalidStoreArgumentError,
    KeyValueBackend,
    NullStoreArgumentError,
    StoreBuilder,
    StoreSupplier,
)
from kslab.state.session import SessionStore
from kslab.state.window import TimestampedWindowStore, WindowStore

__all__ = [
    "ADDITIONAL_RETENTION_MS",
    "SessionBytesStoreSupplier",
    "SessionStoreBuilder",
    "TimestampedWindowStoreBuilder",
    "WindowBytesStoreSupplier",
    "WindowStoreBuilder",
]

ADDITIONAL_RETENTION_MS = 24 * 60 * 60 * 1000

log = logging.getLogger(__name__)


def _ms(value: Any, what: str, name: str) -> int:
    import datetime as dt

    if isinstance(value, dt.timedelta):
        return int(value.total_seconds() * 1000)
    if isinstance(value, bool) or not isinstance(value, int):
        msg = f"Store '{name}' got {what}={value!r}; pass int milliseconds or a timedelta"
        raise StoreError(msg)
    return value


def java_duration(ms: int) -> str:
    """``Duration.ofMillis(ms).toString()`` (ISO-8601, e.g. ``PT0.01S``), as Java's in-memory
    window store prints retention and size in its validation message."""
    if ms == 0:
        return "PT0S"
    sign = "-" if ms < 0 else ""
    hours, rest = divmod(abs(ms), 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds, millis = divmod(rest, 1000)
    out = "PT"
    if hours:
        out += f"{sign}{hours}H"
    if minutes:
        out += f"{sign}{minutes}M"
    if seconds or millis:
        fraction = f".{millis:03d}".rstrip("0") if millis else ""
        out += f"{sign}{seconds}{fraction}S"
    return out


def _check_window(name: str, retention: int, size: int, persistent: bool) -> None:
    """Java's ``Stores`` checks of a window store's retention and window size, same messages."""
    if retention < 0:
        msg = "retentionPeriod cannot be negative"
        raise InvalidStoreArgumentError(msg)
    if size < 0:
        msg = "windowSize cannot be negative"
        raise InvalidStoreArgumentError(msg)
    if size > retention:
        # Java's in-memory factory formats the Durations, its RocksDB one the millis
        shown_size, shown_retention = (size, retention) if persistent else \
            (java_duration(size), java_duration(retention))
        msg = (
            f"The retention period of the window store {name} must be no smaller than its "
            f"window size. Got size=[{shown_size}], retention=[{shown_retention}]"
        )
        raise InvalidStoreArgumentError(msg)


def _check_supplier(supplier: Any, expected: type, builder: str, null_message: str) -> None:
    """Java's builder constructor checks: a supplier, with a metrics scope."""
    if supplier is None:
        raise NullStoreArgumentError(null_message)
    if not isinstance(supplier, expected):
        msg = (
            f"{builder} got {supplier!r}, not a {expected.__name__}; pass one made by "
            "Stores (in_memory_... or persistent_...)"
        )
        raise StoreError(msg)
    if getattr(supplier, "metrics_scope", None) is None:
        msg = "storeSupplier's metricsScope can't be null"
        raise NullStoreArgumentError(msg)
    if supplier.name is None:
        msg = "name cannot be null"
        raise NullStoreArgumentError(msg)


class WindowBytesStoreSupplier(StoreSupplier):
    """Supplies window store backends: in memory or RocksDB, with retention and window size."""

    def __init__(self, name: str, retention_period: Any, window_size: Any,
                 retain_duplicates: bool, *, persistent: bool, timestamped: bool) -> None:
        super().__init__(name)
        retention = _ms(retention_period, "retention_period", name)
        size = _ms(window_size, "window_size", name)
        _check_window(name, retention, size, persistent)
        self.retention_period = retention
        self.window_size = size
        self.retain_duplicates = bool(retain_duplicates)
        self.persistent = persistent
        self.timestamped = timestamped
        self.metrics_scope = "rocksdb-window" if persistent else "in-memory-window"
        self.segment_interval = max(retention // 2, 60_000) if persistent else 1
        # True for the stores of emit-on-window-close aggregations (Java's
        # RocksDbIndexedTimeOrderedWindowBytesStoreSupplier): scans go by window start first
        self.time_ordered = False
        # a time-ordered store's key-first index (Java's hasIndex): key-range fetches go key
        # first within a segment, and its cache holds an index entry beside each window
        self.has_index = False

    def get(self) -> KeyValueBackend:
        """A new, unopened byte backend."""
        if self.persistent:
            return RocksDBKeyValueBackend(self.name)
        return InMemoryKeyValueBackend(self.name)

    def __repr__(self) -> str:
        kind = "persistent" if self.persistent else "in_memory"
        return (f"WindowBytesStoreSupplier({self.name!r}, {kind}, retention="
                f"{self.retention_period}, size={self.window_size}, "
                f"duplicates={self.retain_duplicates})")


class SessionBytesStoreSupplier(StoreSupplier):
    """Supplies session store backends: in memory or RocksDB, with a retention period."""

    def __init__(self, name: str, retention_period: Any, *, persistent: bool) -> None:
        super().__init__(name)
        retention = _ms(retention_period, "retention_period", name)
        if retention < 0:
            msg = "retentionPeriod cannot be negative"
            raise InvalidStoreArgumentError(msg)
        self.retention_period = retention
        self.persistent = persistent
        self.metrics_scope = "rocksdb-session" if persistent else "in-memory-session"
        self.segment_interval = max(retention // 2, 60_000)
        self.time_ordered = False  # as Java's RocksDbTimeOrderedSessionBytesStoreSupplier

    def get(self) -> KeyValueBackend:
        """A new, unopened byte backend."""
        if self.persistent:
            return RocksDBKeyValueBackend(self.name)
        return InMemoryKeyValueBackend(self.name)


class _WindowedBuilder(StoreBuilder):
    _supplier: Any

    @property
    def supplier(self) -> Any:
        """The supplier that makes each store's backend."""
        return self._supplier

    @property
    def persistent(self) -> bool:
        """True when built stores keep their data on disk."""
        return self._supplier.persistent

    @property
    def retention_period(self) -> int:
        """The retention of built stores."""
        return self._supplier.retention_period

    def changelog_topic_config(self, additional_retention_ms: int | None = None) -> dict[str, str]:
        """The changelog's topic configs, as Kafka Streams creates the topic."""
        extra = ADDITIONAL_RETENTION_MS if additional_retention_ms is None else \
            additional_retention_ms
        config = {"cleanup.policy": "compact,delete"}
        if getattr(self._supplier, "retain_duplicates", False):
            config["cleanup.policy"] = "delete"
        config.update(self._log_config)
        # as Java's Math.addExact fallback: an overflowing sum is Long.MAX_VALUE
        config.setdefault("retention.ms",
                          str(min(self._supplier.retention_period + extra, 2**63 - 1)))
        return config

    @property
    def log_config(self) -> dict[str, str]:
        """Topic configs for the changelog, including the windowed defaults."""
        return self.changelog_topic_config() if self._logging_enabled else {}


class WindowStoreBuilder(_WindowedBuilder):
    """Builds ``WindowStore``s (``Stores.window_store_builder``)."""

    _store_class: type[WindowStore] = WindowStore

    def __init__(self, supplier: WindowBytesStoreSupplier, key_serde: Any = None,
                 value_serde: Any = None) -> None:
        _check_supplier(supplier, WindowBytesStoreSupplier, type(self).__name__,
                        "storeSupplier can't be null")
        self._supplier = supplier
        super().__init__(supplier.name, key_serde, value_serde)

    def build(self) -> Any:
        """A new, uninitialized window store (behind the record cache if caching is on; a
        store retaining duplicates is never cached, and the builder forgets it was asked)."""
        s = self._supplier
        if s.retain_duplicates and self._caching_enabled:
            log.warning("Disabling caching for %s since store was configured to retain "
                        "duplicates", s.name)
            self._caching_enabled = False
        return _cached(self, self._store_class(
            self._name, s.get(), self._key_serde, self._value_serde,
            retention=s.retention_period, window_size=s.window_size,
            retain_duplicates=s.retain_duplicates, segment_interval=s.segment_interval,
            logging_enabled=self._logging_enabled, caching_enabled=self._caching_enabled,
            time_ordered=s.time_ordered, has_index=s.time_ordered and s.has_index,
        ))


class TimestampedWindowStoreBuilder(WindowStoreBuilder):
    """Builds ``TimestampedWindowStore``s (``Stores.timestamped_window_store_builder``)."""

    _store_class = TimestampedWindowStore


class SessionStoreBuilder(_WindowedBuilder):
    """Builds ``SessionStore``s (``Stores.session_store_builder``)."""

    def __init__(self, supplier: SessionBytesStoreSupplier, key_serde: Any = None,
                 value_serde: Any = None) -> None:
        _check_supplier(supplier, SessionBytesStoreSupplier, "SessionStoreBuilder",
                        "storeSupplier cannot be null")
        self._supplier = supplier
        super().__init__(supplier.name, key_serde, value_serde)

    def build(self) -> Any:
        """A new, uninitialized session store (behind the record cache if caching is on)."""
        return _cached(self, SessionStore(
            self._name, self._supplier.get(), self._key_serde, self._value_serde,
            retention=self._supplier.retention_period, logging_enabled=self._logging_enabled,
            caching_enabled=self._caching_enabled, time_ordered=self._supplier.time_ordered,
        ))


def _cached(builder: StoreBuilder, store: Any) -> Any:
    """``store`` behind Java's caching window/session store when the builder asks for caching."""
    if not builder.caching_enabled:
        return store
    from kslab.state.caching_window import CachingSessionStore, CachingWindowStore

    if isinstance(store, SessionStore):
        return CachingSessionStore(store)
    return CachingWindowStore(store)
