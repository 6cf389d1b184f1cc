"""Kafka's ``TimestampedTupleForwarderTest``: a KTable processor's forwarder registers the cache
flush listener on its store and forwards itself only when the store does not cache.

Mapping: Java's internal ``TimestampedTupleForwarder`` is kslab's internal
``kslab.dsl._table_processors.TupleForwarder(store, context, send_old_values)``, which makes its
flush listener itself (so the Mockito listener argument is ``mock.ANY``); Java's store
``setFlushListener`` is ``set_flush_listener``; Mockito mocks are ``unittest.mock`` mocks.
Nothing is skipped.
"""

from __future__ import annotations

from unittest import mock

import pytest

import kslab as ks
from kslab.dsl import Change
from kslab.dsl._table_processors import TupleForwarder


def store_caching(caching: bool) -> mock.Mock:
    store = mock.Mock()
    store.set_flush_listener.return_value = caching
    return store


@pytest.mark.parametrize("send_old_values", [True, False])
def test_should_set_flush_listener_on_wrapped_state_store(send_old_values):
    store = store_caching(False)
    TupleForwarder(store, mock.Mock(), send_old_values)
    store.set_flush_listener.assert_called_once_with(mock.ANY, send_old_values)


@pytest.mark.parametrize("send_old_values", [False, True])
def test_should_forward_records_if_wrapped_state_store_does_not_cache(send_old_values):
    store, context = store_caching(False), mock.Mock()
    forwarder = TupleForwarder(store, context, send_old_values)
    forwarder.maybe_forward(ks.Record("key1", Change("newValue1", "oldValue1", True), 0))
    forwarder.maybe_forward(ks.Record("key2", Change("newValue2", "oldValue2", False), 42))
    if send_old_values:
        expected = [ks.Record("key1", Change("newValue1", "oldValue1", True), 0),
                    ks.Record("key2", Change("newValue2", "oldValue2", False), 42)]
    else:
        expected = [ks.Record("key1", Change("newValue1", None, True), 0),
                    ks.Record("key2", Change("newValue2", None, False), 42)]
    assert context.forward.call_args_list == [mock.call(r) for r in expected]


def test_should_not_forward_records_if_wrapped_state_store_does_cache():
    store, context = store_caching(True), mock.Mock()
    forwarder = TupleForwarder(store, context, False)
    forwarder.maybe_forward(ks.Record("key", Change("newValue", "oldValue", True), 0))
    forwarder.maybe_forward(ks.Record("key", Change("newValue", "oldValue", True), 42))
    store.set_flush_listener.assert_called_once_with(mock.ANY, False)
    context.forward.assert_not_called()
