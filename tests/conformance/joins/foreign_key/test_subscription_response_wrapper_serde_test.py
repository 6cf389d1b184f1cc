"""Kafka's ``SubscriptionResponseWrapperSerdeTest`` (kstream/internals/foreignkeyjoin), against
kslab's FK wire module (``kslab.dsl._fk_wire``).

``NonNullableSerde`` is a String serde that fails on ``None`` both ways, so the tests show the
wrapper serde never hands it a null. Java's constructor argument ``primaryPartition=1`` is
passed the same way; the wire format does not carry it, so it reads back as ``None``.
``UnsupportedVersionException`` is ``kslab.errors.InvalidArgumentError`` from the constructor
and ``ks.SerdeError`` from the serializer (``InvalidSubscriptionResponseWrapper`` overrides
``version()``; here the wrapper's ``version`` is set to -1). Nothing is skipped.
"""

from __future__ import annotations

from typing import Any

import pytest

import kslab as ks
from kslab import serdes
from kslab.dsl._fk_wire import (
    SubscriptionResponseWrapper,
    SubscriptionResponseWrapperSerde,
    murmur3_hash128,
)
from kslab.errors import InvalidArgumentError

HASHED_VALUE = murmur3_hash128(bytes([0x01, 0x9A, 0xFF, 0x00]))


class NonNullableSerde(serdes.Serde):
    """A delegate serde that refuses ``None`` (Java's ``requireNonNull``)."""

    def __init__(self, delegate: serdes.Serde) -> None:
        self.delegate = delegate

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        assert data is not None
        return self.delegate.serialize(topic, data)

    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        assert data is not None
        return self.delegate.deserialize(topic, data)


def _round_trip(wrapper: SubscriptionResponseWrapper) -> SubscriptionResponseWrapper:
    serde = SubscriptionResponseWrapperSerde(NonNullableSerde(serdes.String()))
    return serde.deserialize(None, serde.serialize(None, wrapper))


def test_should_serde_with_non_nulls_test():
    # ShouldSerdeWithNonNullsTest
    result = _round_trip(SubscriptionResponseWrapper(HASHED_VALUE, "foreignValue", 1))
    assert result.original_value_hash == HASHED_VALUE
    assert result.foreign_value == "foreignValue"
    assert result.primary_partition is None


def test_should_serde_with_null_foreign_value_test():
    result = _round_trip(SubscriptionResponseWrapper(HASHED_VALUE, None, 1))
    assert result.original_value_hash == HASHED_VALUE
    assert result.foreign_value is None
    assert result.primary_partition is None


def test_should_serde_with_null_hash_test():
    result = _round_trip(SubscriptionResponseWrapper(None, "foreignValue", 1))
    assert result.original_value_hash is None
    assert result.foreign_value == "foreignValue"
    assert result.primary_partition is None


def test_should_serde_with_nulls_test():
    result = _round_trip(SubscriptionResponseWrapper(None, None, 1))
    assert result.original_value_hash is None
    assert result.foreign_value is None
    assert result.primary_partition is None


def test_should_throw_exception_with_bad_version_test():
    with pytest.raises(InvalidArgumentError):
        SubscriptionResponseWrapper(None, "foreignValue", 1, version=-1)


def test_should_throw_exception_on_serialize_when_data_version_unknown():
    srw = SubscriptionResponseWrapper(None, None, 1)
    srw.version = -1  # Java's InvalidSubscriptionResponseWrapper
    with pytest.raises(ks.SerdeError):
        SubscriptionResponseWrapperSerde(None).serialize(None, srw)
