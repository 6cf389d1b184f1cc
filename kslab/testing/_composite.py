"""A read-only view over one store's instances in several tasks (one per partition).

Keys live in exactly one partition, so ``get`` asks each instance in turn and range scans merge
the instances' sorted iterators by serialized key, keeping Kafka's byte order across partitions.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from typing import Any

from kslab.errors import StoreError
from kslab.records import KeyValue

__all__ = ["CompositeStoreView"]


class CompositeStoreView:
    """Reads a partitioned store as one; writes are refused."""

    def __init__(self, name: str, stores: list[Any]) -> None:
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

    def _merged(self, iterators: list[Any], reverse: bool = False) -> _MergedIterator:
        return _MergedIterator(self._merge(iterators, reverse))

    def _merge(self, iterators: list[Any], reverse: bool) -> Iterator[KeyValue]:
        key_serde = getattr(self._stores[0], "key_serde", None)
        topic = getattr(self._stores[0], "changelog_topic", self.name)

        def sort_key(kv: KeyValue) -> Any:
            if key_serde is None:
                return kv.key
            return key_serde.serialize(topic, kv.key)

        try:
            yield from heapq.merge(*iterators, key=sort_key, reverse=reverse)
        finally:
            for it in iterators:
                close = getattr(it, "close", None)
                if close is not None:
                    close()

    def all(self) -> _MergedIterator:
        """Every entry across partitions, in key-byte order."""
        return self._merged([s.all() for s in self._stores])

    def reverse_all(self) -> _MergedIterator:
        """Every entry across partitions, in reverse key-byte order."""
        return self._merged([s.reverse_all() for s in self._stores], reverse=True)

    def range(self, from_key: Any, to_key: Any) -> _MergedIterator:
        """Entries with keys in ``[from_key, to_key]`` across partitions."""
        return self._merged([s.range(from_key, to_key) for s in self._stores])

    def approximate_num_entries(self) -> int:
        """The sum over partitions."""
        return sum(s.approximate_num_entries() for s in self._stores)

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


class _MergedIterator:
    """Iterates merged entries; a context manager that closes the underlying iterators."""

    def __init__(self, entries: Iterator[KeyValue]) -> None:
        self._entries = entries

    def __iter__(self) -> _MergedIterator:
        return self

    def __next__(self) -> KeyValue:
        return next(self._entries)

    def close(self) -> None:
        """Close the per-partition iterators."""
        self._entries.close()  # type: ignore[attr-defined]

    def __enter__(self) -> _MergedIterator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
