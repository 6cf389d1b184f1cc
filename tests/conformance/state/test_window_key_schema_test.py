"""Kafka's ``WindowKeySchemaTest``, where kslab exposes the byte layouts it checks: the
time-windowed key serde (``serdes.TimeWindowed``, with ``for_changelog``) and the window store's
binary key (``kslab.state.window.window_key`` / ``split_window_key``: key bytes, 8-byte window
start, 4-byte sequence number, Java's ``WindowKeySchema.toStoreKeyBinary``).

Mapping: Java's ``StateSerdes("dummy", String, ByteArray)`` key side is ``serdes.String()`` with
topic ``dummy``; ``toStoreKeyBinary(windowedKey, seq, serdes)`` is ``window_key(String bytes,
start, seq)``; ``fromStoreKey`` / ``extractStoreWindow`` are ``split_window_key`` with the window
end computed from the window size, as the store does. Only the ``WindowKeySchema`` case of each
parameterized test is translated. Skipped: the ``PrefixedTimeFirstSchema`` and
``PrefixedKeyFirstSchema`` cases and ``shouldConvertFromNonPrefixWindowKey`` (the time-ordered
store's prefixed layouts are not exposed by kslab), and the range-scan internals
(``testHasNextConditionUsingNullKeys``, ``testUpperBound...``, ``testLowerBound...``: the
``KeySchema`` bound and ``hasNextCondition`` functions of the segmented RocksDB store are not
part of kslab's API; the window store tests cover the scans they serve).
"""

from __future__ import annotations

import kslab as ks
from kslab import serdes
from kslab.state.window import split_window_key, window_key

LONG_MAX = 2**63 - 1
KEY = "key"
TOPIC = "topic"
START_TIME, END_TIME = 50, 100
SERDE = serdes.String()
WINDOW = ks.Window(START_TIME, END_TIME)
WINDOWED_KEY = ks.Windowed(KEY, WINDOW)
KEY_SERDE = serdes.TimeWindowed(SERDE, LONG_MAX)
STATE_TOPIC = "dummy"


def to_store_key_binary(windowed: ks.Windowed, seq: int) -> bytes:
    """``WindowKeySchema.toStoreKeyBinary(windowedKey, seq, stateSerdes)``."""
    return window_key(SERDE.serialize(STATE_TOPIC, windowed.key), windowed.window.start, seq)


def extract_store_window(binary: bytes, window_size: int) -> ks.Window:
    """``WindowKeySchema.extractStoreWindow``."""
    start = split_window_key(binary)[1]
    return ks.Window(start, start + window_size)


def test_should_serialize_deserialize() -> None:
    data = KEY_SERDE.serialize(TOPIC, WINDOWED_KEY)
    result = KEY_SERDE.deserialize(TOPIC, data)
    assert result == ks.Windowed(KEY, ks.Window(START_TIME, LONG_MAX))


def test_serialize_deserialize_overflow_window_size() -> None:
    data = KEY_SERDE.serialize(TOPIC, WINDOWED_KEY)
    result = serdes.TimeWindowed(SERDE, LONG_MAX - 1).deserialize(TOPIC, data)
    assert result == ks.Windowed(KEY, ks.Window(START_TIME, LONG_MAX))


def test_should_serialize_deserialize_expected_window_size() -> None:
    data = KEY_SERDE.serialize(TOPIC, WINDOWED_KEY)
    result = serdes.TimeWindowed(SERDE, END_TIME - START_TIME).deserialize(TOPIC, data)
    assert result == WINDOWED_KEY


def test_should_serialize_deserialize_expected_changelog_window_size() -> None:
    keys = [
        (window_key(b"\x00", 0, 0), 1),
        (window_key(b"\x00\x00", 0, 0), 10),
        (window_key(b"\x00\x00\x00", 10, 6), 20),
    ]
    results = []
    for binary, size in keys:
        key_serde = serdes.TimeWindowed(SERDE, size).for_changelog(True)
        result = key_serde.deserialize(TOPIC, binary)
        results.append(result.window.end - result.window.start)
    assert results == [1, 10, 20]


def test_should_serialize_null_to_null() -> None:
    assert KEY_SERDE.serialize(TOPIC, None) is None


def test_should_deserialize_empty_byte_array_to_null() -> None:
    assert KEY_SERDE.deserialize(TOPIC, b"") is None


def test_should_deserialize_null_to_null() -> None:
    assert KEY_SERDE.deserialize(TOPIC, None) is None


def test_should_convert_to_binary_and_back() -> None:
    serialized = to_store_key_binary(WINDOWED_KEY, 0)
    key_bytes, start, _ = split_window_key(serialized)
    result = ks.Windowed(SERDE.deserialize(STATE_TOPIC, key_bytes),
                         extract_store_window(serialized, END_TIME - START_TIME))
    assert result == WINDOWED_KEY
    # the changelog reading of the same bytes (WindowKeySchema.fromStoreKey) agrees
    changelog_serde = serdes.TimeWindowed(SERDE, END_TIME - START_TIME).for_changelog(True)
    assert changelog_serde.deserialize(STATE_TOPIC, serialized) == WINDOWED_KEY
    assert start == START_TIME


def test_should_extract_sequence_from_binary() -> None:
    serialized = to_store_key_binary(WINDOWED_KEY, 0)
    assert split_window_key(serialized)[2] == 0


def test_should_extract_start_time_from_binary() -> None:
    serialized = to_store_key_binary(WINDOWED_KEY, 0)
    assert split_window_key(serialized)[1] == START_TIME


def test_should_extract_window_from_binary() -> None:
    serialized = to_store_key_binary(WINDOWED_KEY, 0)
    assert extract_store_window(serialized, END_TIME - START_TIME) == WINDOW


def test_should_extract_key_bytes_from_binary() -> None:
    serialized = to_store_key_binary(WINDOWED_KEY, 0)
    assert split_window_key(serialized)[0] == KEY.encode()


def test_should_extract_bytes_key_from_binary() -> None:
    windowed_bytes_key = ks.Windowed(KEY.encode(), WINDOW)
    serialized = window_key(windowed_bytes_key.key, WINDOW.start, 0)
    key_bytes, start, _ = split_window_key(serialized)
    from_store = ks.Windowed(key_bytes, ks.Window(start, start + END_TIME - START_TIME))
    assert from_store == windowed_bytes_key
    assert serialized == KEY.encode() + START_TIME.to_bytes(8, "big") + (0).to_bytes(4, "big")
