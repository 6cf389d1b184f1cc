"""Avro() writes schemaless Avro, or Confluent's wire format against a schema registry over
real HTTP (conftest's stand-in ``http_registry``)."""

from __future__ import annotations

import io
import json
import struct

import fastavro
import pytest

from kslab import Headers, SerdeError, serdes
from tests.serdes.registry_server import http_registry_fixture  # noqa: F401 - the fixture

ORDER = {
    "type": "record",
    "name": "Order",
    "namespace": "com.acme",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "item", "type": "string"},
        {"name": "qty", "type": "int", "default": 1},
    ],
}
ORDER_VALUE = {"id": 7, "item": "pen", "qty": 3}
ORDER_AVRO = bytes.fromhex("0e" + "06" + b"pen".hex() + "06")  # zigzag varints, then UTF-8


@pytest.fixture
def registry(http_registry):
    return http_registry


def schemaless(value: object, schema: object = ORDER) -> bytes:
    out = io.BytesIO()
    fastavro.schemaless_writer(out, fastavro.parse_schema(schema), value)
    return out.getvalue()


# -- with a schema registry ----------------------------------------------------------------------


def test_registry_bytes_are_magic_byte_schema_id_and_avro_binary(registry):
    serde = serdes.Avro(ORDER, registry=registry.url)
    raw = serde.serialize("orders", ORDER_VALUE)
    assert raw[0] == 0
    (schema_id,) = struct.unpack(">I", raw[1:5])
    assert schema_id == 1
    assert raw[5:] == schemaless(ORDER_VALUE) == ORDER_AVRO
    assert raw.hex() == "00" + "00000001" + ORDER_AVRO.hex()
    assert registry.subjects == {"orders-value": [1]}
    assert json.loads(registry.schemas[1])["name"] == "Order"


def test_registry_round_trip_fetches_the_writer_schema_by_id(registry):
    writer = serdes.Avro(ORDER, registry=registry.url)
    raw = writer.serialize("orders", ORDER_VALUE)
    reader = serdes.Avro(json.dumps(ORDER), registry={"url": registry.url})
    assert reader.deserialize("orders", raw) == ORDER_VALUE
    fetches = [path for method, path in registry.requests if method == "GET"]
    assert len(fetches) == 1
    assert fetches[0].startswith("/schemas/ids/1")
    assert reader.deserialize("orders", raw) == ORDER_VALUE
    assert len(registry.requests) == 2  # the register and one fetch: the client caches schemas


def test_key_serdes_register_under_the_key_subject(registry):
    key_schema = {"type": "record", "name": "OrderKey", "fields": [{"name": "id", "type": "long"}]}
    by_keyword = serdes.Avro(key_schema, registry=registry.url, is_key=True)
    by_configure = serdes.Avro(key_schema, registry=registry.url).configure(is_key=True)
    by_resolve = serdes.resolve(serdes.Avro(key_schema, registry=registry.url), is_key=True)
    raws = [s.serialize("orders", {"id": 7}) for s in (by_keyword, by_configure, by_resolve)]
    assert raws[0] == raws[1] == raws[2] == bytes.fromhex("00" + "00000001" + "0e")
    assert registry.subjects == {"orders-key": [1]}
    assert by_configure == by_keyword
    assert by_configure.deserialize("orders", raws[0]) == {"id": 7}


def test_one_serde_serves_many_topics(registry):
    serde = serdes.Avro(ORDER, registry=registry.url)
    first = serde.serialize("orders", ORDER_VALUE)
    second = serde.serialize("orders-copy", ORDER_VALUE)
    assert first == second
    assert registry.subjects == {"orders-value": [1], "orders-copy-value": [1]}


def test_registry_none_is_a_tombstone(registry):
    serde = serdes.Avro(ORDER, registry=registry.url)
    assert serde.serialize("orders", None) is None
    assert serde.deserialize("orders", None) is None
    assert registry.requests == []


def test_registry_wrong_type_is_a_serde_error(registry):
    serde = serdes.Avro(ORDER, registry=registry.url)
    with pytest.raises(SerdeError) as info:
        serde.serialize("orders", {"id": "seven", "item": "pen"})
    message = str(info.value)
    assert message.startswith("Avro(schema='com.acme.Order', registry='http://127.0.0.1:")
    assert "cannot serialize dict {'id': 'seven', 'item': 'pen'} for topic 'orders'" in message
    assert "expected a value matching the Avro schema com.acme.Order" in message
    assert "; fix the value" in message
    assert info.value.topic == "orders"


def test_registry_bad_magic_byte_is_a_serde_error(registry):
    serde = serdes.Avro(ORDER, registry=registry.url)
    with pytest.raises(SerdeError) as info:
        serde.deserialize("orders", b'{"id": 7}')
    message = str(info.value)
    assert "cannot deserialize 9 bytes" in message
    assert "from topic 'orders': expected Confluent-framed Avro" in message
    assert "try serdes.Json()" in message
    assert info.value.raw == b'{"id": 7}'


def test_unknown_schema_id_is_a_registry_error(registry):
    serde = serdes.Avro(ORDER, registry=registry.url)
    raw = bytes.fromhex("00" + "00000063") + ORDER_AVRO
    with pytest.raises(SerdeError) as info:
        serde.deserialize("orders", raw)
    message = str(info.value)
    assert "could not fetch the writer's schema id 99 for topic 'orders' from the schema" in message
    assert message.endswith("; check the registry is reachable and is the one the producer wrote"
                            " with")
    assert info.value.raw == raw
    registry.unknown.clear()  # the 404 was the point of this test


def test_unreachable_registry_is_a_serde_error_with_a_hint():
    serde = serdes.Avro(ORDER, registry={"url": "http://127.0.0.1:9", "max.retries": 0})
    with pytest.raises(SerdeError) as info:
        serde.serialize("orders", ORDER_VALUE)
    message = str(info.value)
    assert "could not register its schema for topic 'orders'" in message
    assert "(subject 'orders-value')" in message
    assert "; check the registry is reachable" in message


# -- without a registry --------------------------------------------------------------------------


def test_schemaless_bytes_are_plain_avro_binary():
    serde = serdes.Avro(ORDER)
    assert serde.serialize("orders", ORDER_VALUE) == ORDER_AVRO
    assert serde.deserialize("orders", ORDER_AVRO) == ORDER_VALUE


def test_schemaless_fills_defaults_and_reads_primitives():
    assert serdes.Avro(ORDER).serialize("t", {"id": 7, "item": "pen"}) == schemaless(
        {"id": 7, "item": "pen", "qty": 1}
    )
    long_serde = serdes.Avro("long")
    assert long_serde.serialize("t", -1) == b"\x01"
    assert long_serde.deserialize("t", b"\x01") == -1
    assert serdes.Avro('"string"').serialize("t", "hé") == b"\x06" + "hé".encode()


def test_schemaless_errors():
    serde = serdes.Avro(ORDER)
    with pytest.raises(SerdeError, match=r"must be string on field item\); fix the value"):
        serde.serialize("t", {"id": 1, "item": 2})
    with pytest.raises(SerdeError, match=r"cannot deserialize 1 byte .* schemaless Avro binary"):
        serde.deserialize("t", b"\x0e")


def test_invalid_schemas_are_refused_when_built():
    with pytest.raises(ValueError, match="invalid Avro schema"):
        serdes.Avro({"type": "no-such-type"})
    with pytest.raises(ValueError, match="is not JSON"):
        serdes.Avro("{not json")


def test_identity():
    assert serdes.Avro(ORDER) == serdes.Avro(json.dumps(ORDER))
    assert serdes.Avro(ORDER) != serdes.Avro(ORDER, is_key=True)
    assert serdes.Avro(ORDER, registry="http://r:8081") == serdes.Avro(
        ORDER, registry="http://r:8081"
    )
    assert repr(serdes.Avro(ORDER, is_key=True)) == "Avro(schema='com.acme.Order', is_key=True)"
    secret = {"url": "http://r:8081", "basic.auth.user.info": "user:secret"}
    assert "secret" not in repr(serdes.Avro(ORDER, registry=secret))
    assert serdes.Avro(ORDER).configure(is_key=False) is not None


def test_headers_are_passed_through(registry):
    serde = serdes.Avro(ORDER, registry=registry.url)
    headers = Headers([("trace", b"1")])
    raw = serde.serialize("orders", ORDER_VALUE, headers)
    assert serde.deserialize("orders", raw, headers) == ORDER_VALUE
    assert headers == [("trace", b"1")]
