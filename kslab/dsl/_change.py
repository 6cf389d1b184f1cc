"""The change records KTables forward internally, and their serde for repartition topics.

A KTable operator receives and forwards ``Change(new_value, old_value)``: the old value is only
filled in when a downstream operator asked for it (Java's ``sendOldValues``). Invariant: a
``Change`` never leaves the topology: ``to_stream`` strips it, and a table ``group_by`` writes it
to its repartition topic with Java's ``ChangedSerializer`` byte layout.
"""

from __future__ import annotations

from typing import Any

from kslab.errors import SerdeError
from kslab.serdes import Serde
from kslab.serdes import resolve as resolve_serde

__all__ = ["Change", "ChangedSerde"]


class Change:
    """A table update: the new value and (when requested) the value it replaces; ``is_latest``
    is False for an out-of-order update of a versioned table. Equal, as in Java, when all three
    are."""

    __slots__ = ("is_latest", "new_value", "old_value")

    def __init__(self, new_value: Any, old_value: Any, is_latest: bool = True) -> None:
        self.new_value = new_value
        self.old_value = old_value
        self.is_latest = is_latest

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Change):
            return NotImplemented
        return (self.new_value, self.old_value, self.is_latest) == (
            other.new_value, other.old_value, other.is_latest)

    def __hash__(self) -> int:
        return hash((self.new_value, self.old_value, self.is_latest))

    def __repr__(self) -> str:
        return f"({self.new_value!r}<-{self.old_value!r})"


def _write_varint(value: int) -> bytes:
    encoded = (value << 1) ^ (value >> 31)
    out = bytearray()
    while encoded & ~0x7F:
        out.append((encoded & 0x7F) | 0x80)
        encoded >>= 7
    out.append(encoded)
    return bytes(out)


def _read_varint(data: bytes) -> tuple[int, int]:
    value = shift = pos = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            break
        shift += 7
    return (value >> 1) ^ -(value & 1), pos


class ChangedSerde(Serde):
    """Java's ``ChangedSerializer``/``ChangedDeserializer`` around an inner value serde.

    Layout: ``old + 0``, ``new + 1``, or ``varint(len(new)) + new + old + 2``.
    """

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def bind_default(self, default: Any) -> ChangedSerde:
        """This serde with the inner serde resolved (``None`` means ``default``)."""
        inner = default if self.inner is None else resolve_serde(self.inner, is_key=False)
        return ChangedSerde(inner)

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        """Bytes for a ``Change``."""
        if data is None:
            return None
        new = None if data.new_value is None else self.inner.serialize(topic, data.new_value,
                                                                       headers)
        old = None if data.old_value is None else self.inner.serialize(topic, data.old_value,
                                                                       headers)
        if new is not None and old is not None:
            return _write_varint(len(new)) + new + old + b"\x02"
        if new is not None:
            return new + b"\x01"
        if old is not None:
            return old + b"\x00"
        msg = f"a change with both old and new values null cannot be written to topic '{topic}'"
        raise SerdeError(msg, topic=topic)

    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        """The ``Change`` in ``data``."""
        if data is None:
            return None
        flag = data[-1]
        body = data[:-1]
        if flag in (3, 4, 5):
            body = body[:-1]
            flag -= 3
        if flag == 0:
            return Change(None, self.inner.deserialize(topic, body, headers))
        if flag == 1:
            return Change(self.inner.deserialize(topic, body, headers), None)
        if flag == 2:
            length, pos = _read_varint(body)
            new = body[pos:pos + length]
            old = body[pos + length:]
            return Change(self.inner.deserialize(topic, new, headers),
                          self.inner.deserialize(topic, old, headers))
        msg = f"unknown change encoding flag {flag} in a record of topic '{topic}'"
        raise SerdeError(msg, topic=topic)
