"""Records a sink's C codecs refuse but its serdes accept, for every engine's sink writer.

A sink over serdes with one-argument C codecs (``serdes._base.fast_serializer``) encodes with
them and hands a record they refuse to the serdes' own methods (``core.nodes.codec_writer``).
The serdes here declare the built-ins' codecs but accept more in ``serialize`` (text for a
``Long``, numbers for a ``String``), so a writer that skipped the fallback, or encoded the
refused record any other way, would write other bytes or raise. The driver's tests and the
runtime's read the same ``EXPECTED`` records back from the sink's topic.
"""

from __future__ import annotations

import struct
from typing import Any

import kslab as ks
from kslab import serdes

_LONG = struct.Struct(">q")


class TextLong(serdes.Long):
    """A ``Long`` that also writes decimal text; its C codec (a ``Struct``'s ``pack``, so the
    driver's log keeps the values' width) refuses text."""

    __slots__ = ()
    _fast = (_LONG.pack, _LONG.unpack, True)  # the fast-codec declaration fast_serializer reads

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        """The 8 bytes of ``data``, or of the integer a ``str`` spells."""
        return super().serialize(topic, int(data) if isinstance(data, str) else data, headers)


class AnyString(serdes.String):
    """A ``String`` that also writes ``str(data)`` for a non-text key; its codec refuses one."""

    __slots__ = ()
    _fast = (str.encode, bytes.decode, False)

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        """The UTF-8 bytes of ``data``, or of ``str(data)`` when it is not text."""
        text = data if data is None or isinstance(data, str) else str(data)
        return super().serialize(topic, text, headers)


class Emit(ks.Processor):
    """Forwards the ``[key, value]`` pair it finds in a JSON input value, keeping the input's
    timestamp and headers."""

    def init(self, context: Any) -> None:
        self.forward = context.forward

    def process(self, record: ks.Record) -> None:
        key, value = record.value
        self.forward(ks.Record(key, value, record.timestamp, record.headers))


# (the JSON input value [key, value], timestamp, headers): codecs, a value only the serde
# takes, a key only the serde takes, None and None, then the codecs again after a fallback
INPUT: list[tuple[list[Any], int, list[tuple[str, bytes]] | None]] = [
    (["a", 1], 101, [("h", b"1")]),
    (["b", "2"], 102, None),
    ([3, 30], 103, [("h", b"3")]),
    ([None, None], 104, None),
    (["e", -5], 105, [("h", b"5"), ("h", b"five")]),
]

# what the sink's topic holds: (key, value, timestamp, headers)
EXPECTED: list[tuple[bytes | None, bytes | None, int, list[tuple[str, bytes]]]] = [
    (b"a", _LONG.pack(1), 101, [("h", b"1")]),
    (b"b", _LONG.pack(2), 102, []),
    (b"3", _LONG.pack(30), 103, [("h", b"3")]),
    (None, None, 104, []),
    (b"e", _LONG.pack(-5), 105, [("h", b"5"), ("h", b"five")]),
]

# a value neither the codec nor the serde takes: the sink's error, naming node, topic and serde
REFUSED = ["f", "text"]


def refused_message(topic: str) -> str:
    """How the sink's ``SerializationError`` for ``REFUSED`` on ``topic`` begins."""
    return (f"sink 'out' cannot serialize the value 'text' (str) for topic '{topic}' with "
            "TextLong(): ValueError(\"invalid literal for int() with base 10: 'text'\")")


def topology(source: str, sink: str, *, read_back: bool = False) -> ks.Topology:
    """``source`` (JSON values) -> ``Emit`` -> sink ``out`` to ``sink`` over the lenient
    serdes; ``read_back`` adds a source reading ``sink`` too (the driver's loop-back writer)."""
    topo = (ks.Topology()
            .add_source("src", source, key_serde=serdes.String(), value_serde=serdes.Json())
            .add_processor("emit", Emit, "src")
            .add_sink("out", sink, "emit", key_serde=AnyString(), value_serde=TextLong()))
    if read_back:
        topo.add_source("back", sink, key_serde=serdes.Bytes(), value_serde=serdes.Bytes())
    return topo
