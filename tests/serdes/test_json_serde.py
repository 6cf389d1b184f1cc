"""Json() writes compact UTF-8 JSON in insertion order and refuses what it cannot write or read."""

import datetime as dt
import re

import pytest

from kslab import SerdeError, serdes


def test_writes_compact_utf8_json_in_insertion_order():
    value = {"z": 1, "a": [True, None, 1.5], "name": "héllo"}
    raw = serdes.Json().serialize("t", value)
    assert raw == '{"z":1,"a":[true,null,1.5],"name":"héllo"}'.encode()
    assert serdes.Json().deserialize("t", raw) == value


@pytest.mark.parametrize("value", [0, -3, 2.5, "text", [1, "a"], {"k": {"n": []}}, True, False])
def test_round_trips(value):
    json = serdes.Json()
    assert json.deserialize("t", json.serialize("t", value)) == value


def test_none_is_a_tombstone_and_json_null_reads_as_none():
    json = serdes.Json()
    assert json.serialize("t", None) is None
    assert json.deserialize("t", None) is None
    assert json.deserialize("t", b"null") is None


def test_empty_bytes_are_an_error_not_none():
    pattern = r"^Json\(\) cannot deserialize 0 bytes b'' from topic 't'"
    with pytest.raises(SerdeError, match=pattern):
        serdes.Json().deserialize("t", b"")


def test_invalid_json_names_topic_and_raw_bytes():
    with pytest.raises(SerdeError) as info:
        serdes.Json().deserialize("clicks", b"{oops")
    assert "from topic 'clicks': expected UTF-8 JSON" in str(info.value)
    assert "; check the topic's key/value serde" in str(info.value)
    assert info.value.raw == b"{oops"


def test_invalid_utf8_is_an_error():
    with pytest.raises(SerdeError, match="expected UTF-8 JSON"):
        serdes.Json().deserialize("t", b'"\xff"')


@pytest.mark.parametrize("value", [object(), {1: "int key"}, {"s": {1, 2}}])
def test_unwritable_values_raise_serde_error(value):
    pattern = r"^Json\(\) cannot serialize .* for topic 'out': expected a JSON-able value .*; "
    with pytest.raises(SerdeError, match=pattern):
        serdes.Json().serialize("out", value)


def test_default_converts_unknown_types():
    json = serdes.Json(default=sorted)
    assert json.serialize("t", {"s": {2, 1}}) == b'{"s":[1,2]}'
    assert json == serdes.Json(default=sorted)
    assert json != serdes.Json()
    assert repr(json) == "Json(default=sorted)"


def test_datetimes_are_written_as_rfc3339():
    when = dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.UTC)
    assert serdes.Json().serialize("t", when) == b'"2024-01-02T03:04:05+00:00"'


def test_repr():
    assert repr(serdes.Json()) == "Json()"
    assert re.fullmatch(r"Json\(\)", serdes.Json().name)


class _Text(str):
    """A str subclass: JSON reads it back as a plain str."""


READ_BACK = [
    ([{"a": 1, "b": 2.5, "c": None, "d": True, "e": "x"}, None, {}], True),
    (["x", 3, -0.0, False, None, 2**64 - 1, -(2**63)], True),
    ([{"o": {"l": [1, {"m": []}, None]}}, [1, [2]]], True),
    ([{"a": (1, 2)}], False),  # a tuple reads back as a list
    ([{"a": float("nan")}], False),  # written as null
    ([float("inf")], False),
    ([{"a": _Text("x")}], False),
    ([{"a": dt.date(2024, 1, 2)}], False),  # written as a string
]


@pytest.mark.parametrize(("items", "taken"), READ_BACK)
def test_read_back_column_is_what_deserializing_gives_or_none(items, taken):
    json = serdes.Json()
    fields = json.serialize_column("t", items)
    decoded = [json.deserialize("t", field) for field in fields]
    copies = json.read_back_column(items, fields)
    if not taken:
        assert copies is None
        return
    assert copies == decoded
    assert [type(item) for item in copies] == [type(item) for item in decoded]
    for copy, item in zip(copies, items, strict=True):  # containers are new objects
        assert (copy is item) is not isinstance(copy, dict | list)
    nested = [{"o": {"l": [1]}}]
    copy = json.read_back_column(nested, json.serialize_column("t", nested))
    copy[0]["o"]["l"].append(2)
    assert nested == [{"o": {"l": [1]}}]  # a deep copy
