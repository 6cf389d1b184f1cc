"""Record headers between Spark rows and the core: a row's ``headers`` column (JSON text, as
Spark's ``to_json`` writes an ``array<struct<key, value>>``, or a list of key/value mappings)
and the core's ``[(key, value bytes)]``. Invariant: ``record_headers(headers_json(h))`` is
``h`` for any headers ``h`` (``None`` values included)."""

from __future__ import annotations

import base64
import json
from typing import Any

__all__ = ["headers_json", "record_headers"]


def record_headers(value: Any) -> Any:
    """A row's headers (JSON text, or a list of key/value mappings) as the core's
    ``[(key, value bytes)]``; ``None`` for none."""
    if value is None or len(value) == 0:
        return None
    if isinstance(value, str):
        return [(h["key"], None if h.get("value") is None else base64.b64decode(h["value"]))
                for h in json.loads(value)]
    return [(h["key"], h["value"]) for h in value]


def headers_json(headers: Any) -> str:
    """Headers as the JSON text Spark's ``to_json`` writes for ``array<struct<key, value>>``."""
    return json.dumps([{"key": k, "value": None if v is None else base64.b64encode(v).decode()}
                       for k, v in headers])
