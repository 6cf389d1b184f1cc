"""The Avro serde: schemaless Avro binary via fastavro, or Confluent's wire format with a registry.

Invariant: with a registry the bytes are exactly what Confluent's Java ``KafkaAvroSerializer``
writes (magic byte 0, 4-byte big-endian schema id, Avro binary) under the subject its strategy
names (``<topic>-key`` / ``<topic>-value`` by default), so which of the two a serde registers
under is fixed by ``is_key`` and must match the position the serde is wired to. The registry
plumbing is ``serdes._registry``'s, shared with ``Protobuf`` and ``JsonSchema``.

fastavro and confluent-kafka are imported when an ``Avro`` is built, never by ``import kslab``.
"""

from __future__ import annotations

import copy
import io
from typing import Any

import orjson

from kslab.serdes._registry import RegistrySerde, require

__all__ = ["Avro"]

_PRIMITIVES = frozenset({"null", "boolean", "int", "long", "float", "double", "bytes", "string"})


class Avro(RegistrySerde):
    """Avro records (dicts) and values for one schema; Confluent-framed when ``registry`` is given.

    ``schema`` is a dict (or list, for a union) or its JSON text. ``registry`` is a schema registry
    URL (``"http://localhost:8081"``, or ``"mock://name"`` for an in-process one), a dict of
    ``SchemaRegistryClient`` config, or a client. With a registry the serde registers its schema
    under ``<topic>-value``, or ``<topic>-key`` when ``is_key=True``; the framework calls
    ``configure(is_key=True)`` for key positions, so
    ``Consumed.with_(serdes.Avro(k), serdes.Avro(v, registry=url))`` needs no ``is_key``.
    ``subject_name_strategy`` (``"topic"``, ``"record"``, ``"topic_record"``),
    ``auto_register_schemas`` and ``use_latest_version`` are Confluent's serializer settings.
    """

    __slots__ = ("_parsed", "_schema")

    _format = "Avro"
    _payload = "Avro binary"
    _plain = "schemaless Avro binary"

    def __init__(self, schema: Any, registry: Any = None, *, is_key: bool = False,
                 subject_name_strategy: str = "topic", auto_register_schemas: bool | None = None,
                 use_latest_version: bool = False) -> None:
        fastavro = require("fastavro", "Avro")
        _bind_fastavro(fastavro)
        self._schema = _load_schema(schema)
        try:
            self._parsed = fastavro.parse_schema(copy.deepcopy(self._schema))
        except Exception as e:  # fastavro raises several types for a bad schema
            msg = f"serdes.Avro got an invalid Avro schema ({e}); pass a schema dict or JSON text"
            raise ValueError(msg) from e
        self._setup(registry, is_key, subject_name_strategy, auto_register_schemas,
                    use_latest_version)

    @property
    def schema(self) -> Any:
        """The Avro schema, as the dict (or list, or type name) it parses to."""
        return self._schema

    def _write_plain(self, topic: str, data: Any, headers: Any) -> bytes:
        if _schemaless_writer is None:  # unpickled where no Avro was built (a Spark worker)
            _bind_fastavro(require("fastavro", "Avro"))
        out = io.BytesIO()
        _schemaless_writer(out, self._parsed, data)
        return out.getvalue()

    def _read_plain(self, topic: str, data: bytes, headers: Any) -> Any:
        if _schemaless_reader is None:  # unpickled where no Avro was built (a Spark worker)
            _bind_fastavro(require("fastavro", "Avro"))
        return _schemaless_reader(io.BytesIO(data), self._parsed, None)

    def _confluent_pair(self, client: Any, write_conf: dict, read_conf: dict) -> tuple[Any, Any]:
        avro = require("confluent_kafka.schema_registry.avro", "Avro")
        schema_text = orjson.dumps(self._schema).decode()
        return (avro.AvroSerializer(client, schema_text, conf=write_conf),
                avro.AvroDeserializer(client, schema_text, conf=read_conf))

    def _label(self) -> str:
        return _schema_label(self._schema)

    def _record_name(self) -> str | None:
        return _schema_label(self._schema) if isinstance(self._schema, dict) else None

    def _expected(self) -> str:
        return f"a value matching the Avro schema {self._label()}"

    def _schema_key(self) -> Any:
        return orjson.dumps(self._schema, option=orjson.OPT_SORT_KEYS)

    def _schema_repr(self) -> str:
        return f"schema={self._label()!r}"


# Bound on first use so that ``import kslab`` never imports the optional packages.
_schemaless_writer: Any = None
_schemaless_reader: Any = None


def _bind_fastavro(fastavro: Any) -> None:
    global _schemaless_writer, _schemaless_reader
    _schemaless_writer, _schemaless_reader = fastavro.schemaless_writer, fastavro.schemaless_reader


def _load_schema(schema: Any) -> Any:
    """The schema as a dict, list or type name; JSON text is parsed, a bare type name kept."""
    if isinstance(schema, dict | list):
        return schema
    if isinstance(schema, str):
        if schema.strip() in _PRIMITIVES:
            return schema.strip()
        try:
            return orjson.loads(schema)
        except orjson.JSONDecodeError as e:
            msg = f"serdes.Avro schema {schema[:60]!r} is not JSON ({e}); pass a dict or JSON text"
            raise ValueError(msg) from e
    msg = f"serdes.Avro schema must be a dict, list or JSON str; got {type(schema).__name__}"
    raise TypeError(msg)


def _schema_label(schema: Any) -> str:
    """A schema's full name (``com.acme.Order``), or its type when it has no name."""
    if isinstance(schema, dict):
        name = schema.get("name")
        if name is None:
            return str(schema.get("type"))
        namespace = schema.get("namespace")
        return f"{namespace}.{name}" if namespace and "." not in name else str(name)
    if isinstance(schema, list):
        return "union[" + ", ".join(_schema_label(branch) for branch in schema) + "]"
    return str(schema)
