"""A serde made of two plain functions, as Java's ``Serdes.serdeFrom(serializer, deserializer)``.

Invariant: the functions only ever see real values and real bytes; ``None`` is handled here and
never reaches them, and whatever they raise comes out as a ``SerdeError`` naming them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from kslab.errors import MissingArgumentError, SerdeError
from kslab.serdes._base import Serde, plural, preview_bytes, preview_value

__all__ = ["FunctionSerde", "from_functions"]


def from_functions(
    serializer: Callable[[Any], bytes], deserializer: Callable[[bytes], Any]
) -> FunctionSerde:
    """A serde from ``serializer(value) -> bytes`` and ``deserializer(bytes) -> value``."""
    for role, function in (("serializer", serializer), ("deserializer", deserializer)):
        if function is None:  # Java's serdeFrom: IllegalArgumentException "... must not be null"
            msg = f"from_functions {role} must not be None; pass a function"
            raise MissingArgumentError(msg)
        if not callable(function):
            msg = f"from_functions {role} {function!r} is not callable; pass a function"
            raise TypeError(msg)
    return FunctionSerde(serializer, deserializer)


class FunctionSerde(Serde):
    """The serde ``from_functions`` builds; equal when built from the same two functions."""

    __slots__ = ("_deserializer", "_serializer")

    def __init__(
        self, serializer: Callable[[Any], bytes], deserializer: Callable[[bytes], Any]
    ) -> None:
        self._serializer = serializer
        self._deserializer = deserializer

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        """The serializer's bytes for ``data``; it may return ``None`` for a tombstone."""
        if data is None:
            return None
        try:
            out = self._serializer(data)
        except SerdeError:
            raise
        except Exception as e:
            got = f"{type(data).__name__} {preview_value(data)}"
            raise self._error(topic, "serializer", self._serializer, got, e, None) from e
        if type(out) is bytes or out is None:
            return out
        if isinstance(out, bytearray | memoryview):
            return bytes(out)
        msg = (
            f"{self!r} cannot serialize for topic {topic!r}: the serializer "
            f"{_describe(self._serializer)} returned {type(out).__name__} "
            f"{preview_value(out)}, expected bytes; make it return bytes (e.g. str.encode())"
        )
        raise SerdeError(msg, topic=topic)

    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        """The deserializer's value for ``data``."""
        if data is None:
            return None
        try:
            return self._deserializer(data)
        except SerdeError:
            raise
        except Exception as e:
            got = f"{plural(len(data), 'byte')} {preview_bytes(bytes(data))}"
            raise self._error(topic, "deserializer", self._deserializer, got, e, bytes(data)) from e

    def _error(
        self,
        topic: str,
        role: str,
        function: Callable[..., Any],
        got: str,
        cause: Exception,
        raw: bytes | None,
    ) -> SerdeError:
        verb, direction = role[:-1], "for" if role == "serializer" else "from"
        msg = (
            f"{self!r} cannot {verb} {got} {direction} topic {topic!r}: the {role} "
            f"{_describe(function)} raised {type(cause).__name__}: {cause}; fix the {role}, or "
            "filter out such records before this topic"
        )
        return SerdeError(msg, topic=topic, raw=raw)

    def _config(self) -> tuple[Any, ...]:
        return (self._serializer, self._deserializer)

    def __repr__(self) -> str:
        return f"from_functions({_name(self._serializer)}, {_name(self._deserializer)})"


def _name(function: Callable[..., Any]) -> str:
    return getattr(function, "__qualname__", None) or repr(function)


def _describe(function: Callable[..., Any]) -> str:
    """The function's name with its file and line, where Python knows them."""
    code = getattr(function, "__code__", None)
    if code is None:
        return _name(function)
    return f"{_name(function)} ({os.path.basename(code.co_filename)}:{code.co_firstlineno})"
