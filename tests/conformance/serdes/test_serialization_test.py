"""Kafka's ``SerializationTest`` (clients, common.serialization), translated to ``kslab.serdes``.

Java's ``Serdes.X()`` is ``serdes.X()``; ``Serdes.serdeFrom(Class)`` is ``serdes.resolve(type)``
(Python's types: ``str``, ``int`` (Long), ``float`` (Double), ``bytes``, ``uuid.UUID``, ``bool``),
so the round trips use the serdes themselves; ``serdeFrom(serializer, deserializer)`` is
``serdes.from_functions``. ``ByteBuffer``/``Bytes`` inputs are ``memoryview``/``bytearray``, read
by the same ``deserialize``. ``Serdes.ListSerde(ArrayList.class, inner)`` is
``serdes.ListSerde(list, inner)`` (``LinkedList``/``Stack`` are other list classes, here
``collections.deque`` and a ``list`` subclass). The ``key.serializer.encoding`` configs are
``serdes.String(encoding=...)``. Java's ``SerializationException`` and
``IllegalArgumentException`` are ``kslab.SerdeError`` (Void's and an unknown class's are also
``InvalidArgumentError``, a ``ValueError``); a null function for ``serdeFrom`` is
``MissingArgumentError``. Float NaNs are built from their double bits, since
Python floats are doubles (a single's signalling NaN is its double with the payload shifted by 29).
Nothing is skipped. Added: ``serdeFrom(Class)`` round trips with Python's types, and the exact
bytes of Java's UTF-16 ``String`` and of both ``ListSerializer`` strategies.
"""

from __future__ import annotations

import collections
import struct
import uuid

import pytest

from kslab import serdes
from kslab.errors import InvalidArgumentError, MissingArgumentError, SerdeError

TOPIC = "testTopic"


def _f32(value: float) -> float:
    return struct.unpack(">f", struct.pack(">f", value))[0]


TEST_DATA = [
    (serdes.String(), [None, "my string"]),
    (serdes.Short(), [None, 32767, -32768]),
    (serdes.Integer(), [None, 423412424, -41243432]),
    (serdes.Long(), [None, 922337203685477580, -922337203685477581]),
    (serdes.Float(), [None, _f32(5678567.12312), _f32(-5678567.12341)]),
    (serdes.Double(), [None, 5678567.12312, -5678567.12341]),
    (serdes.Bytes(), [None, b"my string"]),
    (serdes.UUID(), [None, uuid.uuid4()]),
    (serdes.Boolean(), [None, True, False]),
]


class DummyClass:
    pass


def test_all_serdes_should_roundtrip_input() -> None:
    for serde, values in TEST_DATA:
        for value in values:
            serialized = serde.serialize(TOPIC, value)
            assert serde.deserialize(TOPIC, serialized) == value, serde
            wrapped = None if serialized is None else memoryview(serialized)
            assert serde.deserialize(TOPIC, wrapped) == value, serde
            if isinstance(value, bytes):
                assert serde.deserialize(TOPIC, bytearray(value)) == value


def test_all_serdes_should_roundtrip_input_from_serde_from_class() -> None:
    for cls, value in [(str, "my string"), (int, 922337203685477580), (float, 5678567.12312),
                       (bytes, b"my string"), (uuid.UUID, uuid.uuid4()), (bool, True)]:
        serde = serdes.resolve(cls)
        assert serde.deserialize(TOPIC, serde.serialize(TOPIC, value)) == value


def test_all_serdes_should_support_null() -> None:
    for serde, _ in TEST_DATA:
        assert serde.serialize(TOPIC, None) is None
        assert serde.deserialize(TOPIC, None) is None


def test_serde_from_unknown() -> None:
    with pytest.raises(InvalidArgumentError):
        serdes.resolve(DummyClass)


def test_serde_from_not_null() -> None:
    with pytest.raises(MissingArgumentError):
        serdes.from_functions(None, serdes.Long().deserialize)  # type: ignore[arg-type]


def test_string_serde_should_support_different_encodings() -> None:
    text = "my string"
    for encoding in ("UTF-8", "UTF-16"):
        serde = serdes.String(encoding=encoding)
        assert serde.deserialize(TOPIC, serde.serialize(TOPIC, text)) == text


def test_string_serde_writes_java_bytes_for_utf_16() -> None:
    # "my".getBytes(UTF_16) in Java: a big-endian byte-order mark, then big-endian code units
    assert serdes.String(encoding="UTF-16").serialize(TOPIC, "my") == b"\xfe\xff\x00m\x00y"
    assert serdes.String(encoding="UTF-16").deserialize(TOPIC, b"\x00m\x00y") == "my"


def test_string_serde_configure_throws_on_unknown_encoding() -> None:
    with pytest.raises(SerdeError):
        serdes.String(encoding="encoding-does-not-exist")


def _roundtrip(serde: serdes.Serde, data: object) -> object:
    return serde.deserialize(TOPIC, serde.serialize(TOPIC, data))


def test_list_serde_should_return_empty_collection() -> None:
    assert _roundtrip(serdes.ListSerde(list, serdes.Integer()), []) == []


def test_list_serde_should_return_null() -> None:
    assert _roundtrip(serdes.ListSerde(list, serdes.Integer()), None) is None


def test_list_serde_should_roundtrip_int_primitive_input() -> None:
    assert _roundtrip(serdes.ListSerde(list, serdes.Integer()), [1, 2, 3]) == [1, 2, 3]


def test_list_serde_serializer_should_return_byte_array_of_fixed_size_for_int_primitive_input(
) -> None:
    assert len(serdes.ListSerde(list, serdes.Integer()).serialize(TOPIC, [1, 2, 3])) == 21


def test_list_serde_should_roundtrip_short_primitive_input() -> None:
    assert _roundtrip(serdes.ListSerde(list, serdes.Short()), [1, 2, 3]) == [1, 2, 3]


def test_list_serde_serializer_should_return_byte_array_of_fixed_size_for_short_primitive_input(
) -> None:
    assert len(serdes.ListSerde(list, serdes.Short()).serialize(TOPIC, [1, 2, 3])) == 15


def test_list_serde_should_roundtrip_float_primitive_input() -> None:
    assert _roundtrip(serdes.ListSerde(list, serdes.Float()), [1.0, 2.0, 3.0]) == [1.0, 2.0, 3.0]


def test_list_serde_serializer_should_return_byte_array_of_fixed_size_for_float_primitive_input(
) -> None:
    assert len(serdes.ListSerde(list, serdes.Float()).serialize(TOPIC, [1.0, 2.0, 3.0])) == 21


def test_list_serde_should_roundtrip_long_primitive_input() -> None:
    assert _roundtrip(serdes.ListSerde(list, serdes.Long()), [1, 2, 3]) == [1, 2, 3]


def test_list_serde_serializer_should_return_byte_array_of_fixed_size_for_long_primitive_input(
) -> None:
    assert len(serdes.ListSerde(list, serdes.Long()).serialize(TOPIC, [1, 2, 3])) == 33


def test_list_serde_should_roundtrip_double_primitive_input() -> None:
    assert _roundtrip(serdes.ListSerde(list, serdes.Double()), [1.0, 2.0, 3.0]) == [1.0, 2.0, 3.0]


def test_list_serde_serializer_should_return_byte_array_of_fixed_size_for_double_primitive_input(
) -> None:
    assert len(serdes.ListSerde(list, serdes.Double()).serialize(TOPIC, [1.0, 2.0, 3.0])) == 33


def test_list_serde_should_roundtrip_uuid_input() -> None:
    data = [uuid.uuid4(), uuid.uuid4(), uuid.uuid4()]
    assert _roundtrip(serdes.ListSerde(list, serdes.UUID()), data) == data


def test_list_serde_serializer_should_return_byte_array_of_fixed_size_for_uuid_input() -> None:
    data = [uuid.uuid4(), uuid.uuid4(), uuid.uuid4()]
    assert len(serdes.ListSerde(list, serdes.UUID()).serialize(TOPIC, data)) == 117


def test_list_serde_should_roundtrip_non_primitive_input() -> None:
    assert _roundtrip(serdes.ListSerde(list, serdes.String()), ["A", "B", "C"]) == ["A", "B", "C"]


def test_list_serde_should_roundtrip_primitive_input_with_null_entries() -> None:
    assert _roundtrip(serdes.ListSerde(list, serdes.Integer()), [1, None, 3]) == [1, None, 3]


def test_list_serde_should_roundtrip_non_primitive_input_with_null_entries() -> None:
    serde = serdes.ListSerde(list, serdes.String())
    assert _roundtrip(serde, ["A", None, "C"]) == ["A", None, "C"]


def test_list_serde_should_return_linked_list() -> None:
    serde = serdes.ListSerde(collections.deque, serdes.Integer())
    assert isinstance(_roundtrip(serde, collections.deque()), collections.deque)


class Stack(list):
    pass


def test_list_serde_should_return_stack() -> None:
    assert isinstance(_roundtrip(serdes.ListSerde(Stack, serdes.Integer()), Stack()), Stack)


def test_list_serde_bytes_are_java_list_serializer_bytes() -> None:
    # ListSerializer: CONSTANT_SIZE (0), null indexes, size, entries; VARIABLE_SIZE (1), size,
    # then each entry's length (-1 for null) and bytes
    constant = serdes.ListSerde(list, serdes.Integer()).serialize(TOPIC, [1, None, 3])
    assert constant.hex() == "00" "00000001" "00000001" "00000003" "00000001" "00000003"
    variable = serdes.ListSerde(list, serdes.String()).serialize(TOPIC, ["A", None, "C"])
    assert variable.hex() == "01" "00000003" "00000001" "41" "ffffffff" "00000001" "43"


def test_float_deserializer_should_throw_serialization_exception_on_zero_bytes() -> None:
    with pytest.raises(SerdeError):
        serdes.Float().deserialize(TOPIC, b"")


def test_float_deserializer_should_throw_serialization_exception_on_too_few_bytes() -> None:
    with pytest.raises(SerdeError):
        serdes.Float().deserialize(TOPIC, bytes(3))


def test_float_deserializer_should_throw_serialization_exception_on_too_many_bytes() -> None:
    with pytest.raises(SerdeError):
        serdes.Float().deserialize(TOPIC, bytes(5))


def _float_nan(int_bits: int) -> float:
    """Float.intBitsToFloat for a NaN, as the Python (double) float that holds it."""
    payload = (int_bits & 0x7FFFFF) << 29
    return struct.unpack(">d", struct.pack(">Q", 0x7FF << 52 | payload))[0]


def _raw_bits(value: float) -> int:
    """Float.floatToRawIntBits of a float that went through serdes.Float."""
    return struct.unpack(">I", serdes.Float().serialize(TOPIC, value))[0]


def test_float_serde_should_preserve_na_n_values() -> None:
    serde = serdes.Float()
    some_nan_bits, another_nan_bits = 0x7F800001, 0x7F800002
    some_nan, another_nan = _float_nan(some_nan_bits), _float_nan(another_nan_bits)
    assert serde.serialize(TOPIC, some_nan) == struct.pack(">I", some_nan_bits)
    assert _raw_bits(serde.deserialize(TOPIC, serde.serialize(TOPIC, some_nan))) == some_nan_bits
    roundtrip = serde.deserialize(TOPIC, serde.serialize(TOPIC, another_nan))
    assert _raw_bits(roundtrip) == another_nan_bits


def test_serialize_void() -> None:
    assert serdes.Void().serialize(TOPIC, None) is None


def test_deserialize_void() -> None:
    assert serdes.Void().deserialize(TOPIC, None) is None


def test_void_deserializer_should_throw_on_not_null_values() -> None:
    with pytest.raises(InvalidArgumentError, match=r"Data should be null for a VoidDeserializer\."):
        serdes.Void().deserialize(TOPIC, bytes(5))


def test_string_deserializer_support_byte_buffer() -> None:
    data = "Hello, ByteBuffer!"
    serde = serdes.String()
    raw = serde.serialize(TOPIC, data)
    heap = bytearray(len(raw) * 2)
    heap[: len(raw)] = raw
    assert serde.deserialize(TOPIC, memoryview(heap)[: len(raw)]) == data
    assert serde.deserialize(TOPIC, bytearray(raw)) == data


@pytest.mark.parametrize("data_to_serialize", [True, False])
def test_boolean_serializer(data_to_serialize: bool) -> None:
    expected = bytes([1 if data_to_serialize else 0])
    assert serdes.Boolean().serialize(TOPIC, data_to_serialize) == expected


@pytest.mark.parametrize("data_to_deserialize", [True, False])
def test_boolean_deserializer(data_to_deserialize: bool) -> None:
    raw = bytes([1 if data_to_deserialize else 0])
    assert serdes.Boolean().deserialize(TOPIC, raw) is data_to_deserialize


def test_boolean_deserializer_should_throw_on_empty_input() -> None:
    with pytest.raises(SerdeError):
        serdes.Boolean().deserialize(TOPIC, b"")
