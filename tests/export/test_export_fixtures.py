"""How recorded records are written in fixtures: readable when exact, bytes otherwise."""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.export._fixtures import field_bytes, field_value, shape_field, shape_headers


@pytest.mark.parametrize(("serde", "value", "shaped"), [
    (serdes.String(), "héllo", {"key": "héllo"}),
    (serdes.Json(), {"b": 1, "a": [1.5, None]}, {"key": {"b": 1, "a": [1.5, None]}}),
    (serdes.Long(), -3, {"key": -3}),
    (serdes.Double(), 0.1, {"key": 0.1}),
    (serdes.TimeWindowed(serdes.String(), window_size=60_000),
     ks.Windowed("/home", ks.Window(0, 60_000)),
     {"key_windowed": {"key": "/home", "start": 0, "end": 60_000}}),
    (serdes.UUID(), __import__("uuid").UUID(int=5),
     {"key_hex": serdes.UUID().serialize("t", __import__("uuid").UUID(int=5)).hex()}),
])
def test_a_field_is_readable_when_that_is_exact(serde, value, shaped):
    data = serde.serialize("t", value)
    assert shape_field(serde, "t", data, "key") == shaped
    assert field_bytes(serde, "t", shaped, "key") == data


@pytest.mark.parametrize("data", [
    b'{"a": 1, "a": 2}',   # duplicate keys: reading loses one
    b'{"a":1.0}',          # spacing: orjson writes it back without the space, or differently
    b"\xff\xfe",           # not UTF-8 for the String serde below
])
def test_bytes_the_serde_does_not_give_back_are_kept_as_hex(data):
    for serde in (serdes.Json(), serdes.String()):
        shaped = shape_field(serde, "t", data, "value")
        if "value" in shaped:  # readable only when it serializes back to the same bytes
            assert serde.serialize("t", shaped["value"]) == data
        else:
            assert shaped == {"value_hex": data.hex()}
            assert field_value(shaped, "value") == data


def test_tombstones_and_headers():
    assert shape_field(serdes.Json(), "t", None, "value") == {"value": None}
    assert field_bytes(serdes.Json(), "t", {"value": None}, "value") is None
    headers = ks.Headers([("trace", b"\x01\x02"), ("empty", None)])
    assert shape_headers(headers) == [["trace", "0102"], ["empty", None]]
