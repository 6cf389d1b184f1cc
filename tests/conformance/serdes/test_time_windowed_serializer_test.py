"""Kafka's ``TimeWindowedSerializerTest`` (kstream), translated to ``serdes.TimeWindowed``.

kslab has one ``serdes.TimeWindowed(inner, window_size=None)`` for both directions, built either
from its arguments (Java's ``TimeWindowedSerializer(inner)``) or, as Java's no-arg serializer
configured with ``windowed.inner.class.serde``, from the config when ``default.key.serde`` is
``WindowedSerdes$TimeWindowedSerde`` (``StreamsConfig.default_key_serde()``; the serde as a whole
also needs ``window.size.ms`` there, as Java's ``TimeWindowedSerde.configure`` does). Java's
``IllegalArgumentException``/``ConfigException`` from ``configure`` arrive as the cause of the
``StreamsError`` "Failed to configure key serde ...", as from Java's ``defaultKeySerde()``.
Skipped: ``shouldThrowErrorIfWindowedInnerClassSerialisersConflictInConstructorAndConfig`` -- a
kslab serde is immutable and built from its arguments or from configs, never both, so there is
nothing to conflict.
"""

from __future__ import annotations

import pytest

from kslab import serdes
from kslab.config import ConfigError, StreamsConfig
from kslab.errors import InvalidArgumentError, StreamsError

TIME_WINDOWED_SERDE = "org.apache.kafka.streams.kstream.WindowedSerdes$TimeWindowedSerde"
BYTE_ARRAY_SERDE = "org.apache.kafka.common.serialization.Serdes$ByteArraySerde"


def test_time_windowed_serializer_constructor() -> None:
    serializer = serdes.TimeWindowed(serdes.String()).configure(True)
    assert serializer.inner is not None
    assert isinstance(serializer.inner, serdes.String)


def test_should_set_windowed_inner_class_serialiser_through_config() -> None:
    config = StreamsConfig({"default.value.serde": TIME_WINDOWED_SERDE,
                            "windowed.inner.class.serde": BYTE_ARRAY_SERDE,
                            "window.size.ms": 500})
    assert isinstance(config.default_value_serde().inner, serdes.Bytes)


def test_should_throw_error_if_windowed_inner_class_serialiser_is_not_set() -> None:
    config = StreamsConfig({"default.value.serde": TIME_WINDOWED_SERDE, "window.size.ms": 500})
    with pytest.raises(StreamsError) as caught:
        config.default_value_serde()
    assert isinstance(caught.value.__cause__, InvalidArgumentError)


def test_should_throw_config_exception_when_invalid_windowed_inner_class_serialiser_supplied(
) -> None:
    config = StreamsConfig({"default.value.serde": TIME_WINDOWED_SERDE, "window.size.ms": 500,
                            "windowed.inner.class.serde": "some.non.existent.class"})
    with pytest.raises(StreamsError) as caught:
        config.default_value_serde()
    assert isinstance(caught.value.__cause__, ConfigError)
    assert str(caught.value.__cause__) == (
        "Invalid value some.non.existent.class for configuration windowed.inner.class.serde: "
        "Serde class some.non.existent.class could not be found.")
