"""Kafka's ``ListSerializerTest`` (clients, common.serialization), translated to the
``serdes.ListSerde`` that ``StreamsConfig`` builds from ``default.list.<key|value>.serde.*``.

kslab has one ``serdes.ListSerde`` for both directions, built from arguments
(``ListSerde(list, inner)``) or, as Java's no-arg ``ListSerializer`` configured with
``default.list.key.serde.inner``, from the config when ``default.key.serde`` is
``Serdes$ListSerde`` (``StreamsConfig.default_key_serde()`` / ``default_value_serde()``, for
``is_key`` true / false). As Java's ``ListSerde.configure``, the serde as a whole also reads
``default.list.<key|value>.serde.type`` (here ``java.util.ArrayList``); configure errors arrive as
the cause (a ``ConfigError``, Java's ``ConfigException``/``KafkaException``, with Java's message)
of a ``StreamsError`` "Failed to configure key serde ...", as from Java's ``defaultKeySerde()``.
Java's ``Serdes.StringSerde.class`` is ``serdes.String`` (the class); ``new FakeObject()`` is an
object that is not a serde. Skipped: the two ``...ShouldThrowConfigExceptionDueAlreadyInitialized``
tests -- a kslab serde is immutable and built from its arguments or from configs, never both.
"""

from __future__ import annotations

import pytest

from kslab import serdes
from kslab.config import ConfigError, StreamsConfig
from kslab.errors import StreamsError

LIST_SERDE = "org.apache.kafka.common.serialization.Serdes$ListSerde"
STRING_SERDE = "org.apache.kafka.common.serialization.Serdes$StringSerde"
NON_EXISTING_CLASS = "non.existing.class"
KEY_INNER, VALUE_INNER = "default.list.key.serde.inner", "default.list.value.serde.inner"
KEY_TYPE, VALUE_TYPE = "default.list.key.serde.type", "default.list.value.serde.type"
MISSING = ("Not able to determine the serializer class because it was neither passed via the "
           "constructor nor set in the config.")


class FakeObject:
    pass


def _configure(props: dict, is_key: bool) -> serdes.Serde:
    position = "key" if is_key else "value"
    config = StreamsConfig({f"default.{position}.serde": LIST_SERDE,
                            f"default.list.{position}.serde.type": "java.util.ArrayList",
                            **props})
    return config.default_key_serde() if is_key else config.default_value_serde()


def _error(props: dict, is_key: bool) -> BaseException:
    with pytest.raises(StreamsError) as caught:
        _configure(props, is_key)
    cause = caught.value.__cause__
    assert isinstance(cause, ConfigError)
    return cause


def test_list_key_serializer_no_arg_constructors_with_class_name() -> None:
    inner = _configure({KEY_INNER: STRING_SERDE}, True).inner
    assert inner is not None
    assert isinstance(inner, serdes.String)


def test_list_value_serializer_no_arg_constructors_with_class_name() -> None:
    assert isinstance(_configure({VALUE_INNER: STRING_SERDE}, False).inner, serdes.String)


def test_list_key_serializer_no_arg_constructors_with_class_object() -> None:
    assert isinstance(_configure({KEY_INNER: serdes.String}, True).inner, serdes.String)


def test_list_value_serializer_no_arg_constructors_with_class_object() -> None:
    assert isinstance(_configure({VALUE_INNER: serdes.String}, False).inner, serdes.String)


def test_list_serializer_no_arg_constructors_should_throw_config_exception_due_missing_prop(
) -> None:
    assert str(_error({}, True)) == MISSING
    assert str(_error({}, False)) == MISSING


def test_list_key_serializer_no_arg_constructors_should_throw_kafka_exception_due_invalid_class(
) -> None:
    assert str(_error({KEY_INNER: FakeObject()}, True)) == (
        f'Could not create a serializer class instance using "{KEY_INNER}" property.')


def test_list_value_serializer_no_arg_constructors_should_throw_kafka_exception_due_invalid_class(
) -> None:
    assert str(_error({VALUE_INNER: FakeObject()}, False)) == (
        f'Could not create a serializer class instance using "{VALUE_INNER}" property.')


def test_list_key_serializer_no_arg_constructors_should_throw_kafka_exception_due_class_not_found(
) -> None:
    assert str(_error({KEY_INNER: NON_EXISTING_CLASS}, True)) == (
        f"Invalid value non.existing.class for configuration {KEY_INNER}: Serializer class "
        f"{NON_EXISTING_CLASS} could not be found.")


def test_list_value_serializer_no_arg_constructors_should_throw_kafka_exception_due_class_not_found(
) -> None:
    assert str(_error({VALUE_INNER: NON_EXISTING_CLASS}, False)) == (
        f"Invalid value non.existing.class for configuration {VALUE_INNER}: Serializer class "
        f"{NON_EXISTING_CLASS} could not be found.")
