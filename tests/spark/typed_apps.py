"""A shop's orders in Avro, Protobuf, JSON and a user serde, for the typed Spark column tests.

Spark's Python workers import this module (the topology's functions and the Protobuf class are
pickled by reference), so it lives beside ``spark_apps``. The Protobuf class is built without
protoc from the descriptor protoc would write for::

    syntax = "proto3";
    package shop;
    import "google/protobuf/timestamp.proto";
    message Line { string sku = 1; double price = 2; }
    enum Status { NEW = 0; SHIPPED = 1; }
    message Order { int64 id = 1; string item = 2; Status status = 3; repeated string tags = 4;
                    map<string, int32> qty = 5; google.protobuf.Timestamp at = 6; Line line = 7; }
"""

from __future__ import annotations

import datetime as dt

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, timestamp_pb2

import kslab as ks
from kslab import serdes

_F = descriptor_pb2.FieldDescriptorProto

ORDER_AVRO = {
    "type": "record", "name": "Order", "namespace": "shop", "fields": [
        {"name": "id", "type": "long"},
        {"name": "item", "type": "string"},
        {"name": "status", "type": {"type": "enum", "name": "Status",
                                    "symbols": ["NEW", "SHIPPED"]}},
        {"name": "tags", "type": {"type": "array", "items": "string"}},
        {"name": "qty", "type": {"type": "map", "values": "int"}},
        {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "line", "type": ["null", {"type": "record", "name": "Line", "fields": [
            {"name": "sku", "type": "string"}, {"name": "price", "type": "double"}]}],
         "default": None},
    ]}
# Spark's from_avro type of ORDER_AVRO (and of the Protobuf Order: the same fields)
ORDER_TYPE = ("struct<id:bigint,item:string,status:string,tags:array<string>,"
              "qty:map<string,int>,at:timestamp,line:struct<sku:string,price:double>>")


def _order_class() -> type:
    pool = descriptor_pool.DescriptorPool()
    pool.Add(descriptor_pb2.FileDescriptorProto.FromString(timestamp_pb2.DESCRIPTOR.serialized_pb))
    proto = descriptor_pb2.FileDescriptorProto(
        name="shop/order.proto", package="shop", syntax="proto3",
        dependency=["google/protobuf/timestamp.proto"])
    line = proto.message_type.add(name="Line")
    line.field.add(name="sku", number=1, type=_F.TYPE_STRING, label=_F.LABEL_OPTIONAL)
    line.field.add(name="price", number=2, type=_F.TYPE_DOUBLE, label=_F.LABEL_OPTIONAL)
    status = proto.enum_type.add(name="Status")
    status.value.add(name="NEW", number=0)
    status.value.add(name="SHIPPED", number=1)
    order = proto.message_type.add(name="Order")
    order.field.add(name="id", number=1, type=_F.TYPE_INT64, label=_F.LABEL_OPTIONAL)
    order.field.add(name="item", number=2, type=_F.TYPE_STRING, label=_F.LABEL_OPTIONAL)
    order.field.add(name="status", number=3, type=_F.TYPE_ENUM, type_name=".shop.Status",
                    label=_F.LABEL_OPTIONAL)
    order.field.add(name="tags", number=4, type=_F.TYPE_STRING, label=_F.LABEL_REPEATED)
    entry = order.nested_type.add(name="QtyEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, type=_F.TYPE_STRING, label=_F.LABEL_OPTIONAL)
    entry.field.add(name="value", number=2, type=_F.TYPE_INT32, label=_F.LABEL_OPTIONAL)
    order.field.add(name="qty", number=5, type=_F.TYPE_MESSAGE, type_name=".shop.Order.QtyEntry",
                    label=_F.LABEL_REPEATED)
    order.field.add(name="at", number=6, type=_F.TYPE_MESSAGE,
                    type_name=".google.protobuf.Timestamp", label=_F.LABEL_OPTIONAL)
    order.field.add(name="line", number=7, type=_F.TYPE_MESSAGE, type_name=".shop.Line",
                    label=_F.LABEL_OPTIONAL)
    pool.Add(proto)
    found = message_factory.GetMessageClass(pool.FindMessageTypeByName("shop.Order"))
    found.__module__ = __name__  # pickled by reference: the workers import this module
    return found


Order = _order_class()

L, S = serdes.Long(), serdes.String()
AVRO = serdes.Avro(ORDER_AVRO)
PROTO = serdes.Protobuf(Order)


def to_proto(order: dict) -> dict:
    """An Avro order as Protobuf's JSON form (what ``json_format.ParseDict`` reads)."""
    at = order["at"].astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    out = {**order, "at": at}
    if out["line"] is None:
        del out["line"]
    return out


def to_json(order: dict) -> dict:
    """A summary as JSON; only lines with a price have ``total``, so inference merges."""
    out: dict = {"id": order["id"], "item": order["item"], "tags": order["tags"]}
    if order["line"] is not None:
        out["total"] = order["line"]["price"] * sum(order["qty"].values())
    return out


def item_bytes(summary: tuple) -> bytes:
    return f"{summary[0]}|{summary[1]}".encode()


def item_tuple(data: bytes) -> dict:
    item, count = data.decode().split("|")
    return {"item": item, "count": int(count)}


CUSTOM = serdes.from_functions(item_bytes, item_tuple)


def shop() -> ks.Topology:
    """Orders (Long keys, Avro values) written as Avro, Protobuf, JSON and a user serde."""
    b = ks.StreamsBuilder()
    orders = b.stream("orders", ks.Consumed.with_(L, AVRO))
    orders.to("orders-avro", ks.Produced.with_(L, AVRO))
    orders.map_values(to_proto).to("orders-proto", ks.Produced.with_(L, PROTO))
    (orders.select_key(lambda key, order: order["item"]).map_values(to_json)
     .to("orders-json", ks.Produced.with_(S, serdes.Json())))
    (orders.map_values(lambda order: (order["item"], len(order["tags"])))
     .to("orders-custom", ks.Produced.with_(L, CUSTOM)))
    return b.build()


REGISTRY = "mock://spark-typed"
LINE_JSON = {"title": "Line", "type": "object", "required": ["id", "item", "qty"],
             "properties": {"id": {"type": "integer"}, "item": {"type": "string"},
                            "qty": {"type": "integer"}}}
TOTAL_AVRO = {"type": "record", "name": "Total", "namespace": "shop",
              "fields": [{"name": "item", "type": "string"}, {"name": "units", "type": "long"}]}


def _total(line: dict) -> dict:
    return {"item": line["item"].upper(), "units": line["qty"] * 10}


def registry_shop(line_serde: serdes.JsonSchema, total_serde: serdes.Avro) -> ks.Topology:
    """Lines in JSON Schema and totals out in Avro, both framed by the mock:// registry."""
    b = ks.StreamsBuilder()
    (b.stream("lines", ks.Consumed.with_(L, line_serde)).map_values(_total)
     .to("totals", ks.Produced.with_(L, total_serde)))
    return b.build()
