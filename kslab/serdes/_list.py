"""Kafka's ``Serdes.ListSerde``: a list of values of one inner serde, in the JVM's layout.

Invariant: the bytes are exactly ``ListSerializer``'s. A flag byte says the strategy: ``0``
(constant size, for the fixed-width inner serdes Short, Integer, Float, Long, Double and UUID)
writes the count and indexes of null entries, then the entry count and the entries back to back;
``1`` (variable size, every other inner serde) writes the entry count, then each entry as a
4-byte length (``-1`` for null) and its bytes. All integers are 4-byte big-endian.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

from kslab.errors import SerdeError
from kslab.serdes._base import Serde, deserialize_error, serialize_error
from kslab.serdes._primitives import UUID, Double, Float, Integer, Long, Short
from kslab.serdes._resolve import resolve

__all__ = ["ListSerde"]

CONSTANT_SIZE, VARIABLE_SIZE = 0, 1
NULL_ENTRY_VALUE = -1
# Java's FIXED_LENGTH_(DE)SERIALIZERS: the exact inner classes whose entries have one width.
_WIDTHS: dict[type, int] = {Short: 2, Integer: 4, Float: 4, Long: 8, Double: 8, UUID: 36}
_INT = struct.Struct(">i")


class ListSerde(Serde):
    """A list of values of ``inner``, as Java's ``Serdes.ListSerde(listClass, innerSerde)``.

    ``ListSerde(serdes.Integer())`` reads back a ``list``; ``ListSerde(list_class, inner)``, in
    Java's argument order, reads back ``list_class(entries)`` (e.g. ``collections.deque``).
    Entries may be ``None``; the list itself ``None`` is a tombstone as for every serde.
    """

    __slots__ = ("_inner", "_list_class", "_width")

    def __init__(self, list_class_or_inner: Any, inner: Any = None) -> None:
        if inner is None:
            list_class_or_inner, inner = list, list_class_or_inner
        if not callable(list_class_or_inner):
            msg = (
                f"ListSerde list class {list_class_or_inner!r} is not a type; pass "
                "ListSerde(list, inner) or ListSerde(inner)"
            )
            raise SerdeError(msg)
        self._list_class: Callable[..., Any] = list_class_or_inner
        self._inner = resolve(inner)
        self._width = _WIDTHS.get(type(self._inner))

    @property
    def inner(self) -> Serde:
        """The serde of each entry."""
        return self._inner

    @property
    def list_class(self) -> Callable[..., Any]:
        """What ``deserialize`` builds from the entries."""
        return self._list_class

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        """The flag byte, then the entries as the strategy for this inner serde lays them out."""
        if data is None:
            return None
        if isinstance(data, str | bytes | bytearray | dict) or not hasattr(data, "__iter__"):
            raise serialize_error(self, topic, data, "a list (or other sequence) of entries")
        entries = list(data)
        if self._width is None:
            return self._variable(topic, entries, headers)
        return self._constant(topic, entries, headers)

    def _constant(self, topic: str, entries: list[Any], headers: Any) -> bytes:
        nulls = [i for i, entry in enumerate(entries) if entry is None]
        parts = [bytes((CONSTANT_SIZE,)), _INT.pack(len(nulls))]
        parts.extend(_INT.pack(i) for i in nulls)
        parts.append(_INT.pack(len(entries)))
        parts.extend(self._entry(topic, e, headers) for e in entries if e is not None)
        return b"".join(parts)

    def _variable(self, topic: str, entries: list[Any], headers: Any) -> bytes:
        parts = [bytes((VARIABLE_SIZE,)), _INT.pack(len(entries))]
        for entry in entries:
            if entry is None:
                parts.append(_INT.pack(NULL_ENTRY_VALUE))
                continue
            raw = self._entry(topic, entry, headers)
            parts += (_INT.pack(len(raw)), raw)
        return b"".join(parts)

    def _entry(self, topic: str, entry: Any, headers: Any) -> bytes:
        """The inner serde's bytes for a non-null entry, which must not be ``None``."""
        raw = self._inner.serialize(topic, entry, headers)
        if raw is None:
            expected = f"entries {self._inner!r} writes as bytes (it wrote None)"
            raise serialize_error(self, topic, entry, expected)
        return raw

    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        """The entries in ``data`` as ``list_class``; bytes not in the list layout are errors."""
        if data is None:
            return None
        data = bytes(data)
        try:
            return self._list_class(self._entries(topic, data, headers))
        except (struct.error, IndexError) as e:
            cause = SerdeError("End of the stream was reached prematurely")
            raise deserialize_error(self, topic, data, "a list in Kafka's ListSerde layout",
                                    cause) from e

    def _entries(self, topic: str, data: bytes, headers: Any) -> list[Any]:
        flag = data[0]
        if flag not in (CONSTANT_SIZE, VARIABLE_SIZE):
            raise deserialize_error(self, topic, data, "Invalid serialization strategy flag value")
        pos, nulls = 1, set()
        if flag == CONSTANT_SIZE:
            (count,), pos = _INT.unpack_from(data, pos), pos + 4
            nulls = {_INT.unpack_from(data, pos + 4 * i)[0] for i in range(count)}
            pos += 4 * count
        (size,), pos = _INT.unpack_from(data, pos), pos + 4
        out: list[Any] = []
        for i in range(size):
            if flag == CONSTANT_SIZE:
                width = self._width if self._width is not None else _fixed_width_error(self)
            else:
                (width,), pos = _INT.unpack_from(data, pos), pos + 4
            if width == NULL_ENTRY_VALUE or i in nulls:
                out.append(None)
                continue
            if pos + width > len(data) or width < 0:
                msg = "End of the stream was reached prematurely"
                raise IndexError(msg)
            out.append(self._inner.deserialize(topic, data[pos:pos + width], headers))
            pos += width
        return out

    def configure(self, is_key: bool) -> Serde:
        """This serde with its inner serde configured the same way."""
        inner = self._inner.configure(is_key) if hasattr(self._inner, "configure") else self._inner
        return self if inner is self._inner else ListSerde(self._list_class, inner)

    def _config(self) -> tuple[Any, ...]:
        return (self._list_class, self._inner)

    def _repr_args(self) -> str:
        if self._list_class is list:
            return repr(self._inner)
        name = getattr(self._list_class, "__qualname__", repr(self._list_class))
        return f"{name}, {self._inner!r}"


def _fixed_width_error(serde: ListSerde) -> int:
    """Constant-size bytes for an inner serde without a fixed width: Java's NPE, as an error."""
    msg = (
        f"{serde!r} cannot read a constant-size list: its inner serde {serde.inner!r} has no "
        "fixed width; the bytes were written with one of Short, Integer, Float, Long, Double, "
        "UUID"
    )
    raise SerdeError(msg)
