"""Kafka's ``ChangeLoggingVersionedKeyValueBytesStoreTest``: a logged versioned store writes each
put and delete to its store and logs it as a plain ``(key, value)`` record stamped with the
version's timestamp (not the record context's).

Mapping: the RocksDB bytes store and its change-logging wrapper are a logged persistent versioned
store of ``Bytes`` keys and values on ``FakeContext`` at time 0 (whose ``changelog`` records every
``logChange(name, key, value, timestamp)``, Java's ``MockRecordCollector``). Java's
``inner.put(...)`` that bypasses the log is a put through the store whose log record is cleared
before the step under test; ``inner.get(rawKey)``, which answers Java's ValueAndTimestamp bytes,
is the store's ``get`` answering ``VersionedRecord(value, timestamp)``. Skipped:
``shouldThrowIfInnerIsNotVersioned`` (the wrapper over a plain key-value store cannot be built in
kslab: the versioned builder takes only versioned suppliers, as Java's does by type),
``shouldDelegateInit``'s Mockito verification (kept as "the store opens"), and
``shouldNotLogOn(Delete|PutAll|PutIfAbsent)IfInnerStoreThrows`` (``delete(key)``, ``putAll`` and
``putIfAbsent`` exist on Java's ``VersionedBytesStore`` only to throw; kslab's versioned store
does not have them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import kslab as ks
from kslab.state.versioned import PUT_RETURN_CODE_VALID_TO_UNDEFINED
from tests.state.state_fixtures import FakeContext

HISTORY_RETENTION = 1000
NAME = "bytes_store"


@pytest.fixture
def context(tmp_path: Path) -> FakeContext:
    return FakeContext(state_dir=tmp_path / "0_0", timestamp=0)


@pytest.fixture
def store(context: FakeContext) -> Any:
    supplier = ks.Stores.persistent_versioned_key_value_store(NAME, HISTORY_RETENTION)
    opened = ks.Stores.versioned_key_value_store_builder(supplier, ks.serdes.Bytes(),
                                                         ks.serdes.Bytes()).build()
    opened.init(context)
    yield opened
    if opened.is_open:
        opened.close()


def inner_put(store: Any, context: FakeContext, key: bytes, value: bytes, ts: int) -> None:
    """Java's ``inner.put``: a version that reaches the store but not the collected log."""
    store.put(key, value, ts)
    context.changelog.clear()


def test_should_delegate_init(store: Any) -> None:
    assert store.is_open


def test_should_propagate_and_log_on_put(store: Any, context: FakeContext) -> None:
    raw_key, value, timestamp = b"k", b"foo", 10
    valid_to = store.put(raw_key, value, timestamp)
    assert valid_to == PUT_RETURN_CODE_VALID_TO_UNDEFINED
    assert store.get(raw_key) == ks.VersionedRecord(value, timestamp)
    assert context.changelog == [(NAME, raw_key, value, timestamp)]


def test_should_propagate_and_log_on_put_null(store: Any, context: FakeContext) -> None:
    raw_key, timestamp = b"k", 10
    inner_put(store, context, raw_key, b"foo", timestamp - 1)
    assert store.get(raw_key) == ks.VersionedRecord(b"foo", timestamp - 1)
    valid_to = store.put(raw_key, None, timestamp)
    assert valid_to == PUT_RETURN_CODE_VALID_TO_UNDEFINED
    assert store.get(raw_key) is None
    assert context.changelog == [(NAME, raw_key, None, timestamp)]


def test_should_propagate_and_log_on_delete_with_timestamp(store: Any,
                                                           context: FakeContext) -> None:
    raw_key, timestamp = b"k", 10
    inner_put(store, context, raw_key, b"foo", timestamp - 1)
    assert store.get(raw_key) == ks.VersionedRecord(b"foo", timestamp - 1)
    result = store.delete(raw_key, timestamp)
    assert result == ks.VersionedRecord(b"foo", timestamp - 1)
    assert store.get(raw_key) is None
    assert context.changelog == [(NAME, raw_key, None, timestamp)]


def test_should_delegate_get(store: Any, context: FakeContext) -> None:
    inner_put(store, context, b"k", b"v", 8)
    assert store.get(b"k") == ks.VersionedRecord(b"v", 8)


def test_should_delegate_get_with_timestamp(store: Any, context: FakeContext) -> None:
    inner_put(store, context, b"k", b"v", 8)
    assert store.get(b"k", 10) == ks.VersionedRecord(b"v", 8)
