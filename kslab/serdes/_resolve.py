"""Turning what a user or a config names as a serde into a serde object.

Invariant: every spelling of one built-in serde resolves to an equal serde (``"long"``,
``"LongSerde"``, ``"org.apache.kafka.common.serialization.Serdes$LongSerde"``, ``serdes.Long``,
``int``), so configs written for Java apps work unchanged.
"""

from __future__ import annotations

import difflib
import uuid
from collections.abc import Callable
from typing import Any

from kslab.errors import SerdeError
from kslab.serdes._base import InvalidSerdeError, Serde
from kslab.serdes._json import Json
from kslab.serdes._primitives import (
    UUID,
    Boolean,
    Bytes,
    Double,
    Float,
    Integer,
    Long,
    Short,
    String,
    Void,
)

__all__ = ["resolve"]

_BY_NAME: dict[str, Callable[[], Serde]] = {
    "string": String,
    "bytes": Bytes,
    "bytearray": Bytes,
    "bytebuffer": Bytes,
    "long": Long,
    "integer": Integer,
    "short": Short,
    "double": Double,
    "float": Float,
    "boolean": Boolean,
    "uuid": UUID,
    "json": Json,
    "void": Void,
}

# What Java's Serdes.serdeFrom(Class) does for its boxed types, with Python's types.
_BY_PYTHON_TYPE: dict[type, Callable[[], Serde]] = {
    str: String,
    bytes: Bytes,
    int: Long,
    float: Double,
    bool: Boolean,
    uuid.UUID: UUID,
    dict: Json,
    list: Json,
}

# Serdes that exist but cannot be built from a name alone.
_NEEDS_ARGUMENTS = {
    "timewindowed": "serdes.TimeWindowed(inner, window_size=<ms>)",
    "sessionwindowed": "serdes.SessionWindowed(inner)",
    "list": "serdes.ListSerde(inner)",
    "avro": "serdes.Avro(schema, registry=<url>)",
    "genericavro": "serdes.Avro(schema, registry=<url>)",
    "specificavro": "serdes.Avro(schema, registry=<url>)",
    "kafkaavro": "serdes.Avro(schema, registry=<url>)",
    "protobuf": "serdes.Protobuf(message_class, registry=<url>)",
    "kafkaprotobuf": "serdes.Protobuf(message_class, registry=<url>)",
    "jsonschema": "serdes.JsonSchema(schema, registry=<url>)",
    "kafkajsonschema": "serdes.JsonSchema(schema, registry=<url>)",
}


def resolve(serde: Any, *, is_key: bool | None = None) -> Serde:
    """The serde that ``serde`` names: a Serde, a Serde class, a config name or a Python type.

    With ``is_key`` the result is ``configure``-d for a key (``True``) or value (``False``)
    position, which is how a serde such as ``Avro`` learns its schema-registry subject.
    """
    chosen = _choose(serde)
    if is_key is None:
        return chosen
    configure = getattr(chosen, "configure", None)
    if configure is None:
        return chosen
    configured = configure(is_key)
    return chosen if configured is None else configured


def _choose(serde: Any) -> Serde:
    if isinstance(serde, str):
        return _by_name(serde)
    if isinstance(serde, type):
        return _by_class(serde)
    if isinstance(serde, Serde):
        return serde
    if serde is None:
        msg = "no serde given (None); pass a serde such as serdes.String() or a name like 'string'"
        raise SerdeError(msg)
    msg = (
        f"{serde!r} is not a serde: it needs serialize(topic, data, headers=None) and "
        "deserialize(topic, data, headers=None) methods; use serdes.from_functions(...) to "
        "wrap plain functions"
    )
    raise SerdeError(msg)


def _by_name(name: str) -> Serde:
    key = normalize_serde_name(name)
    factory = _BY_NAME.get(key)
    if factory is not None:
        return factory()
    if key in _NEEDS_ARGUMENTS:
        msg = (
            f"serde {name!r} needs arguments and cannot be named by a string; "
            f"pass {_NEEDS_ARGUMENTS[key]}"
        )
        raise SerdeError(msg)
    known = ", ".join(repr(known) for known in sorted(_BY_NAME))
    close = difflib.get_close_matches(key, _BY_NAME, n=1)
    maybe = f" (did you mean {close[0]!r}?)" if close else ""
    msg = (
        f"unknown serde name {name!r}{maybe}; use one of {known}, a Java class name such as "
        "'org.apache.kafka.common.serialization.Serdes$StringSerde', or a serde object"
    )
    raise InvalidSerdeError(msg)


def _by_class(cls: type) -> Serde:
    factory = _BY_PYTHON_TYPE.get(cls)
    if factory is not None:
        return factory()
    if issubclass(cls, Serde):
        try:
            return cls()
        except TypeError as e:
            msg = (
                f"serde class {cls.__name__} cannot be built without arguments ({e}); "
                f"pass an instance, e.g. {cls.__name__}(...)"
            )
            raise SerdeError(msg) from e
    known = ", ".join(t.__name__ for t in _BY_PYTHON_TYPE)
    msg = (
        f"{cls.__name__} is neither a serde class nor a type with a default serde ({known}); "
        "pass a serde"
    )
    raise InvalidSerdeError(msg)


def normalize_serde_name(name: str) -> str:
    """``'org.apache...Serdes$LongSerde'``, ``'LongSerde'``, ``'Long()'`` and ``'long'`` → long."""
    tail = name.strip().rsplit("$", 1)[-1].rsplit(".", 1)[-1].removesuffix("()").lower()
    return tail.removesuffix("serde") or tail
