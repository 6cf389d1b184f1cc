"""``KTable`` and ``GlobalKTable``: changelog streams kept as the latest value per key.

A KTable's operators forward ``Change(new, old)`` records between themselves; a table is
materialized into a store only when it is named, read by a join, or asked for old values, as in
Java. Invariant: ``supplier`` of a KTable is the object whose materialization and
``send_old_values`` decide what every processor of the table does, so they are only ever changed
through ``value_getter_supplier`` and ``enable_sending_old_values`` here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kslab.dsl import _processors as p
from kslab.dsl._aggregates import AggregateSupplier
from kslab.dsl._graph import GraphNode, ProcessorGraphNode, TableProcessorNode
from kslab.dsl._naming import or_generate, resolve_config, resolve_materialized, resolve_name
from kslab.dsl._stores import store_factory
from kslab.dsl._table_processors import (
    FilterSupplier,
    MapValuesSupplier,
    StoreGetterSupplier,
    TableSource,
    ToStream,
)
from kslab.dsl.config import Grouped, Materialized, Named, internal
from kslab.errors import TopologyError
from kslab.topology.display import mimebundle

__all__ = ["GlobalKTable", "KTable"]


class KTable:
    """A table: the latest value per key, updated by a changelog stream.

    >>> import kslab as ks
    >>> builder = ks.StreamsBuilder()
    >>> builder.table("users").filter(lambda k, v: v != "bob").to_stream().to("out")
    >>> with ks.TopologyTestDriver(builder.build()) as driver:
    ...     users = driver.create_input_topic("users")
    ...     users.pipe_input(1, "ann"); users.pipe_input(2, "bob")
    ...     driver.create_output_topic("out").read_key_values_to_list()
    [KeyValue(key=1, value='ann'), KeyValue(key=2, value=None)]
    """

    def __init__(self, builder: Any, name: str, key_serde: Any, value_serde: Any,
                 source_nodes: set[str], queryable_store_name: str | None, supplier: Any,
                 node: GraphNode) -> None:
        self.builder = builder
        self.name = name
        self.key_serde = key_serde
        self.value_serde = value_serde
        self.source_nodes = source_nodes
        self.queryable_store_name = queryable_store_name
        self.supplier = supplier
        self.node = node
        self.send_old_values = False

    # -- materialization and old values ----------------------------------------------------

    def value_getter_supplier(self) -> Any:
        """Getters of this table's current values (materializes a source table)."""
        s = self.supplier
        if isinstance(s, TableSource):
            s.materialize()
            return StoreGetterSupplier(s.queryable_name)  # type: ignore[arg-type]
        return s.view()

    def enable_sending_old_values(self, force_materialization: bool) -> bool:
        """Make this table forward old values too; False if it cannot without a store."""
        if self.send_old_values:
            return True
        s = self.supplier
        if isinstance(s, TableSource):
            if not force_materialization and not s.materialized:
                return False
            s.enable_sending_old_values()
        elif isinstance(s, AggregateSupplier):
            s.send_old_values = True
        elif not s.enable_sending_old_values(force_materialization):
            return False
        self.send_old_values = True
        return True

    def sending_old_value_enabled(self) -> bool:
        """True when this table forwards old values with its changes."""
        return self.send_old_values

    def query_table_name(self) -> str | None:
        """The name of the store to query this table in, if it was named."""
        return self.queryable_store_name

    # -- operators ------------------------------------------------------------------------------

    def _materialize_op(self, named: Any, materialized: Any, prefix: str, op: str,
                        *, keep_value_serde: bool) -> tuple[Any, Any, Any, Any]:
        if isinstance(named, Materialized | str) and materialized is None and not isinstance(
                named, Named):
            named, materialized = None, named
        m = resolve_materialized(materialized, op)
        key_serde, value_serde = self.key_serde, self.value_serde if keep_value_serde else None
        mat = None
        if m is not None:
            mat = self.builder.materialize(m, None)
            if mat.store_name is None:
                self.builder.new_store_name(prefix)
                mat.store_name = None
            key_serde = mat.key_serde if mat.key_serde is not None else self.key_serde
            if keep_value_serde:
                value_serde = mat.value_serde if mat.value_serde is not None else self.value_serde
            else:
                value_serde = mat.value_serde
        return named, mat, key_serde, value_serde

    def filter(self, predicate: Callable[[Any, Any], bool], named: Any = None,
               materialized: Any = None, *, name: str | None = None) -> KTable:
        """Keep rows for which ``predicate(key, value)`` holds; others become tombstones."""
        return self._filter(predicate, named, materialized, name, negate=False, op="filter")

    def filter_not(self, predicate: Callable[[Any, Any], bool], named: Any = None,
                   materialized: Any = None, *, name: str | None = None) -> KTable:
        """Drop rows for which ``predicate(key, value)`` holds (as tombstones)."""
        return self._filter(predicate, named, materialized, name, negate=True, op="filter_not")

    def _filter(self, predicate: Callable[[Any, Any], bool], named: Any, materialized: Any,
                name: str | None, *, negate: bool, op: str) -> KTable:
        p.require_callable(predicate, "predicate", op)
        named, mat, key_serde, value_serde = self._materialize_op(
            named, materialized, "KTABLE-FILTER-", op, keep_value_serde=True)
        node_name = or_generate(self.builder, resolve_name(named, name, op), "KTABLE-FILTER-")
        queryable = mat.queryable_store_name if mat is not None else None
        supplier = FilterSupplier(self, predicate, negate, queryable)
        table = self._table_child(node_name, supplier, mat, queryable, key_serde, value_serde)
        supplier.node = table.node
        return table

    def map_values(self, mapper: Callable[..., Any], named: Any = None,
                   materialized: Any = None, *, name: str | None = None,
                   with_key: bool = False) -> KTable:
        """New values from ``mapper(value)`` (``mapper(key, value)`` with ``with_key``)."""
        p.require_callable(mapper, "mapper", "map_values")
        named, mat, key_serde, value_serde = self._materialize_op(
            named, materialized, "KTABLE-MAPVALUES-", "map_values", keep_value_serde=False)
        node_name = or_generate(self.builder, resolve_name(named, name, "map_values"),
                                "KTABLE-MAPVALUES-")
        queryable = mat.queryable_store_name if mat is not None else None
        supplier = MapValuesSupplier(self, mapper, with_key, queryable)
        return self._table_child(node_name, supplier, mat, queryable, key_serde, value_serde)

    def _table_child(self, node_name: str, supplier: Any, mat: Any, queryable: str | None,
                     key_serde: Any, value_serde: Any) -> KTable:
        if mat is not None:
            mat.key_serde, mat.value_serde = key_serde, value_serde
        factory = store_factory(mat) if queryable is not None else None
        node = TableProcessorNode(node_name, supplier, store_factory=factory)
        if mat is not None:  # Java's maybeSetOutputVersioned: even an unnamed Materialized
            node.output_versioned = bool(  # type: ignore[attr-defined]
                mat.versioned or getattr(mat.supplier, "history_retention", None) is not None)
        self.builder.add_node(self.node, node)
        return KTable(self.builder, node_name, key_serde, value_serde, self.source_nodes,
                      queryable, supplier, node)

    def suppress(self, suppressed: Any) -> KTable:
        """Hold changes back: until windows close, or for a time limit per key."""
        from kslab.dsl.suppress import suppress

        return suppress(self, suppressed)

    def to_stream(self, key_mapper: Callable[[Any, Any], Any] | None = None, named: Any = None,
                  *, name: str | None = None) -> Any:
        """The table's updates as a stream (deleted rows as ``None`` values)."""
        from kslab.dsl.kstream import KStream

        if isinstance(key_mapper, Named | str) and named is None:  # Java's toStream(Named)
            key_mapper, named = None, key_mapper
        node_name = or_generate(self.builder, resolve_name(named, name, "to_stream"),
                                "KTABLE-TOSTREAM-")
        node = ProcessorGraphNode(node_name, p.Supplier(ToStream))
        self.builder.add_node(self.node, node)
        stream = KStream(self.builder, node_name, self.key_serde, self.value_serde,
                         self.source_nodes, False, node)
        return stream if key_mapper is None else stream.select_key(key_mapper)

    def group_by(self, selector: Callable[[Any, Any], Any], grouped: Grouped | None = None, *,
                 key_serde: Any = None, value_serde: Any = None,
                 name: str | None = None) -> Any:
        """Re-key rows with ``selector(key, value) -> (new_key, new_value)`` for aggregation."""
        from kslab.dsl._aggregates import RepartitionMapSupplier
        from kslab.dsl.grouped import KGroupedTable

        p.require_callable(selector, "selector", "group_by")
        g = resolve_config(Grouped, grouped, "group_by", key_serde=key_serde,
                           value_serde=value_serde, name=name)
        node_name = or_generate(self.builder, internal(g).name, "KTABLE-SELECT-")
        supplier = RepartitionMapSupplier(self, selector)
        node = ProcessorGraphNode(node_name, supplier)
        supplier.node = node
        self.builder.add_node(self.node, node)
        self.enable_sending_old_values(True)
        return KGroupedTable(self.builder, node_name, self.source_nodes, g, node)

    # -- joins ----------------------------------------------------------------------------------

    def join(self, other: KTable, *args: Any, **kwargs: Any) -> KTable:
        """Inner join with another table, by key or by a foreign key."""
        return self._join(other, args, kwargs, left=False, outer=False, op="join")

    def left_join(self, other: KTable, *args: Any, **kwargs: Any) -> KTable:
        """Left join with another table, by key or by a foreign key.

        By key: ``left_join(other, joiner)``; by a foreign key:
        ``left_join(other, foreign_key_extractor, joiner)`` (KIP-213).

        >>> import kslab as ks
        >>> b = ks.StreamsBuilder()
        >>> left, right = b.table("l"), b.table("r")
        >>> left.left_join(right, lambda lv, rv: f"{lv}/{rv}").to_stream().to("out")
        >>> with ks.TopologyTestDriver(b.build()) as driver:
        ...     driver.create_input_topic("l").pipe_input("k", "L")
        ...     driver.create_input_topic("r").pipe_input("k", "R")
        ...     driver.create_output_topic("out").read_values_to_list()
        ['L/None', 'L/R']
        """
        return self._join(other, args, kwargs, left=True, outer=False, op="left_join")

    def outer_join(self, other: KTable, *args: Any, **kwargs: Any) -> KTable:
        """Outer join with another table by key."""
        return self._join(other, args, kwargs, left=True, outer=True, op="outer_join")

    def _join(self, other: Any, args: tuple[Any, ...], kwargs: dict[str, Any], *, left: bool,
              outer: bool, op: str) -> KTable:
        from kslab.dsl import _table_joins

        foreign = "foreign_key_extractor" in kwargs or (
            len(args) >= 2 and callable(args[0]) and callable(args[1])
        )
        p.require_not_none(other, "foreignKeyTable" if foreign else "other", op)
        if not isinstance(other, KTable):
            msg = f"KTable.{op}() got {other!r}; pass a KTable"
            raise TopologyError(msg)
        if foreign:
            if outer:
                msg = "outer_join() on a foreign key is not supported by Kafka Streams; use join"
                raise TopologyError(msg)
            from kslab.dsl import _fk

            return _fk.foreign_key_join(self, other, *args, left=left, op=op, **kwargs)
        return _table_joins.table_table_join(self, other, *args, left=left, outer=outer,
                                             op=op, **kwargs)

    def __repr__(self) -> str:
        return f"<kslab.KTable {self.name}>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        """Jupyter display: the graph with this node highlighted, and a live preview."""
        return mimebundle(self, include, exclude)


class GlobalKTable:
    """A table every instance holds in full; join a stream to it with a key selector."""

    def __init__(self, store_name: str, queryable_store_name: str | None) -> None:
        self.store_name = store_name
        self.queryable_store_name = queryable_store_name

    def value_getter_supplier(self) -> StoreGetterSupplier:
        """Getters reading the global store."""
        return StoreGetterSupplier(self.store_name)

    def query_table_name(self) -> str | None:
        """The name of the store to query this table in, if it was named."""
        return self.queryable_store_name

    def __repr__(self) -> str:
        return f"<kslab.GlobalKTable {self.store_name}>"
