"""Kafka's ``RocksDBTimestampedStoreTest``: every ``RocksDBStoreTest`` (and so
``AbstractKeyValueStoreTest``) test again, with the raw store a ``RocksDBTimestampedStore``, plus
the log line of a store opened in regular mode.

Mapping: the raw ``RocksDBTimestampedStore("db-name", ...)`` is
``Stores.persistent_timestamped_key_value_store("db-name")`` in a ``key_value_store_builder`` with
``serdes.Bytes()`` keys and values (a plain view of the raw bytes, as the Java test uses it);
``LogCaptureAppender`` is pytest's ``caplog`` at INFO. Skipped, as RocksDB column-family
migration internals: the rest of ``shouldOpenExistingStoreInRegularMode`` (it opens the database
with RocksJava to inspect its column families) and ``shouldMigrateDataFromDefaultToTimestamp
ColumnFamily``.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

import kslab as ks
from tests.conformance.state._kv_store_support import RecordingContext
from tests.conformance.state.test_rocks_db_store_test import *  # noqa: F403

B = ks.serdes.Bytes()
DB_NAME = "db-name"


def _raw_store() -> Any:
    return ks.Stores.key_value_store_builder(
        ks.Stores.persistent_timestamped_key_value_store(DB_NAME), B, B
    ).with_logging_disabled().build()


@pytest.fixture
def rocks_db_context(tmp_path: Any) -> RecordingContext:
    return RecordingContext(tmp_path / "0_0", ks.serdes.String(), ks.serdes.String())


@pytest.fixture
def rocks_db_store(rocks_db_context: RecordingContext) -> Any:
    """``new RocksDBTimestampedStore(DB_NAME, METRICS_SCOPE)`` initialized."""
    opened = _raw_store()
    opened.init(rocks_db_context)
    yield opened
    opened.close()


def test_should_open_new_store_in_regular_mode(rocks_db_context: Any, caplog: Any) -> None:
    store = _raw_store()
    with caplog.at_level(logging.INFO):
        store.init(rocks_db_context)
    try:
        assert f"Opening store {DB_NAME} in regular mode" in caplog.messages
        with store.all() as iterator:
            assert not iterator.has_next()
    finally:
        store.close()


def test_should_open_existing_store_in_regular_mode(rocks_db_context: Any, caplog: Any) -> None:
    store = _raw_store()
    store.init(rocks_db_context)
    store.put(b"key", b"timestamped")
    store.close()
    with caplog.at_level(logging.INFO):
        store.init(rocks_db_context)
    try:
        assert f"Opening store {DB_NAME} in regular mode" in caplog.messages
        assert store.get(b"key") == b"timestamped"
        assert store.approximate_num_entries() == 1
    finally:
        store.close()
