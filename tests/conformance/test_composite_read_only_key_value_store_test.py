"""Kafka's ``CompositeReadOnlyKeyValueStoreTest``: one read-only key-value view over a store's
instances in several tasks, reading each instance in turn and concatenating their scans.

Mapping: ``CompositeReadOnlyKeyValueStore`` over a ``WrappingStoreProvider`` is kslab's
``CompositeStoreView(name, stores)`` (what ``TopologyTestDriver.get_key_value_store`` and
``KafkaStreams.store`` hand out for a store spread over several tasks); the providers' stores of
``my-store`` are the view's ``stores`` list, so ``stubProviderTwo.addStore(storeName, s)`` appends
to it, and ``other-store`` is a store outside the view. Each store is
``key_value_store_builder(in_memory_key_value_store("my-store"), String, String)`` opened on a
recording context at time 1 (``InternalMockProcessorContext``). ``NoOpReadOnlyStore`` is a stub
with ``approximate_num_entries``; ``StringSerializer`` is ``serdes.String()``;
``NullPointerException`` is ``ks.MissingArgumentError``, ``NoSuchElementException``
``ks.NoSuchElementError``, ``InvalidStateStoreException`` ``ks.StoreError``. A provider that is
rebalancing (``StateStoreProviderStub(true)``) has no equivalent in a list of stores: its
``rebalancing()`` view is a view over a store that has been closed (migrated away), whose reads
raise ``StoreError`` as Java's do. Java's ordered composite iterator concatenates the instances'
scans; kslab's merges them in key-byte order, which gives the same lists here. Skipped: the four
``shouldThrowUnsupportedOperationExceptionWhile...`` tests (``KeyValueIterator.remove`` is not in
kslab's API: Python iterators have no ``remove``).
"""

from __future__ import annotations

from typing import Any

import pytest

import kslab as ks
from kslab.state.composite import CompositeStoreView
from tests.conformance._kv_store_support import RecordingContext

STORE_NAME = "my-store"
S = ks.serdes.String()
LONG_MAX = 2**63 - 1


class NoOpReadOnlyStore:
    """``NoOpReadOnlyStore`` whose ``approximateNumEntries`` is overridden."""

    def __init__(self, entries: int) -> None:
        self._entries = entries

    def get(self, key: Any) -> Any:
        return None

    def approximate_num_entries(self) -> int:
        return self._entries


def new_store_instance(tmp_path: Any) -> Any:
    """``newStoreInstance``: an open in-memory String/String store named ``my-store``."""
    context = RecordingContext(tmp_path, S, S)
    context.timestamp = 1
    store = ks.Stores.key_value_store_builder(
        ks.Stores.in_memory_key_value_store(STORE_NAME), S, S
    ).build()
    store.init(context, store)
    return store


@pytest.fixture
def stub_one_underlying(tmp_path: Any) -> Any:
    return new_store_instance(tmp_path / "one")


@pytest.fixture
def other_underlying_store(tmp_path: Any) -> Any:
    return new_store_instance(tmp_path / "other")


@pytest.fixture
def stores(stub_one_underlying: Any) -> list[Any]:
    """The stores of ``my-store`` both providers hold (provider two starts empty)."""
    return [stub_one_underlying]


@pytest.fixture
def the_store(stores: list[Any]) -> CompositeStoreView:
    return CompositeStoreView(STORE_NAME, stores)


@pytest.fixture
def cache(tmp_path: Any, stores: list[Any]) -> Any:
    """A second instance added to provider two, filled by the multi-store tests."""
    store = new_store_instance(tmp_path / "two")
    stores.append(store)
    return store


@pytest.fixture
def rebalancing(tmp_path: Any) -> CompositeStoreView:
    """``rebalancing()``: a view whose only store is no longer available."""
    store = new_store_instance(tmp_path / "gone")
    store.close()
    return CompositeStoreView(STORE_NAME, [store])


def fill(store_one: Any, store_two: Any) -> None:
    for key in ("a", "b", "z"):
        store_one.put(key, key)
    for key in ("c", "d", "x"):
        store_two.put(key, key)


def test_should_return_null_if_key_does_not_exist(the_store: Any) -> None:
    assert the_store.get("whatever") is None


def test_should_throw_null_pointer_exception_on_get_null_key(the_store: Any) -> None:
    with pytest.raises(ks.MissingArgumentError):
        the_store.get(None)


def test_should_return_value_on_range_null_from_key(the_store: Any, stub_one_underlying: Any):
    stub_one_underlying.put("0", "zero")
    stub_one_underlying.put("1", "one")
    stub_one_underlying.put("2", "two")
    with the_store.range(None, "1") as iterator:
        assert list(iterator) == [ks.KeyValue("0", "zero"), ks.KeyValue("1", "one")]


def test_should_return_value_on_range_null_to_key(the_store: Any, stub_one_underlying: Any):
    stub_one_underlying.put("0", "zero")
    stub_one_underlying.put("1", "one")
    stub_one_underlying.put("2", "two")
    with the_store.range("1", None) as iterator:
        assert list(iterator) == [ks.KeyValue("1", "one"), ks.KeyValue("2", "two")]


def test_should_throw_null_pointer_exception_on_prefix_scan_null_prefix(the_store: Any) -> None:
    with pytest.raises(ks.MissingArgumentError):
        the_store.prefix_scan(None, ks.serdes.String())


def test_should_throw_null_pointer_exception_on_prefix_scan_null_prefix_key_serializer(
        the_store: Any) -> None:
    with pytest.raises(ks.MissingArgumentError):
        the_store.prefix_scan("aa", None)


def test_should_return_value_on_reverse_range_null_from_key(the_store: Any,
                                                            stub_one_underlying: Any) -> None:
    stub_one_underlying.put("0", "zero")
    stub_one_underlying.put("1", "one")
    stub_one_underlying.put("2", "two")
    with the_store.reverse_range(None, "1") as iterator:
        assert list(iterator) == [ks.KeyValue("1", "one"), ks.KeyValue("0", "zero")]


def test_should_return_value_on_reverse_range_null_to_key(the_store: Any,
                                                          stub_one_underlying: Any) -> None:
    stub_one_underlying.put("0", "zero")
    stub_one_underlying.put("1", "one")
    stub_one_underlying.put("2", "two")
    with the_store.reverse_range("1", None) as iterator:
        assert list(iterator) == [ks.KeyValue("2", "two"), ks.KeyValue("1", "one")]


def test_should_return_value_if_exists(the_store: Any, stub_one_underlying: Any) -> None:
    stub_one_underlying.put("key", "value")
    assert the_store.get("key") == "value"


def test_should_not_get_values_from_other_stores(the_store: Any,
                                                 other_underlying_store: Any) -> None:
    other_underlying_store.put("otherKey", "otherValue")
    assert the_store.get("otherKey") is None


def test_should_throw_no_such_element_exception_while_next(the_store: Any,
                                                           stub_one_underlying: Any) -> None:
    stub_one_underlying.put("a", "1")
    with the_store.range("a", "b") as iterator:
        iterator.next()
        with pytest.raises(ks.NoSuchElementError):
            iterator.next()


def test_should_throw_no_such_element_exception_while_peek_next(the_store: Any,
                                                                stub_one_underlying: Any) -> None:
    stub_one_underlying.put("a", "1")
    with the_store.range("a", "b") as iterator:
        iterator.next()
        with pytest.raises(ks.NoSuchElementError):
            iterator.peek_next_key()


def test_should_throw_no_such_element_exception_while_next_for_prefix_scan(
        the_store: Any, stub_one_underlying: Any) -> None:
    stub_one_underlying.put("a", "1")
    with the_store.prefix_scan("a", ks.serdes.String()) as iterator:
        iterator.next()
        with pytest.raises(ks.NoSuchElementError):
            iterator.next()


def test_should_throw_no_such_element_exception_while_peek_next_for_prefix_scan(
        the_store: Any, stub_one_underlying: Any) -> None:
    stub_one_underlying.put("a", "1")
    with the_store.prefix_scan("a", ks.serdes.String()) as iterator:
        iterator.next()
        with pytest.raises(ks.NoSuchElementError):
            iterator.peek_next_key()


def test_should_find_value_for_key_when_multi_stores(the_store: Any, stub_one_underlying: Any,
                                                     cache: Any) -> None:
    cache.put("key-two", "key-two-value")
    stub_one_underlying.put("key-one", "key-one-value")
    assert the_store.get("key-two") == "key-two-value"
    assert the_store.get("key-one") == "key-one-value"


def test_should_support_range(the_store: Any, stub_one_underlying: Any) -> None:
    for key in ("a", "b", "c"):
        stub_one_underlying.put(key, key)
    results = list(the_store.range("a", "b"))
    assert ks.KeyValue("a", "a") in results
    assert ks.KeyValue("b", "b") in results
    assert len(results) == 2


def test_should_support_reverse_range(the_store: Any, stub_one_underlying: Any) -> None:
    for key in ("a", "b", "c"):
        stub_one_underlying.put(key, key)
    assert list(the_store.reverse_range("a", "b")) == [ks.KeyValue("b", "b"),
                                                       ks.KeyValue("a", "a")]


def test_should_return_keys_with_given_prefix_excluding_next_key_largest_key(
        the_store: Any, stub_one_underlying: Any) -> None:
    stub_one_underlying.put("abc", "a")
    stub_one_underlying.put("abcd", "b")
    stub_one_underlying.put("abce", "c")
    results = list(the_store.prefix_scan("abcd", ks.serdes.String()))
    assert ks.KeyValue("abcd", "b") in results
    assert len(results) == 1


def test_should_support_prefix_scan(the_store: Any, stub_one_underlying: Any) -> None:
    stub_one_underlying.put("a", "a")
    stub_one_underlying.put("aa", "b")
    stub_one_underlying.put("b", "c")
    results = list(the_store.prefix_scan("a", ks.serdes.String()))
    assert ks.KeyValue("a", "a") in results
    assert ks.KeyValue("aa", "b") in results
    assert len(results) == 2


def test_should_support_range_across_multiple_kv_stores(the_store: Any, stub_one_underlying: Any,
                                                        cache: Any) -> None:
    fill(stub_one_underlying, cache)
    assert list(the_store.range("a", "e")) == [
        ks.KeyValue("a", "a"), ks.KeyValue("b", "b"), ks.KeyValue("c", "c"), ks.KeyValue("d", "d"),
    ]


def test_should_support_prefix_scan_across_multiple_kv_stores(the_store: Any,
                                                              stub_one_underlying: Any,
                                                              cache: Any) -> None:
    for key in ("a", "b", "z"):
        stub_one_underlying.put(key, key)
    cache.put("aa", "c")
    cache.put("ab", "d")
    cache.put("x", "x")
    assert list(the_store.prefix_scan("a", ks.serdes.String())) == [
        ks.KeyValue("a", "a"), ks.KeyValue("aa", "c"), ks.KeyValue("ab", "d"),
    ]


def test_should_support_reverse_range_across_multiple_kv_stores(the_store: Any,
                                                                stub_one_underlying: Any,
                                                                cache: Any) -> None:
    fill(stub_one_underlying, cache)
    results = list(the_store.reverse_range("a", "e"))
    for key in ("a", "b", "c", "d"):
        assert ks.KeyValue(key, key) in results
    assert len(results) == 4


def test_should_support_all_across_multiple_stores(the_store: Any, stub_one_underlying: Any,
                                                   cache: Any) -> None:
    fill(stub_one_underlying, cache)
    results = list(the_store.all())
    for key in ("a", "b", "c", "d", "x", "z"):
        assert ks.KeyValue(key, key) in results
    assert len(results) == 6


def test_should_support_reverse_all_across_multiple_stores(the_store: Any,
                                                           stub_one_underlying: Any,
                                                           cache: Any) -> None:
    fill(stub_one_underlying, cache)
    results = list(the_store.reverse_all())
    for key in ("a", "b", "c", "d", "x", "z"):
        assert ks.KeyValue(key, key) in results
    assert len(results) == 6


def test_should_throw_invalid_store_exception_during_rebalance(rebalancing: Any) -> None:
    with pytest.raises(ks.StoreError):
        rebalancing.get("anything")


def test_should_throw_invalid_store_exception_on_approximate_num_entries_during_rebalance(
        rebalancing: Any) -> None:
    with pytest.raises(ks.StoreError):
        rebalancing.approximate_num_entries()


def test_should_throw_invalid_store_exception_on_range_during_rebalance(rebalancing: Any) -> None:
    with pytest.raises(ks.StoreError):
        rebalancing.range("anything", "something")


def test_should_throw_invalid_store_exception_on_reverse_range_during_rebalance(
        rebalancing: Any) -> None:
    with pytest.raises(ks.StoreError):
        rebalancing.reverse_range("anything", "something")


def test_should_throw_invalid_store_exception_on_prefix_scan_during_rebalance(
        rebalancing: Any) -> None:
    with pytest.raises(ks.StoreError):
        rebalancing.prefix_scan("anything", ks.serdes.String())


def test_should_throw_invalid_store_exception_on_all_during_rebalance(rebalancing: Any) -> None:
    with pytest.raises(ks.StoreError):
        rebalancing.all()


def test_should_throw_invalid_store_exception_on_reverse_all_during_rebalance(
        rebalancing: Any) -> None:
    with pytest.raises(ks.StoreError):
        rebalancing.reverse_all()


def test_should_get_approximate_entries_across_all_stores(the_store: Any,
                                                          stub_one_underlying: Any,
                                                          cache: Any) -> None:
    fill(stub_one_underlying, cache)
    assert the_store.approximate_num_entries() == 6


def test_should_return_long_max_value_on_overflow(the_store: Any, stores: list[Any],
                                                  stub_one_underlying: Any) -> None:
    stores.append(NoOpReadOnlyStore(LONG_MAX))
    stub_one_underlying.put("overflow", "me")
    assert the_store.approximate_num_entries() == LONG_MAX


def test_should_return_long_max_value_on_underflow(tmp_path: Any) -> None:
    # provider one holds stubOneUnderlying (empty); provider two a MAX store of my-store and
    # one of my-storeA, which the view does not include
    view = CompositeStoreView(STORE_NAME, [new_store_instance(tmp_path),
                                           NoOpReadOnlyStore(LONG_MAX)])
    assert view.approximate_num_entries() == LONG_MAX
