"""Kafka's ``CompositeReadOnlyWindowStoreTest``: one read-only window view over a store's
instances in several tasks.

Mapping: ``CompositeReadOnlyWindowStore`` over a ``WrappingStoreProvider`` is kslab's
``ReadOnlyWindowView(name, stores)`` (``kslab.state.composite_windows``: what
``TopologyTestDriver.get_window_store`` with ``partitions=`` and ``KafkaStreams.store`` hand out
for a window store spread over several tasks); provider one's ``window-store`` is the first
store of the list, ``stubProviderTwo.addStore(storeName, s)`` appends a second one, and
``other-window-store`` is a store outside the view. ``ReadOnlyWindowStoreStub(30 s)`` is an
in-memory String/String window store of 30 s windows opened on a recording context.
``InvalidStateStoreException`` is ``ks.StoreError``, ``NoSuchElementException``
``ks.NoSuchElementError``, ``NullPointerException`` ``MissingArgumentError``.

Deviations: Java's composite iterator concatenates the instances' scans (instance one's, then
instance two's); kslab's merges them into the order one store holding every partition would scan
(forward: window start, then key bytes; backward: the reverse). The lists are the same except in
three backward scans, where Java's concatenation gives ``[a, c, b]`` / ``[a, b]`` and kslab the
reverse merged order; those cases assert kslab's order. A provider that throws while rebalancing
and a provider with no store have no equivalent in a list of stores: the first is a store that
was closed (migrated away), the second an empty store.
"""

from __future__ import annotations

from typing import Any

import pytest

import kslab as ks
from kslab.errors import MissingArgumentError
from kslab.state.composite_windows import ReadOnlyWindowView
from tests.conformance.state._kv_store_support import RecordingContext

WINDOW_SIZE = 30_000
STORE_NAME = "window-store"
S = ks.serdes.String()


def window_store(tmp_path: Any, name: str = STORE_NAME) -> Any:
    """``ReadOnlyWindowStoreStub(WINDOW_SIZE)``: an open in-memory window store."""
    context = RecordingContext(tmp_path, S, S)
    store = ks.Stores.window_store_builder(
        ks.Stores.in_memory_window_store(name, 10 * WINDOW_SIZE, WINDOW_SIZE, False), S, S
    ).with_logging_disabled().build()
    store.init(context, store)
    return store


@pytest.fixture
def underlying(tmp_path: Any) -> Any:
    return window_store(tmp_path / "one")


@pytest.fixture
def other_underlying(tmp_path: Any) -> Any:
    return window_store(tmp_path / "other", "other-window-store")


@pytest.fixture
def stores(underlying: Any) -> list[Any]:
    return [underlying]


@pytest.fixture
def view(stores: list[Any]) -> ReadOnlyWindowView:
    return ReadOnlyWindowView(STORE_NAME, stores)


@pytest.fixture
def second(tmp_path: Any, stores: list[Any]) -> Any:
    """A second instance of ``window-store`` in provider two."""
    store = window_store(tmp_path / "two")
    stores.append(store)
    return store


def w(key: str, start: int) -> ks.Windowed:
    return ks.Windowed(key, ks.Window(start, start + WINDOW_SIZE))


def kv_list(iterator: Any) -> list[tuple[Any, Any]]:
    with iterator:
        return [(kv.key, kv.value) for kv in iterator]


def test_should_fetch_values_from_window_store(view, underlying):
    underlying.put("my-key", "my-value", 0)
    underlying.put("my-key", "my-later-value", 10)
    assert kv_list(view.fetch("my-key", 0, 25)) == [(0, "my-value"), (10, "my-later-value")]


def test_should_backward_fetch_values_from_window_store(view, underlying):
    underlying.put("my-key", "my-value", 0)
    underlying.put("my-key", "my-later-value", 10)
    assert kv_list(view.backward_fetch("my-key", 0, 25)) == [(10, "my-later-value"),
                                                             (0, "my-value")]


@pytest.mark.parametrize("method", ["fetch", "backward_fetch"])
def test_should_return_empty_iterator_if_no_data(view, method):
    with getattr(view, method)("my-key", 0, 25) as iterator:
        assert not iterator.has_next()


@pytest.mark.parametrize("method", ["fetch", "backward_fetch"])
def test_should_find_value_for_key_when_multi_stores(view, underlying, second, method):
    underlying.put("key-one", "value-one", 0)
    second.put("key-two", "value-two", 10)
    assert kv_list(getattr(view, method)("key-one", 0, 1)) == [(0, "value-one")]
    assert kv_list(getattr(view, method)("key-two", 10, 11)) == [(10, "value-two")]


@pytest.mark.parametrize("method", ["fetch", "backward_fetch"])
def test_should_not_get_values_from_other_stores(view, underlying, other_underlying, method):
    other_underlying.put("some-key", "some-value", 0)
    underlying.put("some-key", "my-value", 1)
    assert kv_list(getattr(view, method)("some-key", 0, 2)) == [(1, "my-value")]


@pytest.mark.parametrize("method", ["fetch", "backward_fetch"])
def test_should_throw_invalid_state_store_exception_if_fetch_throws(tmp_path, method):
    """``shouldThrowInvalidStateStoreException(IfFetchThrows|OnRebalance)`` and their backward
    forms: the instance was closed (migrated away)."""
    gone = window_store(tmp_path / "gone")
    gone.close()
    with pytest.raises(ks.StoreError):
        kv_list(getattr(ReadOnlyWindowView(STORE_NAME, [gone]), method)("key", 1, 10))


@pytest.mark.parametrize("method", ["fetch", "backward_fetch"])
def test_empty_iterator(view, method):
    """``empty(Backward)Iterator{AlwaysReturnsFalse,PeekNextKey...,Next...}``."""
    with getattr(view, method)("key", 1, 10) as iterator:
        assert not iterator.has_next()
        with pytest.raises(ks.NoSuchElementError):
            iterator.peek_next_key()
        with pytest.raises(ks.NoSuchElementError):
            iterator.next()


@pytest.mark.parametrize(("key_from", "key_to", "expected"), [
    ("a", "b", [w("a", 0), w("b", 10)]),  # shouldFetchKeyRangeAcrossStores
    ("b", None, [w("b", 10), w("c", 10)]),  # ...WithNullKeyTo
    (None, "b", [w("a", 0), w("b", 10)]),  # ...WithNullKeyFrom
    (None, None, [w("a", 0), w("b", 10), w("c", 10)]),  # ...WithNullKeyFromKeyTo
])
def test_should_fetch_key_range_across_stores(view, underlying, second, key_from, key_to,
                                               expected):
    underlying.put("a", "a", 0)
    second.put("b", "b", 10)
    second.put("c", "c", 10)
    assert kv_list(view.fetch(key_from, key_to, 0, 10)) == [(k, k.key) for k in expected]


@pytest.mark.parametrize(("key_from", "key_to", "expected"), [
    ("b", None, [w("c", 10), w("b", 10)]),  # ...WithNullKeyTo
    # Java (concatenated): [a, b] and [a, c, b]; kslab (merged): newest first
    (None, "b", [w("b", 10), w("a", 0)]),  # ...WithNullKeyFrom
    (None, None, [w("c", 10), w("b", 10), w("a", 0)]),  # ...WithNullKeyFromKeyTo
    ("a", "b", [w("b", 10), w("a", 0)]),  # shouldBackwardFetchKeyRangeAcrossStores
])
def test_should_backward_fetch_key_range_across_stores(view, underlying, second, key_from,
                                                        key_to, expected):
    underlying.put("a", "a", 0)
    second.put("b", "b", 10)
    second.put("c", "c", 10)
    assert kv_list(view.backward_fetch(key_from, key_to, 0, 10)) == [(k, k.key) for k in expected]


def test_should_fetch_key_value_across_stores(view, underlying, second):
    underlying.put("a", "a", 0)
    second.put("b", "b", 10)
    assert view.fetch("a", 0) == "a"
    assert view.fetch("b", 10) == "b"
    assert view.fetch("c", 10) is None
    assert view.fetch("a", 10) is None


def test_should_get_all_across_stores(view, underlying, second):
    underlying.put("a", "a", 0)
    second.put("b", "b", 10)
    assert kv_list(view.all()) == [(w("a", 0), "a"), (w("b", 10), "b")]
    assert kv_list(view.fetch_all(0, 10)) == [(w("a", 0), "a"), (w("b", 10), "b")]


def test_should_get_backward_all_across_stores(view, underlying, second):
    """``shouldGetBackwardAllAcrossStores`` / ``shouldBackwardFetchAllAcrossStores``: Java's
    concatenation gives ``[a, b]``; kslab's merge gives newest first."""
    underlying.put("a", "a", 0)
    second.put("b", "b", 10)
    assert kv_list(view.backward_all()) == [(w("b", 10), "b"), (w("a", 0), "a")]
    assert kv_list(view.backward_fetch_all(0, 10)) == [(w("b", 10), "b"), (w("a", 0), "a")]


def test_should_throw_npe_if_key_is_null(view):
    with pytest.raises(MissingArgumentError):
        view.fetch(None, 0, 0)


def test_writes_are_refused(view):
    with pytest.raises(ks.StoreError, match="read-only"):
        view.put("a", "a", 0)
