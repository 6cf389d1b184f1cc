"""Protobuf() through confluent-kafka's serializers against in-process mock:// registries.

Expected bytes are written out from Confluent's wire-format specification: magic byte 0, the
schema id as 4 big-endian bytes, the message-index array (zigzag varints: the count, then each
index; ``[0]`` alone is the single byte 0), then the Protobuf binary of the message.
"""

from __future__ import annotations

import base64

import pytest

from kslab import SerdeError, serdes
from tests.serdes.proto_messages import OrderV1, OrderV2, Refund, order_file
from tests.serdes.registry_server import http_registry_fixture  # noqa: F401 - the fixture

ORDER_PB = bytes.fromhex("0807" + "1203" + b"pen".hex())  # id=7 (field 1), item="pen" (field 2)


@pytest.fixture
def registry(request):
    name = f"protobuf-{request.node.name}"
    serdes.drop_mock_registry(name)
    yield f"mock://{name}"
    serdes.drop_mock_registry(name)


def subjects(url: str) -> list[str]:
    return sorted(serdes.mock_registry(url.removeprefix("mock://")).get_subjects())


def test_wire_bytes_are_magic_byte_schema_id_message_indexes_and_protobuf(registry):
    order = serdes.Protobuf(OrderV1, registry=registry)
    raw = order.serialize("orders", OrderV1(id=7, item="pen"))
    assert raw == bytes.fromhex("00" + "00000001" + "00") + ORDER_PB
    refund = serdes.Protobuf(Refund, registry=registry)
    # Refund is the file's second message: index array [1] is count 1 and index 1, zigzagged
    assert refund.serialize("refunds", Refund(order_id=7)) == bytes.fromhex(
        "00" + "00000002" + "02" + "02" + "0807")
    assert subjects(registry) == ["orders-value", "refunds-value"]
    registered = serdes.mock_registry(registry[7:]).get_latest_version("orders-value")
    assert registered.schema.schema_type == "PROTOBUF"
    assert base64.b64decode(registered.schema.schema_str) == order_file(1).SerializeToString()


def test_round_trip_and_dicts_of_fields(registry):
    serde = serdes.Protobuf(OrderV1, registry=registry)
    raw = serde.serialize("orders", {"id": 7, "item": "pen"})
    assert raw == serde.serialize("orders", OrderV1(id=7, item="pen"))
    assert serde.deserialize("orders", raw) == OrderV1(id=7, item="pen")
    assert serdes.Protobuf(OrderV1, registry=registry).deserialize("orders", raw) == OrderV1(
        id=7, item="pen")
    assert serde.serialize("orders", None) is None
    assert serde.deserialize("orders", None) is None


def test_key_position_registers_under_the_key_subject(registry):
    by_keyword = serdes.Protobuf(OrderV1, registry=registry, is_key=True)
    by_resolve = serdes.resolve(serdes.Protobuf(OrderV1, registry=registry), is_key=True)
    assert by_resolve == by_keyword
    raw = by_resolve.serialize("orders", OrderV1(id=7, item="pen"))
    assert raw == bytes.fromhex("00" + "00000001" + "00") + ORDER_PB
    assert subjects(registry) == ["orders-key"]
    assert by_keyword.deserialize("orders", raw) == OrderV1(id=7, item="pen")


@pytest.mark.parametrize(("strategy", "subject"), [
    ("topic", "orders-value"),
    ("record", "acme.Order"),
    ("topic_record", "orders-acme.Order"),
    ("io.confluent.kafka.serializers.subject.RecordNameStrategy", "acme.Order"),
    ("TopicRecordNameStrategy", "orders-acme.Order"),
])
def test_subject_name_strategies(registry, strategy, subject):
    serde = serdes.Protobuf(OrderV1, registry=registry, subject_name_strategy=strategy)
    raw = serde.serialize("orders", OrderV1(id=1))
    assert subjects(registry) == [subject]
    assert serde.deserialize("orders", raw) == OrderV1(id=1)


def test_an_unknown_strategy_is_refused_with_the_choices(registry):
    with pytest.raises(ValueError, match=r"subject_name_strategy='by-topic' is not one of 'topic'"):
        serdes.Protobuf(OrderV1, registry=registry, subject_name_strategy="by-topic")


def test_without_auto_register_the_schema_must_be_registered(registry):
    lookup = serdes.Protobuf(OrderV1, registry=registry, auto_register_schemas=False)
    with pytest.raises(SerdeError) as info:
        lookup.serialize("orders", OrderV1(id=1))
    assert "could not look up its schema for topic 'orders' (subject 'orders-value')" in str(
        info.value)
    assert "register the schema under subject 'orders-value' first" in str(info.value)
    assert subjects(registry) == []
    registered = serdes.Protobuf(OrderV1, registry=registry).serialize("orders", OrderV1(id=1))
    assert lookup.serialize("orders", OrderV1(id=1)) == registered


def test_use_latest_version_writes_with_the_subjects_latest_schema(registry):
    latest = serdes.Protobuf(OrderV1, registry=registry, use_latest_version=True)
    with pytest.raises(SerdeError, match=r"could not find the latest schema for topic 'orders' "
                                         r"\(subject 'orders-value'\) .*; register a schema"):
        latest.serialize("orders", OrderV1(id=1))
    serdes.Protobuf(OrderV1, registry=registry).serialize("orders", OrderV1(id=1))  # id 1
    serdes.Protobuf(OrderV2, registry=registry).serialize("orders", OrderV2(id=1))  # id 2
    raw = latest.serialize("orders", OrderV1(id=7, item="pen"))
    assert raw == bytes.fromhex("00" + "00000002" + "00") + ORDER_PB
    assert latest.deserialize("orders", raw) == OrderV1(id=7, item="pen")
    assert repr(latest).endswith("use_latest_version=True)")
    with pytest.raises(ValueError, match="pass auto_register_schemas=False with use_latest"):
        serdes.Protobuf(OrderV1, registry=registry, auto_register_schemas=True,
                        use_latest_version=True)


def test_evolution_reader_older_and_newer_than_the_writer(registry):
    v1 = serdes.Protobuf(OrderV1, registry=registry)
    v2 = serdes.Protobuf(OrderV2, registry=registry)
    new_bytes = v2.serialize("orders", OrderV2(id=7, item="pen", qty=3))
    assert new_bytes == bytes.fromhex("00" + "00000001" + "00") + ORDER_PB + bytes.fromhex("1803")
    old_reader = v1.deserialize("orders", new_bytes)
    assert (old_reader.id, old_reader.item) == (7, "pen")
    assert old_reader.SerializeToString() == ORDER_PB + bytes.fromhex("1803")  # qty kept unknown
    old_bytes = v1.serialize("orders", OrderV1(id=7, item="pen"))
    assert old_bytes[1:5] == bytes.fromhex("00000002")
    assert v2.deserialize("orders", old_bytes) == OrderV2(id=7, item="pen", qty=0)


def test_over_http_the_bytes_are_the_same(http_registry):
    serde = serdes.Protobuf(OrderV1, registry=http_registry.url)
    raw = serde.serialize("orders", OrderV1(id=7, item="pen"))
    assert raw == bytes.fromhex("00" + "00000001" + "00") + ORDER_PB
    assert (http_registry.subjects, http_registry.types) == ({"orders-value": [1]},
                                                             {1: "PROTOBUF"})
    assert base64.b64decode(http_registry.schemas[1]) == order_file(1).SerializeToString()
    reader = serdes.Protobuf(OrderV1, registry={"url": http_registry.url})
    assert reader.deserialize("orders", raw) == OrderV1(id=7, item="pen")


def test_an_unknown_schema_id_names_the_id(registry):
    serde = serdes.Protobuf(OrderV1, registry=registry)
    raw = bytes.fromhex("00" + "00000063" + "00") + ORDER_PB
    with pytest.raises(SerdeError) as info:
        serde.deserialize("orders", raw)
    assert str(info.value) == (
        f"Protobuf(message='acme.Order', registry='{registry}') could not fetch the writer's "
        "schema id 99 for topic 'orders' from the schema registry (SchemaRegistryError: Schema "
        "Not Found (HTTP status code 404, SR code 40400)); check the registry is reachable and "
        "is the one the producer wrote with")
    assert (info.value.topic, info.value.raw) == ("orders", raw)


def test_bad_values_and_bytes_are_serde_errors(registry):
    serde = serdes.Protobuf(OrderV1, registry=registry)
    with pytest.raises(SerdeError, match=r"expected a message of type acme.Order or a dict of its "
                                         r"fields \(ValueError: message must be of type"):
        serde.serialize("orders", Refund(order_id=1))
    with pytest.raises(SerdeError, match=r'has no field named "qty"'):
        serde.serialize("orders", {"id": 1, "qty": 2})
    with pytest.raises(SerdeError) as info:
        serde.deserialize("orders", b"\x08\x07")
    assert "cannot deserialize 2 bytes b'\\x08\\x07' from topic 'orders': expected " \
           "Confluent-framed Protobuf (magic byte 0 + 4-byte schema id + message indexes + " \
           "Protobuf binary) for schema acme.Order (SerializationError: Invalid magic byte)" \
           in str(info.value)


def test_java_class_names_say_which_arguments_it_needs():
    name = "io.confluent.kafka.streams.serdes.protobuf.KafkaProtobufSerde"
    with pytest.raises(SerdeError, match=r"needs arguments and cannot be named by a string; "
                                         r"pass serdes.Protobuf\(message_class, registry=<url>\)"):
        serdes.resolve(name)


def test_without_a_registry_the_bytes_are_plain_protobuf():
    serde = serdes.Protobuf(OrderV1)
    assert serde.serialize("t", OrderV1(id=7, item="pen")) == ORDER_PB
    assert serde.serialize("t", {"id": 7, "item": "pen"}) == ORDER_PB
    assert serde.deserialize("t", ORDER_PB) == OrderV1(id=7, item="pen")
    with pytest.raises(ValueError, match="need a schema registry; pass registry=<url>"):
        serdes.Protobuf(OrderV1, subject_name_strategy="record")
    with pytest.raises(TypeError, match="takes a generated message class"):
        serdes.Protobuf(OrderV1())


def test_identity(registry):
    same = serdes.Protobuf(OrderV1, registry=registry)
    assert serdes.Protobuf(OrderV1, registry=registry) == same
    assert serdes.Protobuf(OrderV1) != serdes.Protobuf(OrderV2)
    assert serdes.Protobuf(OrderV1, registry=registry) != serdes.Protobuf(
        OrderV1, registry=registry, subject_name_strategy="record")
    assert repr(serdes.Protobuf(OrderV1, registry=registry, is_key=True,
                                subject_name_strategy="record")) == (
        f"Protobuf(message='acme.Order', registry='{registry}', is_key=True, "
        "subject_name_strategy='record')")
