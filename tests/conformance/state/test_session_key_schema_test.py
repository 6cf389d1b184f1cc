"""Kafka's ``SessionKeySchemaTest``, where kslab exposes the byte layouts it checks: the
session-windowed key serde (``serdes.SessionWindowed``) and the session store's binary key
(``kslab.state.session.session_key`` / ``split_session_key``: key bytes, 8-byte end, 8-byte
start, Java's ``SessionKeySchema.toBinary``).

Mapping: ``SessionKeySchema.toBinary(windowedKey, serializer, "dummy")`` is
``session_key(String bytes, start, end)``; ``from`` / ``extract...`` are ``split_session_key``.
The three ``shouldFetch...`` tests run Java's ``hasNextCondition`` over six binary keys; here the
same six sessions go into an in-memory session store of ``Bytes`` keys and ``Integer`` values and
``fetch`` (single key, or ``None``/``None`` for all) answers them: the exact-key fetches must skip
the longer and shorter keys in the same order as Java, the all-keys fetch returns all six
(compared as a set: a store scans in its own key order, Java's condition in the stub's). Only
the ``SessionKeySchema`` case of each parameterized test is translated. Skipped: the
``PrefixedTimeFirstSchema`` and ``PrefixedKeyFirstSchema`` cases (the time-ordered store's
prefixed layouts are not exposed by kslab) and ``testUpperBound...`` / ``testLowerBound...``
(the segmented store's ``KeySchema`` bound functions are not part of kslab's API).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import kslab as ks
from kslab import serdes
from kslab.state.session import session_key, split_session_key
from tests.state.state_fixtures import FakeContext

LONG_MAX = 2**63 - 1
KEY = "key"
TOPIC = "topic"
START_TIME, END_TIME = 50, 100
SERDE = serdes.String()
WINDOW = ks.Window(START_TIME, END_TIME)
WINDOWED_KEY = ks.Windowed(KEY, WINDOW)
KEY_SERDE = serdes.SessionWindowed(SERDE)

SESSIONS = [
    (ks.Windowed(b"\x00\x00", ks.Window(0, 0)), 1),
    (ks.Windowed(b"\x00", ks.Window(0, 0)), 2),
    (ks.Windowed(b"\x00\x00\x00", ks.Window(0, 0)), 3),
    (ks.Windowed(b"\x00", ks.Window(10, 20)), 4),
    (ks.Windowed(b"\x00\x00", ks.Window(10, 20)), 5),
    (ks.Windowed(b"\x00\x00\x00", ks.Window(10, 20)), 6),
]


@pytest.fixture
def store(tmp_path: Path) -> Any:
    supplier = ks.Stores.in_memory_session_store("sessions", LONG_MAX)
    opened = ks.Stores.session_store_builder(supplier, serdes.Bytes(), serdes.Integer()) \
        .with_logging_disabled().build()
    opened.init(FakeContext(state_dir=tmp_path, timestamp=0))
    for session, value in SESSIONS:
        opened.put(session, value)
    yield opened
    opened.close()


def values(iterator: Any) -> list[int]:
    with iterator:
        return [kv.value for kv in iterator]


def to_binary(windowed: ks.Windowed) -> bytes:
    """``SessionKeySchema.toBinary(windowedKey, serde.serializer(), "dummy")``."""
    return session_key(SERDE.serialize("dummy", windowed.key), windowed.window.start,
                       windowed.window.end)


def from_binary(binary: bytes) -> ks.Windowed:
    """``SessionKeySchema.from(binary, deserializer, "dummy")``."""
    key_bytes, start, end = split_session_key(binary)
    return ks.Windowed(SERDE.deserialize("dummy", key_bytes), ks.Window(start, end))


def test_should_fetch_exact_keys_skipping_longer_keys(store: Any) -> None:
    assert values(store.fetch(b"\x00")) == [2, 4]


def test_should_fetch_exact_key_skipping_shorter_keys(store: Any) -> None:
    assert values(store.fetch(b"\x00\x00")) == [1, 5]


def test_should_fetch_all_keys_using_null_keys(store: Any) -> None:
    assert sorted(values(store.fetch(None, None))) == [1, 2, 3, 4, 5, 6]


def test_should_serialize_deserialize() -> None:
    data = KEY_SERDE.serialize(TOPIC, WINDOWED_KEY)
    assert KEY_SERDE.deserialize(TOPIC, data) == WINDOWED_KEY


def test_should_serialize_null_to_null() -> None:
    assert KEY_SERDE.serialize(TOPIC, None) is None


def test_should_de_serialize_empty_byte_array_to_null() -> None:
    assert KEY_SERDE.deserialize(TOPIC, b"") is None


def test_should_de_serialize_null_to_null() -> None:
    assert KEY_SERDE.deserialize(TOPIC, None) is None


def test_should_convert_to_binary_and_back() -> None:
    serialized = to_binary(WINDOWED_KEY)
    assert from_binary(serialized) == WINDOWED_KEY
    # the serde writes the same layout (SessionWindowedSerializer uses SessionKeySchema)
    assert KEY_SERDE.serialize("dummy", WINDOWED_KEY) == serialized


def test_should_extract_end_time_from_binary() -> None:
    assert split_session_key(to_binary(WINDOWED_KEY))[2] == END_TIME


def test_should_extract_start_time_from_binary() -> None:
    assert split_session_key(to_binary(WINDOWED_KEY))[1] == START_TIME


def test_should_extract_window_from_bindary() -> None:
    _, start, end = split_session_key(to_binary(WINDOWED_KEY))
    assert ks.Window(start, end) == WINDOW


def test_should_extract_key_bytes_from_binary() -> None:
    assert split_session_key(to_binary(WINDOWED_KEY))[0] == KEY.encode()


def test_should_extract_key_from_binary() -> None:
    assert from_binary(to_binary(WINDOWED_KEY)) == WINDOWED_KEY


def test_should_extract_bytes_key_from_binary() -> None:
    windowed_bytes_key = ks.Windowed(KEY.encode(), WINDOW)
    serialized = session_key(windowed_bytes_key.key, START_TIME, END_TIME)
    key_bytes, start, end = split_session_key(serialized)
    assert ks.Windowed(key_bytes, ks.Window(start, end)) == windowed_bytes_key
    assert serialized == KEY.encode() + END_TIME.to_bytes(8, "big") + START_TIME.to_bytes(8, "big")
