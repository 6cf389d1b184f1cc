"""How a record's key, value and headers are written in the generated test fixtures.

Readable where that is exact, raw bytes otherwise: a field is written as ``key`` (the value
the topic's serde reads, when it is plain JSON and serializing it again gives the very same
bytes), ``key_windowed`` (a windowed key: ``{"key", "start", "end"}``), or ``key_hex`` (the
bytes). Invariant: ``field_bytes`` of what ``shape_field`` wrote is the original bytes.
"""

from __future__ import annotations

import json
from typing import Any

from kslab.records import Window, Windowed

__all__ = ["field_bytes", "field_value", "shape_field", "shape_headers"]


def shape_field(serde: Any, topic: str, data: bytes | None, name: str) -> dict[str, Any]:
    """``{name: value}``, ``{name_windowed: ...}`` or ``{name_hex: ...}`` for ``data``."""
    if data is None:
        return {name: None}
    try:
        value = serde.deserialize(topic, data)
    except Exception:
        return {f"{name}_hex": data.hex()}
    if isinstance(value, Windowed) and _is_json(value.key):
        shaped: dict[str, Any] = {f"{name}_windowed": {
            "key": value.key, "start": value.window.start, "end": value.window.end}}
    elif _is_json(value):
        shaped = {name: value}
    else:
        return {f"{name}_hex": data.hex()}
    try:
        exact = serde.serialize(topic, field_value(json.loads(json.dumps(shaped)), name)) == data
    except Exception:
        exact = False
    return shaped if exact else {f"{name}_hex": data.hex()}


def field_value(record: dict[str, Any], name: str) -> Any:
    """The value a shaped field stands for (a ``Windowed`` for windowed keys, bytes for hex)."""
    if f"{name}_hex" in record:
        hexed = record[f"{name}_hex"]
        return None if hexed is None else bytes.fromhex(hexed)
    if f"{name}_windowed" in record:
        shaped = record[f"{name}_windowed"]
        return Windowed(shaped["key"], Window(shaped["start"], shaped["end"]))
    return record.get(name)


def field_bytes(serde: Any, topic: str, record: dict[str, Any], name: str) -> bytes | None:
    """The serialized bytes of a shaped field."""
    if f"{name}_hex" in record:
        return field_value(record, name)
    return serde.serialize(topic, field_value(record, name))


def shape_headers(headers: Any) -> list[list[Any]]:
    """Headers as ``[[name, hex or None], ...]``."""
    return [[key, None if value is None else bytes(value).hex()] for key, value in headers or []]


def _is_json(value: Any) -> bool:
    """Whether ``value`` survives a JSON round trip with the same types all the way down."""
    try:
        text = json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return False
    return _same(json.loads(text), value)


def _same(loaded: Any, value: Any) -> bool:
    if type(loaded) is not type(value):
        return False
    if isinstance(value, dict):
        return list(loaded) == list(value) and all(_same(loaded[k], value[k]) for k in value)
    if isinstance(value, list):
        return len(loaded) == len(value) and all(map(_same, loaded, value))
    return loaded == value
