"""The JSON serde, kslab's default for keys and values: UTF-8 JSON written and read by orjson.

Invariant: bytes are compact UTF-8 JSON with keys in insertion order (orjson never sorts), so the
same value always gives the same bytes and therefore the same partition.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import repeat
from typing import Any

import orjson

from kslab.serdes._base import Serde, deserialize_error, serialize_error

__all__ = ["Json"]

_dumps = orjson.dumps
_loads = orjson.loads
# numpy scalars and arrays arrive from DataFrames; orjson writes them only when asked to.
_OPTIONS = orjson.OPT_SERIALIZE_NUMPY


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
        """``serialize`` of each item. Each result is copied to bytes of its own size: orjson
        writes into a 1 KiB buffer it then shrinks, and a column keeping tens of thousands of
        them alive grows the heap by each buffer (3 us a value here, against 0.6 us copied)."""
        dumps, default = _dumps, self._default
        try:
            if not items.count(None):  # no null (the usual case): all in C
                return list(map(bytes, map(memoryview, map(dumps, items, repeat(default),
                                                           repeat(_OPTIONS)))))
            return [None if item is None else bytes(memoryview(dumps(item, default, _OPTIONS)))
                    for item in items]
        except orjson.JSONEncodeError:
            return super().serialize_column(topic, items, headers)  # its error, at its item

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
