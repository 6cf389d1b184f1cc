"""Kafka's ``KeyValueStoreFacadeTest`` (test-utils): the plain key-value view of a timestamped
store that ``get_key_value_store`` hands out, over a mocked ``TimestampedKeyValueStore``.

Mapping: ``ConsumerRecord.NO_TIMESTAMP`` is -1 (``kslab.state.timestamped.NO_TIMESTAMP``);
``name()``, ``persistent()`` and ``isOpen()`` are the properties ``name``, ``persistent`` and
``is_open``; ``init(context, root)`` forwards whatever it is given. Nothing is skipped.
"""

from __future__ import annotations

from unittest import mock

import pytest

import kslab as ks
from kslab.state import KeyValueStoreFacade
from kslab.state.timestamped import NO_TIMESTAMP


@pytest.fixture
def inner():
    return mock.create_autospec(ks.TimestampedKeyValueStore, instance=True)


@pytest.fixture
def facade(inner):
    return KeyValueStoreFacade(inner)


def test_should_forward_init(facade, inner):
    # shouldForwardInit
    context, root = object(), object()
    facade.init(context, root)
    inner.init.assert_called_once_with(context, root)


def test_should_put_with_unknown_timestamp(facade, inner):
    # shouldPutWithUnknownTimestamp
    facade.put("key", "value")
    inner.put.assert_called_once_with("key", ks.ValueAndTimestamp("value", NO_TIMESTAMP))
    assert NO_TIMESTAMP == -1


def test_should_put_if_absent_with_unknown_timestamp(facade, inner):
    # shouldPutIfAbsentWithUnknownTimestamp
    inner.put_if_absent.side_effect = [None, ks.ValueAndTimestamp("oldValue", 42)]
    assert facade.put_if_absent("key", "value") is None
    assert facade.put_if_absent("key", "value") == "oldValue"
    assert inner.put_if_absent.call_args_list == \
        [mock.call("key", ks.ValueAndTimestamp("value", NO_TIMESTAMP))] * 2


def test_should_put_all_with_unknown_timestamp(facade, inner):
    # shouldPutAllWithUnknownTimestamp
    facade.put_all([ks.KeyValue("key1", "value1"), ks.KeyValue("key2", "value2")])
    inner.put.assert_any_call("key1", ks.ValueAndTimestamp("value1", NO_TIMESTAMP))
    inner.put.assert_any_call("key2", ks.ValueAndTimestamp("value2", NO_TIMESTAMP))


def test_should_delete_and_return_plain_value(facade, inner):
    # shouldDeleteAndReturnPlainValue
    inner.delete.side_effect = [None, ks.ValueAndTimestamp("oldValue", 42)]
    assert facade.delete("key") is None
    assert facade.delete("key") == "oldValue"
    assert inner.delete.call_args_list == [mock.call("key")] * 2


def test_should_forward_flush(facade, inner):
    # shouldForwardFlush
    facade.flush()
    inner.flush.assert_called_once_with()


def test_should_forward_close(facade, inner):
    # shouldForwardClose
    facade.close()
    inner.close.assert_called_once_with()


def test_should_return_name():
    # shouldReturnName
    inner = mock.Mock()
    name = mock.PropertyMock(return_value="name")
    type(inner).name = name
    assert KeyValueStoreFacade(inner).name == "name"
    name.assert_called_once_with()


def test_should_return_is_persistent():
    # shouldReturnIsPersistent
    inner = mock.Mock()
    persistent = mock.PropertyMock(side_effect=[True, False])
    type(inner).persistent = persistent
    facade = KeyValueStoreFacade(inner)
    assert facade.persistent is True
    assert facade.persistent is False
    assert persistent.call_count == 2


def test_should_return_is_open():
    # shouldReturnIsOpen
    inner = mock.Mock()
    is_open = mock.PropertyMock(side_effect=[True, False])
    type(inner).is_open = is_open
    facade = KeyValueStoreFacade(inner)
    assert facade.is_open is True
    assert facade.is_open is False
    assert is_open.call_count == 2


def test_facade_over_a_real_store():
    # beyond the mock: the driver's facade writes -1 and reads plain values
    class Put(ks.Processor):
        def process(self, record):
            pass

    topology = ks.Topology().add_source("s", "in").add_processor("p", Put, "s")
    topology.add_state_store(ks.Stores.timestamped_key_value_store_builder(
        ks.Stores.persistent_timestamped_key_value_store("ts"), "string", "long"), "p")
    with ks.TopologyTestDriver(topology) as driver:
        facade = driver.get_key_value_store("ts")
        facade.put("a", 1)
        assert facade.get("a") == 1
        assert driver.get_timestamped_key_value_store("ts").get("a") == \
            ks.ValueAndTimestamp(1, NO_TIMESTAMP)
        assert facade.put_if_absent("a", 2) == 1
        assert facade.delete("a") == 1
        assert facade.get("a") is None
