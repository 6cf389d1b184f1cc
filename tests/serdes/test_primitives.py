"""The single-value serdes write the JVM's exact bytes and read them back."""

import math
import re
import uuid

import pytest

from kslab import SerdeError, serdes

# (serde, value, hex of the bytes Java's serializer writes)
JVM_VECTORS = [
    (serdes.Long(), 1, "0000000000000001"),
    (serdes.Long(), -1, "ffffffffffffffff"),
    (serdes.Long(), 2**63 - 1, "7fffffffffffffff"),
    (serdes.Long(), -(2**63), "8000000000000000"),
    (serdes.Integer(), -1, "ffffffff"),
    (serdes.Integer(), 258, "00000102"),
    (serdes.Short(), -2, "fffe"),
    (serdes.Short(), 1, "0001"),
    (serdes.Double(), 1.5, "3ff8000000000000"),
    (serdes.Double(), -0.0, "8000000000000000"),
    (serdes.Float(), 1.5, "3fc00000"),
    (serdes.Float(), -2.0, "c0000000"),
    (serdes.Boolean(), True, "01"),
    (serdes.Boolean(), False, "00"),
    (serdes.String(), "héllo", "68c3a96c6c6f"),
    (serdes.String(), "", ""),
    (serdes.Bytes(), b"\x00\xff", "00ff"),
    (
        serdes.UUID(),
        uuid.UUID("123e4567-e89b-12d3-a456-426614174000"),
        b"123e4567-e89b-12d3-a456-426614174000".hex(),
    ),
]


@pytest.mark.parametrize(("serde", "value", "hex_bytes"), JVM_VECTORS)
def test_writes_jvm_bytes(serde, value, hex_bytes):
    assert serde.serialize("t", value).hex() == hex_bytes


@pytest.mark.parametrize(("serde", "value", "hex_bytes"), JVM_VECTORS)
def test_reads_jvm_bytes(serde, value, hex_bytes):
    got = serde.deserialize("t", bytes.fromhex(hex_bytes))
    assert got == value
    assert type(got) is type(value)


@pytest.mark.parametrize(
    "serde",
    [
        serdes.String(),
        serdes.Bytes(),
        serdes.Long(),
        serdes.Integer(),
        serdes.Short(),
        serdes.Double(),
        serdes.Float(),
        serdes.Boolean(),
        serdes.UUID(),
    ],
)
def test_none_is_a_tombstone_both_ways(serde):
    assert serde.serialize("t", None) is None
    assert serde.deserialize("t", None) is None


def test_double_keeps_special_values():
    double = serdes.Double()
    assert double.serialize("t", math.inf).hex() == "7ff0000000000000"
    assert math.isnan(double.deserialize("t", double.serialize("t", math.nan)))


def test_float_reads_back_single_precision():
    assert serdes.Float().deserialize("t", serdes.Float().serialize("t", 0.1)) == pytest.approx(0.1)


def test_bytes_copies_buffers_to_bytes():
    assert serdes.Bytes().serialize("t", bytearray(b"ab")) == b"ab"
    assert serdes.Bytes().serialize("t", memoryview(b"ab")) == b"ab"
    assert type(serdes.Bytes().deserialize("t", bytearray(b"ab"))) is bytes


def test_string_reads_bytearray():
    assert serdes.String().deserialize("t", bytearray("é".encode())) == "é"


def test_uuid_accepts_its_string_form():
    text = "123E4567-E89B-12D3-A456-426614174000"
    assert serdes.UUID().serialize("t", text) == text.lower().encode()


def test_long_accepts_objects_with_index():
    class Index:
        def __index__(self):
            return 7

    assert serdes.Long().serialize("t", Index()).hex() == "0000000000000007"


# -- errors --------------------------------------------------------------------------------------


def test_long_deserialize_wrong_length_names_serde_topic_size_and_fix():
    with pytest.raises(SerdeError) as info:
        serdes.Long().deserialize("orders", b"abc")
    message = str(info.value)
    assert message.startswith("Long() cannot deserialize 3 bytes b'abc' from topic 'orders'")
    assert "a Long is exactly 8 bytes;" in message
    assert "serdes.String()" in message  # the bytes look like text
    assert info.value.topic == "orders"
    assert info.value.raw == b"abc"
    assert info.value.partition is None and info.value.offset is None


def test_long_serialize_wrong_type_suggests_matching_serde():
    with pytest.raises(SerdeError) as info:
        serdes.Long().serialize("orders", "abc")
    message = str(info.value)
    assert message.startswith("Long() cannot serialize str 'abc' for topic 'orders': expected ")
    assert "expected an int in [-2**63, 2**63)" in message
    assert "; use a serde that matches the value (here serdes.String())" in message
    assert info.value.topic == "orders"
    assert info.value.raw is None
    assert isinstance(info.value.__cause__, Exception)


@pytest.mark.parametrize(
    ("serde", "value"),
    [
        (serdes.Long(), 2**63),
        (serdes.Integer(), 2**31),
        (serdes.Short(), 2**15),
        (serdes.Float(), 1e300),
        (serdes.Double(), "1.5"),
        (serdes.String(), 5),
        (serdes.String(), b"bytes"),
        (serdes.Bytes(), "text"),
        (serdes.Boolean(), 1),
        (serdes.UUID(), "not-a-uuid"),
    ],
)
def test_unwritable_values_raise_serde_error(serde, value):
    pattern = rf"^{re.escape(repr(serde))} cannot serialize .* for topic 'out': expected .*; "
    with pytest.raises(SerdeError, match=pattern):
        serde.serialize("out", value)


@pytest.mark.parametrize(
    ("serde", "raw"),
    [
        (serdes.Integer(), b"\x00" * 8),
        (serdes.Short(), b"\x00"),
        (serdes.Double(), b""),
        (serdes.Float(), b"\x00" * 8),
        (serdes.String(), b"\xff\xfe"),
        (serdes.Boolean(), b"\x02"),
        (serdes.Boolean(), b"\x00\x01"),
        (serdes.UUID(), b"nope"),
        (serdes.UUID(), b"\xff"),
    ],
)
def test_unreadable_bytes_raise_serde_error(serde, raw):
    pattern = rf"^{re.escape(repr(serde))} cannot deserialize .* from topic 'in': .*; "
    with pytest.raises(SerdeError, match=pattern) as info:
        serde.deserialize("in", raw)
    assert info.value.raw == raw
    assert info.value.topic == "in"


def test_deserialize_of_a_non_bytes_value_says_so():
    with pytest.raises(SerdeError, match="a str instead of bytes"):
        serdes.String().deserialize("in", "already text")


# -- identity ------------------------------------------------------------------------------------


def test_repr_name_and_equality():
    assert repr(serdes.Long()) == "Long()"
    assert serdes.String().name == "String()"
    assert serdes.Long() == serdes.Long()
    assert serdes.Long() != serdes.Integer()
    assert len({serdes.Long(), serdes.Long(), serdes.String()}) == 2
    assert type(serdes.Long()).__module__ == "kslab.serdes"


def test_configure_returns_the_same_serde():
    long_serde = serdes.Long()
    assert long_serde.configure(True) is long_serde


def test_duck_typed_objects_count_as_serdes():
    class Upper:
        def serialize(self, topic, data, headers=None):
            return data.upper().encode()

        def deserialize(self, topic, data, headers=None):
            return data.decode()

    assert isinstance(Upper(), serdes.Serde)
    assert not isinstance(object(), serdes.Serde)
