"""Key-order helpers every backend shares: the empty-range rule and the end of a prefix.

Invariant: keys compare as unsigned bytes, so the smallest key after ``k`` is ``k + b"\\x00"`` and
every key starting with ``p`` lies in ``[p, increment(p))``.
"""

from __future__ import annotations

import logging

__all__ = ["INVALID_RANGE_WARNING", "increment", "is_inverted"]

_log = logging.getLogger("kslab.state")

INVALID_RANGE_WARNING = (
    "Returning empty iterator for fetch with invalid key range: from > to. This may be due to "
    "range arguments set in the wrong order, or serdes that don't preserve ordering when "
    "lexicographically comparing the serialized bytes. Note that the built-in numerical serdes "
    "do not follow this for negative numbers"
)
"""Java's warning, word for word, for a scan whose from key is above its to key."""


def increment(prefix: bytes) -> bytes | None:
    """The smallest key above every key starting with ``prefix``; ``None`` if there is none."""
    stripped = prefix.rstrip(b"\xff")
    if not stripped:
        return None
    return stripped[:-1] + bytes((stripped[-1] + 1,))


def is_inverted(store_name: str, from_key: bytes | None, to_key: bytes | None) -> bool:
    """True (with Java's warning) when ``from_key > to_key``: the scan is then empty.

    ``store_name`` is kept for callers; Java's message names no store, and tests match it whole.
    """
    if from_key is None or to_key is None or from_key <= to_key:
        return False
    _log.warning(INVALID_RANGE_WARNING)
    return True
