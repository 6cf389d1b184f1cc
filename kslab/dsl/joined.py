"""The config objects of joins: Joined (stream-table), StreamJoined and TableJoined (foreign key).

They follow the rules of ``kslab.dsl.config``: static factories and ``with_...`` refinements are
the same methods, callable on the class or an instance, and every call returns a new object.
Invariant: a join config only names and types things; it never changes which records join.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kslab.dsl.config import ConfigBase, StoreType, check_name, hybrid_method, millis, replaced
from kslab.state.base import StoreSupplier

__all__ = ["Joined", "StreamJoined", "TableJoined"]


class Joined(ConfigBase):
    """Serdes and a name for a stream-table join (and its repartition topic)."""

    def __init__(self) -> None:
        self._key_serde: Any = None
        self._value_serde: Any = None
        self._other_value_serde: Any = None
        self._name: str | None = None
        self._grace_period: int | None = None

    @staticmethod
    def with_(key_serde: Any = None, value_serde: Any = None, other_value_serde: Any = None,
              name: str | None = None, grace_period: Any = None) -> Joined:
        """Serdes of the key, the stream's values and the table's values."""
        return replaced(Joined(), key_serde=key_serde, value_serde=value_serde,
                        other_value_serde=other_value_serde, name=check_name(name, "Joined"),
                        grace_period=millis(grace_period, "Joined"))

    @hybrid_method
    def as_(self, name: str) -> Joined:
        """Name the join processor and its repartition topic."""
        return replaced(self, name=check_name(name, "Joined"))

    with_name = as_

    @hybrid_method
    def key_serde(self, serde: Any) -> Joined:
        """The key serde."""
        return replaced(self, key_serde=serde)

    with_key_serde = key_serde

    @hybrid_method
    def value_serde(self, serde: Any) -> Joined:
        """The stream-side value serde."""
        return replaced(self, value_serde=serde)

    with_value_serde = value_serde

    @hybrid_method
    def other_value_serde(self, serde: Any) -> Joined:
        """The table-side value serde."""
        return replaced(self, other_value_serde=serde)

    with_other_value_serde = other_value_serde

    @hybrid_method
    def with_grace_period(self, grace_period: Any) -> Joined:
        """A grace period for versioned-table joins."""
        return replaced(self, grace_period=millis(grace_period, "with_grace_period"))


class StreamJoined(ConfigBase):
    """Serdes and names for a stream-stream join (its stores and processors)."""

    def __init__(self) -> None:
        self._key_serde: Any = None
        self._value_serde: Any = None
        self._other_value_serde: Any = None
        self._name: str | None = None
        self._store_name: str | None = None
        self._logging = True
        self._log_config: dict[str, str] = {}
        self._this_store_supplier: Any = None
        self._other_store_supplier: Any = None
        self._dsl_store_type: str | None = None

    @staticmethod
    def with_(key_serde: Any = None, value_serde: Any = None,
              other_value_serde: Any = None) -> StreamJoined:
        """Serdes of the key and of both sides' values -- or, as Java's
        ``StreamJoined.with(thisStoreSupplier, otherStoreSupplier)``, the two window stores, or
        as ``StreamJoined.with(dslStoreSuppliers)`` a store type (``with_dsl_store_suppliers``)."""
        if isinstance(key_serde, StoreSupplier) and isinstance(value_serde, StoreSupplier) \
                and other_value_serde is None:
            return replaced(StreamJoined(), this_store_supplier=key_serde,
                            other_store_supplier=value_serde)
        if _is_dsl_store_suppliers(key_serde) and value_serde is None and \
                other_value_serde is None:
            return StreamJoined().with_dsl_store_suppliers(key_serde)
        return replaced(StreamJoined(), key_serde=key_serde, value_serde=value_serde,
                        other_value_serde=other_value_serde)

    @hybrid_method
    def as_(self, store_name: str) -> StreamJoined:
        """Name the join's window stores."""
        return replaced(self, store_name=check_name(store_name, "StreamJoined"))

    @hybrid_method
    def with_name(self, name: str) -> StreamJoined:
        """Name the join processors and repartition topics."""
        return replaced(self, name=check_name(name, "StreamJoined"))

    @hybrid_method
    def with_store_name(self, store_name: str) -> StreamJoined:
        """Name the join's window stores."""
        return replaced(self, store_name=check_name(store_name, "StreamJoined"))

    @hybrid_method
    def with_key_serde(self, serde: Any) -> StreamJoined:
        """The key serde."""
        return replaced(self, key_serde=serde)

    @hybrid_method
    def with_value_serde(self, serde: Any) -> StreamJoined:
        """This side's value serde."""
        return replaced(self, value_serde=serde)

    @hybrid_method
    def with_other_value_serde(self, serde: Any) -> StreamJoined:
        """The other side's value serde."""
        return replaced(self, other_value_serde=serde)

    @hybrid_method
    def with_this_store_supplier(self, supplier: Any) -> StreamJoined:
        """The window store supplier of this side (retention, window size and duplicates are
        checked against the join windows at build time, as in Java)."""
        return replaced(self, this_store_supplier=supplier)

    @hybrid_method
    def with_other_store_supplier(self, supplier: Any) -> StreamJoined:
        """The window store supplier of the other side."""
        return replaced(self, other_store_supplier=supplier)

    @hybrid_method
    def with_dsl_store_suppliers(self, dsl_store_suppliers: Any) -> StreamJoined:
        """The store type of the stores no supplier was given for -- both window stores and the
        shared outer-join store -- before the builder's (Java's ``withDslStoreSuppliers``).

        Takes a ``Materialized.StoreType``, ``"in_memory"`` / ``"rocks_db"``, or Java's
        ``BuiltInDslStoreSuppliers`` class names; ``None`` falls back to the builder's.
        """
        return replaced(self, dsl_store_type=_dsl_store_type(dsl_store_suppliers))

    @hybrid_method
    def with_logging_enabled(self, config: dict[str, str] | None = None) -> StreamJoined:
        """Changelogs for the join stores, created with these topic configs."""
        return replaced(self, logging=True, log_config=dict(config or {}))

    @hybrid_method
    def with_logging_disabled(self) -> StreamJoined:
        """No changelogs for the join stores."""
        return replaced(self, logging=False, log_config={})


def _is_dsl_store_suppliers(spec: Any) -> bool:
    """True for a ``Materialized.StoreType`` or Java's ``BuiltInDslStoreSuppliers`` class names
    (never a serde name)."""
    return isinstance(spec, StoreType) or (isinstance(spec, str) and "DslStoreSuppliers" in spec)


def _dsl_store_type(suppliers: Any) -> str | None:
    """``"in_memory"`` or ``"persistent"`` for a DSL store suppliers spec (``None`` stays)."""
    if suppliers is None:
        return None
    from kslab.dsl.builder import suppliers_store_type  # the builder imports this module

    return suppliers_store_type(getattr(suppliers, "value", suppliers))


class TableJoined(ConfigBase):
    """Partitioners and a name for a foreign-key table join."""

    def __init__(self) -> None:
        self._partitioner: Callable[..., Any] | None = None
        self._other_partitioner: Callable[..., Any] | None = None
        self._name: str | None = None

    @staticmethod
    def with_(partitioner: Callable[..., Any] | None = None,
              other_partitioner: Callable[..., Any] | None = None) -> TableJoined:
        """Partitioners of this table's and the other table's topics."""
        return replaced(TableJoined(), partitioner=partitioner,
                        other_partitioner=other_partitioner)

    @hybrid_method
    def as_(self, name: str) -> TableJoined:
        """Name the join's processors, stores and internal topics."""
        return replaced(self, name=check_name(name, "TableJoined"))

    with_name = as_

    @hybrid_method
    def with_partitioner(self, partitioner: Callable[..., Any]) -> TableJoined:
        """This table's partitioner."""
        return replaced(self, partitioner=partitioner)

    @hybrid_method
    def with_other_partitioner(self, partitioner: Callable[..., Any]) -> TableJoined:
        """The other table's partitioner."""
        return replaced(self, other_partitioner=partitioner)
