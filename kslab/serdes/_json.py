"""The JSON serde, kslab's default for keys and values: UTF-8 JSON written and read by orjson.

Invariant: bytes are compact UTF-8 JSON with keys in insertion order (orjson never sorts), so the
same value always gives the same bytes and therefore the same partition.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain, repeat
from typing import Any

import orjson

from kslab.serdes._base import JoinedFields, Serde, deserialize_error, serialize_error

__all__ = ["Json"]

_dumps = orjson.dumps
_loads = orjson.loads
# numpy scalars and arrays arrive from DataFrames; orjson writes them only when asked to.
_OPTIONS = orjson.OPT_SERIALIZE_NUMPY
# what reads back from orjson's JSON as an equal object of its own class (floats: when finite)
_SCALARS = frozenset({str, int, bool, float, type(None)})
_DICTS = frozenset({dict, type(None)})
_DICT = {dict}


class _Inexact(Exception):  # (a signal inside read_back_column, never raised out of it)
    """An item whose JSON reads back as something else (``read_back_column``)."""


class Json(Serde):
    """Any JSON-able value as UTF-8 JSON; ``default`` converts the types orjson cannot write.

    Reads give dicts, lists, str, int, float, bool or ``None`` (for the bytes ``null``).
    """

    __slots__ = ("_default",)

    # Reading only (serdes._base.fast_deserializer): ``orjson.loads`` returns what
    # ``deserialize`` returns and raises where it raises (``None`` included). No fast writer:
    # ``dumps`` writes ``None`` as ``null`` and ``default`` is per instance.
    _fast = (None, _loads, False)

    def __init__(self, default: Callable[[Any], Any] | None = None) -> None:
        self._default = default

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        """The JSON bytes of ``data``."""
        if data is None:
            return None
        try:
            return _dumps(data, self._default, _OPTIONS)
        except orjson.JSONEncodeError as e:
            expected = "a JSON-able value (dict with str keys, list, str, int, float, bool, None)"
            raise serialize_error(self, topic, data, expected, e) from e

    def serialize_column(self, topic: str, items: list[Any],
                         headers: list[Any] | None = None) -> list[bytes | None]:
        """``serialize`` of each item. A column of dicts is written in one call and cut at
        the commas between them (``_split_dicts``; a long one as ``JoinedFields``, which a
        log appends without measuring each field); otherwise each result is copied to bytes
        of its own size: orjson writes into a 1 KiB buffer it then shrinks, and a column
        keeping tens of thousands of them alive grows the heap by each buffer (3 us a value
        here, against 0.6 us copied, 0.3 us cut from one call)."""
        dumps, default = _dumps, self._default
        try:
            if not items.count(None):  # no null (the usual case): all in C
                if len(items) > 1 and set(map(type, items)) == _DICT:
                    cut = _split_dicts(items, default)
                    if cut is not None:
                        return cut
                return list(map(bytes, map(memoryview, map(dumps, items, repeat(default),
                                                           repeat(_OPTIONS)))))
            return [None if item is None else bytes(memoryview(dumps(item, default, _OPTIONS)))
                    for item in items]
        except orjson.JSONEncodeError:
            return super().serialize_column(topic, items, headers)  # its error, at its item

    def read_back_column(self, items: list[Any], fields: list[bytes | None],
                         fresh: bool = False,
                         value_types: frozenset[type] | None = None) -> list[Any] | None:
        """What ``deserialize`` returns for each of ``fields``, the bytes ``serialize`` wrote
        for ``items`` (without an error), made from the items instead of the bytes: an engine
        that serialized them hands its sources these, which costs a copy instead of a decode;
        ``None`` where that is not certain (the caller then decodes the fields).

        Why it is exact: orjson wrote every dict key as an exact ``str`` (it refuses others)
        and every int in 64 bits, so ``str``, ``int``, ``bool``, ``None``, finite ``float``
        (NaN and infinities are written ``null``) and ``dict`` and ``list`` of them read back
        as equal objects of their own class; anything else (tuples, subclasses, numpy,
        datetimes, what ``default`` converts) gives ``None``. Dicts and lists are copied
        (deeply), so a user's function may change what it is given without touching
        ``items`` or another record's copy of the same object, as with decoded values;
        ``fresh``: the items are made by the engine and held by nothing else (not copied);
        ``value_types``: the classes of every value of the items (dicts), each float finite,
        where the caller knows them (a frame's column dtypes): they are not checked again.
        """
        classes = set(map(type, items))
        try:
            if classes <= _DICTS:  # flat dicts of scalars (the usual case): checked in C
                dicts = items if type(None) not in classes else list(filter(None, items))
                inner = value_types if value_types is not None else set(
                    map(type, chain.from_iterable(map(dict.values, dicts))))
                if inner <= _SCALARS and (float not in inner or value_types is not None
                                          or _finite(fields)):
                    if fresh:
                        return items
                    if type(None) in classes:
                        return [None if item is None else item.copy() for item in items]
                    return list(map(dict.copy, items))
            elif classes <= _SCALARS and (float not in classes or _finite(fields)):
                return items  # (immutable: the same objects)
            return list(map(_copied, items))
        except _Inexact:
            return None

    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        """The value the JSON in ``data`` encodes; empty bytes are an error, not ``None``."""
        if data is None:
            return None
        try:
            return _loads(data)
        except (orjson.JSONDecodeError, TypeError) as e:
            raise deserialize_error(self, topic, data, "expected UTF-8 JSON", e) from e

    def _config(self) -> tuple[Any, ...]:
        return (self._default,)

    def _repr_args(self) -> str:
        if self._default is None:
            return ""
        return f"default={getattr(self._default, '__qualname__', self._default)!s}"


def _split_dicts(items: list[dict[Any, Any]], default: Any) -> list[bytes] | None:
    """The JSON of each of ``items`` (dicts, at least two) as ``serialize`` writes it, cut from
    the one JSON array orjson writes for them all (the same bytes per element: compact, no
    whitespace), or ``None`` when that is not certain (the caller writes them one by one).

    Why it is exact: each element starts with ``{`` and ends with ``}``, so the array holds
    ``},{`` at least ``len(items) - 1`` times, once between each two elements (occurrences
    never overlap: none starts inside another); finding it exactly that often means no
    string holds it, so each one is a cut. orjson escapes line breaks inside strings, so
    marking the cuts with a line break and splitting there gives exactly ``len(items)``
    pieces, the elements, only then (more pieces: a string holding ``},{``, or a
    ``Fragment``'s raw line break; then ``None``)."""
    try:
        joined = _dumps(items, default, _OPTIONS)
    except orjson.JSONEncodeError:  # (an item's own error, or nesting one level too deep)
        return None
    count = len(items)
    lines = joined[1:-1].replace(b"},{", b"}\n{")
    cut = lines.split(b"\n")
    if len(cut) != count:
        return None
    if count < _LAID_OUT_FROM:
        return cut
    # each line's length from where the line breaks are (in numpy: no field measured), and
    # the fields back to back without them, for the logs that append the column
    import numpy as np  # (at the first long column: importing kslab does not need it)

    breaks = np.flatnonzero(np.frombuffer(lines, np.uint8) == _LINE_BREAK)
    lengths = np.diff(breaks, prepend=-1, append=len(lines))
    lengths -= 1
    return JoinedFields(cut, lambda: lines.replace(b"\n", b""), lengths)


_LAID_OUT_FROM = 64  # columns at least this long are cut with their layout (JoinedFields)
_LINE_BREAK = ord("\n")

def _finite(fields: list[bytes | None]) -> bool:
    """True when no field holds a NaN or infinite float, known without looking at the items
    where no field holds ``null`` (as which orjson writes them): one search over the joined
    bytes. ``False`` when one does (``read_back_column`` then checks item by item)."""
    joined = fields.joined() if fields.__class__ is JoinedFields \
        else b"".join(filter(None, fields))  # type: ignore[attr-defined]
    return b"null" not in joined


def _copied(item: Any) -> Any:
    """``item`` as ``deserialize(serialize(item))`` gives it (a deep copy of dicts and lists),
    or ``_Inexact`` raised where that differs (``read_back_column``)."""
    kind = item.__class__
    if kind is dict:
        return {key: _copied(value) for key, value in item.items()}
    if kind is list:
        return list(map(_copied, item))
    if kind is float:
        if item - item == 0.0:  # finite (NaN and infinities give NaN)
            return item
        raise _Inexact
    if kind in _SCALARS:
        return item
    raise _Inexact
