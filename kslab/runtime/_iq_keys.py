"""How an interactive query's URL names a key or a time: bytes from the URL to a store key.

A key segment or a ``from``/``to`` value arrives percent-decoded as bytes and is read as the
store's key serde expects (an int for ``Long``, JSON for ``Json``, the bytes themselves for
``Bytes``, text otherwise). Invariant: a key is handed to a store only once its key serde has
written it, so a bad key fails here, as an ``InvalidArgumentError`` naming the key, the store,
why and what to give, and never deeper in a store or the partitioner.
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Callable
from typing import Any, NoReturn

from kslab import serdes
from kslab.errors import InvalidArgumentError

__all__ = ["parse_key", "parse_time"]

_MIN_TS, _MAX_TS = -(2**63), 2**63 - 1
_TIME = "ms since the epoch, an int in [-2**63, 2**63)"
_SHOWN_CHARS = 24  # how much of a bad key a message quotes
_PRINTABLE = "".join(chr(c) for c in range(0x20, 0x7F) if chr(c) != "%")


def parse_key(raw: bytes, serde: Any, store: str, bound: str | None = None) -> Any:
    """The key ``raw`` names for ``store``, whose keys ``serde`` writes.

    ``bound`` names the query parameter (``from``/``to``) the key came from, for messages.
    """
    read, expected = _form(serde)
    try:
        key = read(raw)
    except ValueError as exc:
        _refuse(raw, serde, store, bound, str(exc), expected)
    try:
        serde.serialize(store, key)  # the store's name stands in for its changelog topic
    except Exception as exc:  # any serde, user-written ones too
        cause = exc.__cause__ if exc.__cause__ is not None and str(exc.__cause__) else exc
        _refuse(raw, serde, store, bound, str(cause).split(";")[0], expected)
    return key


def parse_time(raw: bytes, store: str, bound: str) -> int:
    """The time in ms that query parameter ``bound`` of a window or session query gives."""
    try:
        time = _int(raw)
    except ValueError as exc:
        reason = str(exc)
    else:
        if _MIN_TS <= time <= _MAX_TS:
            return time
        reason = "out of range"
    msg = (f"'{bound}' bound {_shown(raw)!r} of store '{store}' is not a time ({reason}); "
           f"give {_TIME}")
    raise InvalidArgumentError(msg)


def _refuse(raw: bytes, serde: Any, store: str, bound: str | None, reason: str,
            expected: str) -> NoReturn:
    subject = "key" if bound is None else f"'{bound}' bound"
    msg = (f"{subject} {_shown(raw)!r} of store '{store}' is not a {serde!r} key ({reason}); "
           f"give {expected}")
    raise InvalidArgumentError(msg)


def _shown(raw: bytes) -> str:
    """``raw`` as a message quotes it: its text (percent-escapes where it is not UTF-8), cut."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = urllib.parse.quote(raw, safe=_PRINTABLE)
    return text if len(text) <= _SHOWN_CHARS else f"{text[:_SHOWN_CHARS]}..."


def _text(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        msg = "not UTF-8 text"
    raise ValueError(msg)


def _int(raw: bytes) -> int:
    text = _text(raw)
    try:
        return int(text)
    except ValueError:
        msg = "not an integer"
    raise ValueError(msg)


def _float(raw: bytes) -> float:
    text = _text(raw)
    try:
        return float(text)
    except ValueError:
        msg = "not a number"
    raise ValueError(msg)


def _bool(raw: bytes) -> bool:
    text = _text(raw).lower()
    if text not in ("true", "false"):
        msg = "not true or false"
        raise ValueError(msg)
    return text == "true"


def _json(raw: bytes) -> Any:
    text = _text(raw)
    try:
        return json.loads(text)
    except RecursionError:
        msg = "JSON nested too deeply"
    except ValueError:
        return text  # a bare word is the string itself
    raise ValueError(msg)


# per key serde: how the URL's bytes become a key, and what to give (the first match wins)
_FORMS: tuple[tuple[type, Callable[[bytes], Any], str], ...] = (
    (serdes.Long, _int, "an int in [-2**63, 2**63)"),
    (serdes.Integer, _int, "an int in [-2**31, 2**31)"),
    (serdes.Short, _int, "an int in [-2**15, 2**15)"),
    (serdes.Double, _float, "a number"),
    (serdes.Float, _float, "a number within single precision"),
    (serdes.Boolean, _bool, "true or false"),
    (serdes.Json, _json, "JSON, or plain text for a string"),
    (serdes.Bytes, bytes, "percent-encoded bytes"),
    (serdes.UUID, _text, "a UUID such as 123e4567-e89b-12d3-a456-426614174000"),
    (serdes.String, _text, "UTF-8 text, percent-encoded"),
)


def _form(serde: Any) -> tuple[Callable[[bytes], Any], str]:
    for kind, read, expected in _FORMS:
        if isinstance(serde, kind):
            return read, expected
    return _text, f"a key {serde!r} can write, as UTF-8 text"
