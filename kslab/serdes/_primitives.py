"""The single-value serdes Kafka ships in ``Serdes``: strings, bytes, numbers, booleans, UUIDs.

Invariant: the bytes are exactly what the JVM serializers write (big-endian fixed-width numbers,
UTF-8 text, ``0x00``/``0x01`` booleans, a UUID's string form), so kslab and Java apps can share
topics and state.
"""

from __future__ import annotations

import codecs
import struct
import uuid
from typing import Any

from kslab.errors import SerdeError
from kslab.serdes._base import InvalidSerdeError, Serde, deserialize_error, serialize_error

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
    "Void",
]

_encode = str.encode  # refuses non-str values itself, so the hot path needs no type check
_decode = bytes.decode
_TRUE = b"\x01"
_FALSE = b"\x00"
_UTF16_BOM = b"\xfe\xff"


class String(Serde):
    """Text, UTF-8 by default, as Kafka's ``StringSerializer``/``StringDeserializer``.

    ``String(encoding="UTF-16")`` writes another charset under its Java name, as the
    ``key.serializer.encoding`` config does in Java; an unknown charset is a ``SerdeError``.
    """

    __slots__ = ()
    _fast = (_encode, _decode, False)  # see serdes._base.fast_serializer
    _one_to_one = (str, None)  # see serdes._base.one_to_one

    def __new__(cls, encoding: str | None = None) -> String:
        """A UTF-8 ``String``, or one that writes and reads ``encoding`` (a Java charset name)."""
        if cls is not String or encoding is None or _codec_name(encoding) == "utf-8":
            return super().__new__(cls)
        return EncodedString(encoding)

    def __init__(self, encoding: str | None = None) -> None:
        pass

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


class EncodedString(String):
    """A ``String`` in a charset other than UTF-8; may read another charset than it writes."""

    __slots__ = ("_read_as", "_write_as")

    def __new__(cls, encoding: str, read_as: str | None = None) -> EncodedString:
        return object.__new__(cls)

    def __getnewargs__(self) -> tuple[str, str]:
        return (self._write_as, self._read_as)

    def __init__(self, encoding: str, read_as: str | None = None) -> None:
        self._write_as = encoding
        self._read_as = encoding if read_as is None else read_as
        _codec_name(encoding)
        _codec_name(self._read_as)

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        """The bytes of ``data`` in this serde's charset."""
        if data is None:
            return None
        try:
            return _java_encode(data, self._write_as)
        except (TypeError, AttributeError, UnicodeEncodeError) as e:
            raise serialize_error(self, topic, data, f"a str ({self._write_as})", e) from e

    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        """The text in ``data``, read in this serde's charset."""
        if data is None:
            return None
        try:
            return _java_decode(bytes(data), self._read_as)
        except TypeError:
            raise deserialize_error(self, topic, data, "expected bytes") from None
        except UnicodeDecodeError as e:
            expected = f"the bytes are not valid {self._read_as}"
            raise deserialize_error(self, topic, data, expected, e) from e

    def _config(self) -> tuple[Any, ...]:
        return (_codec_name(self._write_as), _codec_name(self._read_as))

    def __repr__(self) -> str:
        if _codec_name(self._write_as) == _codec_name(self._read_as):
            return f"String(encoding={self._write_as!r})"
        return f"String(encoding={self._write_as!r}, reads {self._read_as!r})"


def _codec_name(encoding: str) -> str:
    """Python's codec name for a Java charset name; an unknown one is a ``SerdeError``."""
    try:
        return codecs.lookup(encoding).name
    except (LookupError, TypeError):
        msg = (
            f"Unsupported encoding {encoding!r} for serdes.String; use a charset name such as "
            "'UTF-8', 'UTF-16' or 'ISO-8859-1'"
        )
        raise SerdeError(msg) from None


def _java_encode(text: str, encoding: str) -> bytes:
    """``text.getBytes(encoding)``: Java's UTF-16 writes a big-endian byte-order mark."""
    if _codec_name(encoding) == "utf-16":
        return _UTF16_BOM + text.encode("utf-16-be")
    return text.encode(encoding)


def _java_decode(data: bytes, encoding: str) -> str:
    """``new String(data, encoding)``: Java's UTF-16 honours a BOM and is big-endian without."""
    if _codec_name(encoding) == "utf-16":
        if data[:2] == b"\xff\xfe":
            return data[2:].decode("utf-16-le")
        return data.removeprefix(_UTF16_BOM).decode("utf-16-be")
    return data.decode(encoding)


class Bytes(Serde):
    """Raw bytes passed through untouched (Kafka's ``Bytes``/``ByteArray`` serdes)."""

    __slots__ = ()
    _one_to_one = (bytes, None)  # see serdes._base.one_to_one

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
    _one_to_one = (int, 2**63)


class Integer(_FixedWidth):
    """A signed 32-bit integer in 4 big-endian bytes (Kafka's ``IntegerSerializer``)."""

    __slots__ = ()
    _pack, _unpack, _size = _codec(">i")
    _fast = (_pack, _unpack, True)  # see serdes._base.fast_serializer
    _expected = "an int in [-2**31, 2**31)"
    _one_to_one = (int, 2**31)


class Short(_FixedWidth):
    """A signed 16-bit integer in 2 big-endian bytes (Kafka's ``ShortSerializer``)."""

    __slots__ = ()
    _pack, _unpack, _size = _codec(">h")
    _fast = (_pack, _unpack, True)  # see serdes._base.fast_serializer
    _expected = "an int in [-2**15, 2**15)"
    _one_to_one = (int, 2**15)


class Double(_FixedWidth):
    """An IEEE-754 double in 8 big-endian bytes (Kafka's ``DoubleSerializer``)."""

    __slots__ = ()
    _pack, _unpack, _size = _codec(">d")
    _fast = (_pack, _unpack, True)  # see serdes._base.fast_serializer
    _expected = "a float (or int)"
    _one_to_one = (float, None)


class Float(_FixedWidth):
    """An IEEE-754 single in 4 big-endian bytes (Kafka's ``FloatSerializer``); reads lose digits.

    NaN payloads survive a round trip bit for bit, as Java's ``floatToRawIntBits`` keeps them;
    Python's ``struct`` turns a signalling NaN quiet, so only for those does the ``struct`` fast
    path (engines' bulk reads and writes) differ from ``serialize``, in that one bit.
    """

    __slots__ = ()
    _pack, _unpack, _size = _codec(">f")
    _fast = (_pack, _unpack, True)  # see serdes._base.fast_serializer
    _expected = "a float (or int) within single-precision range"

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        """The big-endian bytes of ``data``; a NaN keeps its sign and payload bits."""
        if data != data:  # NaN
            return _FLOAT_BITS.pack(_nan_float_bits(data))
        return super().serialize(topic, data, headers)

    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        """The number in ``data``, which must be exactly 4 bytes; a NaN keeps its bits."""
        value = super().deserialize(topic, data, headers)
        if value != value:  # NaN
            return _nan_double(_FLOAT_BITS.unpack(data)[0])  # type: ignore[arg-type]
        return value


_FLOAT_BITS = struct.Struct(">I")
_DOUBLE_BITS = struct.Struct(">Q")
_DOUBLE = struct.Struct(">d")


def _nan_float_bits(value: float) -> int:
    """The single-precision bits of a NaN double: its sign and top 23 payload bits."""
    bits = _DOUBLE_BITS.unpack(_DOUBLE.pack(value))[0]
    payload = (bits >> 29) & 0x7FFFFF or 0x400000  # all payload lost: Java's canonical NaN
    return (bits >> 63) << 31 | 0x7F800000 | payload


def _nan_double(float_bits: int) -> float:
    """The double that holds a single-precision NaN's sign and payload, signalling or not."""
    payload = (float_bits & 0x7FFFFF) << 29
    return _DOUBLE.unpack(_DOUBLE_BITS.pack((float_bits >> 31) << 63 | 0x7FF << 52 | payload))[0]


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


class Void(Serde):
    """Only ``None``, both ways (Kafka's ``Serdes.Void()``): for topics whose keys are all null."""

    __slots__ = ()

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        """``None``; any other value is an error."""
        if data is None:
            return None
        raise serialize_error(self, topic, data, "None (a Void serde writes only nulls)")

    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        """``None``; any bytes are an error, as in Java's ``VoidDeserializer``."""
        if data is None:
            return None
        msg = "Data should be null for a VoidDeserializer."
        raise InvalidSerdeError(msg, topic=topic, raw=bytes(data))
