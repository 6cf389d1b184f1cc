"""Serdes: how keys and values become bytes at every topic boundary, byte-compatible with the JVM.

Every serde maps ``None`` to ``None`` both ways (tombstones) and raises ``kslab.SerdeError``
naming itself, the topic, what it expected and what to do when it cannot read or write::

    >>> from kslab import serdes
    >>> serdes.Long().serialize("orders", 1).hex()
    '0000000000000001'
    >>> serdes.resolve("org.apache.kafka.common.serialization.Serdes$StringSerde")
    String()

Serdes that depend on their position (``Avro``, ``Protobuf`` and ``JsonSchema`` with a schema
registry pick the ``<topic>-key`` or ``<topic>-value`` subject) learn it from
``configure(is_key)``, which the framework calls through ``resolve(serde, is_key=...)``;
``located`` adds partition and offset to a ``SerdeError``. ``registry="mock://name"`` is an
in-process registry shared by name (``mock_registry(name)`` returns it for inspection).
"""

from kslab.serdes._avro import Avro
from kslab.serdes._base import Serde, located
from kslab.serdes._functions import FunctionSerde, from_functions
from kslab.serdes._json import Json
from kslab.serdes._json_schema import JsonSchema
from kslab.serdes._list import ListSerde
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
from kslab.serdes._protobuf import Protobuf
from kslab.serdes._registry import drop_mock_registry, mock_registry
from kslab.serdes._resolve import resolve
from kslab.serdes._windowed import SessionWindowed, TimeWindowed

__all__ = [
    "UUID",
    "Avro",
    "Boolean",
    "Bytes",
    "Double",
    "Float",
    "FunctionSerde",
    "Integer",
    "Json",
    "JsonSchema",
    "ListSerde",
    "Long",
    "Protobuf",
    "Serde",
    "SessionWindowed",
    "Short",
    "String",
    "TimeWindowed",
    "Void",
    "drop_mock_registry",
    "from_functions",
    "located",
    "mock_registry",
    "resolve",
]

# Users meet these as kslab.serdes.X, so reprs and tracebacks should say so.
for _name in __all__:
    globals()[_name].__module__ = __name__
del _name
