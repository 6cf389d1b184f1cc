"""The one-argument C-level codecs of built-in serdes agree with their serialize/deserialize."""

from __future__ import annotations

import struct

import pytest

from kslab import serdes
from kslab.errors import SerdeError
from kslab.serdes._base import fast_deserializer, fast_serializer

RAW_ERRORS = (TypeError, struct.error)

SAMPLES = [
    (serdes.String(), ["", "word", "ünïcødé ✓"]),
    (serdes.Long(), [0, 1, -1, 2**63 - 1, -(2**63), True]),
    (serdes.Integer(), [0, 7, -(2**31), 2**31 - 1]),
    (serdes.Short(), [0, -5, 2**15 - 1]),
    (serdes.Double(), [0.0, -1.5, 3, 1e300]),
    (serdes.Float(), [0.0, 0.1, -2.5]),
]


@pytest.mark.parametrize(("serde", "values"), SAMPLES, ids=lambda s: repr(s)[:12])
def test_fast_codecs_give_the_serdes_own_bytes_and_values(serde, values):
    encode = fast_serializer(serde)
    decode, indexed = fast_deserializer(serde)
    for value in values:
        data = serde.serialize("t", value)
        assert encode(value) == data
        decoded = decode(data)
        assert (decoded[0] if indexed else decoded) == serde.deserialize("t", data)


@pytest.mark.parametrize(
    ("serde", "bad"),
    [(serdes.String(), 5), (serdes.Long(), "5"), (serdes.Long(), 2**63), (serdes.Double(), "x")],
)
def test_what_a_fast_serializer_refuses_the_serde_refuses_with_its_own_error(serde, bad):
    with pytest.raises(RAW_ERRORS):  # the codec's own error, not the serde's
        fast_serializer(serde)(bad)
    with pytest.raises(SerdeError, match=f"^{type(serde).__name__}\\(\\) cannot serialize"):
        serde.serialize("t", bad)


def test_none_is_refused_by_the_fast_codecs_and_is_none_in_the_serde():
    for serde in (serdes.String(), serdes.Long()):
        with pytest.raises(RAW_ERRORS):
            fast_serializer(serde)(None)
        assert serde.serialize("t", None) is None
        with pytest.raises(RAW_ERRORS):
            fast_deserializer(serde)[0](None)
        assert serde.deserialize("t", None) is None


def test_only_exact_built_in_classes_offer_fast_codecs():
    class Shouting(serdes.String):
        def serialize(self, topic, data, headers=None):
            return super().serialize(topic, data.upper(), headers)

    assert fast_serializer(Shouting()) is None
    assert fast_deserializer(Shouting()) is None
    assert fast_serializer(serdes.Json()) is None
    assert fast_serializer(serdes.Bytes()) is None
    assert fast_serializer(serdes.from_functions(str.encode, bytes.decode)) is None
    assert fast_serializer(serdes.String()) is str.encode
    assert fast_deserializer(serdes.String()) == (bytes.decode, False)


def test_json_offers_a_fast_reader_and_no_fast_writer():
    """``orjson.loads`` reads what ``Json.deserialize`` reads and refuses what it refuses (a
    ``None`` too, so callers ask the serde); no writer: ``dumps`` would write ``None`` as
    ``null`` and ``default`` is per instance."""
    import orjson

    serde = serdes.Json()
    assert fast_serializer(serde) is None
    decode, indexed = fast_deserializer(serde)
    assert indexed is False
    for data in (b'{"a":[1,2.5,"x"]}', b"null", b"0", b'"s"'):
        assert decode(data) == serde.deserialize("t", data)
    assert decode(b"null") is None
    for bad in (None, b"", b"{"):
        with pytest.raises((TypeError, orjson.JSONDecodeError)):
            decode(bad)
    assert serde.deserialize("t", None) is None
    with pytest.raises(SerdeError, match="expected UTF-8 JSON"):
        serde.deserialize("t", b"{")
