"""Kafka's ``ReadOnlyWindowStoreFacadeTest``: reads through the plain view of a timestamped
window store return values without their timestamps.

Mapping: Java's ``ReadOnlyWindowStoreFacade`` is ``kslab.state.window.WindowStoreFacade`` over a
mocked ``TimestampedWindowStore``; the mocked iterators are mocks whose ``next()`` returns the
stubbed pairs; ``TimeWindow(s, e)`` is ``ks.Window(s, e)``; ``long`` and ``Instant`` overloads
are both int ms, so each ``...LongParameters`` / ``...InstantParameters`` pair runs the same
calls. Nothing is skipped.
"""

from __future__ import annotations

from unittest import mock

import pytest

import kslab as ks
from kslab.state import TimestampedWindowStore
from kslab.state.window import WindowStoreFacade

VT = ks.ValueAndTimestamp


@pytest.fixture
def inner() -> mock.Mock:
    return mock.create_autospec(TimestampedWindowStore, instance=True)


@pytest.fixture
def facade(inner: mock.Mock) -> WindowStoreFacade:
    return WindowStoreFacade(inner)


def stub_iterator(*pairs: ks.KeyValue) -> mock.Mock:
    iterator = mock.MagicMock()
    iterator.next.side_effect = list(pairs)
    return iterator


def windowed_iterator() -> mock.Mock:
    return stub_iterator(
        ks.KeyValue(ks.Windowed("key1", ks.Window(21, 22)), VT("value1", 22)),
        ks.KeyValue(ks.Windowed("key2", ks.Window(42, 43)), VT("value2", 100)),
    )


def assert_plain_windowed(iterator: object) -> None:
    assert iterator.next() == ks.KeyValue(ks.Windowed("key1", ks.Window(21, 22)), "value1")
    assert iterator.next() == ks.KeyValue(ks.Windowed("key2", ks.Window(42, 43)), "value2")


def test_should_return_plain_key_value_pairs_on_single_key_fetch(
        facade: WindowStoreFacade, inner: mock.Mock) -> None:
    inner.fetch.side_effect = lambda key, time: VT("value1", 42) if key == "key1" else None
    assert facade.fetch("key1", 21) == "value1"
    assert facade.fetch("unknownKey", 21) is None


@pytest.mark.parametrize("overload", ["long", "instant"])
def test_should_return_plain_key_value_pairs_on_single_key_fetch_long_parameters(
        facade: WindowStoreFacade, inner: mock.Mock, overload: str) -> None:
    """Also ``shouldReturnPlainKeyValuePairsOnSingleKeyFetchInstantParameters``."""
    inner.fetch.return_value = stub_iterator(ks.KeyValue(21, VT("value1", 22)),
                                             ks.KeyValue(42, VT("value2", 23)))
    # a real iterator type, so the facade wraps it
    inner.fetch.return_value.__class__ = ks.state.KeyValueIterator
    iterator = facade.fetch("key1", 21, 42)
    inner.fetch.assert_called_once_with("key1", 21, 42)
    assert iterator.next() == ks.KeyValue(21, "value1")
    assert iterator.next() == ks.KeyValue(42, "value2")


@pytest.mark.parametrize("overload", ["long", "instant"])
def test_should_return_plain_key_value_pairs_on_range_fetch_long_parameters(
        facade: WindowStoreFacade, inner: mock.Mock, overload: str) -> None:
    """Also ``shouldReturnPlainKeyValuePairsOnRangeFetchInstantParameters``."""
    inner.fetch.return_value = windowed_iterator()
    inner.fetch.return_value.__class__ = ks.state.KeyValueIterator
    iterator = facade.fetch("key1", "key2", 21, 42)
    inner.fetch.assert_called_once_with("key1", "key2", 21, 42)
    assert_plain_windowed(iterator)


@pytest.mark.parametrize("overload", ["long", "instant"])
def test_should_return_plain_key_value_pairs_on_fetch_all_long_parameters(
        facade: WindowStoreFacade, inner: mock.Mock, overload: str) -> None:
    """Also ``shouldReturnPlainKeyValuePairsOnFetchAllInstantParameters``."""
    inner.fetch_all.return_value = windowed_iterator()
    iterator = facade.fetch_all(21, 42)
    inner.fetch_all.assert_called_once_with(21, 42)
    assert_plain_windowed(iterator)


def test_should_return_plain_key_value_pairs_on_all(
        facade: WindowStoreFacade, inner: mock.Mock) -> None:
    inner.all.return_value = windowed_iterator()
    assert_plain_windowed(facade.all())
