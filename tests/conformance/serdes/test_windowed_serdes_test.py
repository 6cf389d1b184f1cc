"""Kafka's ``WindowedSerdesTest`` (kstream), translated to ``serdes.TimeWindowed`` /
``serdes.SessionWindowed``.

``WindowedSerdes.timeWindowedSerdeFrom(String.class, size)`` is ``serdes.TimeWindowed(str,
window_size=size)`` (a Python type names its serde as ``Serdes.serdeFrom`` does; ``Integer.class``
is ``serdes.Integer()`` since Python's ``int`` means Long), and ``sessionWindowedSerdeFrom`` is
``serdes.SessionWindowed(...)``; one kslab serde does both directions, so
``serializer()``/``deserializer()`` instance checks become checks of the serde and its ``inner``.
Java's no-arg serializers fail with an NPE on first use; kslab refuses the missing inner serde
when the serde is built (a ``SerdeError`` saying to pass one), which the
``...NotInitializedProperly`` tests check. Skipped: the four
``...ShouldNotThrowOnCloseIfNotInitializedProperly`` tests (kslab serdes have no ``close()``:
nothing to release) and the two ``...OnSerializingBaseKey...`` tests (``serializeBaseKey`` is an
internal of Java's windowed stores, not a serde method in kslab). Added: the byte layouts, which
must be Java's.
"""

from __future__ import annotations

import pytest

from kslab import serdes
from kslab.dsl.windows import SessionWindow, TimeWindow
from kslab.errors import SerdeError
from kslab.records import Window, Windowed

TOPIC = "sample"
LONG_MAX = 2**63 - 1


def test_should_wrap_for_time_windowed_serde() -> None:
    serde = serdes.TimeWindowed(str, window_size=LONG_MAX)
    assert isinstance(serde, serdes.TimeWindowed)
    assert isinstance(serde.inner, serdes.String)


def test_should_wrap_for_session_windowed_serde() -> None:
    serde = serdes.SessionWindowed(str)
    assert isinstance(serde, serdes.SessionWindowed)
    assert isinstance(serde.inner, serdes.String)


def test_time_window_serde_from() -> None:
    time_windowed = Windowed(10, TimeWindow(0, LONG_MAX))
    serde = serdes.TimeWindowed(serdes.Integer(), window_size=LONG_MAX)
    raw = serde.serialize(TOPIC, time_windowed)
    assert serde.deserialize(TOPIC, raw) == time_windowed


def test_session_windowed_serde_from() -> None:
    session_windowed = Windowed(10, SessionWindow(0, 1))
    serde = serdes.SessionWindowed(serdes.Integer())
    raw = serde.serialize(TOPIC, session_windowed)
    assert serde.deserialize(TOPIC, raw) == session_windowed


def test_time_windowed_serializer_should_throw_npe_if_not_initialized_properly() -> None:
    with pytest.raises(SerdeError, match="no serde given"):
        serdes.TimeWindowed(None)


def test_time_windowed_deserializer_should_throw_npe_if_not_initialized_properly() -> None:
    with pytest.raises(SerdeError, match="no serde given"):
        serdes.TimeWindowed(None, window_size=1)


def test_session_windowed_serializer_should_throw_npe_if_not_initialized_properly() -> None:
    with pytest.raises(SerdeError, match="no serde given"):
        serdes.SessionWindowed(None)


def test_time_windowed_bytes_are_window_key_schema_to_binary() -> None:
    # WindowKeySchema.toBinary: the key's bytes, then the 8-byte big-endian window start
    serde = serdes.TimeWindowed(serdes.String(), window_size=10)
    raw = serde.serialize(TOPIC, Windowed("a", Window(5, 15)))
    assert raw == b"a" + (5).to_bytes(8, "big")
    assert serde.deserialize(TOPIC, raw) == Windowed("a", Window(5, 15))


def test_session_windowed_bytes_are_session_key_schema_to_binary() -> None:
    # SessionKeySchema.toBinary: the key's bytes, then the 8-byte end, then the 8-byte start
    serde = serdes.SessionWindowed(serdes.String())
    raw = serde.serialize(TOPIC, Windowed("a", Window(5, 15)))
    assert raw == b"a" + (15).to_bytes(8, "big") + (5).to_bytes(8, "big")
    assert serde.deserialize(TOPIC, raw) == Windowed("a", Window(5, 15))


def test_time_windowed_end_is_capped_at_long_max() -> None:
    # WindowKeySchema.timeWindowForSize: an end past Long.MAX_VALUE becomes Long.MAX_VALUE
    serde = serdes.TimeWindowed(serdes.Integer(), window_size=LONG_MAX)
    raw = serde.serialize(TOPIC, Windowed(10, Window(5, LONG_MAX)))
    assert serde.deserialize(TOPIC, raw).window == Window(5, LONG_MAX)


def test_time_windowed_serde_for_changelog_reads_window_store_keys() -> None:
    # WindowKeySchema.fromStoreKey: the key's bytes, the 8-byte start, a 4-byte sequence number
    serde = serdes.TimeWindowed(serdes.String(), window_size=10).for_changelog(True)
    raw = b"a" + (5).to_bytes(8, "big") + (3).to_bytes(4, "big")
    assert serde.deserialize(TOPIC, raw) == Windowed("a", Window(5, 15))
    assert serde.serialize(TOPIC, Windowed("a", Window(5, 15))) == b"a" + (5).to_bytes(8, "big")
    assert serde.is_changelog_topic
    assert serde != serdes.TimeWindowed(serdes.String(), window_size=10)
