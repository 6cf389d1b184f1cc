"""Kafka's ``StateSerdesTest``: ``StateSerdes`` refuses ``None`` arguments, builds serdes for the
built-in types and reports a serializer given data of the wrong type with Java's message.

Mapping: ``StateSerdes`` is ``kslab.state.base.StateSerdes`` (``with_builtin_types``,
``raw_key``, ``raw_value``); Java's classes are Python types: ``String`` ``str``, ``Short``,
``Integer``, ``Long`` ``int``, ``Float``, ``Double`` ``float``, ``byte[]``, ``ByteBuffer``,
``Bytes`` ``bytes`` (a Python type has one default serde, as ``serdes.resolve`` documents), and
the unknown ``Class.class`` is ``type``. ``Serdes.serdeFrom(String.class)`` is
``serdes.String()``, ``ValueAndTimestampSerde`` is ``kslab.state.base.ValueAndTimestampSerde``.
``NullPointerException`` is ``MissingArgumentError``, ``IllegalArgumentException``
``InvalidArgumentError`` and ``StreamsException`` ``ks.StreamsError``; the message names the
kslab serde (``String()``) and the Python type (``int``) where Java names
``org.apache.kafka.common.serialization.StringSerializer`` and ``java.lang.Integer``.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab.errors import InvalidArgumentError, MissingArgumentError
from kslab.state.base import StateSerdes, ValueAndTimestampSerde

SUFFIX = ("Change the default Serdes in StreamConfig or provide correct Serdes via method "
          "parameters.")


def test_should_throw_if_topic_name_is_null_for_builtin_types() -> None:
    with pytest.raises(MissingArgumentError):
        StateSerdes.with_builtin_types(None, bytes, bytes)


def test_should_throw_if_key_class_is_null_for_builtin_types() -> None:
    with pytest.raises(MissingArgumentError):
        StateSerdes.with_builtin_types("anyName", None, bytes)


def test_should_throw_if_value_class_is_null_for_builtin_types() -> None:
    with pytest.raises(MissingArgumentError):
        StateSerdes.with_builtin_types("anyName", bytes, None)


def test_should_return_serdes_for_built_in_key_and_value_types_for_builtin_types() -> None:
    supported_build_in_types = [str, int, float, bytes]
    for key_class in supported_build_in_types:
        for value_class in supported_build_in_types:
            assert StateSerdes.with_builtin_types("anyName", key_class, value_class) is not None


def test_should_throw_for_unknown_key_type_for_builtin_types() -> None:
    with pytest.raises(InvalidArgumentError):
        StateSerdes.with_builtin_types("anyName", type, bytes)


def test_should_throw_for_unknown_value_type_for_builtin_types() -> None:
    with pytest.raises(InvalidArgumentError):
        StateSerdes.with_builtin_types("anyName", bytes, type)


def test_should_throw_if_topic_name_is_null() -> None:
    with pytest.raises(MissingArgumentError, match=r"^topic cannot be null$"):
        StateSerdes(None, ks.serdes.Bytes(), ks.serdes.Bytes())


def test_should_throw_if_key_class_is_null() -> None:
    with pytest.raises(MissingArgumentError, match=r"^key serde cannot be null$"):
        StateSerdes("anyName", None, ks.serdes.Bytes())


def test_should_throw_if_value_class_is_null() -> None:
    with pytest.raises(MissingArgumentError, match=r"^value serde cannot be null$"):
        StateSerdes("anyName", ks.serdes.Bytes(), None)


def test_should_throw_if_incompatible_serde_for_value() -> None:
    state_serdes = StateSerdes("anyName", ks.serdes.String(), ks.serdes.String())
    with pytest.raises(ks.StreamsError) as caught:
        state_serdes.raw_value(123)
    assert str(caught.value) == (
        "A serializer (String()) is not compatible to the actual value type "
        f"(value type: int). {SUFFIX}")


def test_should_skip_value_and_timestampe_information_for_error_on_timestamp_and_value_serialization(  # noqa: E501
) -> None:
    state_serdes = StateSerdes("anyName", ks.serdes.String(),
                               ValueAndTimestampSerde(ks.serdes.String()))
    with pytest.raises(ks.StreamsError) as caught:
        state_serdes.raw_value(ks.ValueAndTimestamp(123, 0))
    assert str(caught.value) == (
        "A serializer (String()) is not compatible to the actual value type "
        f"(value type: int). {SUFFIX}")


def test_should_throw_if_incompatible_serde_for_key() -> None:
    state_serdes = StateSerdes("anyName", ks.serdes.String(), ks.serdes.String())
    with pytest.raises(ks.StreamsError) as caught:
        state_serdes.raw_key(123)
    assert str(caught.value) == (
        "A serializer (String()) is not compatible to the actual key type "
        f"(key type: int). {SUFFIX}")
