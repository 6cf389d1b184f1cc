"""The Protobuf serde: messages of one generated class, Confluent-framed with a schema registry.

Invariant: with a registry the bytes are what Confluent's Java ``KafkaProtobufSerializer`` writes
(magic byte 0, 4-byte big-endian schema id, the message's index path in its .proto file as a
zigzag-varint array, ``[0]`` written as the single byte 0, then Protobuf binary), written and read
by confluent-kafka's ``ProtobufSerializer``/``ProtobufDeserializer``. Without one, plain Protobuf.

protobuf and confluent-kafka are imported when a ``Protobuf`` is built, never by ``import kslab``.
"""

from __future__ import annotations

from typing import Any

from kslab.serdes._base import preview_value
from kslab.serdes._registry import RegistrySerde, require

__all__ = ["Protobuf"]


class Protobuf(RegistrySerde):
    """Messages of ``message_type`` (a generated protobuf class), framed when ``registry`` is set.

    Values written may be messages of that class or dicts of its fields (by the .proto names, as
    ``json_format.ParseDict`` reads them); values read are messages. ``registry`` and the
    keyword settings are ``serdes.Avro``'s: a URL (``"mock://name"`` for an in-process one), a
    config dict or a client; ``is_key``; ``subject_name_strategy`` (``"topic"``, ``"record"``
    for the message's full name, ``"topic_record"``); ``auto_register_schemas``;
    ``use_latest_version``. The registered schema is the message's whole .proto file.
    """

    __slots__ = ("_type",)

    _format = "Protobuf"
    _payload = "message indexes + Protobuf binary"
    _plain = "plain Protobuf binary"

    def __init__(self, message_type: type, registry: Any = None, *, is_key: bool = False,
                 subject_name_strategy: str = "topic", auto_register_schemas: bool | None = None,
                 use_latest_version: bool = False) -> None:
        descriptor = getattr(message_type, "DESCRIPTOR", None)
        if not isinstance(message_type, type) or getattr(descriptor, "full_name", None) is None:
            msg = (f"serdes.Protobuf takes a generated message class (e.g. order_pb2.Order); got "
                   f"{preview_value(message_type)}")
            raise TypeError(msg)
        self._type = message_type
        self._setup(registry, is_key, subject_name_strategy, auto_register_schemas,
                    use_latest_version)

    @property
    def message_type(self) -> type:
        """The generated class this serde writes and reads."""
        return self._type

    def _coerce(self, data: Any) -> Any:
        if isinstance(data, dict):
            json_format = require("google.protobuf.json_format", "Protobuf")
            return json_format.ParseDict(data, self._type())
        return data

    def _write_plain(self, topic: str, data: Any, headers: Any) -> bytes:
        message = self._coerce(data)
        if not isinstance(message, self._type):
            msg = f"message must be of type {self._label()}, not {type(message).__name__}"
            raise TypeError(msg)
        return message.SerializeToString()

    def _read_plain(self, topic: str, data: bytes, headers: Any) -> Any:
        return self._type.FromString(data)

    def _confluent_pair(self, client: Any, write_conf: dict, read_conf: dict) -> tuple[Any, Any]:
        protobuf = require("confluent_kafka.schema_registry.protobuf", "Protobuf")
        return (protobuf.ProtobufSerializer(self._type, client, conf=write_conf),
                protobuf.ProtobufDeserializer(self._type, read_conf, client))

    def _label(self) -> str:
        return str(self._type.DESCRIPTOR.full_name)

    def _record_name(self) -> str | None:
        return self._label()

    def _expected(self) -> str:
        return f"a message of type {self._label()} or a dict of its fields"

    def _schema_key(self) -> Any:
        return self._type

    def _schema_repr(self) -> str:
        return f"message={self._label()!r}"
