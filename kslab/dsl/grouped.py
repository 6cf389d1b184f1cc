"""``KGroupedStream`` and ``KGroupedTable``: grouped records waiting for an aggregation.

Grouping itself adds no processor; the aggregation does, after a repartition topic when the key
changed (streams) or always (tables, whose changes must reach the task owning the new key).
Invariant: one grouped object reuses a repartition node only when the user named it (``Grouped``),
so two aggregations of an anonymous grouping get two repartition topics, as in Java.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kslab.dsl._aggregates import (
    AggregateSupplier,
    TableAggregateSupplier,
    count_adder,
    count_initializer,
    count_subtractor,
)
from kslab.dsl._change import ChangedSerde
from kslab.dsl._graph import GraphNode, GroupedTableRepartitionNode, ProcessorGraphNode
from kslab.dsl._naming import (
    or_generate,
    resolve_materialized,
    resolve_name,
    suffix_or_generate,
)
from kslab.dsl._optimize import new_repartition_node
from kslab.dsl._processors import require_callable
from kslab.dsl._stores import MaterializedInternal, store_factory
from kslab.dsl.config import Grouped, Materialized, Named, internal
from kslab.serdes import Long
from kslab.topology.display import mimebundle

__all__ = ["KGroupedStream", "KGroupedTable"]


def _split(named: Any, materialized: Any) -> tuple[Any, Any]:
    # Both may be given positionally in either order, as Java's overloads allow.
    if isinstance(named, Materialized | str) and not isinstance(named, Named) and \
            materialized is None:
        return None, named
    return named, materialized


class KGroupedStream:
    """A stream grouped by key; aggregate it into a ``KTable``."""

    def __init__(self, builder: Any, name: str, source_nodes: set[str], grouped: Grouped,
                 repartition_required: bool, node: GraphNode) -> None:
        self.builder = builder
        self.name = name
        self.source_nodes = source_nodes
        settings = internal(grouped)
        self.key_serde = settings.key_serde
        self.value_serde = settings.value_serde
        self.repartition_name = settings.name
        self.repartition_required = repartition_required
        self.node = node
        self._repartition: GraphNode | None = None

    def count(self, named: Any = None, materialized: Any = None, *,
              name: str | None = None) -> Any:
        """The number of records per key, as a ``KTable``."""
        named, materialized = _split(named, materialized)
        m = resolve_materialized(materialized, "count")
        if m is None:
            m = Materialized.with_(self.key_serde, Long())
        elif m.store_name is None:  # Java's count(materialized) names a store it drops
            self.builder.new_store_name("KSTREAM-AGGREGATE-")
        mat = self.builder.materialize(m, "KSTREAM-AGGREGATE-")
        mat.key_serde = mat.key_serde if mat.key_serde is not None else self.key_serde
        mat.value_serde = mat.value_serde if mat.value_serde is not None else Long()
        node_name = or_generate(self.builder, resolve_name(named, name, "count"),
                                "KSTREAM-AGGREGATE-")
        supplier = AggregateSupplier(mat.store_name, count_initializer, count_adder)
        return self._build(node_name, supplier, mat)

    def reduce(self, reducer: Callable[[Any, Any], Any], named: Any = None,
               materialized: Any = None, *, name: str | None = None) -> Any:
        """Combine the values of each key with ``reducer(aggregate, value)``."""
        require_callable(reducer, "reducer", "reduce")
        named, materialized = _split(named, materialized)
        m = resolve_materialized(materialized, "reduce")
        if m is None:
            m = Materialized.with_(self.key_serde, self.value_serde)
        mat = self.builder.materialize(m, "KSTREAM-REDUCE-")
        mat.key_serde = mat.key_serde if mat.key_serde is not None else self.key_serde
        mat.value_serde = mat.value_serde if mat.value_serde is not None else self.value_serde
        node_name = or_generate(self.builder, resolve_name(named, name, "reduce"),
                                "KSTREAM-REDUCE-")
        supplier = AggregateSupplier(mat.store_name, None, None, reducer)
        return self._build(node_name, supplier, mat)

    def aggregate(self, initializer: Callable[[], Any],
                  aggregator: Callable[[Any, Any, Any], Any], named: Any = None,
                  materialized: Any = None, *, name: str | None = None) -> Any:
        """Fold the values of each key with ``aggregator(key, value, aggregate)``."""
        require_callable(initializer, "initializer", "aggregate")
        require_callable(aggregator, "aggregator", "aggregate")
        named, materialized = _split(named, materialized)
        m = resolve_materialized(materialized, "aggregate")
        if m is None:
            m = Materialized.with_(self.key_serde, None)
        mat = self.builder.materialize(m, "KSTREAM-AGGREGATE-")
        mat.key_serde = mat.key_serde if mat.key_serde is not None else self.key_serde
        node_name = or_generate(self.builder, resolve_name(named, name, "aggregate"),
                                "KSTREAM-AGGREGATE-")
        supplier = AggregateSupplier(mat.store_name, initializer, aggregator)
        return self._build(node_name, supplier, mat)

    def windowed_by(self, windows: Any) -> Any:
        """Aggregate per window: ``TimeWindows``, ``SlidingWindows`` or ``SessionWindows``."""
        from kslab.dsl.windowed import windowed_by

        return windowed_by(self, windows)

    def cogroup(self, aggregator: Callable[[Any, Any, Any], Any]) -> Any:
        """Start a co-grouped aggregation that other grouped streams can join."""
        from kslab.dsl.cogrouped import CogroupedKStream

        require_callable(aggregator, "aggregator", "cogroup")
        return CogroupedKStream(self.builder).cogroup(self, aggregator)

    def _build(self, node_name: str, supplier: AggregateSupplier,
               mat: MaterializedInternal) -> Any:
        from kslab.dsl.ktable import KTable

        parent, sources = self.repartition_parent(mat.store_name)
        node = ProcessorGraphNode(node_name, supplier, store_factory=store_factory(mat))
        self.builder.add_node(parent, node)
        return KTable(self.builder, node_name, mat.key_serde, mat.value_serde, sources,
                      mat.queryable_store_name, supplier, node)

    def repartition_parent(self, store_name: str) -> tuple[GraphNode, set[str]]:
        """The node the aggregation hangs off: a repartition node if the key changed."""
        if not self.repartition_required:
            return self.node, self.source_nodes
        prefix = self.repartition_name if self.repartition_name is not None else store_name
        node = new_repartition_node(self.builder, self.key_serde, self.value_serde, prefix)
        if self._repartition is None or self.repartition_name is None:
            self._repartition = node
        self.builder.add_node(self.node, self._repartition)
        return self._repartition, {node.name}

    def __repr__(self) -> str:
        return f"<kslab.KGroupedStream {self.name}>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        """Jupyter display: the topology graph with this node highlighted."""
        return mimebundle(self, include, exclude)


class KGroupedTable:
    """A table re-keyed by ``group_by``; aggregate it with adders and subtractors."""

    def __init__(self, builder: Any, name: str, source_nodes: set[str], grouped: Grouped,
                 node: GraphNode) -> None:
        self.builder = builder
        self.name = name
        self.source_nodes = source_nodes
        settings = internal(grouped)
        self.key_serde = settings.key_serde
        self.value_serde = settings.value_serde
        self.repartition_name = settings.name
        self.node = node
        self._repartition: GraphNode | None = None

    def count(self, named: Any = None, materialized: Any = None, *,
              name: str | None = None) -> Any:
        """The number of rows per group."""
        named, materialized = _split(named, materialized)
        m = resolve_materialized(materialized, "count")
        if m is None:
            m = Materialized.with_(self.key_serde, Long())
        mat = self.builder.materialize(m, "KTABLE-AGGREGATE-")
        mat.key_serde = mat.key_serde if mat.key_serde is not None else self.key_serde
        mat.value_serde = mat.value_serde if mat.value_serde is not None else Long()
        supplier = TableAggregateSupplier(mat.store_name, count_initializer, count_adder,
                                          count_subtractor)
        return self._build(supplier, resolve_name(named, name, "count"), "KTABLE-AGGREGATE-",
                           mat)

    def reduce(self, adder: Callable[[Any, Any], Any], subtractor: Callable[[Any, Any], Any],
               named: Any = None, materialized: Any = None, *,
               name: str | None = None) -> Any:
        """Combine rows with ``adder(agg, new)``; ``subtractor(agg, old)`` removes old rows."""
        require_callable(adder, "adder", "reduce")
        require_callable(subtractor, "subtractor", "reduce")
        named, materialized = _split(named, materialized)
        m = resolve_materialized(materialized, "reduce")
        if m is None:
            m = Materialized.with_(self.key_serde, self.value_serde)
        mat = self.builder.materialize(m, "KTABLE-AGGREGATE-")
        mat.key_serde = mat.key_serde if mat.key_serde is not None else self.key_serde
        mat.value_serde = mat.value_serde if mat.value_serde is not None else self.value_serde
        supplier = TableAggregateSupplier(mat.store_name, None, adder, subtractor, reduce=True)
        return self._build(supplier, resolve_name(named, name, "reduce"), "KTABLE-REDUCE-", mat)

    def aggregate(self, initializer: Callable[[], Any], adder: Callable[[Any, Any, Any], Any],
                  subtractor: Callable[[Any, Any, Any], Any], named: Any = None,
                  materialized: Any = None, *, name: str | None = None) -> Any:
        """Fold rows with ``adder(key, new, agg)``; ``subtractor(key, old, agg)`` removes them."""
        require_callable(initializer, "initializer", "aggregate")
        require_callable(adder, "adder", "aggregate")
        require_callable(subtractor, "subtractor", "aggregate")
        named, materialized = _split(named, materialized)
        m = resolve_materialized(materialized, "aggregate")
        if m is None:
            m = Materialized.with_(self.key_serde, None)
        mat = self.builder.materialize(m, "KTABLE-AGGREGATE-")
        mat.key_serde = mat.key_serde if mat.key_serde is not None else self.key_serde
        supplier = TableAggregateSupplier(mat.store_name, initializer, adder, subtractor)
        return self._build(supplier, resolve_name(named, name, "aggregate"),
                           "KTABLE-AGGREGATE-", mat)

    def _build(self, supplier: TableAggregateSupplier, user_name: str | None, prefix: str,
               mat: MaterializedInternal) -> Any:
        from kslab.dsl.ktable import KTable

        b = self.builder
        sink_name = suffix_or_generate(b, user_name, "-sink", "KSTREAM-SINK-")
        source_name = suffix_or_generate(b, user_name, "-source", "KSTREAM-SOURCE-")
        func_name = or_generate(b, user_name, prefix)
        topic = (self.repartition_name if self.repartition_name is not None
                 else mat.store_name) + "-repartition"
        if self._repartition is None or self.repartition_name is None:
            self._repartition = GroupedTableRepartitionNode(
                source_name, sink_name, topic, self.key_serde, ChangedSerde(self.value_serde)
            )
        b.add_node(self.node, self._repartition)
        node = ProcessorGraphNode(func_name, supplier, store_factory=store_factory(mat))
        b.add_node(self._repartition, node)
        return KTable(b, func_name, mat.key_serde, mat.value_serde, {source_name},
                      mat.queryable_store_name, supplier, node)

    def __repr__(self) -> str:
        return f"<kslab.KGroupedTable {self.name}>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        """Jupyter display: the topology graph with this node highlighted."""
        return mimebundle(self, include, exclude)
