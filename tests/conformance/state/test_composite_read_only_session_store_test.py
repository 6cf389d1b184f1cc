"""Kafka's ``CompositeReadOnlySessionStoreTest``: one read-only session view over a store's
instances in several tasks.

Mapping: ``CompositeReadOnlySessionStore`` is kslab's ``ReadOnlySessionView(name, stores)``
(``kslab.state.composite_windows``: what ``TopologyTestDriver.get_session_store`` with
``partitions=`` and ``KafkaStreams.store`` hand out for a session store over several tasks);
provider one's ``session-store`` is the first store of the list, provider two's store is
appended, ``other-session-store`` is outside the view. ``ReadOnlySessionStoreStub<String, Long>``
is an in-memory String/Long session store opened on a recording context. A provider that is
rebalancing is a store that was closed (migrated away); ``InvalidStateStoreException`` is
``ks.StoreError`` and ``NullPointerException`` ``MissingArgumentError``. Nothing is skipped.
"""

from __future__ import annotations

from typing import Any

import pytest

import kslab as ks
from kslab.errors import MissingArgumentError
from kslab.state.composite_windows import ReadOnlySessionView
from tests.conformance.state._kv_store_support import RecordingContext

STORE_NAME = "session-store"
S, LONG = ks.serdes.String(), ks.serdes.Long()


def session_store(tmp_path: Any, name: str = STORE_NAME) -> Any:
    context = RecordingContext(tmp_path, S, LONG)
    store = ks.Stores.session_store_builder(
        ks.Stores.in_memory_session_store(name, 60_000), S, LONG
    ).with_logging_disabled().build()
    store.init(context, store)
    return store


@pytest.fixture
def underlying(tmp_path: Any) -> Any:
    return session_store(tmp_path / "one")


@pytest.fixture
def other_underlying(tmp_path: Any) -> Any:
    return session_store(tmp_path / "other", "other-session-store")


@pytest.fixture
def stores(underlying: Any) -> list[Any]:
    return [underlying]


@pytest.fixture
def view(stores: list[Any]) -> ReadOnlySessionView:
    return ReadOnlySessionView(STORE_NAME, stores)


@pytest.fixture
def second(tmp_path: Any, stores: list[Any]) -> Any:
    store = session_store(tmp_path / "two")
    stores.append(store)
    return store


def s(key: str, start: int, end: int) -> ks.Windowed:
    return ks.Windowed(key, ks.Window(start, end))


def kv_list(iterator: Any) -> list[tuple[Any, Any]]:
    with iterator:
        return [(kv.key, kv.value) for kv in iterator]


def test_should_fetch_results_from_underlying_session_store(view, underlying):
    underlying.put(s("a", 0, 0), 1)
    underlying.put(s("a", 10, 10), 2)
    assert kv_list(view.fetch("a")) == [(s("a", 0, 0), 1), (s("a", 10, 10), 2)]


def test_should_return_empty_iterator_if_no_data(view):
    with view.fetch("b") as result:
        assert not result.has_next()


def test_should_find_value_for_key_when_multi_stores(view, underlying, second):
    key_one, key_two = s("key-one", 0, 0), s("key-two", 0, 0)
    underlying.put(key_one, 0)
    second.put(key_two, 10)
    assert kv_list(view.fetch("key-one")) == [(key_one, 0)]
    assert kv_list(view.fetch("key-two")) == [(key_two, 10)]


def test_should_not_get_value_from_other_stores(view, underlying, other_underlying):
    expected_key = s("foo", 0, 0)
    other_underlying.put(s("foo", 10, 10), 10)
    underlying.put(expected_key, 1)
    with view.fetch("foo") as result:
        assert result.next() == ks.KeyValue(expected_key, 1)
        assert not result.has_next()


def test_should_throw_invalid_state_store_exception_on_rebalance(tmp_path):
    """Also ``shouldThrowInvalidStateStoreExceptionIfSessionFetchThrows``."""
    gone = session_store(tmp_path / "gone", "whateva")
    gone.close()
    with pytest.raises(ks.StoreError):
        kv_list(ReadOnlySessionView("whateva", [gone]).fetch("a"))


def test_should_throw_null_pointer_exception_if_fetching_null_key(view, underlying):
    """Also ``shouldThrowNPEIfKeyIsNull`` (on the underlying store)."""
    with pytest.raises(MissingArgumentError):
        view.fetch(None)
    with pytest.raises(MissingArgumentError):
        underlying.fetch(None)


@pytest.mark.parametrize(("key_from", "key_to"), [
    ("a", "b"),  # shouldFetchKeyRangeAcrossStores
    (None, "b"),  # ...WithNullKeyFrom
    ("a", None),  # ...WithNullKeyTo
    (None, None),  # ...WithNullKeyFromKeyTo
])
def test_should_fetch_key_range_across_stores(view, underlying, second, key_from, key_to):
    underlying.put(s("a", 0, 0), 0)
    second.put(s("b", 0, 0), 10)
    assert kv_list(view.fetch(key_from, key_to)) == [(s("a", 0, 0), 0), (s("b", 0, 0), 10)]
