"""The ``Serde`` contract every serde meets, and the errors serdes raise for bad bytes or values.

Invariant: ``None`` maps to ``None`` both ways in every serde, so tombstones cross every topic
boundary untouched; ``serialize``/``deserialize`` run once per record per boundary and stay free of
anything but the conversion itself (checks that only matter on failure live in the error path).
"""

from __future__ import annotations

import abc
import uuid
from collections.abc import Callable
from typing import Any

from kslab.errors import InvalidArgumentError, SerdeError
from kslab.records import Windowed

__all__ = [
    "InvalidSerdeError",
    "JoinedFields",
    "Serde",
    "deserialize_error",
    "fast_deserializer",
    "fast_serializer",
    "located",
    "plural",
    "preview_bytes",
    "preview_value",
    "serialize_error",
    "writes_alike",
]

# How much of a bad value or of bad bytes an error message quotes.
_PREVIEW_BYTES = 24
_PREVIEW_CHARS = 60


class InvalidSerdeError(SerdeError, InvalidArgumentError):
    """A serde argument or config Java refuses with ``IllegalArgumentException`` or
    ``ConfigException``: an unknown serde class, bytes for a Void serde, a missing inner serde."""


class Serde(abc.ABC):
    """Turns values into bytes and back for one topic boundary, as Kafka's ``Serde<T>`` does.

    Subclass it and implement ``serialize`` and ``deserialize``; any object with those two methods
    also counts (``isinstance(obj, Serde)`` is true for it), as a Protocol would. Built-in serdes
    compare equal by type and configuration and repr as the call that builds them (``Long()``).
    """

    __slots__ = ()

    @abc.abstractmethod
    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        """The bytes for ``data`` on ``topic``; ``None`` for ``None`` (a tombstone)."""

    @abc.abstractmethod
    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        """The value read from ``data`` on ``topic``; ``None`` for ``None``."""

    def serialize_column(self, topic: str, items: list[Any],
                         headers: list[Any] | None = None) -> list[bytes | None]:
        """``serialize(topic, item, header)`` of each item in order (``headers``: one per item,
        or ``None`` for none): the batch form engines use for a column of values. A serde
        may write the same bytes faster here; where one item fails, it raises what
        ``serialize`` raises."""
        serialize = self.serialize
        if headers is None:
            return [serialize(topic, item) for item in items]
        return [serialize(topic, item, header)
                for item, header in zip(items, headers, strict=True)]

    def configure(self, is_key: bool) -> Serde:
        """This serde set up for keys (``is_key=True``) or values; most serdes do not care.

        Unlike Java's ``configure``, it returns the serde to use instead of mutating this one, so a
        serde object shared by a key and a value position stays correct for both. The framework
        calls it once when it wires a serde to a key or value position.
        """
        return self

    @property
    def name(self) -> str:
        """How messages name this serde: the call that builds it, e.g. ``Long()``."""
        return repr(self)

    def _config(self) -> tuple[Any, ...]:
        """What, besides the type, makes two serdes of this type equal."""
        return ()

    def _write_config(self) -> tuple[Any, ...]:
        """What, besides the type, decides the bytes this serde writes (``writes_alike``)."""
        return self._config()

    def _repr_args(self) -> str:
        """The arguments shown inside ``repr``'s parentheses."""
        return ""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._repr_args()})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._config() == other._config()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self), self._config()))

    @classmethod
    def __subclasshook__(cls, subclass: type) -> bool:
        if cls is Serde and all(
            callable(getattr(subclass, method, None)) for method in ("serialize", "deserialize")
        ):
            return True
        return NotImplemented


def fast_serializer(serde: object) -> Callable[[Any], bytes] | None:
    """A one-argument, C-level ``serialize`` for ``serde``, or ``None`` when it has none.

    An internal interface for engines' hot paths (stores, sinks, sources, output reads): where
    ``fast(data)`` returns, it returns exactly ``serde.serialize(topic, data, headers)`` for any
    topic and headers; where it raises (``None``, a wrong type, a bad value), call
    ``serde.serialize(topic, data, headers)`` instead, which returns the right answer or raises
    the serde's own error. Only built-in serdes of the exact class offer one (a subclass may
    override ``serialize``), declared as ``_fast = (serialize1, deserialize1, indexed)`` in the
    class body.
    """
    fast = type(serde).__dict__.get("_fast")
    return None if fast is None else fast[0]


def fast_deserializer(serde: object) -> tuple[Callable[[bytes], Any], bool] | None:
    """A one-argument, C-level ``deserialize`` for ``serde`` and whether it returns a 1-tuple.

    The contract of ``fast_serializer``, reading: ``(fast, indexed)`` where ``fast(data)``, or
    ``fast(data)[0]`` when ``indexed`` (a ``struct.Struct.unpack``), is exactly
    ``serde.deserialize(topic, data, headers)`` whenever it returns; where it raises, call the
    serde's ``deserialize``. ``None`` for serdes without one. An ``indexed`` one is the bound
    ``unpack`` of a ``struct.Struct`` (``fast.__self__``), whose ``size`` and ``iter_unpack``
    let a reader unpack a whole column of such fields at once.
    """
    fast = type(serde).__dict__.get("_fast")
    return None if fast is None else (fast[1], fast[2])


def writes_alike(one: object, other: object) -> bool:
    """True when ``one`` and ``other`` are serdes of the same class configured alike for
    writing (``Serde._write_config``), so that they write the same bytes for the same data.

    An internal interface for engines: a column whose bytes one serde wrote already (a store
    serialized it) is taken for the other's. Engines take it for built-in serdes only: a
    custom serde may keep state that its configuration does not show.
    """
    if type(one) is not type(other):
        return False
    config = getattr(one, "_write_config", None)
    return config is not None and config() == other._write_config()  # type: ignore[attr-defined]


def one_to_one(serde: object) -> tuple[type, int | None] | None:
    """The class whose objects a built-in serde maps to bytes one to one, and for ``int`` the
    bound ``b`` of the range ``[-b, b)`` it writes (``str`` has to have UTF-8 bytes), else
    ``None``: for those, deserializing the bytes gives back an object equal to the one
    serialized (NaN aside; and ``-0.0 == 0.0``, so equal floats may have different bytes).
    Declared as ``_one_to_one`` in the class body of the exact class, as ``_fast`` is."""
    return type(serde).__dict__.get("_one_to_one")


def fixed_struct(serde: object) -> Any:
    """The ``struct.Struct`` whose bound ``unpack`` is a fixed-width built-in serde's fast
    deserializer (every field it writes is ``size`` bytes), else ``None``."""
    fast = fast_deserializer(serde)
    return fast[0].__self__ if fast is not None and fast[1] else None


class JoinedFields(list):  # type: ignore[type-arg]
    """Fields (``bytes``, no ``None``) a serde's column form cut from one buffer, with what a
    log lays them out from, known from the cut: their bytes back to back (``joined()``,
    made once) and each field's length (``lengths``, a numpy ``int64`` array), so no field
    is measured or copied again to append the column (``ByteColumn.layout``)."""

    __slots__ = ("_joined", "lengths")

    def __init__(self, fields: list[bytes], joined: Callable[[], bytes], lengths: Any) -> None:
        super().__init__(fields)
        self._joined: Callable[[], bytes] | bytes = joined
        self.lengths = lengths

    def joined(self) -> bytes:
        """``b"".join(self)``, made at the first call."""
        joined = self._joined
        if joined.__class__ is not bytes:
            joined = self._joined = joined()  # type: ignore[operator]
        return joined  # type: ignore[return-value]


def located(
    err: SerdeError, *, topic: str | None, partition: int | None, offset: int | None
) -> SerdeError:
    """A copy of ``err`` that says where the bad record sits, for the core to raise instead.

    The message gains ``(topic 'orders', partition 0, offset 5)``; ``raw`` is kept and ``err``
    is chained as the cause, so ``raise located(err, ...)`` shows both.
    """
    topic = topic if topic is not None else err.topic
    where = ", ".join(
        part
        for part in (
            f"topic {topic!r}" if topic is not None else "",
            f"partition {partition}" if partition is not None else "",
            f"offset {offset}" if offset is not None else "",
        )
        if part
    )
    message = f"{err} ({where})" if where else str(err)
    new = SerdeError(message, topic=topic, partition=partition, offset=offset, raw=err.raw)
    new.__cause__ = err
    return new


def deserialize_error(
    serde: object, topic: str, data: object, expected: str, cause: BaseException | None = None
) -> SerdeError:
    """The error for bytes ``serde`` cannot read: what it expected, what it got, what to try."""
    raw = _as_raw(data)
    if raw is None:
        got = f"a {type(data).__name__} instead of bytes"
        fix = "serdes read bytes; pass the record's raw bytes, or serialize the value first"
    else:
        got = f"{plural(len(raw), 'byte')} {preview_bytes(raw)}"
        fix = (
            "check the topic's key/value serde matches what the producer wrote, e.g. "
            f"Consumed.with_(key_serde, value_serde){_guess_serde(raw)}"
        )
    detail = f" ({cause})" if cause is not None and str(cause) else ""
    msg = f"{serde!r} cannot deserialize {got} from topic {topic!r}: {expected}{detail}; {fix}"
    return SerdeError(msg, topic=topic, raw=raw)


def serialize_error(
    serde: object, topic: str, data: object, expected: str, cause: BaseException | None = None
) -> SerdeError:
    """The error for a value ``serde`` cannot write: what it expected, what it got, what to try."""
    got = f"{type(data).__name__} {preview_value(data)}"
    detail = f" ({cause})" if cause is not None and str(cause) else ""
    suggestion = _serde_for_value(data)
    fix = (
        f"use a serde that matches the value (here {suggestion}) in Produced.with_ / "
        "Materialized.with_, or convert the value first with map_values"
        if suggestion
        else "convert the value first with map_values, or use serdes.from_functions(...)"
    )
    msg = f"{serde!r} cannot serialize {got} for topic {topic!r}: expected {expected}{detail}"
    msg = f"{msg}; {fix}"
    return SerdeError(msg, topic=topic, raw=None)


def _as_raw(data: object) -> bytes | None:
    if isinstance(data, bytes):
        return data
    if isinstance(data, bytearray | memoryview):
        return bytes(data)
    return None


def plural(count: int, noun: str) -> str:
    """``'1 byte'``, ``'3 bytes'``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def preview_bytes(raw: bytes) -> str:
    shown = repr(raw[:_PREVIEW_BYTES])
    return shown + "..." if len(raw) > _PREVIEW_BYTES else shown


def preview_value(data: object) -> str:
    try:
        shown = repr(data)
    except Exception:  # a broken __repr__ must not hide the real error
        shown = f"<{type(data).__name__} object>"
    return shown if len(shown) <= _PREVIEW_CHARS else shown[:_PREVIEW_CHARS] + "..."


def _guess_serde(raw: bytes) -> str:
    """A hint at what wrote these bytes, shown after the fix; empty when nothing stands out."""
    if len(raw) >= 5 and raw[0] == 0 and len(raw) not in (8, 4, 2):
        return (
            " (the bytes start with magic byte 0, like Confluent's schema-registry wire format: "
            "try serdes.Avro, serdes.Protobuf or serdes.JsonSchema with registry=...)"
        )
    try:
        text = raw.decode()
    except UnicodeDecodeError:
        text = None
    if text and text.isprintable():
        stripped = text.lstrip()
        if stripped[:1] in ("{", "[", '"'):
            return " (the bytes look like JSON: try serdes.Json())"
        return " (the bytes look like UTF-8 text: try serdes.String())"
    fixed = {8: "serdes.Long() or serdes.Double()", 4: "serdes.Integer() or serdes.Float()"}
    if len(raw) in fixed:
        return f" (the bytes have the size of {fixed[len(raw)]})"
    return ""


def _serde_for_value(data: object) -> str:
    """The built-in serde that writes a value of this type, if there is one."""
    if isinstance(data, bool):
        return "serdes.Boolean()"
    if isinstance(data, Windowed):
        return "serdes.TimeWindowed(inner) or serdes.SessionWindowed(inner)"
    by_type = (
        (str, "serdes.String()"),
        (int, "serdes.Long()"),
        (float, "serdes.Double()"),
        (bytes | bytearray | memoryview, "serdes.Bytes()"),
        (uuid.UUID, "serdes.UUID()"),
        (dict | list | tuple, "serdes.Json()"),
    )
    for types, serde in by_type:
        if isinstance(data, types):
            return serde
    return ""
