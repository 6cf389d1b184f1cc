"""The single-value serdes Kafka ships in ``Serdes``: strings, bytes, numbers, booleans, UUIDs.

Invariant: the bytes are exactly what the JVM serializers write (big-endian fixed-width numbers,
UTF-8 text, ``0x00``/``0x01`` booleans, a UUID's string form), so kslab and Java apps can share
topics and state.
"""

from __future__ import annotations

import struct
import uuid
from typing import Any

from kslab.serdes._base import Serde, deserialize_error, serialize_error

__all__ = [
    "UUID",
    "Boolean",
    "Bytes",
    "Double",
    "Float",
    "Integer",
    "Long",
    "Short",
    "String",
]

_encode = str.encode  # refuses non-str values itself, so the hot path needs no type check
_decode = bytes.decode
_TRUE = b"\x01"
_FALSE = b"\x00"


class String(Serde):
    """UTF-8 text, as Kafka's ``StringSerializer``/``StringDeserializer`` with default encoding."""

    __slots__ = ()
    _fast = (_encode, _decode, False)  # see serdes._base.fast_serializer

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        """The UTF-8 bytes of ``data``, which must be a ``str``."""
        if data is None:
            return None
        try:
            return _encode(data)
        except (TypeError, UnicodeEncodeError) as e:
            raise serialize_error(self, topic, data, "a str", e) from e

    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        """The text in ``data``, which must be valid UTF-8."""
        if data is None:
            return None
        try:
            return _decode(data)
        except TypeError:
            if isinstance(data, bytearray | memoryview):
                return self.deserialize(topic, bytes(data))
            raise deserialize_error(self, topic, data, "expected bytes") from None
        except UnicodeDecodeError as e:
            raise deserialize_error(self, topic, data, "the bytes are not valid UTF-8", e) from e


class Bytes(Serde):
    """Raw bytes passed through untouched (Kafka's ``Bytes``/``ByteArray`` serdes)."""

    __slots__ = ()

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        """``data`` itself; a ``bytearray`` or ``memoryview`` is copied to ``bytes``."""
        if data is None or type(data) is bytes:
            return data
        if isinstance(data, bytes | bytearray | memoryview):
            return bytes(data)
        raise serialize_error(self, topic, data, "bytes, bytearray or memoryview")

    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        """``data`` itself, as ``bytes``."""
        if data is None or type(data) is bytes:
            return data
        if isinstance(data, bytes | bytearray | memoryview):
            return bytes(data)
        raise deserialize_error(self, topic, data, "expected bytes")


class _FixedWidth(Serde):
    """A number packed big-endian in a fixed number of bytes, as ``java.nio.ByteBuffer`` does."""

    __slots__ = ()
    _pack: Any
    _unpack: Any
    _size: int
    _expected: str  # what serialize accepts, for messages

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        """The big-endian bytes of ``data``."""
        if data is None:
            return None
        try:
            return self._pack(data)
        except (struct.error, TypeError, OverflowError) as e:
            raise serialize_error(self, topic, data, self._expected, e) from e

    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        """The number in ``data``, which must be exactly this serde's width."""
        if data is None:
            return None
        try:
            return self._unpack(data)[0]
        except (struct.error, TypeError) as e:
            expected = f"a {type(self).__name__} is exactly {self._size} bytes"
            raise deserialize_error(self, topic, data, expected) from e


def _codec(fmt: str) -> tuple[Any, Any, int]:
    """The bound pack and unpack of a precompiled ``struct.Struct``, and its size."""
    packer = struct.Struct(fmt)
    return packer.pack, packer.unpack, packer.size


class Long(_FixedWidth):
    """A signed 64-bit integer in 8 big-endian bytes (Kafka's ``LongSerializer``)."""

    __slots__ = ()
    _pack, _unpack, _size = _codec(">q")
    _fast = (_pack, _unpack, True)  # see serdes._base.fast_serializer
    _expected = "an int in [-2**63, 2**63)"


class Integer(_FixedWidth):
    """A signed 32-bit integer in 4 big-endian bytes (Kafka's ``IntegerSerializer``)."""

    __slots__ = ()
    _pack, _unpack, _size = _codec(">i")
    _fast = (_pack, _unpack, True)  # see serdes._base.fast_serializer
    _expected = "an int in [-2**31, 2**31)"


class Short(_FixedWidth):
    """A signed 16-bit integer in 2 big-endian bytes (Kafka's ``ShortSerializer``)."""

    __slots__ = ()
    _pack, _unpack, _size = _codec(">h")
    _fast = (_pack, _unpack, True)  # see serdes._base.fast_serializer
    _expected = "an int in [-2**15, 2**15)"


class Double(_FixedWidth):
    """An IEEE-754 double in 8 big-endian bytes (Kafka's ``DoubleSerializer``)."""

    __slots__ = ()
    _pack, _unpack, _size = _codec(">d")
    _fast = (_pack, _unpack, True)  # see serdes._base.fast_serializer
    _expected = "a float (or int)"


class Float(_FixedWidth):
    """An IEEE-754 single in 4 big-endian bytes (Kafka's ``FloatSerializer``); reads lose digits."""

    __slots__ = ()
    _pack, _unpack, _size = _codec(">f")
    _fast = (_pack, _unpack, True)  # see serdes._base.fast_serializer
    _expected = "a float (or int) within single-precision range"


class Boolean(Serde):
    """One byte, ``0x01`` for true and ``0x00`` for false (Kafka's ``BooleanSerializer``)."""

    __slots__ = ()

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        """``b'\\x01'`` or ``b'\\x00'``; only booleans (Python's or numpy's) are accepted."""
        if data is True:
            return _TRUE
        if data is False:
            return _FALSE
        if data is None:
            return None
        if type(data).__name__ == "bool_":  # numpy.bool_, common in DataFrames
            return _TRUE if data else _FALSE
        raise serialize_error(self, topic, data, "a bool")

    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        """``True`` for ``0x01``, ``False`` for ``0x00``; anything else is an error."""
        if data == _TRUE:
            return True
        if data == _FALSE:
            return False
        if data is None:
            return None
        if isinstance(data, bytearray | memoryview):
            return self.deserialize(topic, bytes(data))
        expected = "a Boolean is exactly one byte, 0x00 or 0x01"
        raise deserialize_error(self, topic, data, expected)


class UUID(Serde):
    """A UUID as its 36-character string form in UTF-8 (Kafka's ``UUIDSerializer``)."""

    __slots__ = ()

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        """The canonical string form of ``data``, a ``uuid.UUID`` or a ``str`` parsing as one."""
        if data is None:
            return None
        if isinstance(data, uuid.UUID):
            return _encode(str(data))
        try:
            return _encode(str(uuid.UUID(data)))
        except (TypeError, ValueError, AttributeError) as e:
            raise serialize_error(self, topic, data, "a uuid.UUID or a UUID string", e) from e

    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        """The ``uuid.UUID`` whose string form ``data`` holds."""
        if data is None:
            return None
        try:
            return uuid.UUID(str(data, "utf-8"))
        except (TypeError, ValueError) as e:
            expected = "a UUID is its string form, e.g. '123e4567-e89b-12d3-a456-426614174000'"
            raise deserialize_error(self, topic, data, expected, e) from e
