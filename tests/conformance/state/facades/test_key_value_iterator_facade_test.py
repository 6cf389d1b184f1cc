"""Kafka's ``KeyValueIteratorFacadeTest``: the iterator a timestamped store's plain-value facade
hands out forwards ``hasNext``, ``peekNextKey`` and ``close`` to the inner iterator and strips the
timestamp from each pair ``next`` returns.

Mapping: ``KeyValueIteratorFacade`` is ``kslab.state.timestamped.PlainValueIterator`` (what
``KeyValueStoreFacade.range``/``all``/``prefix_scan`` return); the mocked inner iterator is a
``mock.create_autospec`` of ``KeyValueIterator``; ``ValueAndTimestamp.make(v, ts)`` is
``ValueAndTimestamp(v, ts)``. Nothing is skipped.
"""

from __future__ import annotations

from unittest import mock

import pytest

import kslab as ks
from kslab.state import KeyValueIterator
from kslab.state.timestamped import PlainValueIterator


@pytest.fixture
def mocked_key_value_iterator() -> mock.Mock:
    return mock.create_autospec(KeyValueIterator, instance=True)


@pytest.fixture
def key_value_iterator_facade(mocked_key_value_iterator: mock.Mock) -> PlainValueIterator:
    return PlainValueIterator(mocked_key_value_iterator)


def test_should_forward_has_next(key_value_iterator_facade: PlainValueIterator,
                                 mocked_key_value_iterator: mock.Mock) -> None:
    mocked_key_value_iterator.has_next.side_effect = [True, False]
    assert key_value_iterator_facade.has_next() is True
    assert key_value_iterator_facade.has_next() is False


def test_should_forward_peek_next_key(key_value_iterator_facade: PlainValueIterator,
                                      mocked_key_value_iterator: mock.Mock) -> None:
    mocked_key_value_iterator.peek_next_key.return_value = "key"
    assert key_value_iterator_facade.peek_next_key() == "key"


def test_should_return_plain_key_value_pair_on_get(key_value_iterator_facade: PlainValueIterator,
                                                   mocked_key_value_iterator: mock.Mock) -> None:
    mocked_key_value_iterator.next.return_value = ks.KeyValue(
        "key", ks.ValueAndTimestamp("value", 42))
    assert key_value_iterator_facade.next() == ks.KeyValue("key", "value")


def test_should_close_inner_iterator(key_value_iterator_facade: PlainValueIterator,
                                     mocked_key_value_iterator: mock.Mock) -> None:
    key_value_iterator_facade.close()
    mocked_key_value_iterator.close.assert_called_once_with()
