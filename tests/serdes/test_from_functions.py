"""from_functions wraps two plain functions; None and errors are handled around them."""

import pytest

from kslab import SerdeError, serdes


def encode(value):
    return str(value).encode()


def decode(raw):
    return int(raw)


def test_round_trip_and_tombstones():
    serde = serdes.from_functions(encode, decode)
    assert serde.serialize("t", 42) == b"42"
    assert serde.deserialize("t", b"42") == 42
    assert serde.serialize("t", None) is None
    assert serde.deserialize("t", None) is None


def test_repr_and_equality():
    serde = serdes.from_functions(encode, decode)
    assert repr(serde) == "from_functions(encode, decode)"
    assert serde == serdes.from_functions(encode, decode)
    assert serde != serdes.from_functions(encode, bytes)


def test_deserializer_errors_become_serde_errors_naming_the_function():
    with pytest.raises(SerdeError) as info:
        serdes.from_functions(encode, decode).deserialize("nums", b"x")
    message = str(info.value)
    assert message.startswith(
        "from_functions(encode, decode) cannot deserialize 1 byte b'x' from topic 'nums': "
        "the deserializer decode (test_from_functions.py:"
    )
    assert "raised ValueError" in message
    assert "; fix the deserializer" in message
    assert isinstance(info.value.__cause__, ValueError)
    assert info.value.raw == b"x"
    assert info.value.topic == "nums"


def test_serializer_errors_become_serde_errors():
    def boom(value):
        raise RuntimeError("no")

    with pytest.raises(SerdeError, match=r"the serializer .*boom \(.*\) raised RuntimeError: no;"):
        serdes.from_functions(boom, decode).serialize("t", 1)


def test_serializer_must_return_bytes():
    with pytest.raises(SerdeError, match="returned str '1', expected bytes; make it return bytes"):
        serdes.from_functions(str, decode).serialize("t", 1)
    assert serdes.from_functions(bytearray, bytes).serialize("t", b"ab") == b"ab"


def test_arguments_must_be_callable():
    with pytest.raises(TypeError, match="deserializer 3 is not callable"):
        serdes.from_functions(encode, 3)
