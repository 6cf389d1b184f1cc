"""Protobuf message classes for the registry serde tests, built without protoc.

``acme/order.proto`` in two versions, as protoc would compile it::

    syntax = "proto3";
    package acme;
    message Order { int64 id = 1; string item = 2; int32 qty = 3; /* version 2 only */ }
    message Refund { int64 order_id = 1; }

Each version lives in a descriptor pool of its own (both define ``acme.Order``); the classes
come from protobuf's ``message_factory``, as generated ``_pb2`` modules get theirs.
"""

from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_FIELD = descriptor_pb2.FieldDescriptorProto


def order_file(version: int) -> descriptor_pb2.FileDescriptorProto:
    """The .proto file as the descriptor protoc writes for it."""
    proto = descriptor_pb2.FileDescriptorProto(
        name="acme/order.proto", package="acme", syntax="proto3")
    order = proto.message_type.add(name="Order")
    order.field.add(name="id", number=1, type=_FIELD.TYPE_INT64, label=_FIELD.LABEL_OPTIONAL)
    order.field.add(name="item", number=2, type=_FIELD.TYPE_STRING, label=_FIELD.LABEL_OPTIONAL)
    if version >= 2:
        order.field.add(name="qty", number=3, type=_FIELD.TYPE_INT32,
                        label=_FIELD.LABEL_OPTIONAL)
    refund = proto.message_type.add(name="Refund")
    refund.field.add(name="order_id", number=1, type=_FIELD.TYPE_INT64,
                     label=_FIELD.LABEL_OPTIONAL)
    return proto


def _classes(version: int) -> tuple[type, type]:
    pool = descriptor_pool.DescriptorPool()
    pool.Add(order_file(version))
    return tuple(message_factory.GetMessageClass(pool.FindMessageTypeByName(f"acme.{name}"))
                 for name in ("Order", "Refund"))  # type: ignore[return-value]


OrderV1, Refund = _classes(1)
OrderV2, _ = _classes(2)
