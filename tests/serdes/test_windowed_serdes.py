"""TimeWindowed and SessionWindowed lay windowed keys out exactly as Kafka Streams does."""

import datetime as dt

import pytest

from kslab import SerdeError, Window, Windowed, serdes

LONG_MAX = 2**63 - 1


def test_time_windowed_is_key_bytes_then_8_byte_start():
    serde = serdes.TimeWindowed(serdes.String(), window_size=100)
    raw = serde.serialize("t", Windowed("k1", Window(1000, 1100)))
    assert raw.hex() == "6b31" + "00000000000003e8"


def test_time_windowed_reads_end_from_window_size():
    serde = serdes.TimeWindowed(serdes.String(), window_size=100)
    raw = bytes.fromhex("6b31" + "00000000000003e8")
    assert serde.deserialize("t", raw) == Windowed("k1", Window(1000, 1100))


def test_time_windowed_with_long_key():
    serde = serdes.TimeWindowed(serdes.Long(), window_size=dt.timedelta(seconds=5))
    raw = serde.serialize("t", Windowed(7, Window(5000, 10000)))
    assert raw.hex() == "0000000000000007" + "0000000000001388"
    assert serde.deserialize("t", raw) == Windowed(7, Window(5000, 10000))
    assert serde.window_size == 5000


def test_time_windowed_caps_the_end_at_long_max_as_java_does():
    serde = serdes.TimeWindowed(serdes.String(), window_size=LONG_MAX)
    raw = serde.serialize("t", Windowed("k", Window(10, 0)))
    assert serde.deserialize("t", raw).window == Window(10, LONG_MAX)


def test_time_windowed_without_size_writes_but_cannot_read():
    serde = serdes.TimeWindowed("string")
    raw = serde.serialize("t", Windowed("k", Window(1, 2)))
    assert raw.hex() == "6b" + "0000000000000001"
    with pytest.raises(SerdeError) as info:
        serde.deserialize("t", raw)
    message = str(info.value)
    assert message.startswith("TimeWindowed(String()) cannot deserialize 9 bytes from topic 't'")
    assert "; pass TimeWindowed(String(), window_size=<ms>)" in message


def test_session_windowed_is_key_bytes_then_end_then_start():
    serde = serdes.SessionWindowed(serdes.String())
    raw = serde.serialize("t", Windowed("k1", Window(1000, 2000)))
    assert raw.hex() == "6b31" + "00000000000007d0" + "00000000000003e8"
    assert serde.deserialize("t", raw) == Windowed("k1", Window(1000, 2000))


def test_plain_tuples_serialize_like_windowed():
    serde = serdes.SessionWindowed(serdes.Integer())
    assert serde.serialize("t", (1, (2, 3))) == serde.serialize("t", Windowed(1, Window(2, 3)))


@pytest.mark.parametrize(
    "serde",
    [serdes.TimeWindowed(serdes.String(), 10), serdes.SessionWindowed(serdes.String())],
)
def test_none_and_empty_bytes(serde):
    assert serde.serialize("t", None) is None
    assert serde.deserialize("t", None) is None
    assert serde.deserialize("t", b"") is None  # Java's deserializers return null for empty data


def test_too_short_bytes_are_an_error():
    pattern = r"^SessionWindowed\(String\(\)\) cannot deserialize 8 bytes"
    with pytest.raises(SerdeError, match=pattern):
        serdes.SessionWindowed(serdes.String()).deserialize("t", b"\x00" * 8)
    with pytest.raises(SerdeError, match="ends with 8 bytes of window bounds"):
        serdes.TimeWindowed(serdes.String(), 10).deserialize("t", b"\x00" * 7)


def test_non_windowed_values_are_an_error():
    pattern = r"^TimeWindowed\(String\(\), window_size=10\) cannot serialize str 'k' .* Windowed"
    with pytest.raises(SerdeError, match=pattern):
        serdes.TimeWindowed(serdes.String(), 10).serialize("t", "k")


def test_inner_errors_name_the_inner_serde():
    with pytest.raises(SerdeError, match=r"^Long\(\) cannot serialize str"):
        serdes.TimeWindowed(serdes.Long(), 10).serialize("t", Windowed("k", Window(0, 10)))


def test_null_windowed_key_is_an_error():
    with pytest.raises(SerdeError, match="whose key is not None"):
        serdes.SessionWindowed(serdes.String()).serialize("t", Windowed(None, Window(0, 1)))


def test_identity_and_validation():
    assert serdes.TimeWindowed(serdes.String(), 10) == serdes.TimeWindowed("string", 10)
    assert serdes.TimeWindowed(serdes.String(), 10) != serdes.TimeWindowed(serdes.String(), 20)
    assert repr(serdes.SessionWindowed(serdes.Long())) == "SessionWindowed(Long())"
    with pytest.raises(ValueError, match="window_size=-1 is invalid"):
        serdes.TimeWindowed(serdes.String(), -1)


def test_time_windowed_column_read_equals_field_reads():
    """``deserialize_column`` (the driver's bulk read) gives what ``deserialize`` gives per
    field: String keys through their C codec, Long keys, changelog keys, the capped end."""
    cases = [
        (serdes.TimeWindowed(serdes.String(), 100),
         [Windowed("k1", Window(0, 100)), Windowed("", Window(100, 200)),
          Windowed("ключ", Window(0, 100))]),
        (serdes.TimeWindowed(serdes.Long(), 50), [Windowed(7, Window(50, 100))]),
        (serdes.TimeWindowed(serdes.String(), LONG_MAX), [Windowed("k", Window(10, LONG_MAX))]),
    ]
    for serde, keys in cases:
        column = [serde.serialize("t", key) for key in keys]
        assert serde.deserialize_column("t", column, [None] * len(column)) == keys
    changelog = serdes.TimeWindowed(serdes.String(), 100).for_changelog()
    raw = bytes.fromhex("6b31" + "00000000000003e8" + "00000005")
    assert changelog.deserialize_column("t", [raw], [None]) == [
        Windowed("k1", Window(1000, 1100))]


def test_time_windowed_column_read_decodes_each_distinct_field_once():
    """Repeated fields read back equal; an immutable key's records share one ``Windowed``,
    a mutable (JSON object) key's records each get their own, as per-field reads give."""
    serde = serdes.TimeWindowed(serdes.String(), 100)
    one, two = Windowed("k1", Window(0, 100)), Windowed("k2", Window(100, 200))
    column = [serde.serialize("t", key) for key in (one, two, one, one)]
    read = serde.deserialize_column("t", column, [None] * 4)
    assert read == [one, two, one, one]
    assert read[0] is read[2] is read[3]
    json = serdes.TimeWindowed(serdes.Json(), 100)
    key = Windowed({"user": 1}, Window(0, 100))
    column = [json.serialize("t", key)] * 3
    read = json.deserialize_column("t", column, [None] * 3)
    assert read == [key, key, key]
    read[0].key["user"] = 2
    assert [r.key for r in read] == [{"user": 2}, {"user": 1}, {"user": 1}]


def test_time_windowed_column_read_falls_back_to_each_field():
    """A ``None`` or empty field reads as ``None`` and a short one raises, as ``deserialize``."""
    serde = serdes.TimeWindowed(serdes.String(), 100)
    good = serde.serialize("t", Windowed("k", Window(0, 100)))
    assert serde.deserialize_column("t", [good, None, b""], [None] * 3) == [
        Windowed("k", Window(0, 100)), None, None]
    with pytest.raises(SerdeError):
        serde.deserialize_column("t", [good, b"abc"], [None, None])
