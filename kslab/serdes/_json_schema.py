"""The JSON Schema serde: JSON values valid against one schema, Confluent-framed with a registry.

Invariant: with a registry the bytes are what Confluent's Java ``KafkaJsonSchemaSerializer``
writes (magic byte 0, 4-byte big-endian schema id, compact UTF-8 JSON), written and read by
confluent-kafka's ``JSONSerializer``/``JSONDeserializer``, which validate every value against the
schema (the reader's on reads) with the ``jsonschema`` package. Without a registry the bytes are
plain compact JSON, validated the same way.

jsonschema and confluent-kafka are imported when a ``JsonSchema`` is built, never by
``import kslab``.
"""

from __future__ import annotations

from typing import Any

import orjson

from kslab.serdes._registry import RegistrySerde, require

__all__ = ["JsonSchema"]


class JsonSchema(RegistrySerde):
    """JSON values (dicts, lists, str, numbers) valid against ``schema``; framed with ``registry``.

    ``schema`` is a JSON Schema as a dict or its JSON text; values are validated when written and
    when read. ``registry`` and the keyword settings are ``serdes.Avro``'s: a URL
    (``"mock://name"`` for an in-process one), a config dict or a client; ``is_key``;
    ``subject_name_strategy`` (``"topic"``, ``"record"`` for the schema's ``title``,
    ``"topic_record"``); ``auto_register_schemas``; ``use_latest_version``.
    """

    __slots__ = ("_schema", "_text", "_validator")

    _format = "JSON Schema"
    _payload = "UTF-8 JSON"
    _plain = "UTF-8 JSON"
    _rebuilt = ("_validator",)

    def __init__(self, schema: Any, registry: Any = None, *, is_key: bool = False,
                 subject_name_strategy: str = "topic", auto_register_schemas: bool | None = None,
                 use_latest_version: bool = False) -> None:
        self._schema = _load_schema(schema)
        self._text = orjson.dumps(self._schema).decode()
        exceptions = require("jsonschema.exceptions", "JsonSchema")
        try:
            self._rebuild()
        except exceptions.SchemaError as e:
            msg = f"serdes.JsonSchema got an invalid JSON Schema ({e.message}); fix the schema"
            raise ValueError(msg) from e
        self._setup(registry, is_key, subject_name_strategy, auto_register_schemas,
                    use_latest_version)

    @property
    def schema(self) -> Any:
        """The JSON Schema, as the dict it parses to."""
        return self._schema

    def _rebuild(self) -> None:
        """Check the schema and build its validator (which does not pickle: rebuilt on
        unpickling)."""
        cls = require("jsonschema.validators", "JsonSchema").validator_for(self._schema)
        cls.check_schema(self._schema)
        self._validator = cls(self._schema)

    def _write_plain(self, topic: str, data: Any, headers: Any) -> bytes:
        self._validate(data)
        return orjson.dumps(data)

    def _read_plain(self, topic: str, data: bytes, headers: Any) -> Any:
        value = orjson.loads(data)
        self._validate(value)
        return value

    def _validate(self, value: Any) -> None:
        """Raise ``ValueError`` with jsonschema's one-line reason when ``value`` is not valid
        (its own ``str`` quotes the whole schema), as confluent's serializer does."""
        error = next(self._validator.iter_errors(value), None)
        if error is not None:
            where = "".join(f"[{part!r}]" for part in error.absolute_path)
            msg = f"{error.message} at {where}" if where else error.message
            raise ValueError(msg)

    def _confluent_pair(self, client: Any, write_conf: dict, read_conf: dict) -> tuple[Any, Any]:
        json_schema = require("confluent_kafka.schema_registry.json_schema", "JsonSchema")
        return (json_schema.JSONSerializer(self._text, client, conf=write_conf),
                json_schema.JSONDeserializer(self._text, schema_registry_client=client,
                                             conf=read_conf))

    def _label(self) -> str:
        return self._record_name() or str(self._schema.get("type", "<untitled>"))

    def _record_name(self) -> str | None:
        title = self._schema.get("title")
        return None if title is None else str(title)

    def _expected(self) -> str:
        return f"a value valid against the JSON schema {self._label()}"

    def _schema_key(self) -> Any:
        return orjson.dumps(self._schema, option=orjson.OPT_SORT_KEYS)

    def _schema_repr(self) -> str:
        return f"schema={self._label()!r}"


def _load_schema(schema: Any) -> Any:
    """The schema as a dict; JSON text is parsed."""
    if isinstance(schema, str):
        try:
            schema = orjson.loads(schema)
        except orjson.JSONDecodeError as e:
            msg = (f"serdes.JsonSchema schema {schema[:60]!r} is not JSON ({e}); pass a dict or "
                   "JSON text")
            raise ValueError(msg) from e
    if isinstance(schema, dict):
        return schema
    msg = f"serdes.JsonSchema schema must be a dict or JSON text; got {type(schema).__name__}"
    raise TypeError(msg)
