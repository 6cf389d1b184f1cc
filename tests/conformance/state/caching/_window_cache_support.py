"""Shared by the caching window/session store conformance tests: Java's
``InternalMockProcessorContext`` with a ``ThreadCache`` of a given size and a record context,
and ``CacheFlushListenerStub`` (what a caching store forwarded, decoded to strings).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import kslab as ks
from tests.state.state_fixtures import FakeContext

__all__ = ["CacheContext", "FlushListenerStub", "memory_cache_entry_size"]


class CacheContext(FakeContext):
    """A task context whose thread cache holds ``cache_bytes`` and whose current record is
    ``ProcessorRecordContext(timestamp, offset 0, partition 0, topic)``."""

    def __init__(self, state_dir: Path | None, cache_bytes: int, timestamp: int,
                 topic: str = "topic") -> None:
        super().__init__(state_dir, timestamp)
        self.record = ks.Record(None, None, timestamp)
        self.topic, self.partition, self.offset = topic, 0, 0
        self.configs: dict[str, Any] = {"statestore.cache.max.bytes": cache_bytes}

    def app_configs(self) -> dict[str, Any]:
        return self.configs


class FlushListenerStub:
    """Java's ``CacheFlushListenerStub``: ``forwarded[key] = (new, old)``, keys and values
    decoded from bytes to str (its ``StringDeserializer``s)."""

    def __init__(self) -> None:
        self.forwarded: dict[Any, tuple[Any, Any]] = {}

    def __call__(self, key: ks.Windowed, new: Any, old: Any, record: Any = None) -> None:
        windowed = ks.Windowed(key.key.decode(), key.window)
        self.forwarded[windowed] = (_text(new), _text(old))


def _text(value: Any) -> Any:
    return value.decode() if isinstance(value, bytes) else value


def memory_cache_entry_size(key: bytes, value: bytes, topic: str) -> int:
    """Java's ``ThreadCacheTest.memoryCacheEntrySize``."""
    return len(key) + len(value) + 1 + 8 + 8 + 4 + len(topic) + len(key) + 8 + 8 + 8
