"""Key-order helpers every backend shares: the empty-range rule and the end of a prefix.

Invariant: keys compare as unsigned bytes, so the smallest key after ``k`` is ``k + b"\\x00"`` and
every key starting with ``p`` lies in ``[p, increment(p))``.
"""

from __future__ import annotations

import logging

__all__ = ["increment", "is_inverted"]

_log = logging.getLogger("kslab.state")


def increment(prefix: bytes) -> bytes | None:
    """The smallest key above every key starting with ``prefix``; ``None`` if there is none."""
    stripped = prefix.rstrip(b"\xff")
    if not stripped:
        return None
    return stripped[:-1] + bytes((stripped[-1] + 1,))


def is_inverted(store_name: str, from_key: bytes | None, to_key: bytes | None) -> bool:
    """True (with Java's warning) when ``from_key > to_key``: the scan is then empty."""
    if from_key is None or to_key is None or from_key <= to_key:
        return False
    _log.warning(
        "Store '%s': returning an empty iterator for a key range with from > to (%s > %s). "
        "The arguments may be in the wrong order, or the key serde may not preserve order when "
        "the serialized bytes are compared (the built-in numeric serdes do not, for negative "
        "numbers)",
        store_name,
        from_key.hex(),
        to_key.hex(),
    )
    return True
