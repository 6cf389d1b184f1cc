"""A read-only view over one store's instances in several tasks (one per partition).

Keys live in exactly one partition, so ``get`` asks each instance in turn and range scans merge
the instances' sorted iterators by serialized key, keeping Kafka's byte order across partitions.
Engines share it (the TopologyTestDriver's ``get_*_store`` and the runtime's interactive
queries), so it lives with the stores; a write is refused in the driver's words unless an
engine's subclass says otherwise. ``stores`` is any sequence: the runtime's looks its stores up
again on every read (a view outlives a rebalance, as Java's).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from typing import Any

from kslab.errors import MissingArgumentError, StoreError
from kslab.records import KeyValue
from kslab.state.iterators import MergedIterator
from kslab.state.keyvalue import KEY_SERDE

__all__ = ["CompositeStoreView"]

_LONG_MAX = 2**63 - 1


class CompositeStoreView:
    """Reads a partitioned store as one; writes are refused."""

    def __init__(self, name: str, stores: Sequence[Any]) -> None:
        self.name = name
        self._stores = stores
        self.store_kind = getattr(stores[0], "store_kind", None)

    def get(self, key: Any) -> Any:
        """The value of ``key`` in whichever partition holds it."""
        for store in self._stores:
            value = store.get(key)
            if value is not None:
                return value
        return None

    def _merged(self, iterators: list[Any], reverse: bool = False) -> MergedIterator:
        key_serde = getattr(self._stores[0], "key_serde", None)
        topic = getattr(self._stores[0], "changelog_topic", self.name)

        def sort_key(kv: KeyValue) -> Any:
            if key_serde is None:
                return kv.key
            return key_serde.serialize(topic, kv.key)

        def merged() -> Iterator[KeyValue]:
            try:
                yield from heapq.merge(*iterators, key=sort_key, reverse=reverse)
            finally:  # exhausted: the per-partition scans let go at once
                for it in iterators:
                    close = getattr(it, "close", None)
                    if close is not None:
                        close()

        return MergedIterator(merged(), iterators)

    def all(self) -> MergedIterator:
        """Every entry across partitions, in key-byte order."""
        return self._merged([s.all() for s in self._stores])

    def reverse_all(self) -> MergedIterator:
        """Every entry across partitions, in reverse key-byte order."""
        return self._merged([s.reverse_all() for s in self._stores], reverse=True)

    def range(self, from_key: Any, to_key: Any) -> MergedIterator:
        """Entries with keys in ``[from_key, to_key]`` across partitions."""
        return self._merged([s.range(from_key, to_key) for s in self._stores])

    def reverse_range(self, from_key: Any = None, to_key: Any = None) -> MergedIterator:
        """Entries with keys in ``[from_key, to_key]`` across partitions, largest key first."""
        return self._merged([s.reverse_range(from_key, to_key) for s in self._stores],
                            reverse=True)

    def prefix_scan(self, prefix: Any, prefix_serde: Any = KEY_SERDE) -> MergedIterator:
        """Entries whose serialized key starts with ``prefix``, across partitions."""
        if prefix is None:
            msg = "prefix cannot be null"
            raise MissingArgumentError(msg)
        if prefix_serde is None:
            msg = "prefixKeySerializer cannot be null"
            raise MissingArgumentError(msg)
        return self._merged([s.prefix_scan(prefix, prefix_serde) for s in self._stores])

    def approximate_num_entries(self) -> int:
        """The sum over partitions, capped at Java's ``Long.MAX_VALUE`` as Java's overflow
        guard caps it."""
        return min(sum(s.approximate_num_entries() for s in self._stores), _LONG_MAX)

    def to_pandas(self) -> Any:
        """Every entry as a pandas frame (``key``, ``value``)."""
        import pandas as pd

        rows = list(self.all())
        return pd.DataFrame({"key": [r[0] for r in rows], "value": [r[1] for r in rows]})

    def to_polars(self) -> Any:
        """Every entry as a polars frame (``key``, ``value``)."""
        import polars as pl

        rows = list(self.all())
        return pl.DataFrame({"key": [r[0] for r in rows], "value": [r[1] for r in rows]},
                            strict=False)

    def __getattr__(self, name: str) -> Any:
        if name in ("put", "put_all", "put_if_absent", "delete"):
            msg = (
                f"store '{self.name}' spans several partitions in this driver and is read-only "
                "here; write to it from a processor"
            )
            raise StoreError(msg)
        raise AttributeError(name)
