"""The Avro serde: schemaless Avro binary via fastavro, or Confluent's wire format with a registry.

Invariant: with a registry the bytes are exactly what Confluent's Java ``KafkaAvroSerializer``
writes (magic byte 0, 4-byte big-endian schema id, Avro binary) under the default
``TopicNameStrategy`` subjects ``<topic>-key`` / ``<topic>-value``, so which of the two a serde
registers under is fixed by ``is_key`` and must match the position the serde is wired to.

fastavro and confluent-kafka are imported when an ``Avro`` is built, never by ``import kslab``.
"""

from __future__ import annotations

import copy
import importlib
import io
from typing import Any

import orjson

from kslab.errors import SerdeError
from kslab.serdes._base import Serde, deserialize_error, preview_value

__all__ = ["Avro"]

_PRIMITIVES = frozenset({"null", "boolean", "int", "long", "float", "double", "bytes", "string"})


class Avro(Serde):
    """Avro records (dicts) and values for one schema; Confluent-framed when ``registry`` is given.

    ``schema`` is a dict (or list, for a union) or its JSON text. ``registry`` is a schema registry
    URL (``"http://localhost:8081"``), a dict of ``SchemaRegistryClient`` config, or a client.
    With a registry the serde registers its schema under ``<topic>-value``, or ``<topic>-key``
    when ``is_key=True``; the framework calls ``configure(is_key=True)`` for key positions, so
    ``Consumed.with_(serdes.Avro(k), serdes.Avro(v, registry=url))`` needs no ``is_key``.
    """

    __slots__ = (
        "_client",
        "_deserializer",
        "_field",
        "_is_key",
        "_parsed",
        "_read",
        "_registry",
        "_schema",
        "_serializer",
        "_write",
    )

    def __init__(self, schema: Any, registry: Any = None, *, is_key: bool = False) -> None:
        fastavro = _require("fastavro")
        _bind_fastavro(fastavro)
        self._schema = _load_schema(schema)
        try:
            self._parsed = fastavro.parse_schema(copy.deepcopy(self._schema))
        except Exception as e:  # fastavro raises several types for a bad schema
            msg = f"serdes.Avro got an invalid Avro schema ({e}); pass a schema dict or JSON text"
            raise ValueError(msg) from e
        self._registry = registry
        self._is_key = is_key
        self._client = None if registry is None else _registry_client(registry)
        self._bind()

    @property
    def schema(self) -> Any:
        """The Avro schema, as the dict (or list, or type name) it parses to."""
        return self._schema

    @property
    def is_key(self) -> bool:
        """Whether this serde registers and looks up schemas under the ``<topic>-key`` subject."""
        return self._is_key

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        """The Avro bytes of ``data`` (a dict for a record schema), framed when registered."""
        if data is None:
            return None
        try:
            return self._write(topic, data, headers)
        except SerdeError:
            raise
        except Exception as e:
            raise self._write_error(topic, data, e) from e

    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        """The value encoded in ``data``."""
        if data is None:
            return None
        try:
            return self._read(topic, data, headers)
        except SerdeError:
            raise
        except Exception as e:
            raise self._read_error(topic, data, e) from e

    def configure(self, is_key: bool) -> Avro:
        """This serde for keys (``True``) or values (``False``); the registry client is shared."""
        if is_key == self._is_key:
            return self
        other = copy.copy(self)
        other._is_key = is_key
        other._bind()
        return other

    # -- the two wire formats ------------------------------------------------------------------

    def _write_plain(self, topic: str, data: Any, headers: Any) -> bytes:
        out = io.BytesIO()
        _schemaless_writer(out, self._parsed, data)
        return out.getvalue()

    def _read_plain(self, topic: str, data: bytes, headers: Any) -> Any:
        return _schemaless_reader(io.BytesIO(data), self._parsed, None)

    def _write_framed(self, topic: str, data: Any, headers: Any) -> bytes:
        pairs = _header_pairs(headers)
        context = _SerializationContext(topic, self._field, pairs)
        out = self._serializer(data, context)
        if pairs and len(pairs) > len(headers):  # a header schema-id serializer added one
            for key, value in pairs[len(headers) :]:
                headers.add(key, value)
        return out

    def _read_framed(self, topic: str, data: bytes, headers: Any) -> Any:
        context = _SerializationContext(topic, self._field, _header_pairs(headers))
        return self._deserializer(data, context)

    def _bind(self) -> None:
        """Point the hot path at this serde's wire format, with confluent's serdes if registered."""
        self._serializer = self._deserializer = self._field = None
        if self._client is None:
            self._write, self._read = self._write_plain, self._read_plain
            return
        self._write, self._read = self._write_framed, self._read_framed
        avro = _require("confluent_kafka.schema_registry.avro")
        registry_module = _require("confluent_kafka.schema_registry")
        fields = _bind_confluent()
        schema_text = orjson.dumps(self._schema).decode()
        self._field = fields.KEY if self._is_key else fields.VALUE
        # Java's default TopicNameStrategy, named explicitly: newer confluent-kafka clients
        # default to asking the registry for topic "associations" first.
        conf = {"subject.name.strategy": registry_module.topic_subject_name_strategy}
        self._serializer = avro.AvroSerializer(self._client, schema_text, conf=conf)
        self._deserializer = avro.AvroDeserializer(self._client, schema_text, conf=conf)

    # -- errors --------------------------------------------------------------------------------

    def _write_error(self, topic: str, data: Any, cause: Exception) -> SerdeError:
        if _is_registry_failure(cause):
            fix = "check the registry is reachable and the schema is compatible with the subject's"
            fix += " registered versions"
            return self._registry_error(topic, None, "register its schema", cause, fix)
        msg = (
            f"{self!r} cannot serialize {type(data).__name__} {preview_value(data)} for topic "
            f"{topic!r}: expected a value matching the Avro schema {_schema_label(self._schema)} "
            f"({type(cause).__name__}: {cause}); fix the value (map_values) or the schema"
        )
        return SerdeError(msg, topic=topic, raw=None)

    def _read_error(self, topic: str, data: bytes, cause: Exception) -> SerdeError:
        if _is_registry_failure(cause):
            fix = "check the registry is reachable and is the one the producer wrote with"
            return self._registry_error(topic, data, "fetch the writer's schema", cause, fix)
        framed = "Confluent-framed Avro (magic byte 0 + 4-byte schema id + Avro binary)"
        expected = framed if self._client is not None else "schemaless Avro binary"
        detail = f"{type(cause).__name__}: {cause}" if str(cause) else type(cause).__name__
        expected = f"expected {expected} for schema {_schema_label(self._schema)} ({detail})"
        return deserialize_error(self, topic, data, expected)

    def _registry_error(
        self, topic: str, data: bytes | None, action: str, cause: Exception, fix: str
    ) -> SerdeError:
        subject = f"{topic}-{'key' if self._is_key else 'value'}"
        msg = (
            f"{self!r} could not {action} for topic {topic!r} (subject {subject!r}) at the "
            f"schema registry ({type(cause).__name__}: {cause}); {fix}"
        )
        return SerdeError(msg, topic=topic, raw=data)

    # -- identity ------------------------------------------------------------------------------

    def _config(self) -> tuple[Any, ...]:
        schema = orjson.dumps(self._schema, option=orjson.OPT_SORT_KEYS)
        return (schema, _registry_key(self._registry), self._is_key)

    def _repr_args(self) -> str:
        args = [f"schema={_schema_label(self._schema)!r}"]
        if self._registry is not None:
            args.append(f"registry={_registry_label(self._registry)!r}")
        if self._is_key:
            args.append("is_key=True")
        return ", ".join(args)


def _require(module: str) -> Any:
    """Import an optional dependency, or say which extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        msg = (
            f"serdes.Avro needs the {module.split('.')[0]!r} package, which is not installed; "
            "pip install 'kslab[kafka]'"
        )
        raise ImportError(msg) from e


# Bound on first use so that ``import kslab`` never imports the optional packages.
_schemaless_writer: Any = None
_schemaless_reader: Any = None
_SerializationContext: Any = None


def _bind_fastavro(fastavro: Any) -> None:
    global _schemaless_writer, _schemaless_reader
    _schemaless_writer, _schemaless_reader = fastavro.schemaless_writer, fastavro.schemaless_reader


def _bind_confluent() -> Any:
    """Bind confluent's ``SerializationContext`` and return its ``MessageField``."""
    global _SerializationContext
    serialization = _require("confluent_kafka.serialization")
    _SerializationContext = serialization.SerializationContext
    return serialization.MessageField


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


def _registry_client(registry: Any) -> Any:
    """A ``SchemaRegistryClient`` for a URL or a config dict; a client object is used as is."""
    if isinstance(registry, str | dict):
        module = _require("confluent_kafka.schema_registry")
        config = {"url": registry} if isinstance(registry, str) else dict(registry)
        return module.SchemaRegistryClient(config)
    if callable(getattr(registry, "register_schema", None)):
        return registry
    msg = (
        f"serdes.Avro registry={preview_value(registry)} is not a URL, a config dict or a "
        "SchemaRegistryClient; pass e.g. registry='http://localhost:8081'"
    )
    raise TypeError(msg)


def _header_pairs(headers: Any) -> list[tuple[str, bytes | None]] | None:
    """Headers as the list of pairs confluent's serdes read and append to."""
    if not headers:
        return None
    if isinstance(headers, list | dict):
        return headers  # type: ignore[return-value]
    return [(key, value) for key, value in headers]


def _is_registry_failure(error: Exception) -> bool:
    """Whether ``error`` came from talking to the registry rather than from the data."""
    module = type(error).__module__
    return type(error).__name__ == "SchemaRegistryError" or module.startswith(
        ("httpx", "httpcore", "requests", "urllib3")
    )


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


def _registry_label(registry: Any) -> str:
    """The registry's URL, never its credentials."""
    if isinstance(registry, str):
        return registry
    if isinstance(registry, dict):
        return str(registry.get("url", "<config>"))
    return f"<{type(registry).__name__}>"


def _registry_key(registry: Any) -> Any:
    """What makes two registries the same for equality: URL, config, or client identity."""
    if registry is None or isinstance(registry, str):
        return registry
    if isinstance(registry, dict):
        return tuple(sorted((str(k), repr(v)) for k, v in registry.items()))
    return ("client", id(registry))
