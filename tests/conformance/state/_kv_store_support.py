"""Kafka's ``KeyValueStoreTestDriver`` and ``InternalMockProcessorContext`` for the key-value store
conformance tests: a ``StoreContext`` that records the changelog the way the Java driver does
(``flushedEntryStored``, ``flushedEntryRemoved``) and replays a restore log into a store.

Stores are opened directly, as ``tests/state`` does: ``builder.build()`` then ``store.init(ctx)``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import kslab as ks
from kslab.records import TaskId

__all__ = ["RecordingContext", "contents", "size_of"]


class RecordingContext:
    """A task context whose changelog writes land in ``flushed_entries`` / ``flushed_removals``,
    decoded with the default serdes (Java's ``KeyValueStoreTestDriver.send``)."""

    def __init__(self, state_dir: Path | None = None, key_serde: Any = None,
                 value_serde: Any = None) -> None:
        self.application_id = "mock-app"
        self.task_id = TaskId(0, 0)
        self.state_dir = state_dir
        self.default_key_serde = key_serde or ks.serdes.Integer()
        self.default_value_serde = value_serde or ks.serdes.String()
        self.timestamp = 10  # context.setTime(10)
        self.changelog: list[tuple[str, bytes, bytes | None, int]] = []
        self.flushed_entries: dict[Any, Any] = {}
        self.flushed_removals: set[Any] = set()
        self.restore_log: list[tuple[bytes, bytes | None]] = []
        # the record context a caching store reads (ProcessorRecordContext) and the configs its
        # ThreadCache is sized from (the Java driver's cache is 1 MiB)
        self.record = ks.Record(None, None, self.timestamp)
        self.topic, self.partition, self.offset = "topic", 0, 0
        self.configs: dict[str, Any] = {"statestore.cache.max.bytes": 1024 * 1024}

    def app_configs(self) -> dict[str, Any]:
        return self.configs

    def changelog_topic(self, store_name: str) -> str:
        return f"{self.application_id}-{store_name}-changelog"

    def log_change(self, store_name: str, key: bytes, value: bytes | None,
                   timestamp: int | None = None, headers: Any = None) -> None:
        self.changelog.append(
            (store_name, key, value, self.timestamp if timestamp is None else timestamp)
        )
        topic = self.changelog_topic(store_name)
        decoded_key = self.default_key_serde.deserialize(topic, key)
        if value is None:
            self.flushed_removals.add(decoded_key)
            self.flushed_entries.pop(decoded_key, None)
        else:
            self.flushed_entries[decoded_key] = self.default_value_serde.deserialize(topic, value)
            self.flushed_removals.discard(decoded_key)

    # -- KeyValueStoreTestDriver ---------------------------------------------------------------

    def flushed_entry_stored(self, key: Any) -> Any:
        return self.flushed_entries.get(key)

    def flushed_entry_removed(self, key: Any) -> bool:
        return key in self.flushed_removals

    def num_flushed_entry_stored(self) -> int:
        return len(self.flushed_entries)

    def num_flushed_entry_removed(self) -> int:
        return len(self.flushed_removals)

    def add_entry_to_restore_log(self, key: Any, value: Any) -> None:
        topic = "restore"
        self.restore_log.append((
            self.default_key_serde.serialize(topic, key),
            None if value is None else self.default_value_serde.serialize(topic, value),
        ))

    def restore(self, store: Any) -> None:
        """``context.restore(store.name(), driver.restoredEntries())``."""
        store.restore_batch(self.restore_log)


def size_of(store: Any) -> int:
    """``driver.sizeOf(store)``: the entries ``all()`` yields."""
    with store.all() as iterator:
        return sum(1 for _ in iterator)


def contents(iterator: Any) -> dict[Any, Any]:
    """``getContents(iter)``: the pairs of ``iterator`` as a dict, read with has_next/next."""
    result = {}
    while iterator.has_next():
        entry = iterator.next()
        result[entry.key] = entry.value
    return result
