"""Kafka's ``ListDeserializerTest`` (clients, common.serialization), translated to the
``serdes.ListSerde`` that ``StreamsConfig`` builds from ``default.list.<key|value>.serde.*``.

As in ``test_list_serializer_test``: Java's no-arg ``ListDeserializer`` configured with
``default.list.<key|value>.serde.type`` and ``.inner`` is the serde
``StreamsConfig.default_key_serde()`` / ``default_value_serde()`` builds when the default serde
is ``Serdes$ListSerde``; configure errors are the cause (a ``ConfigError``) of a ``StreamsError``.
The type class is ``"java.util.ArrayList"`` or a Python list type, and reads back that type.
kslab's serde configures both directions at once, in the order of Java's
``ListSerde.configure``: the serializer first. So where a test's inner-serde config is missing
or bad, the message is the serializer's (as Java's ``ListSerde`` gives), not the deserializer's;
those three pairs of tests say so. Skipped: the two
``...ShouldThrowConfigExceptionDueAlreadyInitialized`` tests -- a kslab serde is immutable and
built from its arguments or from configs, never both.
"""

from __future__ import annotations

import pytest

from kslab import serdes
from kslab.config import ConfigError, StreamsConfig
from kslab.errors import StreamsError

LIST_SERDE = "org.apache.kafka.common.serialization.Serdes$ListSerde"
STRING_SERDE = "org.apache.kafka.common.serialization.Serdes$StringSerde"
INTEGER_SERDE = "org.apache.kafka.common.serialization.Serdes$IntegerSerde"
ARRAY_LIST = "java.util.ArrayList"
NON_EXISTING_CLASS = "non.existing.class"
KEY_INNER, VALUE_INNER = "default.list.key.serde.inner", "default.list.value.serde.inner"
KEY_TYPE, VALUE_TYPE = "default.list.key.serde.type", "default.list.value.serde.type"
MISSING_INNER = ("Not able to determine the serializer class because it was neither passed via "
                 "the constructor nor set in the config.")
MISSING_TYPE = ("Not able to determine the list class because it was neither passed via the "
                "constructor nor set in the config.")


class FakeObject:
    pass


def _configure(props: dict, is_key: bool) -> serdes.Serde:
    position = "key" if is_key else "value"
    config = StreamsConfig({f"default.{position}.serde": LIST_SERDE, **props})
    return config.default_key_serde() if is_key else config.default_value_serde()


def _error(props: dict, is_key: bool) -> str:
    with pytest.raises(StreamsError) as caught:
        _configure(props, is_key)
    cause = caught.value.__cause__
    assert isinstance(cause, ConfigError)
    return str(cause)


def test_list_key_deserializer_no_arg_constructors_with_class_names() -> None:
    serde = _configure({KEY_TYPE: ARRAY_LIST, KEY_INNER: STRING_SERDE}, True)
    assert isinstance(serde.inner, serdes.String)
    assert serde.list_class is list


def test_list_value_deserializer_no_arg_constructors_with_class_names() -> None:
    serde = _configure({VALUE_TYPE: ARRAY_LIST, VALUE_INNER: INTEGER_SERDE}, False)
    assert isinstance(serde.inner, serdes.Integer)


def test_list_key_deserializer_no_arg_constructors_with_class_objects() -> None:
    serde = _configure({KEY_TYPE: list, KEY_INNER: serdes.String}, True)
    assert isinstance(serde.inner, serdes.String)
    assert serde.deserialize("t", serde.serialize("t", ["a"])) == ["a"]


def test_list_value_deserializer_no_arg_constructors_with_class_objects() -> None:
    serde = _configure({VALUE_TYPE: list, VALUE_INNER: serdes.String}, False)
    assert isinstance(serde.inner, serdes.String)


def test_list_key_deserializer_no_arg_constructors_should_throw_config_exception_due_missing_inner_class_prop(  # noqa: E501
) -> None:
    # Java's ListDeserializer alone: "Not able to determine the inner serde class ..."
    assert _error({KEY_TYPE: ARRAY_LIST}, True) == MISSING_INNER


def test_list_value_deserializer_no_arg_constructors_should_throw_config_exception_due_missing_inner_class_prop(  # noqa: E501
) -> None:
    assert _error({VALUE_TYPE: ARRAY_LIST}, False) == MISSING_INNER


def test_list_key_deserializer_no_arg_constructors_should_throw_config_exception_due_missing_type_class_prop(  # noqa: E501
) -> None:
    assert _error({KEY_INNER: serdes.String}, True) == MISSING_TYPE


def test_list_value_deserializer_no_arg_constructors_should_throw_config_exception_due_missing_type_class_prop(  # noqa: E501
) -> None:
    assert _error({VALUE_INNER: serdes.String}, False) == MISSING_TYPE


def test_list_key_deserializer_no_arg_constructors_should_throw_kafka_exception_due_invalid_type_class(  # noqa: E501
) -> None:
    assert _error({KEY_TYPE: FakeObject(), KEY_INNER: serdes.String}, True) == (
        f'Could not determine the list class instance using "{KEY_TYPE}" property.')


def test_list_value_deserializer_no_arg_constructors_should_throw_kafka_exception_due_invalid_type_class(  # noqa: E501
) -> None:
    assert _error({VALUE_TYPE: FakeObject(), VALUE_INNER: serdes.String}, False) == (
        f'Could not determine the list class instance using "{VALUE_TYPE}" property.')


def test_list_key_deserializer_no_arg_constructors_should_throw_kafka_exception_due_invalid_inner_class(  # noqa: E501
) -> None:
    # Java's ListDeserializer alone: "Could not determine the inner serde class instance ..."
    assert _error({KEY_TYPE: list, KEY_INNER: FakeObject()}, True) == (
        f'Could not create a serializer class instance using "{KEY_INNER}" property.')


def test_list_value_deserializer_no_arg_constructors_should_throw_kafka_exception_due_invalid_inner_class(  # noqa: E501
) -> None:
    assert _error({VALUE_TYPE: list, VALUE_INNER: FakeObject()}, False) == (
        f'Could not create a serializer class instance using "{VALUE_INNER}" property.')


def test_list_key_deserializer_no_arg_constructors_should_throw_config_exception_due_list_class_not_found(  # noqa: E501
) -> None:
    assert _error({KEY_TYPE: NON_EXISTING_CLASS, KEY_INNER: serdes.String}, True) == (
        f"Invalid value {NON_EXISTING_CLASS} for configuration {KEY_TYPE}: Deserializer's list "
        f'class "{NON_EXISTING_CLASS}" could not be found.')


def test_list_value_deserializer_no_arg_constructors_should_throw_config_exception_due_list_class_not_found(  # noqa: E501
) -> None:
    assert _error({VALUE_TYPE: NON_EXISTING_CLASS, VALUE_INNER: serdes.String}, False) == (
        f"Invalid value {NON_EXISTING_CLASS} for configuration {VALUE_TYPE}: Deserializer's list "
        f'class "{NON_EXISTING_CLASS}" could not be found.')


def test_list_key_deserializer_no_arg_constructors_should_throw_config_exception_due_inner_serde_class_not_found(  # noqa: E501
) -> None:
    # Java's ListDeserializer alone: "... Deserializer's inner serde class ... could not be found."
    assert _error({KEY_TYPE: ARRAY_LIST, KEY_INNER: NON_EXISTING_CLASS}, True) == (
        f"Invalid value {NON_EXISTING_CLASS} for configuration {KEY_INNER}: Serializer class "
        f"{NON_EXISTING_CLASS} could not be found.")


def test_list_value_deserializer_no_arg_constructors_should_throw_config_exception_due_inner_serde_class_not_found(  # noqa: E501
) -> None:
    assert _error({VALUE_TYPE: ARRAY_LIST, VALUE_INNER: NON_EXISTING_CLASS}, False) == (
        f"Invalid value {NON_EXISTING_CLASS} for configuration {VALUE_INNER}: Serializer class "
        f"{NON_EXISTING_CLASS} could not be found.")
