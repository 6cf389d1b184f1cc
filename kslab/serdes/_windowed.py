"""The serdes for windowed keys: a key's bytes, then its window's bounds, laid out as the JVM does.

Invariant: the layouts are Kafka's ``WindowKeySchema.toBinary`` (key + 8-byte start) and
``SessionKeySchema.toBinary`` (key + 8-byte end + 8-byte start), big-endian, so windowed output
topics written by kslab read back in Java and vice versa.
"""

from __future__ import annotations

import datetime as dt
import struct
from itertools import chain, repeat
from operator import getitem, itemgetter, sub
from typing import Any

from kslab.errors import SerdeError
from kslab.records import Window, Windowed
from kslab.serdes._base import (
    Serde,
    deserialize_error,
    fast_deserializer,
    plural,
    serialize_error,
)
from kslab.serdes._resolve import resolve

__all__ = ["SessionWindowed", "TimeWindowed"]

LONG_MAX = 2**63 - 1

_pack_start = struct.Struct(">q").pack
_unpack_start = struct.Struct(">q").unpack_from
_pack_end_start = struct.Struct(">qq").pack
_unpack_end_start = struct.Struct(">qq").unpack_from
_EXPECTED_VALUE = "a Windowed(key, Window(start, end))"
# Builds the named tuples without their Python-level __new__: reads happen once per record.
_tuple_new = tuple.__new__
_IMMUTABLE = {str, int, bytes}  # keys equal fields may share (their Windowed is a tuple too)


class TimeWindowed(Serde):
    """A ``Windowed`` key of a tumbling or hopping window: inner key bytes + 8-byte start.

    The end is not on the wire; reads rebuild it as ``start + window_size`` (capped at Long.MAX,
    as Java does), so reading needs ``window_size`` just as Java's ``TimeWindowedDeserializer``
    needs ``window.size.ms``. Writing does not.
    """

    __slots__ = ("_changelog", "_inner", "_window_size")

    def __init__(self, inner: Any, window_size: int | dt.timedelta | None = None, *,
                 changelog: bool = False) -> None:
        self._inner = resolve(inner)
        self._window_size = _as_window_size(window_size)
        self._changelog = bool(changelog)

    def for_changelog(self, is_changelog_topic: bool = True) -> TimeWindowed:
        """This serde reading a window store's changelog keys (key + start + 4-byte sequence
        number), as Java's ``TimeWindowedSerde.forChangelog(true)``; writing is unchanged."""
        return TimeWindowed(self._inner, self._window_size, changelog=is_changelog_topic)

    @property
    def is_changelog_topic(self) -> bool:
        """Whether reads expect a window store's changelog key layout."""
        return self._changelog

    @property
    def inner(self) -> Serde:
        """The serde of the key inside the window."""
        return self._inner

    @property
    def window_size(self) -> int | None:
        """The window size in ms that reads use to compute each window's end."""
        return self._window_size

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        """The inner serde's bytes of ``data.key`` followed by ``data.window.start``."""
        if data is None:
            return None
        try:
            key, window = data
            start = _pack_start(window[0])
        except (TypeError, ValueError, IndexError, struct.error) as e:
            raise serialize_error(self, topic, data, _EXPECTED_VALUE, e) from e
        return _key_bytes(self, topic, key, data, headers) + start

    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        """The ``Windowed(key, Window(start, start + window_size))`` in ``data``; b'' is None."""
        if not data:
            return None  # Java's deserializer also turns empty bytes into null
        size = self._window_size
        suffix = 12 if self._changelog else 8  # WindowKeySchema.fromStoreKey: + sequence number
        if size is None or len(data) < suffix:
            raise _read_error(self, topic, data, suffix)
        cut = len(data) - suffix
        start = _unpack_start(data, cut)[0]
        end = start + size
        window = _tuple_new(Window, (start, end if end <= LONG_MAX else LONG_MAX))
        return _tuple_new(Windowed, (self._inner.deserialize(topic, data[:cut], headers), window))

    def deserialize_column(self, topic: str, column: list[Any], headers: list[Any]) -> list[Any]:
        """``deserialize`` of each field (a reader's bulk read): each distinct field decoded
        once in C iterators (``_decode_fields``), equal fields sharing one ``Windowed`` when
        its key is immutable (a window's updates repeat their keys). Where a field is not the
        common case (``None``, empty, short, refused by the codec) every field takes
        ``deserialize``, which gives the value or the error."""
        fast = fast_deserializer(self._inner)
        if fast is not None and self._window_size is not None and not fast[1] and column:
            try:
                distinct = list(dict.fromkeys(column))
                decoded = self._decode_fields(fast[0], distinct)
                if decoded is not None and len(decoded) < len(column):
                    if set(map(type, map(itemgetter(0), decoded))) <= _IMMUTABLE:
                        shared = dict(zip(distinct, decoded, strict=True))
                        return list(map(shared.__getitem__, column))
                    decoded = self._decode_fields(fast[0], column)  # one object per record
                if decoded is not None:
                    return decoded
            except Exception:
                pass
        return list(map(self.deserialize, repeat(topic), column, headers))

    def _decode_fields(self, decode: Any, fields: list[Any]) -> list[Any] | None:
        """Each field's ``Windowed``: the keys through the inner serde's C-level ``decode``,
        one ``Window`` per start; ``None`` when a field is ``None``, empty or short (a codec
        refusing a key raises)."""
        size = self._window_size
        suffix = 12 if self._changelog else 8
        cuts = list(map(sub, map(len, fields), repeat(suffix)))  # len(None) raises
        if min(cuts) < 0 or not all(fields):
            return None
        keys = list(map(decode, map(getitem, fields, map(slice, cuts))))
        starts = list(chain.from_iterable(map(_unpack_start, fields, cuts)))
        windows = {start: _tuple_new(Window, (start, min(start + size, LONG_MAX)))
                   for start in set(starts)}
        return list(map(_tuple_new, repeat(Windowed),
                        zip(keys, map(windows.__getitem__, starts), strict=True)))

    def configure(self, is_key: bool) -> Serde:
        """This serde with its inner serde configured the same way."""
        inner = self._inner.configure(is_key) if hasattr(self._inner, "configure") else self._inner
        if inner is self._inner:
            return self
        return TimeWindowed(inner, self._window_size, changelog=self._changelog)

    def _config(self) -> tuple[Any, ...]:
        return (self._inner, self._window_size, self._changelog)

    def _write_config(self) -> tuple[Any, ...]:
        return (self._inner,)  # the window size and changelog layout only shape reads

    def _repr_args(self) -> str:
        size = "" if self._window_size is None else f", window_size={self._window_size}"
        changelog = ", changelog=True" if self._changelog else ""
        return f"{self._inner!r}{size}{changelog}"


class SessionWindowed(Serde):
    """A ``Windowed`` key of a session window: inner key bytes + 8-byte end + 8-byte start."""

    __slots__ = ("_inner",)

    def __init__(self, inner: Any) -> None:
        self._inner = resolve(inner)

    @property
    def inner(self) -> Serde:
        """The serde of the key inside the session."""
        return self._inner

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        """The inner serde's bytes of ``data.key``, then the window's end, then its start."""
        if data is None:
            return None
        try:
            key, (start, end) = data
            bounds = _pack_end_start(end, start)
        except (TypeError, ValueError, struct.error) as e:
            raise serialize_error(self, topic, data, _EXPECTED_VALUE, e) from e
        return _key_bytes(self, topic, key, data, headers) + bounds

    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        """The ``Windowed(key, Window(start, end))`` in ``data``; ``b''`` reads as None."""
        if not data:
            return None  # Java's deserializer also turns empty bytes into null
        if len(data) < 16:
            raise _read_error(self, topic, data, 16)
        cut = len(data) - 16
        end, start = _unpack_end_start(data, cut)
        window = _tuple_new(Window, (start, end))
        return _tuple_new(Windowed, (self._inner.deserialize(topic, data[:cut], headers), window))

    def configure(self, is_key: bool) -> Serde:
        """This serde with its inner serde configured the same way."""
        inner = self._inner.configure(is_key) if hasattr(self._inner, "configure") else self._inner
        return self if inner is self._inner else SessionWindowed(inner)

    def _config(self) -> tuple[Any, ...]:
        return (self._inner,)

    def _repr_args(self) -> str:
        return repr(self._inner)


def _key_bytes(serde: Serde, topic: str, key: Any, data: Any, headers: Any) -> bytes:
    """The inner serde's bytes for the windowed key, which must not be None."""
    raw = serde._inner.serialize(topic, key, headers)  # type: ignore[attr-defined]
    if raw is None:
        expected = "a Windowed whose key is not None (Java cannot write a null windowed key)"
        raise serialize_error(serde, topic, data, expected)
    return raw


def _read_error(serde: Serde, topic: str, data: bytes, width: int) -> SerdeError:
    """The error for bytes too short to hold window bounds, or a read without a window size."""
    if isinstance(serde, TimeWindowed) and serde.window_size is None:
        msg = (
            f"{serde!r} cannot deserialize {plural(len(data), 'byte')} from topic {topic!r}: "
            "a window's end is not on the wire and is computed from the window size, which is "
            f"not set; pass TimeWindowed({serde.inner!r}, window_size=<ms>) with the windowed "
            "aggregation's size"
        )
        return SerdeError(msg, topic=topic, raw=bytes(data))
    expected = f"a windowed key ends with {width} bytes of window bounds"
    return deserialize_error(serde, topic, data, expected)


def _as_window_size(window_size: int | dt.timedelta | None) -> int | None:
    """The window size in ms; a ``timedelta`` is converted, negatives are refused."""
    if window_size is None:
        return None
    if isinstance(window_size, dt.timedelta):
        window_size = window_size // dt.timedelta(milliseconds=1)
    if not isinstance(window_size, int) or isinstance(window_size, bool) or window_size < 0:
        msg = (
            f"TimeWindowed window_size={window_size!r} is invalid; pass a duration in ms >= 0 "
            "or a timedelta"
        )
        raise ValueError(msg)
    return window_size
