"""mock://NAME registries: one in-process registry per name, shared by every serde that names it,
so a topology's serdes and a test's input and output serdes meet without a server; and records
whose schema id the registry does not know go through the deserialization exception handler.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest

import kslab as ks
from kslab import SerdeError, serdes
from kslab.errors import DeserializationError
from tests.serdes.proto_messages import OrderV1

TOTAL = {"title": "Total", "type": "object",
         "properties": {"id": {"type": "integer"}, "amount": {"type": "integer"}},
         "required": ["id", "amount"]}
AVRO_V1 = {"type": "record", "name": "Order", "namespace": "com.acme",
           "fields": [{"name": "id", "type": "long"}]}
# a Protobuf Order (id=1) framed with schema id 99, which no registry here has
FORGED = bytes.fromhex("00" + "00000063" + "00" + "0801")
AVRO_V2 = {**AVRO_V1, "fields": [*AVRO_V1["fields"], {"name": "qty", "type": "int", "default": 1}]}


@pytest.fixture
def registry(request):
    name = f"mock-{request.node.name}"
    serdes.drop_mock_registry(name)
    yield f"mock://{name}"
    serdes.drop_mock_registry(name)


def test_a_name_is_one_registry_per_process(registry):
    writer = serdes.Avro(AVRO_V1, registry=registry)
    raw = writer.serialize("orders", {"id": 7})
    assert raw == bytes.fromhex("00" + "00000001" + "0e")
    by_dict = serdes.Avro(AVRO_V1, registry={"url": registry})
    assert by_dict.deserialize("orders", raw) == {"id": 7}
    assert serdes.mock_registry(registry[7:]).get_subjects() == ["orders-value"]
    other = serdes.Avro(AVRO_V1, registry=registry + "-other")
    with pytest.raises(SerdeError, match="could not fetch the writer's schema id 1 for topic"):
        other.deserialize("orders", raw)
    serdes.drop_mock_registry(registry[7:])
    fresh = serdes.Avro(AVRO_V1, registry=registry)
    with pytest.raises(SerdeError, match="could not fetch the writer's schema id 1 for topic"):
        fresh.deserialize("orders", raw)
    assert writer.deserialize("orders", raw) == {"id": 7}  # built before the drop: the old one
    serdes.drop_mock_registry(registry[7:] + "-other")


def test_a_mock_url_takes_no_other_urls():
    with pytest.raises(ValueError, match="mixes a mock:// registry with other URLs"):
        serdes.Avro(AVRO_V1, registry="mock://a,http://localhost:8081")


def test_avro_evolution_reader_older_and_newer_than_the_writer(registry):
    old, new = serdes.Avro(AVRO_V1, registry=registry), serdes.Avro(AVRO_V2, registry=registry)
    assert old.deserialize("orders", new.serialize("orders", {"id": 7, "qty": 3})) == {"id": 7}
    assert new.deserialize("orders", old.serialize("orders", {"id": 7})) == {"id": 7, "qty": 1}


def topology(url: str) -> ks.Topology:
    """Protobuf orders in, JSON Schema totals out, both against the registry ``url``."""
    builder = ks.StreamsBuilder()
    orders = builder.stream(
        "orders", ks.Consumed.with_(serdes.String(), serdes.Protobuf(OrderV1, registry=url)))
    totals = orders.map_values(lambda order: {"id": order.id, "amount": 10 * order.id})
    totals.to("totals", ks.Produced.with_(serdes.String(), serdes.JsonSchema(TOTAL, registry=url)))
    return builder.build()


def test_a_topology_reads_protobuf_and_writes_json_schema_in_the_driver(registry):
    with ks.TopologyTestDriver(topology(registry)) as driver:
        orders = driver.create_input_topic(
            "orders", serdes.String(), serdes.Protobuf(OrderV1, registry=registry))
        orders.pipe_input("a", OrderV1(id=1, item="pen"), 0)
        orders.pipe_input("b", {"id": 2, "item": "ink"}, 1)
        totals = driver.create_output_topic(
            "totals", serdes.String(), serdes.JsonSchema(TOTAL, registry=registry))
        assert totals.read_key_values_to_list() == [("a", {"id": 1, "amount": 10}),
                                                    ("b", {"id": 2, "amount": 20})]
        orders.pipe_input("c", OrderV1(id=3), 2)
        raw = driver.create_output_topic("totals", serdes.String(), serdes.Bytes())
        assert raw.read_value() == b"\x00\x00\x00\x00\x02" + b'{"id":3,"amount":30}'
    names = serdes.mock_registry(registry[7:]).get_subjects()
    assert sorted(names) == ["orders-value", "totals-value"]


def test_an_unknown_schema_id_fails_the_source_naming_where_and_the_id(registry):
    with ks.TopologyTestDriver(topology(registry)) as driver:
        good = driver.create_input_topic(
            "orders", serdes.String(), serdes.Protobuf(OrderV1, registry=registry))
        forged = driver.create_input_topic("orders", serdes.String(), serdes.Bytes())
        good.pipe_input("a", OrderV1(id=1), 0)
        with pytest.raises(DeserializationError) as info:
            forged.pipe_input("b", FORGED, 1)
    error = info.value
    assert (error.topic, error.partition, error.offset) == ("orders", 0, 1)
    message = str(error)
    assert message.startswith(
        "source 'KSTREAM-SOURCE-0000000000' cannot deserialize the record at topic 'orders', "
        f"partition 0, offset 1: Protobuf(message='acme.Order', registry='{registry}') could "
        "not fetch the writer's schema id 99 for topic 'orders' from the schema registry")
    assert message.endswith("or set default.deserialization.exception.handler=log_and_continue "
                            "to skip bad records")
    assert error.raw == FORGED


def test_an_unknown_schema_id_is_skipped_and_counted_under_log_and_continue(registry, caplog):
    config = {"default.deserialization.exception.handler": "log_and_continue"}
    with ks.TopologyTestDriver(topology(registry), config) as driver:
        good = driver.create_input_topic(
            "orders", serdes.String(), serdes.Protobuf(OrderV1, registry=registry))
        forged = driver.create_input_topic("orders", serdes.String(), serdes.Bytes())
        with caplog.at_level(logging.WARNING, logger="kslab.core"):
            good.pipe_input("a", OrderV1(id=1), 0)
            forged.pipe_input("b", FORGED, 1)
            good.pipe_input("c", OrderV1(id=3), 2)
        totals = driver.create_output_topic("totals")
        assert totals.read_key_values_to_list() == [("a", {"id": 1, "amount": 10}),
                                                    ("c", {"id": 3, "amount": 30})]
        assert driver.metrics()["0_0"]["dropped-records-total"] == 1
    skipped = [r.getMessage() for r in caplog.records if "Skipping record" in r.getMessage()]
    assert len(skipped) == 1
    assert "at topic 'orders', partition 0, offset 1:" in skipped[0]
    assert "could not fetch the writer's schema id 99" in skipped[0]


def test_importing_kslab_imports_no_serde_package():
    optional = "('fastavro', 'confluent_kafka', 'jsonschema', 'google')"
    code = (
        "import sys, kslab, kslab.serdes; "
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {optional}))"
    )
    repo = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=repo
    )
    assert result.stdout.strip() == "[]"
