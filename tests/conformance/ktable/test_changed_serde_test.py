"""Kafka's ``ChangedSerdeTest``: the byte layout a table ``group_by`` writes its changes in,
round trips, the reserved layouts 3 to 5 (with an ``is_latest`` byte) and the errors.

Mapping: Java's ``ChangedSerializer``/``ChangedDeserializer`` pair is kslab's internal
``kslab.dsl._change.ChangedSerde(inner)``; ``StreamsException`` is ``ks.StreamsError`` (the
error kslab raises is also a ``SerdeError``); ``configure(configs, isKey)`` keeps Java's
signature; ``ByteUtils.writeVarint`` is the zig-zag varint written below. Nothing is skipped.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.dsl import Change
from kslab.dsl._change import ChangedSerde

TOPIC = "some-topic"
STRING = serdes.String()
NON_NULL_NEW_VALUE = "hello"
NON_NULL_OLD_VALUE = "world"


@pytest.fixture
def changed_string_serde():
    return ChangedSerde(STRING)


def check_round_trip(data, serde):
    serialized = serde.serialize(TOPIC, data)
    assert serialized is not None
    assert serde.deserialize(TOPIC, serialized) == data


def test_serializer_should_throw_if_given_a_change_with_both_new_and_old_values_as_null(
        changed_string_serde):
    with pytest.raises(ks.StreamsError):
        changed_string_serde.serialize(TOPIC, Change(None, None))


def test_serializer_should_throw_if_given_a_change_with_both_non_null_new_and_old_values_and_is_upgrade():  # noqa: E501
    data = Change(NON_NULL_NEW_VALUE, NON_NULL_OLD_VALUE)
    serializer = ChangedSerde(serdes.String())
    serializer.configure({"upgrade.from": "3.3"}, False)
    with pytest.raises(ks.StreamsError):
        serializer.serialize(TOPIC, data)


def test_should_serialize_and_deserialize_change_with_non_null_new_and_old_values(
        changed_string_serde):
    check_round_trip(Change(NON_NULL_NEW_VALUE, NON_NULL_OLD_VALUE), changed_string_serde)


def test_should_serialize_and_deserialize_change_with_non_null_new_value_and_null_old_value(
        changed_string_serde):
    check_round_trip(Change(NON_NULL_NEW_VALUE, None), changed_string_serde)


def test_should_serialize_and_deserialize_change_with_null_new_value_and_non_null_old_value(
        changed_string_serde):
    check_round_trip(Change(None, NON_NULL_OLD_VALUE), changed_string_serde)


def test_should_throw_error_if_encounters_an_unknown_byte_value_for_old_new_flag(
        changed_string_serde):
    serialized = changed_string_serde.serialize(TOPIC, Change(None, NON_NULL_OLD_VALUE))
    assert serialized is not None
    mutated = serialized[:-1] + bytes([0xFF])  # the flag byte becomes -1
    with pytest.raises(ks.StreamsError):
        changed_string_serde.deserialize(TOPIC, mutated)


def write_varint(value: int) -> bytes:
    encoded = (value << 1) ^ (value >> 31)
    out = bytearray()
    while encoded & ~0x7F:
        out.append((encoded & 0x7F) | 0x80)
        encoded >>= 7
    out.append(encoded)
    return bytes(out)


def serialize_versions3_through5(topic, data):
    new = None if data.new_value is None else STRING.serialize(topic, data.new_value)
    old = None if data.old_value is None else STRING.serialize(topic, data.old_value)
    is_latest = b"\x01" if data.is_latest else b"\x00"
    if new is not None and old is not None:
        return write_varint(len(new)) + new + old + is_latest + b"\x05"
    if new is not None:
        return new + is_latest + b"\x04"
    if old is not None:
        return old + is_latest + b"\x03"
    raise AssertionError("Both old and new values are null")


def check_round_trip_for_reserved_version(data):
    serialized = serialize_versions3_through5(TOPIC, data)
    assert serialized is not None
    assert ChangedSerde(STRING).deserialize(TOPIC, serialized) == data


def test_should_deserialize_reserved_versions3_through5():
    # is_latest = True
    check_round_trip_for_reserved_version(Change(NON_NULL_NEW_VALUE, None, True))
    check_round_trip_for_reserved_version(Change(None, NON_NULL_OLD_VALUE, True))
    check_round_trip_for_reserved_version(Change(NON_NULL_NEW_VALUE, NON_NULL_OLD_VALUE, True))
    # is_latest = False
    check_round_trip_for_reserved_version(Change(NON_NULL_NEW_VALUE, None, False))
    check_round_trip_for_reserved_version(Change(None, NON_NULL_OLD_VALUE, False))
    check_round_trip_for_reserved_version(
        Change(NON_NULL_NEW_VALUE, NON_NULL_OLD_VALUE, False))
