"""Kafka's ``SessionWindowedDeserializerTest`` (kstream), translated to ``serdes.SessionWindowed``.

Java's ``SessionWindowedDeserializer(inner)`` is ``serdes.SessionWindowed(inner)``; its no-arg form
configured with ``windowed.inner.class.serde`` is the serde ``StreamsConfig`` builds for
``default.key.serde = WindowedSerdes$SessionWindowedSerde``, whose configure errors arrive as the
cause of a ``StreamsError`` (Java's ``defaultKeySerde()``). Skipped:
``shouldThrowErrorIfDeserialisersConflictInConstructorAndConfig`` -- a kslab serde is immutable
and built from its arguments or from configs, never both.
"""

from __future__ import annotations

import pytest

from kslab import serdes
from kslab.config import ConfigError, StreamsConfig
from kslab.errors import InvalidArgumentError, StreamsError

SESSION_WINDOWED_SERDE = "org.apache.kafka.streams.kstream.WindowedSerdes$SessionWindowedSerde"
BYTE_ARRAY_SERDE = "org.apache.kafka.common.serialization.Serdes$ByteArraySerde"


def _cause(props: dict) -> BaseException | None:
    config = StreamsConfig({"default.key.serde": SESSION_WINDOWED_SERDE, **props})
    with pytest.raises(StreamsError) as caught:
        config.default_key_serde()
    return caught.value.__cause__


def test_session_windowed_deserializer_constructor() -> None:
    deserializer = serdes.SessionWindowed(serdes.String()).configure(True)
    assert isinstance(deserializer.inner, serdes.String)


def test_should_set_windowed_inner_class_deserialiser_through_config() -> None:
    config = StreamsConfig({"default.key.serde": SESSION_WINDOWED_SERDE,
                            "windowed.inner.class.serde": BYTE_ARRAY_SERDE})
    assert isinstance(config.default_key_serde().inner, serdes.Bytes)


def test_should_throw_error_if_window_inner_class_deserialiser_is_not_set() -> None:
    assert isinstance(_cause({}), InvalidArgumentError)


def test_should_throw_config_exception_when_invalid_window_inner_class_deserialiser_supplied(
) -> None:
    assert isinstance(_cause({"windowed.inner.class.serde": "some.non.existent.class"}),
                      ConfigError)
