"""The change records KTables forward internally, and their serde for repartition topics.

A KTable operator receives and forwards ``Change(new_value, old_value)``: the old value is only
filled in when a downstream operator asked for it (Java's ``sendOldValues``). Invariant: a
``Change`` never leaves the topology: ``to_stream`` strips it, and a table ``group_by`` writes it
to its repartition topic with Java's ``ChangedSerializer`` byte layout.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import repeat
from typing import Any

from kslab.errors import SerdeError, StreamsError
from kslab.serdes import Serde
from kslab.serdes import resolve as resolve_serde

__all__ = ["Change", "ChangedSerde", "ChangedSerdeError", "Changes"]


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


class Changes:
    """A column of changes a stateful batch form leaves unbuilt (``kslab.processor.batch``):
    ``Change(news[i], olds[i])`` (``olds`` ``None``: no old values sent), built by calling
    it, so ``to_stream`` takes ``news`` (a column, or a function building it: see ``Batch``)
    and ``news_bytes`` (their bytes as the store wrote them, ``Encoded``) without a
    ``Change`` per record."""

    __slots__ = ("news", "news_bytes", "olds")

    def __init__(self, news: list[Any] | Callable[[], list[Any]],
                 olds: list[Any] | None = None, news_bytes: Any = None) -> None:
        self.news = news
        self.olds = olds
        self.news_bytes = news_bytes

    def __call__(self) -> list[Change]:
        news = self.news() if callable(self.news) else self.news
        return list(map(Change, news, repeat(None) if self.olds is None else self.olds))


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


class ChangedSerdeError(SerdeError, StreamsError):
    """Java's ``StreamsException`` from ``ChangedSerializer``/``ChangedDeserializer``: a change
    that cannot be written, or bytes with an unknown flag (both a serde and a streams error)."""


def _before_3_5(upgrade_from: Any) -> bool:
    """True for an ``upgrade.from`` before 3.5 (Java's ``ChangedSerializer.isUpgrade``)."""
    if upgrade_from is None:
        return False
    parts = str(upgrade_from).split(".")
    try:
        major, minor = int(parts[0]), int(parts[1]) if len(parts) > 1 else 0
    except ValueError:
        return False
    return (major, minor) < (3, 5)


class ChangedSerde(Serde):
    """Java's ``ChangedSerializer``/``ChangedDeserializer`` around an inner value serde.

    Layout: ``old + 0``, ``new + 1``, or ``varint(len(new)) + new + old + 2``; the reserved
    layouts 3 to 5 carry an ``is_latest`` byte before the flag and are only ever read.
    """

    def __init__(self, inner: Any, *, upgrade: bool = False) -> None:
        self.inner = inner
        self.upgrade = upgrade

    def configure(self, configs: Any, is_key: bool | None = None) -> ChangedSerde:
        """Java's ``configure(configs, isKey)``: ``upgrade.from`` before 3.5 forbids writing a
        change with both values (old instances cannot read it); ``configure(is_key)`` as any
        kslab serde."""
        if isinstance(configs, dict):
            self.upgrade = _before_3_5(configs.get("upgrade.from"))
        return self

    def bind_default(self, default: Any) -> ChangedSerde:
        """This serde with the inner serde resolved (``None`` means ``default``)."""
        inner = default if self.inner is None else resolve_serde(self.inner, is_key=False)
        return ChangedSerde(inner, upgrade=self.upgrade)

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        """Bytes for a ``Change``."""
        if data is None:
            return None
        new = None if data.new_value is None else self.inner.serialize(topic, data.new_value,
                                                                       headers)
        old = None if data.old_value is None else self.inner.serialize(topic, data.old_value,
                                                                       headers)
        if new is not None and old is not None:
            if self.upgrade:
                msg = (f"Both old and new values are not null ({data.old_value!r} : "
                       f"{data.new_value!r}) in ChangeSerializer, which is not allowed unless "
                       "upgrading.")
                raise ChangedSerdeError(msg, topic=topic)
            return _write_varint(len(new)) + new + old + b"\x02"
        if new is not None:
            return new + b"\x01"
        if old is not None:
            return old + b"\x00"
        msg = ("Both old and new values are null in ChangeSerializer, which is not allowed "
               f"(topic '{topic}').")
        raise ChangedSerdeError(msg, topic=topic)

    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        """The ``Change`` in ``data``."""
        if data is None:
            return None
        flag = data[-1]
        body = data[:-1]
        is_latest = True
        if flag in (3, 4, 5):
            is_latest = _is_latest_flag(body[-1], data)
            body = body[:-1]
            flag -= 3
        if flag == 0:
            return Change(None, self.inner.deserialize(topic, body, headers), is_latest)
        if flag == 1:
            return Change(self.inner.deserialize(topic, body, headers), None, is_latest)
        if flag == 2:
            length, pos = _read_varint(body)
            new = body[pos:pos + length]
            old = body[pos + length:]
            return Change(self.inner.deserialize(topic, new, headers),
                          self.inner.deserialize(topic, old, headers), is_latest)
        signed = flag - 256 if flag > 127 else flag
        msg = (f"Encountered unknown byte value `{signed}` for encodingFlag in "
               f"ChangedDeserializer (topic '{topic}').")
        raise ChangedSerdeError(msg, topic=topic, raw=data)


def _is_latest_flag(byte: int, data: bytes) -> bool:
    """The ``is_latest`` byte of layouts 3 to 5: 1 or 0, anything else is corrupt."""
    if byte in (0, 1):
        return byte == 1
    signed = byte - 256 if byte > 127 else byte
    msg = f"Encountered unexpected byte value `{signed}` for isLatestFlag in ChangedDeserializer."
    raise ChangedSerdeError(msg, raw=data)
