"""run_batch's typed columns: inputs written by the sources' serdes, outputs read by the sinks'.

Four run_batch calls: the shop (Avro in; Avro, Protobuf, Json and a user serde out), the
windowed counts (a windowed key as key, window_start, window_end), a pass-through whose
output is decoded wrongly on purpose (the error names the record), and registry serdes
(a mock:// registry shipped to the workers with its schema ids).
"""

from __future__ import annotations

import datetime as dt

import pytest
import spark_apps as apps
import typed_apps as ta
from google.protobuf import json_format

import kslab as ks
from kslab import serdes
from kslab.spark import decode, run_batch

T = dt.datetime(2026, 11, 28, 12, 0, tzinfo=dt.UTC)
HEADERS = "headers:array<struct<key:string,value:binary>>"
PEN = {"id": 1, "item": "pen", "status": "NEW", "tags": ["a", "b"], "qty": {"x": 2, "y": 1},
       "at": T, "line": {"sku": "p1", "price": 1.5}}
INK = {"id": 2, "item": "ink", "status": "SHIPPED", "tags": [], "qty": {}, "at": T,
       "line": None}


def schema(key, value, raw=False):
    tail = ",raw_key:binary,raw_value:binary" if raw else ""
    return (f"struct<topic:string,partition:int,{key},value:{value},timestamp:bigint,"
            f"{HEADERS},task:int,seq:bigint{tail}>")


def as_python(value):
    """A collected Spark value as plain Python (Rows as dicts, naive datetimes as UTC)."""
    if hasattr(value, "asDict"):
        return {k: as_python(v) for k, v in value.asDict().items()}
    if isinstance(value, list):
        return [as_python(v) for v in value]
    if isinstance(value, dict):
        return {k: as_python(v) for k, v in value.items()}
    if isinstance(value, dt.datetime) and value.tzinfo is None:
        return value.replace(tzinfo=dt.UTC)  # (the session's time zone is UTC)
    return value


@pytest.fixture(scope="module")
def shop(spark):
    """The shop's outputs, decoded with the raw bytes kept: {topic: (schema, rows)}."""
    assert spark.conf.get("spark.sql.session.timeZone") == "UTC"
    orders = spark.createDataFrame([(1, PEN, 10), (2, INK, 20)],
                                   f"key long, value {ta.ORDER_TYPE}, timestamp long")
    out = run_batch(ta.shop(), {"orders": orders}, decode="both",
                    schemas={"orders-custom": {"value": "struct<item:string,count:int>"}})
    return {t: (df.schema.simpleString(), [as_python(r.asDict()) for r in df.orderBy("seq")
                                           .collect()]) for t, df in out.items()}


def test_avro_values_go_in_and_come_out_as_structs(shop):
    got_schema, rows = shop["orders-avro"]
    assert got_schema == schema("key:bigint", ta.ORDER_TYPE, raw=True)
    assert [(r["key"], r["value"], r["timestamp"]) for r in rows] == [(1, PEN, 10), (2, INK, 20)]
    assert [(r["raw_key"], r["raw_value"]) for r in rows] == [
        (serdes.Long().serialize("", k), ta.AVRO.serialize("orders", v)) for k, v in
        ((1, PEN), (2, INK))]


def test_protobuf_values_come_out_as_the_messages_struct(shop):
    got_schema, rows = shop["orders-proto"]
    assert got_schema == schema("key:bigint", ta.ORDER_TYPE, raw=True)
    assert [(r["key"], r["value"]) for r in rows] == [(1, PEN), (2, INK)]
    # (a map's entries are written in no fixed order: compare the messages)
    assert [ta.PROTO.deserialize("orders-proto", r["raw_value"]) for r in rows] == [
        json_format.ParseDict(ta.to_proto(order), ta.Order()) for order in (PEN, INK)]


def test_json_values_get_the_type_their_sample_shows(shop):
    got_schema, rows = shop["orders-json"]
    assert got_schema == schema(
        "key:string", "struct<id:bigint,item:string,tags:array<string>,total:double>", raw=True)
    assert [(r["key"], r["value"], r["raw_value"]) for r in rows] == [
        ("pen", {"id": 1, "item": "pen", "tags": ["a", "b"], "total": 4.5},
         b'{"id":1,"item":"pen","tags":["a","b"],"total":4.5}'),
        ("ink", {"id": 2, "item": "ink", "tags": [], "total": None},
         b'{"id":2,"item":"ink","tags":[]}')]


def test_a_user_serde_decodes_into_the_type_given(shop):
    got_schema, rows = shop["orders-custom"]
    assert got_schema == schema("key:bigint", "struct<item:string,count:int>", raw=True)
    assert [(r["key"], r["value"], r["raw_value"]) for r in rows] == [
        (1, {"item": "pen", "count": 2}, b"pen|2"), (2, {"item": "ink", "count": 0}, b"ink|0")]


def test_a_windowed_key_becomes_key_and_window_bounds(spark):
    windowed, long_ = serdes.TimeWindowed(serdes.String(), 60_000), serdes.Long()
    clicks = [(f"u{(i * 7) % 5}", "x", 997 * i) for i in range(150)]
    frame = spark.createDataFrame(clicks, "key string, value string, timestamp long")
    out = run_batch(apps.windowed_counts_final(), {"clicks": frame}, partitions={"clicks": 2},
                    config={"application.id": "app"}, decode=True)["click-counts-final"]
    assert out.schema.simpleString() == schema(
        "key:string,window_start:bigint,window_end:bigint", "bigint")
    with ks.TopologyTestDriver(apps.windowed_counts_final(), {"application.id": "app"},
                               partitions={"clicks": 2}) as driver:
        topic = driver.create_input_topic("clicks", serdes.String(), serdes.String())
        for key, value, ts in clicks:
            topic.pipe_input(key, value, ts)
        expected = sorted((r.key.key, r.key.window.start, r.key.window.end, r.value, r.timestamp)
                          for r in driver.create_output_topic(
                              "click-counts-final", windowed, long_).read_records_to_list())
    got = sorted(tuple(r) for r in out.select("key", "window_start", "window_end", "value",
                                              "timestamp").collect())
    assert len(got) >= 5
    assert got == expected


def test_a_value_its_serde_cannot_read_names_the_record(spark):
    topology = (ks.Topology().add_source("src", "in", key_serde="string", value_serde="string")
                .add_sink("out", "out", "src", key_serde="string", value_serde="string"))
    frame = spark.createDataFrame([("k", '{"n": "x"}', 5)],
                                  "key string, value string, timestamp long")
    out = run_batch(topology, {"in": frame})["out"]
    assert decode(out, topology=topology, topic="out").select("key", "value").collect() == \
        [("k", '{"n": "x"}')]
    with pytest.raises(Exception, match=(
            r"Long\(\) cannot deserialize 10 bytes .* from topic 'out'.*"
            r" \(the record's value, read by Long\(\); topic 'out', partition 0, task 0, "
            r"seq 0\)")):
        decode(out, value_serde=serdes.Long()).collect()
    with pytest.raises(Exception, match=(
            r"the value Json\(\) read \(topic 'out', partition 0, task 0, seq 0\) does not fit "
            r"its column: str 'x' cannot be a bigint; pass value_type=")):
        decode(out, value_serde=serdes.Json(), value_type="struct<n:bigint>").collect()


def test_a_typed_input_its_serde_cannot_write_names_the_record(spark):
    orders = spark.createDataFrame([(0, 7, 1, {"id": 1}, 10)],
                                   "partition int, offset long, key long, "
                                   "value struct<id:bigint>, timestamp long")
    with pytest.raises(Exception, match=(
            r"Avro\(schema='shop.Order'\) cannot serialize dict \{'id': 1\} for topic 'orders'"
            r".* \(the record's value, written by Avro\(schema='shop.Order'\); topic 'orders', "
            r"partition 0, offset 7\)")):
        run_batch(ta.shop(), {"orders": orders})["orders-avro"].collect()


def test_registry_serdes_with_a_mock_registry_run_in_the_workers(spark):
    serdes.drop_mock_registry(ta.REGISTRY[len("mock://"):])
    lines = serdes.JsonSchema(ta.LINE_JSON, registry=ta.REGISTRY)
    totals = serdes.Avro(ta.TOTAL_AVRO, registry=ta.REGISTRY)
    # the driver registers both subjects (ids 1 and 2); the workers get copies of its registry
    assert lines.serialize("lines", {"id": 0, "item": "x", "qty": 0})[:5] == b"\0\0\0\0\1"
    first = totals.serialize("totals", {"item": "PEN", "units": 20})
    assert first[:5] == b"\0\0\0\0\2"
    frame = spark.createDataFrame(
        [(1, {"id": 1, "item": "pen", "qty": 2}, 10), (2, {"id": 2, "item": "ink", "qty": 5}, 20)],
        "key long, value struct<id:bigint,item:string,qty:bigint>, timestamp long")
    out = run_batch(ta.registry_shop(lines, totals), {"lines": frame}, decode="both")["totals"]
    rows = [r.asDict() for r in out.orderBy("seq").collect()]
    assert out.schema.simpleString() == schema(
        "key:bigint", "struct<item:string,units:bigint>", raw=True)
    assert [(r["key"], r["value"].asDict(), r["timestamp"], r["raw_value"]) for r in rows] == [
        (1, {"item": "PEN", "units": 20}, 10, first),
        (2, {"item": "INK", "units": 50}, 20,
         totals.serialize("totals", {"item": "INK", "units": 50}))]
    assert serdes.mock_registry(ta.REGISTRY[len("mock://"):]).get_subjects() == [
        "lines-value", "totals-value"]


def test_decode_and_schemas_are_checked_before_anything_runs(spark):
    frame = spark.createDataFrame([("k", "v", 5)], "key string, value string, timestamp long")
    with pytest.raises(ks.StreamsError, match="run_batch's decode is False, True or 'both'"):
        run_batch(ta.shop(), {"orders": frame}, decode="yes")
    with pytest.raises(ks.StreamsError, match=(
            "run_batch got schemas for orders-json without decode; pass decode=True")):
        run_batch(ta.shop(), {"orders": frame}, schemas={"orders-json": {"value": "string"}})
    with pytest.raises(ks.StreamsError, match=(
            "the frame's value column is string, not binary; decode reads serialized records")):
        decode(frame, value_serde=serdes.Long())
