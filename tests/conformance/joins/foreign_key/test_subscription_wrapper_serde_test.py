"""Kafka's ``SubscriptionWrapperSerdeTest`` (kstream/internals/foreignkeyjoin), against kslab's
FK wire module (``kslab.dsl._fk_wire``).

Java's ``new SubscriptionWrapper<>(hash, instruction, pk, version, partition)`` is
``SubscriptionWrapper(hash, instruction, pk, partition, version=version)``; ``Murmur3.hash128``
is ``murmur3_hash128`` (two signed longs, ``None`` for Java's null array);
``swSerde.configure({upgrade.from: 3.2})`` is the serde's ``upgrade_from`` argument.
``NullPointerException`` is ``kslab.errors.MissingArgumentError`` (a ``TypeError``);
``UnsupportedVersionException`` from the constructor is ``kslab.errors.InvalidArgumentError``.
Nothing is skipped.
"""

from __future__ import annotations

import pytest

from kslab import serdes
from kslab.dsl._fk_wire import (
    Instruction,
    SubscriptionWrapper,
    SubscriptionWrapperSerde,
    murmur3_hash128,
)
from kslab.errors import InvalidArgumentError, MissingArgumentError

HASHED_VALUE = murmur3_hash128(bytes([0xFF, 0xAA, 0x00, 0x19]))
ORIGINAL_KEY = "originalKey"


def _serde(upgrade_from: str | None = None) -> SubscriptionWrapperSerde:
    return SubscriptionWrapperSerde(lambda: "pkTopic", serdes.String(), upgrade_from)


def _round_trip(wrapper: SubscriptionWrapper, serde: SubscriptionWrapperSerde | None = None
                ) -> SubscriptionWrapper:
    serde = serde or _serde()
    return serde.deserialize(None, serde.serialize(None, wrapper))


def _check(deserialized: SubscriptionWrapper, instruction: Instruction, hashed: object,
           partition: int | None, version: int) -> None:
    assert deserialized.instruction == instruction
    assert deserialized.hash == hashed
    assert deserialized.primary_key == ORIGINAL_KEY
    assert deserialized.primary_partition == partition
    assert deserialized.version == version


def test_should_serde_v0_test():
    wrapper = SubscriptionWrapper(HASHED_VALUE, Instruction.DELETE_KEY_AND_PROPAGATE,
                                  ORIGINAL_KEY, None, version=SubscriptionWrapper.VERSION_0)
    _check(_round_trip(wrapper), Instruction.DELETE_KEY_AND_PROPAGATE, HASHED_VALUE, None, 0)


def test_should_serde_v1_test():
    wrapper = SubscriptionWrapper(HASHED_VALUE, Instruction.DELETE_KEY_AND_PROPAGATE,
                                  ORIGINAL_KEY, 10, version=SubscriptionWrapper.VERSION_1)
    _check(_round_trip(wrapper), Instruction.DELETE_KEY_AND_PROPAGATE, HASHED_VALUE, 10, 1)


def test_should_serde_with_v0_if_upgrade_test():
    wrapper = SubscriptionWrapper(HASHED_VALUE, Instruction.DELETE_KEY_AND_PROPAGATE,
                                  ORIGINAL_KEY, 10, version=SubscriptionWrapper.VERSION_1)
    deserialized = _round_trip(wrapper, _serde(upgrade_from="3.2"))
    _check(deserialized, Instruction.DELETE_KEY_AND_PROPAGATE, HASHED_VALUE, None, 0)


def test_should_serde_null_hash_v0_test():
    wrapper = SubscriptionWrapper(None, Instruction.PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE,
                                  ORIGINAL_KEY, None, version=SubscriptionWrapper.VERSION_0)
    _check(_round_trip(wrapper), Instruction.PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE, None, None, 0)


def test_should_serde_null_hash_v1_test():
    wrapper = SubscriptionWrapper(None, Instruction.PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE,
                                  ORIGINAL_KEY, 10, version=SubscriptionWrapper.VERSION_1)
    _check(_round_trip(wrapper), Instruction.PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE, None, 10, 1)


def test_should_serde_null_primary_partition_on_v0_test():
    wrapper = SubscriptionWrapper(HASHED_VALUE, Instruction.PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE,
                                  ORIGINAL_KEY, None, version=SubscriptionWrapper.VERSION_0)
    _check(_round_trip(wrapper), Instruction.PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE, HASHED_VALUE,
           None, 0)


def test_should_throw_exception_on_null_key_v0_test():
    with pytest.raises(MissingArgumentError):
        SubscriptionWrapper(HASHED_VALUE, Instruction.PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE, None,
                            10, version=SubscriptionWrapper.VERSION_0)


def test_should_throw_exception_on_null_key_v1_test():
    with pytest.raises(MissingArgumentError):
        SubscriptionWrapper(HASHED_VALUE, Instruction.PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE, None,
                            10, version=SubscriptionWrapper.VERSION_1)


def test_should_throw_exception_on_null_instruction_v0_test():
    with pytest.raises(MissingArgumentError):
        SubscriptionWrapper(HASHED_VALUE, None, ORIGINAL_KEY, 10,
                            version=SubscriptionWrapper.VERSION_0)


def test_should_throw_exception_on_null_instruction_v1_test():
    # Java passes VERSION_0 here too
    with pytest.raises(MissingArgumentError):
        SubscriptionWrapper(HASHED_VALUE, None, ORIGINAL_KEY, 10,
                            version=SubscriptionWrapper.VERSION_0)


def test_should_throw_exception_on_null_primary_partition_v1_test():
    wrapper = SubscriptionWrapper(HASHED_VALUE, Instruction.PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE,
                                  ORIGINAL_KEY, None, version=SubscriptionWrapper.VERSION_1)
    with pytest.raises(MissingArgumentError):
        _serde().serialize(None, wrapper)


def test_should_throw_exception_on_unsupported_version_test():
    with pytest.raises(InvalidArgumentError):
        SubscriptionWrapper(None, Instruction.PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE, ORIGINAL_KEY,
                            10, version=0x80)
