"""Kafka's ``ReadOnlyKeyValueStoreFacadeTest``: the read side of the plain key-value view of a
timestamped store, over a mocked ``TimestampedKeyValueStore``, strips timestamps from ``get`` and
from every iterator it hands out.

Mapping: Java's ``ReadOnlyKeyValueStoreFacade`` is the read half of ``KeyValueStoreFacade`` (what
``get_key_value_store`` hands out for a timestamped store); the mocked store and iterator are
``mock.create_autospec`` objects, the iterator's ``next()`` returning the Java pairs in turn;
``StringSerializer`` is ``serdes.String()``. Nothing is skipped.
"""

from __future__ import annotations

from unittest import mock

import pytest

import kslab as ks
from kslab.state import KeyValueIterator, KeyValueStoreFacade

PAIRS = [ks.KeyValue("key1", ks.ValueAndTimestamp("value1", 21)),
         ks.KeyValue("key2", ks.ValueAndTimestamp("value2", 42))]


@pytest.fixture
def store():
    return mock.create_autospec(ks.TimestampedKeyValueStore, instance=True)


@pytest.fixture
def iterator():
    mocked = mock.create_autospec(KeyValueIterator, instance=True)
    mocked.next.side_effect = list(PAIRS)
    mocked.__next__.side_effect = list(PAIRS)
    return mocked


@pytest.fixture
def facade(store):
    return KeyValueStoreFacade(store)


def test_should_return_plain_value_on_get(facade, store) -> None:
    store.get.side_effect = lambda key: ks.ValueAndTimestamp("value", 42) if key == "key" else None
    assert facade.get("key") == "value"
    assert facade.get("unknownKey") is None


def test_should_return_plain_key_value_pairs_for_range_iterator(facade, store, iterator) -> None:
    store.range.return_value = iterator
    result = facade.range("key1", "key2")
    store.range.assert_called_once_with("key1", "key2")
    assert result.next() == ks.KeyValue("key1", "value1")
    assert result.next() == ks.KeyValue("key2", "value2")


def test_should_return_plain_key_value_pairs_for_prefix_scan(facade, store, iterator) -> None:
    serializer = ks.serdes.String()
    store.prefix_scan.return_value = iterator
    result = facade.prefix_scan("key", serializer)
    store.prefix_scan.assert_called_once_with("key", serializer)
    assert result.next() == ks.KeyValue("key1", "value1")
    assert result.next() == ks.KeyValue("key2", "value2")


def test_should_return_plain_key_value_pairs_for_all_iterator(facade, store, iterator) -> None:
    store.all.return_value = iterator
    result = facade.all()
    assert result.next() == ks.KeyValue("key1", "value1")
    assert result.next() == ks.KeyValue("key2", "value2")


def test_should_forward_approximate_num_entries(facade, store) -> None:
    store.approximate_num_entries.return_value = 42
    assert facade.approximate_num_entries() == 42
