"""JsonSchema() through confluent-kafka's JSON Schema serializers against mock:// registries.

The wire format is magic byte 0, the schema id as 4 big-endian bytes, then compact UTF-8 JSON;
values are validated against the schema (the reader's, when reading).
"""

from __future__ import annotations

import json

import pytest

from kslab import SerdeError, serdes
from tests.serdes.registry_server import http_registry_fixture  # noqa: F401 - the fixture

V1 = {"title": "Order", "type": "object",
      "properties": {"id": {"type": "integer"}, "item": {"type": "string"}},
      "required": ["id", "item"]}
V2 = {**V1, "properties": {**V1["properties"], "qty": {"type": "integer"}}}
V2_QTY_REQUIRED = {**V2, "required": ["id", "item", "qty"]}
ORDER = {"id": 7, "item": "pen"}


@pytest.fixture
def registry(request):
    name = f"json-schema-{request.node.name}"
    serdes.drop_mock_registry(name)
    yield f"mock://{name}"
    serdes.drop_mock_registry(name)


def subjects(url: str) -> list[str]:
    return sorted(serdes.mock_registry(url.removeprefix("mock://")).get_subjects())


def test_wire_bytes_are_magic_byte_schema_id_and_compact_json(registry):
    serde = serdes.JsonSchema(V1, registry=registry)
    raw = serde.serialize("orders", ORDER)
    assert raw == b"\x00\x00\x00\x00\x01" + b'{"id":7,"item":"pen"}'
    assert serde.deserialize("orders", raw) == ORDER
    registered = serdes.mock_registry(registry[7:]).get_latest_version("orders-value")
    assert registered.schema.schema_type == "JSON"
    assert json.loads(registered.schema.schema_str) == V1
    key = serdes.resolve(serdes.JsonSchema(json.dumps(V1), registry=registry), is_key=True)
    assert key.serialize("orders", ORDER) == b"\x00\x00\x00\x00\x02" + b'{"id":7,"item":"pen"}'
    assert subjects(registry) == ["orders-key", "orders-value"]


def test_over_http_the_bytes_are_the_same(http_registry):
    serde = serdes.JsonSchema(V1, registry=http_registry.url)
    raw = serde.serialize("orders", ORDER)
    assert raw == b"\x00\x00\x00\x00\x01" + b'{"id":7,"item":"pen"}'
    assert (http_registry.subjects, http_registry.types) == ({"orders-value": [1]}, {1: "JSON"})
    assert json.loads(http_registry.schemas[1]) == V1
    reader = serdes.JsonSchema(V2, registry=http_registry.url)
    assert reader.deserialize("orders", raw) == ORDER


@pytest.mark.parametrize(("strategy", "subject"), [
    ("record", "Order"), ("topic_record", "orders-Order"), ("topic-record", "orders-Order")])
def test_record_strategies_use_the_schema_title(registry, strategy, subject):
    serde = serdes.JsonSchema(V1, registry=registry, subject_name_strategy=strategy)
    assert serde.deserialize("orders", serde.serialize("orders", ORDER)) == ORDER
    assert subjects(registry) == [subject]


def test_use_latest_version_and_no_auto_register(registry):
    lookup = serdes.JsonSchema(V1, registry=registry, auto_register_schemas=False)
    with pytest.raises(SerdeError, match=r"could not look up its schema .* \(subject "
                                         r"'orders-value'\)"):
        lookup.serialize("orders", ORDER)
    serdes.JsonSchema(V1, registry=registry).serialize("orders", ORDER)  # id 1
    serdes.JsonSchema(V2, registry=registry).serialize("orders", ORDER)  # id 2
    assert lookup.serialize("orders", ORDER)[:5] == b"\x00\x00\x00\x00\x01"
    latest = serdes.JsonSchema(V1, registry=registry, use_latest_version=True)
    assert latest.serialize("orders", ORDER)[:5] == b"\x00\x00\x00\x00\x02"


def test_evolution_reader_older_and_newer_than_the_writer(registry):
    old, new = serdes.JsonSchema(V1, registry=registry), serdes.JsonSchema(V2, registry=registry)
    new_bytes = new.serialize("orders", {**ORDER, "qty": 3})
    assert old.deserialize("orders", new_bytes) == {**ORDER, "qty": 3}
    old_bytes = old.serialize("orders", ORDER)
    assert new.deserialize("orders", old_bytes) == ORDER
    strict = serdes.JsonSchema(V2_QTY_REQUIRED, registry=registry)
    with pytest.raises(SerdeError) as info:
        strict.deserialize("orders", old_bytes)
    assert str(info.value) == (
        f"JsonSchema(schema='Order', registry='{registry}') cannot read the record written with "
        "schema id 2 on topic 'orders' as Order (SerializationError: 'qty' is a required "
        "property); check this reader's schema is compatible with the writer's, and that the "
        "topic's serde is the producer's")


def test_invalid_values_are_serde_errors(registry):
    serde = serdes.JsonSchema(V1, registry=registry)
    with pytest.raises(SerdeError) as info:
        serde.serialize("orders", {"id": "seven", "item": "pen"})
    assert "cannot serialize dict {'id': 'seven', 'item': 'pen'} for topic 'orders': expected " \
           "a value valid against the JSON schema Order (SerializationError: 'seven' is not of " \
           "type 'integer'); fix the value" in str(info.value)
    with pytest.raises(SerdeError, match=r"could not fetch the writer's schema id 9 for topic"):
        serde.deserialize("orders", b"\x00\x00\x00\x00\x09{}")


def test_without_a_registry_values_are_validated_plain_json():
    serde = serdes.JsonSchema(V1)
    assert serde.serialize("t", ORDER) == b'{"id":7,"item":"pen"}'
    assert serde.deserialize("t", b'{"id": 7, "item": "pen"}') == ORDER
    with pytest.raises(SerdeError, match=r"\(ValueError: 'x' is not of type 'integer' at "
                                         r"\['id'\]\); fix the value"):
        serde.serialize("t", {"id": "x", "item": "pen"})
    with pytest.raises(SerdeError, match=r"expected UTF-8 JSON for schema Order \(ValueError: "
                                         r"'item' is a required property\)"):
        serde.deserialize("t", b'{"id": 7}')


def test_invalid_schemas_are_refused_when_built():
    with pytest.raises(ValueError, match=r"invalid JSON Schema \('integr' is not valid"):
        serdes.JsonSchema({"type": "integr"})
    with pytest.raises(ValueError, match="is not JSON"):
        serdes.JsonSchema("{nope")
