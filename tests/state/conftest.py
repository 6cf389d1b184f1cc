"""Fixtures for the state tests: an open-store factory over every backend and a fake context."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from state_fixtures import FakeContext, LongSerde, StrSerde

from kslab.state import Stores

SUPPLIERS = {
    "memory": lambda name: Stores.in_memory_key_value_store(name),
    "rocksdb": lambda name: Stores.persistent_key_value_store(name),
    "rocksdb-ts": lambda name: Stores.persistent_timestamped_key_value_store(name),
    "lru": lambda name: Stores.lru_map(name, 1000),
}


@pytest.fixture
def context(tmp_path: Path) -> FakeContext:
    """A context whose state directory is a fresh temporary directory."""
    return FakeContext(state_dir=tmp_path / "0_0")


@pytest.fixture
def make_kv(context: FakeContext) -> Iterator[Any]:
    """``make_kv(kind, key_serde, value_serde, name='s', logging=True)``: an open KeyValueStore."""
    opened: list[Any] = []

    def make(
        kind: str = "memory",
        key_serde: Any = None,
        value_serde: Any = None,
        *,
        name: str = "s",
        logging: bool = True,
        timestamped: bool = False,
    ) -> Any:
        factory = (
            Stores.timestamped_key_value_store_builder
            if timestamped
            else Stores.key_value_store_builder
        )
        builder = factory(
            SUPPLIERS[kind](name), key_serde or StrSerde(), value_serde or LongSerde()
        )
        if not logging:
            builder.with_logging_disabled()
        store = builder.build()
        store.init(context)
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.close()
