"""Kafka's ``TimeWindowedDeserializerTest`` (kstream), translated to ``serdes.TimeWindowed``.

Java's ``TimeWindowedDeserializer(inner, windowSize)`` is ``serdes.TimeWindowed(inner,
window_size=...)`` (``getWindowSize()`` is ``window_size``); its no-arg form configured with
``window.size.ms`` and ``windowed.inner.class.serde`` is the serde ``StreamsConfig`` builds for
``default.key.serde = WindowedSerdes$TimeWindowedSerde``, whose configure errors arrive as the
cause of a ``StreamsError`` (Java's ``defaultKeySerde()``). Skipped:
``shouldThrowErrorIfWindowSizeSetInConfigsAndConstructor`` and
``shouldThrowErrorIfWindowedInnerClassDeserialisersConflictInConstructorAndConfig`` -- a kslab
serde is immutable and built from its arguments or from configs, never both.
"""

from __future__ import annotations

import pytest

from kslab import serdes
from kslab.config import ConfigError, StreamsConfig
from kslab.errors import InvalidArgumentError, StreamsError

WINDOW_SIZE = 5000000
TIME_WINDOWED_SERDE = "org.apache.kafka.streams.kstream.WindowedSerdes$TimeWindowedSerde"
BYTE_ARRAY_SERDE = "org.apache.kafka.common.serialization.Serdes$ByteArraySerde"


def _cause(props: dict) -> BaseException | None:
    with pytest.raises(StreamsError) as caught:
        StreamsConfig({"default.key.serde": TIME_WINDOWED_SERDE, **props}).default_key_serde()
    return caught.value.__cause__


def test_time_windowed_deserializer_constructor() -> None:
    deserializer = serdes.TimeWindowed(serdes.String(), WINDOW_SIZE).configure(True)
    assert isinstance(deserializer.inner, serdes.String)
    assert deserializer.window_size == 5000000


def test_should_set_window_size_and_windowed_inner_deserialiser_through_configs() -> None:
    config = StreamsConfig({"default.key.serde": TIME_WINDOWED_SERDE, "window.size.ms": "500",
                            "windowed.inner.class.serde": BYTE_ARRAY_SERDE})
    deserializer = config.default_key_serde()
    assert deserializer.window_size == 500
    assert isinstance(deserializer.inner, serdes.Bytes)


def test_should_throw_error_if_window_size_is_not_set() -> None:
    assert isinstance(_cause({"windowed.inner.class.serde": BYTE_ARRAY_SERDE}),
                      InvalidArgumentError)


def test_should_throw_error_if_windowed_inner_class_deserialiser_is_not_set() -> None:
    assert isinstance(_cause({"window.size.ms": "500"}), InvalidArgumentError)


def test_should_throw_config_exception_when_invalid_windowed_inner_class_deserialiser_supplied(
) -> None:
    cause = _cause({"window.size.ms": "500",
                    "windowed.inner.class.serde": "some.non.existent.class"})
    assert isinstance(cause, ConfigError)
