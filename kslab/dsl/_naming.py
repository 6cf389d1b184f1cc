"""Kafka Streams' naming rules for DSL nodes, stores and internal topics, and config shorthands.

Every generated name is ``prefix + "%010d" % index`` from the one counter of a
``StreamsBuilder``. Invariant: the ``or_generate`` helpers consume an index even when the user
gave a name, exactly as Java's ``NamedInternal`` does, so user names never shift the numbering of
the nodes after them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kslab.dsl.config import (
    Consumed,
    Grouped,
    Materialized,
    Named,
    Produced,
    Repartitioned,
    check_name,
    replaced,
)
from kslab.dsl.joined import Joined, TableJoined
from kslab.errors import TopologyError

if TYPE_CHECKING:
    from kslab.dsl.builder import StreamsBuilder

__all__ = [
    "or_generate",
    "resolve_config",
    "resolve_materialized",
    "resolve_name",
    "suffix_or",
    "suffix_or_generate",
]


def or_generate(builder: StreamsBuilder, name: str | None, prefix: str) -> str:
    """``name`` if given, else a generated name; an index is used up either way."""
    generated = builder.new_processor_name(prefix)
    return generated if name is None else name


def suffix_or_generate(builder: StreamsBuilder, name: str | None, suffix: str,
                       prefix: str) -> str:
    """``name + suffix`` if a name was given, else a generated name; uses up an index."""
    generated = builder.new_processor_name(prefix)
    if name is None:
        return generated
    return check_name(name + suffix)  # type: ignore[return-value]


def suffix_or(name: str | None, suffix: str, other: str) -> str:
    """``name + suffix`` if a name was given, else ``other``; no index is used."""
    return other if name is None else name + suffix


def resolve_name(named: Any, name: str | None, op: str) -> str | None:
    """The user's name for an operator from ``named=`` (``Named`` or ``str``) or ``name=``."""
    if named is not None and name is not None:
        msg = f"{op}() got both named= and name=; pass one of them"
        raise TopologyError(msg)
    if named is None:
        return check_name(name)
    if isinstance(named, Named):
        return named.name
    if isinstance(named, str):
        return check_name(named)
    msg = f"{op}() got named={named!r}; pass ks.Named.as_('name') or a str"
    raise TopologyError(msg)


_KINDS = {
    Consumed: "consumed", Produced: "produced", Grouped: "grouped", Joined: "joined",
    Repartitioned: "repartitioned", TableJoined: "table_joined",
}


def resolve_config(kind: type, given: Any, op: str, **shorthands: Any) -> Any:
    """A config object of ``kind`` from the positional one and keyword shorthands."""
    if given is None:
        config = kind()
    elif isinstance(given, kind):
        config = given
    elif isinstance(given, str) and "name" not in shorthands:
        config = replaced(kind(), name=check_name(given))
    else:
        param = _KINDS.get(kind, kind.__name__.lower())
        msg = f"{op}() got {param}={given!r}; pass a ks.{kind.__name__}"
        raise TopologyError(msg)
    updates = {k: v for k, v in shorthands.items() if v is not None}
    if "name" in updates:
        check_name(updates["name"])
    return replaced(config, **updates) if updates else config


def resolve_materialized(given: Any, op: str) -> Materialized | None:
    """A ``Materialized`` from a ``Materialized``, a store name, a store supplier or ``None``."""
    if given is None or isinstance(given, Materialized):
        return given
    if isinstance(given, str):
        return Materialized.as_(given)
    if hasattr(given, "get") and hasattr(given, "name"):
        return Materialized.as_(given)
    msg = f"{op}() got materialized={given!r}; pass ks.Materialized.as_('name') or a store name"
    raise TopologyError(msg)
