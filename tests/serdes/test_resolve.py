"""resolve() turns config names, Java class names, classes and types into serdes."""

import uuid

import pytest

from kslab import SerdeError, serdes


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("string", serdes.String()),
        ("bytes", serdes.Bytes()),
        ("long", serdes.Long()),
        ("integer", serdes.Integer()),
        ("double", serdes.Double()),
        ("json", serdes.Json()),
        ("short", serdes.Short()),
        ("float", serdes.Float()),
        ("boolean", serdes.Boolean()),
        ("uuid", serdes.UUID()),
        ("Long", serdes.Long()),
        (" JSON ", serdes.Json()),
        ("org.apache.kafka.common.serialization.Serdes$StringSerde", serdes.String()),
        ("org.apache.kafka.common.serialization.Serdes$LongSerde", serdes.Long()),
        ("org.apache.kafka.common.serialization.Serdes$ByteArraySerde", serdes.Bytes()),
        ("org.apache.kafka.common.serialization.Serdes$UUIDSerde", serdes.UUID()),
        ("Serdes.IntegerSerde", serdes.Integer()),
        ("DoubleSerde", serdes.Double()),
        ("String()", serdes.String()),
    ],
)
def test_names(name, expected):
    assert serdes.resolve(name) == expected


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (serdes.Long, serdes.Long()),
        (serdes.Json, serdes.Json()),
        (str, serdes.String()),
        (int, serdes.Long()),
        (float, serdes.Double()),
        (bool, serdes.Boolean()),
        (bytes, serdes.Bytes()),
        (uuid.UUID, serdes.UUID()),
        (dict, serdes.Json()),
    ],
)
def test_classes_and_python_types(given, expected):
    assert serdes.resolve(given) == expected


def test_instances_and_duck_typed_objects_pass_through():
    serde = serdes.Long()
    assert serdes.resolve(serde) is serde

    class Custom:
        def serialize(self, topic, data, headers=None):
            return data

        def deserialize(self, topic, data, headers=None):
            return data

    custom = Custom()
    assert serdes.resolve(custom) is custom
    assert serdes.resolve(custom, is_key=True) is custom


def test_unknown_name_lists_the_known_ones():
    with pytest.raises(SerdeError) as info:
        serdes.resolve("strnig")
    message = str(info.value)
    assert message.startswith("unknown serde name 'strnig' (did you mean 'string'?); use one of")
    for known in ("'string'", "'bytes'", "'long'", "'integer'", "'double'", "'json'", "'uuid'"):
        assert known in message
    assert "Serdes$StringSerde" in message


def test_names_that_need_arguments_say_how_to_build_them():
    java = "org.apache.kafka.streams.kstream.WindowedSerdes$TimeWindowedSerde"
    with pytest.raises(SerdeError, match=r"pass serdes.TimeWindowed\(inner, window_size=<ms>\)"):
        serdes.resolve(java)
    with pytest.raises(SerdeError, match="needs arguments"):
        serdes.resolve("avro")
    with pytest.raises(SerdeError, match=r"serde class TimeWindowed cannot be built without"):
        serdes.resolve(serdes.TimeWindowed)


@pytest.mark.parametrize("given", [None, 3, object, object()])
def test_non_serdes_are_refused(given):
    with pytest.raises(SerdeError):
        serdes.resolve(given)


def test_is_key_configures_the_serde():
    avro = serdes.resolve(serdes.Avro("string"), is_key=True)
    assert avro.is_key
    assert serdes.resolve(avro, is_key=False).is_key is False
    windowed = serdes.resolve(serdes.TimeWindowed(serdes.Avro("string"), 10), is_key=True)
    assert windowed.inner.is_key
