"""Kafka's ``ValueAndTimestampSerializerTest``: a timestamped store's value bytes are the 8-byte
timestamp then the plain value, a ``None`` value (or one the inner serializer turns into
``None``) is ``None``, and an update is idempotent only for the same value at a later time.

Mapping: ``ValueAndTimestampSerde(Serdes.String())`` is
``kslab.state.base.ValueAndTimestampSerde(serdes.String())``; its ``serializer().serialize`` is
``serialize``, the three-argument ``serialize(topic, data, timestamp)`` is ``serialize_value``,
and the static ``valuesAreSameAndTimeIsIncreasing`` is
``ValueAndTimestampSerde.values_are_same_and_time_is_increasing``. Java's always-null serializer
is a serde whose ``serialize`` returns ``None``. ``shouldSerializeNonNullDataUsingTheInternal
Serializer`` also checks the bytes a timestamped store keeps for the same value.
"""

from __future__ import annotations

from typing import Any

import kslab as ks
from kslab.state.backends import InMemoryKeyValueBackend
from kslab.state.base import ValueAndTimestampSerde
from kslab.state.suppliers import KeyValueBytesStoreSupplier
from tests.state.state_fixtures import FakeContext

TOPIC = "some-topic"
TIMESTAMP = 23
STRING_SERDE = ValueAndTimestampSerde(ks.serdes.String())
same_and_increasing = ValueAndTimestampSerde.values_are_same_and_time_is_increasing


class _Supplier(KeyValueBytesStoreSupplier):
    metrics_scope = "scope"

    def __init__(self, inner: Any) -> None:
        super().__init__("store")
        self.inner = inner

    def get(self) -> Any:
        return self.inner


def test_should_serialize_non_null_data_using_the_internal_serializer() -> None:
    value = "some-string"
    value_and_timestamp = ks.ValueAndTimestamp(value, TIMESTAMP)
    serialized = STRING_SERDE.serialize(TOPIC, value_and_timestamp)
    assert serialized is not None
    assert STRING_SERDE.deserialize(TOPIC, serialized) == value_and_timestamp
    # a timestamped store keeps the same bytes
    inner = InMemoryKeyValueBackend("store")
    store = ks.Stores.timestamped_key_value_store_builder(
        _Supplier(inner), ks.serdes.String(), ks.serdes.String()).build()
    store.init(FakeContext())
    store.put("k", value_and_timestamp)
    assert inner.get(b"k") == serialized
    store.close()


def test_should_drop_serialized_value_if_equal_with_greater_timestamp() -> None:
    value = "food"
    old = STRING_SERDE.serialize(TOPIC, ks.ValueAndTimestamp(value, TIMESTAMP))
    new = STRING_SERDE.serialize(TOPIC, ks.ValueAndTimestamp(value, TIMESTAMP + 1))
    assert same_and_increasing(old, new) is True


def test_should_keep_serialized_value_if_out_of_order() -> None:
    value = "balls"
    old = STRING_SERDE.serialize(TOPIC, ks.ValueAndTimestamp(value, TIMESTAMP))
    out_of_order = STRING_SERDE.serialize(TOPIC, ks.ValueAndTimestamp(value, TIMESTAMP - 1))
    assert same_and_increasing(old, out_of_order) is False


def test_should_serialize_null_data_as_null() -> None:
    assert STRING_SERDE.serialize(TOPIC, ks.ValueAndTimestamp(None, TIMESTAMP)) is None


def test_should_return_null_when_the_internal_serializer_returns_null() -> None:
    always_null = ks.serdes.from_functions(lambda data: None, lambda data: data)
    serializer = ValueAndTimestampSerde(always_null)
    assert serializer.serialize_value(TOPIC, "non-null-data", TIMESTAMP) is None
