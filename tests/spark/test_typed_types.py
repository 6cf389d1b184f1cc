"""The Spark type each serde's values get, and values fitted to a type (no Spark job runs)."""

from __future__ import annotations

import datetime as dt
import decimal

import pytest
import typed_apps as ta
from pyspark.sql.types import DataType

from kslab import serdes
from kslab.spark._types import DoesNotFit, infer, shape_of, to_column


def ddl(typed):
    return typed.simpleString()


def test_built_in_serdes_have_their_spark_types():
    got = {type(s).__name__: ddl(shape_of(s)) for s in (
        serdes.String(), serdes.Long(), serdes.Integer(), serdes.Short(), serdes.Double(),
        serdes.Float(), serdes.Boolean(), serdes.Bytes(), serdes.UUID())}
    assert got == {"String": "string", "Long": "bigint", "Integer": "int", "Short": "smallint",
                   "Double": "double", "Float": "float", "Boolean": "boolean",
                   "Bytes": "binary", "UUID": "string"}
    assert shape_of(serdes.Json()) is None
    assert shape_of(serdes.from_functions(bytes, bytes)) is None


def test_avro_maps_as_sparks_from_avro():
    assert ddl(shape_of(ta.AVRO)) == ta.ORDER_TYPE
    logical = serdes.Avro({"type": "record", "name": "R", "fields": [
        {"name": "d", "type": {"type": "int", "logicalType": "date"}},
        {"name": "m", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9,
                               "scale": 2}},
        {"name": "l", "type": {"type": "long", "logicalType": "local-timestamp-millis"}},
        {"name": "f", "type": {"type": "fixed", "name": "F", "size": 2}},
        {"name": "again", "type": "F"},
        {"name": "either", "type": ["null", "long", "string"]},
    ]})
    assert ddl(shape_of(logical)) == ("struct<d:date,m:decimal(9,2),l:timestamp_ntz,f:binary,"
                                      "again:binary,either:string>")
    linked = serdes.Avro({"type": "record", "name": "Node", "fields": [
        {"name": "next", "type": ["null", "Node"]}]})
    with pytest.raises(ValueError, match="the Avro record Node contains itself"):
        shape_of(linked)


def test_protobuf_maps_as_sparks_from_protobuf():
    assert ddl(shape_of(ta.PROTO)) == ta.ORDER_TYPE


def test_json_schema_pins_what_it_types():
    typed = serdes.JsonSchema({"type": "object", "properties": {
        "id": {"type": "integer"}, "name": {"type": ["string", "null"]},
        "scores": {"type": "array", "items": {"type": "number"}}, "any": {}}})
    assert ddl(shape_of(typed)) == "struct<id:bigint,name:string,scores:array<double>,any:string>"
    assert shape_of(serdes.JsonSchema({"type": "array"})) is None


def test_inference_merges_values_and_falls_back_to_json_text():
    assert ddl(infer([{"a": 1, "b": None}, {"a": 2.5, "c": [1]}, None])) == \
        "struct<a:double,b:string,c:array<bigint>>"
    assert ddl(infer(["x", "y"])) == "string"
    assert ddl(infer([1, "x"])) == "string"  # no one type: the JSON text
    assert ddl(infer([])) == "string"
    order = ta.Order(id=3, item="pen")
    assert ddl(infer([order])) == ta.ORDER_TYPE


def test_values_fit_their_type_or_fail_naming_it(spark):  # (DDL is parsed by Spark's JVM)
    typed = DataType.fromDDL("struct<a:bigint,m:map<string,double>,t:array<string>>")
    assert to_column({"a": 1, "m": {"x": 2}, "t": ["u", {"v": 1}], "extra": 0}, typed) == \
        {"a": 1, "m": [("x", 2.0)], "t": ["u", '{"v":1}']}
    assert to_column(7, DataType.fromDDL("decimal(20,0)")) == decimal.Decimal(7)
    when = dt.datetime(2026, 1, 2, tzinfo=dt.UTC)
    assert to_column(when, DataType.fromDDL("timestamp")) is when
    with pytest.raises(DoesNotFit) as bad:
        to_column({"a": "x"}, typed)
    assert str(bad.value) == "str 'x' cannot be a bigint"
    with pytest.raises(DoesNotFit) as bad:
        to_column(True, DataType.fromDDL("bigint"))
    assert str(bad.value) == "bool True cannot be a bigint"
    with pytest.raises(DoesNotFit, match=r"object <object object at .*> has no JSON text"):
        to_column(object(), DataType.fromDDL("string"))
