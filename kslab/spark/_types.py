"""Which Spark type a serde's values get as a column, and the conversions between the two.

A serde with a known shape gives its type without looking at data: ``String`` a string,
``Long`` a long, ``Avro`` a struct from its schema (Spark's own Avro mapping), ``Protobuf`` a
struct from its message descriptor (Spark's Protobuf mapping), windowed serdes their inner key's
type (the window's bounds become columns of their own). ``Json`` and user serdes have no shape
of their own: a type the user passes, else one inferred from sampled values (``infer``), else a
string column holding each value's JSON text. Invariant: ``to_column`` either returns a value
that fits the Spark type exactly or raises ``DoesNotFit``; nothing is dropped or rounded in
silence (a long in a double column is the one widening made).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import uuid
from collections.abc import Iterable
from typing import Any

import orjson

from kslab.serdes import (
    UUID,
    Avro,
    Boolean,
    Bytes,
    Double,
    Float,
    Integer,
    JsonSchema,
    Long,
    Protobuf,
    SessionWindowed,
    Short,
    String,
    TimeWindowed,
    Void,
)

__all__ = ["DoesNotFit", "from_column", "infer", "parse_type", "shape_of", "to_column",
           "unwindowed"]

_UTC = dt.UTC


class DoesNotFit(Exception):
    """A decoded value that the column's Spark type cannot hold; ``kslab.spark.typed`` raises
    a ``SerdeError`` naming the record instead."""


def parse_type(given: Any) -> Any:
    """A Spark ``DataType`` from a ``DataType`` or a DDL string (``"struct<a:long>"``)."""
    from pyspark.sql import types as st

    if given is None or isinstance(given, st.DataType):
        return given
    if isinstance(given, str):
        return st.DataType.fromDDL(given)
    msg = (f"a column type must be a Spark DataType or a DDL string such as "
           f"'struct<id:long,name:string>'; got {type(given).__name__}")
    raise TypeError(msg)


def unwindowed(serde: Any) -> tuple[Any, bool]:
    """``(inner serde, True)`` for a windowed serde, else ``(serde, False)``."""
    if isinstance(serde, TimeWindowed | SessionWindowed):
        return serde.inner, True
    return serde, False


def shape_of(serde: Any) -> Any:
    """The Spark type a serde's values have without looking at data, or ``None`` (``Json``
    and user serdes: their values can be anything)."""
    from pyspark.sql import types as st

    simple = {String: st.StringType(), UUID: st.StringType(), Long: st.LongType(),
              Integer: st.IntegerType(), Short: st.ShortType(), Double: st.DoubleType(),
              Float: st.FloatType(), Boolean: st.BooleanType(), Bytes: st.BinaryType(),
              Void: st.NullType()}
    found = simple.get(type(serde))
    if found is not None:
        return found
    if isinstance(serde, Avro):
        return avro_type(serde.schema, {})
    if isinstance(serde, Protobuf):
        return proto_type(serde.message_type.DESCRIPTOR, ())
    if isinstance(serde, JsonSchema):
        return json_schema_type(serde.schema)
    return None


# -- Avro (Spark's SchemaConverters.toSqlType) ---------------------------------------------------

_AVRO_PRIMITIVE = {"boolean": "BooleanType", "int": "IntegerType", "long": "LongType",
                   "float": "FloatType", "double": "DoubleType", "bytes": "BinaryType",
                   "string": "StringType", "null": "NullType"}


def avro_type(schema: Any, named: dict[str, Any]) -> Any:
    """The Spark type of an Avro schema, as Spark's ``from_avro`` maps it; ``named`` holds the
    named types defined so far (records referenced by name). A union of null and one type is
    that type (nullable); a union of several types is a string of the value's JSON text."""
    from pyspark.sql import types as st

    if isinstance(schema, str):
        if schema in _AVRO_PRIMITIVE:
            return getattr(st, _AVRO_PRIMITIVE[schema])()
        if schema in named:
            if named[schema] is None:
                msg = (f"the Avro record {schema} contains itself; a Spark struct cannot "
                       "(Spark's from_avro refuses it too); pass key_type/value_type")
                raise ValueError(msg)
            return named[schema]
        msg = f"the Avro schema names type {schema!r}, which it does not define"
        raise ValueError(msg)
    if isinstance(schema, list):
        branches = [b for b in schema if b != "null"]
        return avro_type(branches[0], named) if len(branches) == 1 else st.StringType()
    kind = schema.get("type")
    logical = schema.get("logicalType")
    if logical == "decimal":
        return st.DecimalType(int(schema["precision"]), int(schema.get("scale", 0)))
    if logical == "date" and kind == "int":
        return st.DateType()
    if logical in ("timestamp-millis", "timestamp-micros") and kind == "long":
        return st.TimestampType()
    if logical in ("local-timestamp-millis", "local-timestamp-micros") and kind == "long":
        return st.TimestampNTZType()
    if kind == "record":
        names = _avro_names(schema)
        for name in names:
            named[name] = None  # being built: a reference to it now is a recursion
        fields = [st.StructField(f["name"], avro_type(f["type"], named), True)
                  for f in schema["fields"]]
        struct = st.StructType(fields)
        for name in names:
            named[name] = struct
        return struct
    if kind == "enum":
        for name in _avro_names(schema):
            named[name] = st.StringType()
        return st.StringType()
    if kind == "fixed":
        for name in _avro_names(schema):
            named[name] = st.BinaryType()
        return st.BinaryType()
    if kind == "array":
        return st.ArrayType(avro_type(schema["items"], named), True)
    if kind == "map":
        return st.MapType(st.StringType(), avro_type(schema["values"], named), True)
    return avro_type(kind, named)


def _avro_names(schema: dict[str, Any]) -> list[str]:
    name = str(schema["name"])
    namespace = schema.get("namespace")
    return [name, f"{namespace}.{name}"] if namespace and "." not in name else [name]


# -- Protobuf (Spark's protobuf SchemaConverters) ----------------------------------------------


def proto_type(descriptor: Any, seen: tuple[str, ...]) -> Any:
    """The Spark struct of a message descriptor, as Spark's ``from_protobuf`` maps it: 32-bit
    ints an int (uint32 a long), 64-bit ints a long (uint64 a decimal(20,0)), enums their
    names, ``google.protobuf.Timestamp`` a timestamp, maps a map, repeated fields arrays. A
    message that contains itself is refused (Spark refuses it too by default)."""
    from pyspark.sql import types as st

    if descriptor.full_name in seen:
        msg = (f"Protobuf message {descriptor.full_name} contains itself "
               f"({' -> '.join((*seen, descriptor.full_name))}); a Spark struct cannot; pass "
               "key_type/value_type with a type that stops the recursion")
        raise ValueError(msg)
    fields = [st.StructField(f.name, _proto_field_type(f, (*seen, descriptor.full_name)), True)
              for f in descriptor.fields]
    return st.StructType(fields)


def _proto_field_type(field: Any, seen: tuple[str, ...]) -> Any:
    from pyspark.sql import types as st

    message = field.message_type
    if message is not None and message.GetOptions().map_entry:
        key, value = message.fields_by_name["key"], message.fields_by_name["value"]
        return st.MapType(_proto_scalar(key, seen), _proto_scalar(value, seen), True)
    scalar = _proto_scalar(field, seen)
    return st.ArrayType(scalar, True) if _repeated(field) else scalar


def _proto_scalar(field: Any, seen: tuple[str, ...]) -> Any:
    from google.protobuf.descriptor import FieldDescriptor as F
    from pyspark.sql import types as st

    if field.type == F.TYPE_MESSAGE or field.type == F.TYPE_GROUP:
        if field.message_type.full_name == "google.protobuf.Timestamp":
            return st.TimestampType()
        return proto_type(field.message_type, seen)
    if field.type == F.TYPE_ENUM or field.type == F.TYPE_STRING:
        return st.StringType()
    if field.type == F.TYPE_BYTES:
        return st.BinaryType()
    if field.type == F.TYPE_UINT64 or field.type == F.TYPE_FIXED64:
        return st.DecimalType(20, 0)
    by_cpp = {F.CPPTYPE_INT32: st.IntegerType(), F.CPPTYPE_UINT32: st.LongType(),
              F.CPPTYPE_INT64: st.LongType(), F.CPPTYPE_UINT64: st.DecimalType(20, 0),
              F.CPPTYPE_DOUBLE: st.DoubleType(), F.CPPTYPE_FLOAT: st.FloatType(),
              F.CPPTYPE_BOOL: st.BooleanType()}
    return by_cpp[field.cpp_type]


def _repeated(field: Any) -> bool:
    found = getattr(field, "is_repeated", None)
    if found is not None:
        return bool(found)
    return bool(field.label == field.LABEL_REPEATED)


def proto_values(message: Any) -> dict[str, Any]:
    """A message as plain values for its ``proto_type`` struct: enums by name, unset message
    fields (and unset fields with presence) ``None``, timestamps as UTC datetimes."""
    from google.protobuf.descriptor import FieldDescriptor as F

    out: dict[str, Any] = {}
    for field in message.DESCRIPTOR.fields:
        value = getattr(message, field.name)
        entry = field.message_type
        if entry is not None and entry.GetOptions().map_entry:
            inner = entry.fields_by_name["value"]
            out[field.name] = {k: _proto_scalar_value(inner, v) for k, v in value.items()}
        elif _repeated(field):
            out[field.name] = [_proto_scalar_value(field, v) for v in value]
        elif (field.type == F.TYPE_MESSAGE or getattr(field, "has_presence", False)) \
                and not message.HasField(field.name):
            out[field.name] = None
        else:
            out[field.name] = _proto_scalar_value(field, value)
    return out


def _proto_scalar_value(field: Any, value: Any) -> Any:
    from google.protobuf.descriptor import FieldDescriptor as F

    if field.type == F.TYPE_ENUM:
        found = field.enum_type.values_by_number.get(value)
        return found.name if found is not None else str(value)
    if field.type == F.TYPE_MESSAGE:
        if field.message_type.full_name == "google.protobuf.Timestamp":
            return value.ToDatetime(tzinfo=_UTC)
        return proto_values(value)
    return value


# -- JSON Schema ---------------------------------------------------------------------------------


def json_schema_type(schema: Any) -> Any:
    """The Spark type a JSON Schema pins down (objects with typed ``properties``, arrays with
    typed ``items``, scalars), or ``None`` where it does not (then values are inferred)."""
    from pyspark.sql import types as st

    if not isinstance(schema, dict):
        return None
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        kind = kinds[0] if len(kinds) == 1 else None
    scalars = {"string": st.StringType(), "integer": st.LongType(), "number": st.DoubleType(),
               "boolean": st.BooleanType()}
    if kind in scalars:
        return scalars[kind]
    if kind == "array":
        items = json_schema_type(schema.get("items"))
        return None if items is None else st.ArrayType(items, True)
    if kind == "object" and isinstance(schema.get("properties"), dict):
        fields = []
        for name, sub in schema["properties"].items():
            typed = json_schema_type(sub)
            fields.append(st.StructField(name, typed or st.StringType(), True))
        return st.StructType(fields)
    return None


# -- inference from values -----------------------------------------------------------------------


def infer(values: Iterable[Any]) -> Any:
    """The Spark type that holds every one of ``values`` (Python values a serde returned):
    dicts a struct (fields in the order first seen), lists an array, ints a long (a double
    with floats beside them), protobuf messages their struct. Where no one type holds them
    all (or none was seen), a string of each value's JSON text."""
    from pyspark.sql import types as st

    found: Any = None
    for value in values:
        typed = _type_of(value)
        found = typed if found is None else _merge(found, typed)
        if found is False:
            return st.StringType()
    if found is None or isinstance(found, st.NullType):
        return st.StringType()
    return _no_nulls(found)


def _type_of(value: Any) -> Any:
    from pyspark.sql import types as st

    if value is None:
        return st.NullType()
    if isinstance(value, bool):
        return st.BooleanType()
    if isinstance(value, int):
        return st.LongType()
    if isinstance(value, float):
        return st.DoubleType()
    if isinstance(value, str | uuid.UUID):
        return st.StringType()
    if isinstance(value, bytes | bytearray):
        return st.BinaryType()
    if isinstance(value, dt.datetime):
        return st.TimestampType() if value.tzinfo is not None else st.TimestampNTZType()
    if isinstance(value, dt.date):
        return st.DateType()
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            return False
        return st.StructType([st.StructField(k, _type_of(v), True) for k, v in value.items()])
    if isinstance(value, list | tuple) and not hasattr(value, "_fields"):
        element: Any = st.NullType()
        for item in value:
            element = _merge(element, _type_of(item))
            if element is False:
                return False
        return st.ArrayType(element, True)
    if hasattr(value, "DESCRIPTOR") and hasattr(value, "ListFields"):  # a protobuf message
        return proto_type(value.DESCRIPTOR, ())
    plain = _plain(value)
    return False if plain is value else _type_of(plain)


def _plain(value: Any) -> Any:
    """A protobuf message, dataclass or named tuple as a dict; anything else as it is."""
    if hasattr(value, "DESCRIPTOR") and hasattr(value, "ListFields"):
        return proto_values(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if hasattr(value, "_asdict"):
        return value._asdict()
    return value


def _merge(a: Any, b: Any) -> Any:
    """The type holding both ``a`` and ``b``'s values; ``False`` when there is none."""
    from pyspark.sql import types as st

    if a is False or b is False:
        return False
    if isinstance(a, st.NullType):
        return b
    if isinstance(b, st.NullType):
        return a
    if isinstance(a, st.StructType) and isinstance(b, st.StructType):
        fields = {f.name: f.dataType for f in a.fields}
        for f in b.fields:
            merged = _merge(fields[f.name], f.dataType) if f.name in fields else f.dataType
            if merged is False:
                return False
            fields[f.name] = merged
        return st.StructType([st.StructField(k, v, True) for k, v in fields.items()])
    if isinstance(a, st.ArrayType) and isinstance(b, st.ArrayType):
        element = _merge(a.elementType, b.elementType)
        return False if element is False else st.ArrayType(element, True)
    if {type(a), type(b)} == {st.LongType, st.DoubleType}:
        return st.DoubleType()
    return a if a == b else False


def _no_nulls(typed: Any) -> Any:
    """``typed`` with a field only ever seen as null made a string (Spark's inference too)."""
    from pyspark.sql import types as st

    if isinstance(typed, st.NullType):
        return st.StringType()
    if isinstance(typed, st.StructType):
        return st.StructType([st.StructField(f.name, _no_nulls(f.dataType), True)
                              for f in typed.fields])
    if isinstance(typed, st.ArrayType):
        return st.ArrayType(_no_nulls(typed.elementType), True)
    return typed


# -- values into and out of columns ---------------------------------------------------------------


def to_column(value: Any, typed: Any) -> Any:
    """``value`` (what a serde returned) as Arrow takes it for a column of Spark type
    ``typed``; raises ``DoesNotFit`` naming the value and the type when it cannot."""
    from pyspark.sql import types as st

    if value is None:
        return None
    if isinstance(typed, st.StringType):
        if isinstance(value, str):
            return value
        if isinstance(value, uuid.UUID):
            return str(value)
        try:
            return orjson.dumps(_plain(value), default=_json_default).decode()
        except TypeError as e:  # (orjson's JSONEncodeError is one)
            msg = (f"{type(value).__name__} {_shown(value)} has no JSON text for a string "
                   f"column ({e})")
            raise DoesNotFit(msg) from e
    if isinstance(typed, st.IntegralType):
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif isinstance(typed, st.FractionalType):
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    elif isinstance(typed, st.BooleanType):
        if isinstance(value, bool):
            return value
    elif isinstance(typed, st.BinaryType):
        if isinstance(value, bytes | bytearray):
            return bytes(value)
    elif isinstance(typed, st.DecimalType):
        if isinstance(value, int | decimal.Decimal) and not isinstance(value, bool):
            return decimal.Decimal(value)
    elif isinstance(typed, st.TimestampType | st.TimestampNTZType):
        if isinstance(value, dt.datetime):
            return value
    elif isinstance(typed, st.DateType):
        if isinstance(value, dt.date):
            return value
    elif isinstance(typed, st.ArrayType):
        if isinstance(value, list | tuple):
            return [to_column(item, typed.elementType) for item in value]
    elif isinstance(typed, st.MapType):
        if isinstance(value, dict):
            return [(to_column(k, typed.keyType), to_column(v, typed.valueType))
                    for k, v in value.items()]
    elif isinstance(typed, st.StructType):
        plain = _plain(value)
        if isinstance(plain, dict):
            return {f.name: to_column(plain.get(f.name), f.dataType) for f in typed.fields}
    elif isinstance(typed, st.NullType):
        pass
    else:
        return value
    msg = f"{type(value).__name__} {_shown(value)} cannot be a {typed.simpleString()}"
    raise DoesNotFit(msg)


def _shown(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def _json_default(value: Any) -> Any:
    plain = _plain(value)
    if plain is not value:
        return plain
    if isinstance(value, decimal.Decimal | uuid.UUID):
        return str(value)
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("latin-1")
    raise TypeError(type(value).__name__)


def from_column(value: Any, typed: Any) -> Any:
    """A column's value (as Arrow's ``to_pylist`` gives it) as a serde writes it: maps as
    dicts (Arrow gives key-value pairs), structs as dicts, arrays as lists."""
    from pyspark.sql import types as st

    if value is None:
        return None
    if isinstance(typed, st.MapType):
        return {from_column(k, typed.keyType): from_column(v, typed.valueType) for k, v in value}
    if isinstance(typed, st.StructType):
        return {f.name: from_column(value.get(f.name), f.dataType) for f in typed.fields}
    if isinstance(typed, st.ArrayType):
        return [from_column(item, typed.elementType) for item in value]
    return value
