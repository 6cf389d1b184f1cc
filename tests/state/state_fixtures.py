"""Test doubles for the state tests: a recording StoreContext (the seam the core implements) and
small serdes, so these tests need nothing but kslab.state.

Stores are real everywhere; only the task is faked, as Kafka's MockProcessorContext does.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

from kslab.records import TaskId

__all__ = ["FakeContext", "JsonSerde", "LongSerde", "StrSerde"]


class StrSerde:
    """UTF-8 strings, None to None."""

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        return None if data is None else data.encode()

    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        return None if data is None else data.decode()

    def __repr__(self) -> str:
        return "StrSerde()"


class LongSerde:
    """8-byte big-endian signed ints, as Kafka's LongSerializer."""

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        return None if data is None else struct.pack(">q", data)

    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        return None if data is None else struct.unpack(">q", data)[0]

    def __repr__(self) -> str:
        return "LongSerde()"


class JsonSerde:
    """Compact JSON."""

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        return None if data is None else json.dumps(data, separators=(",", ":")).encode()

    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        return None if data is None else json.loads(data)


class FakeContext:
    """A StoreContext that records every changelog write as (store, key, value, timestamp)."""

    def __init__(self, state_dir: Path | None = None, timestamp: int = 0) -> None:
        self.application_id = "app"
        self.task_id = TaskId(0, 0)
        self.state_dir = state_dir
        self.default_key_serde = StrSerde()
        self.default_value_serde = StrSerde()
        self.timestamp = timestamp
        self.changelog: list[tuple[str, bytes, bytes | None, int]] = []
        self.changelog_headers: list[Any] = []

    def changelog_topic(self, store_name: str) -> str:
        return f"{self.application_id}-{store_name}-changelog"

    def log_change(
        self, store_name: str, key: bytes, value: bytes | None, timestamp: int | None = None,
        headers: Any = None,
    ) -> None:
        self.changelog.append(
            (store_name, key, value, self.timestamp if timestamp is None else timestamp)
        )
        self.changelog_headers.append(headers)
