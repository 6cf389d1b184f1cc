"""``CogroupedKStream``: several grouped streams aggregated into one table through one store.

Each grouped stream gets its own aggregate processor (repartitioned first if its key changed);
all of them write the same store and feed one pass-through merge node, as Kafka's
``CogroupedStreamAggregateBuilder`` lowers it. Invariant: only the first aggregate processor owns
(adds) the store; the others connect to it by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kslab.dsl._aggregates import AggregateSupplier
from kslab.dsl._graph import GraphNode, ProcessorGraphNode
from kslab.dsl._naming import resolve_materialized, resolve_name, suffix_or_generate
from kslab.dsl._optimize import new_repartition_node
from kslab.dsl._processors import require_callable, require_not_none
from kslab.dsl._stores import store_factory
from kslab.dsl._table_processors import StoreGetterSupplier
from kslab.dsl.config import Materialized, Named
from kslab.errors import TopologyError
from kslab.processor import Processor, ProcessorContext
from kslab.records import Record
from kslab.topology.display import mimebundle

__all__ = ["CogroupedKStream"]

AGGREGATE_NAME = "COGROUPKSTREAM-AGGREGATE-"
MERGE_NAME = "COGROUPKSTREAM-MERGE-"


class CogroupedKStream:
    """Grouped streams with one aggregator each, aggregated together by ``aggregate``."""

    def __init__(self, builder: Any) -> None:
        self.builder = builder
        self._groups: dict[Any, Callable[[Any, Any, Any], Any]] = {}
        self._parents: dict[Any, GraphNode] = {}

    def cogroup(self, grouped: Any, aggregator: Callable[[Any, Any, Any], Any]) -> CogroupedKStream:
        """Add ``grouped`` with its ``aggregator(key, value, aggregate)``."""
        from kslab.dsl.grouped import KGroupedStream

        require_not_none(grouped, "groupedStream", "cogroup")
        if not isinstance(grouped, KGroupedStream):
            msg = f"cogroup() got grouped={grouped!r}; pass a KGroupedStream (from group_by_key)"
            raise TopologyError(msg)
        require_callable(aggregator, "aggregator", "cogroup")
        self._groups[grouped] = aggregator
        return self

    def windowed_by(self, windows: Any) -> Any:
        """Aggregate the co-grouped streams per window."""
        from kslab.dsl.windowed import WindowedCogroupedKStream

        return WindowedCogroupedKStream(self, windows)

    def aggregate(self, initializer: Callable[[], Any], named: Any = None,
                  materialized: Any = None, *, name: str | None = None) -> Any:
        """Aggregate every co-grouped stream into one ``KTable``."""
        from kslab.dsl.ktable import KTable

        require_callable(initializer, "initializer", "aggregate")
        if isinstance(named, Materialized | str) and not isinstance(named, Named) and \
                materialized is None:
            named, materialized = None, named
        first = next(iter(self._groups))
        m = resolve_materialized(materialized, "aggregate") or Materialized.with_(
            first.key_serde, None)
        b = self.builder
        mat = b.materialize(m, AGGREGATE_NAME)
        user = resolve_name(named, name, "aggregate")
        self.repartition_inputs(mat.store_name)
        processors, suppliers = [], []
        for index, (grouped, aggregator) in enumerate(self._groups.items()):
            supplier = AggregateSupplier(mat.store_name, initializer, aggregator)
            node_name = suffix_or_generate(b, user, f"-cogroup-agg-{index}", AGGREGATE_NAME)
            if index == 0:
                node = ProcessorGraphNode(node_name, supplier, store_factory=store_factory(mat))
            else:
                node = ProcessorGraphNode(node_name, supplier, store_names=[mat.store_name])
            b.add_node(self._parents[grouped], node)
            processors.append(node)
            suppliers.append(supplier)
        merge_name = suffix_or_generate(b, user, "-cogroup-merge", MERGE_NAME)
        merger = PassThroughSupplier(suppliers, mat.store_name)
        merge = ProcessorGraphNode(merge_name, merger)
        b.add_node(processors, merge)
        return KTable(b, merge_name, mat.key_serde, mat.value_serde, {merge_name},
                      mat.queryable_store_name, merger, merge)

    @property
    def aggregators(self) -> dict[Any, Callable[[Any, Any, Any], Any]]:
        """Each co-grouped ``KGroupedStream`` with its aggregator, in ``cogroup`` order (a
        copy)."""
        return dict(self._groups)

    def parent_of(self, grouped: Any) -> GraphNode:
        """The graph node ``grouped``'s records come from: its repartition when it needs one
        (``repartition_inputs`` must have run), else its own node."""
        return self._parents[grouped]

    def repartition_inputs(self, store_name: str) -> None:
        """Give each co-grouped stream needing a repartition its repartition topic (named after
        its ``Grouped`` or ``store_name``), and co-partition the inputs."""
        for grouped in self._groups:
            if grouped.repartition_required:
                prefix = grouped.repartition_name or store_name
                node = new_repartition_node(self.builder, grouped.key_serde, grouped.value_serde,
                                            prefix)
                if grouped not in self._parents:
                    self.builder.add_node(grouped.node, node)
                    self._parents[grouped] = node
            else:
                self._parents[grouped] = grouped.node
        groups = list(self._parents)
        sources: set[str] = set()
        for grouped in groups:
            sources |= grouped.source_nodes
        self.builder.copartition(sources)

    def __repr__(self) -> str:
        return f"<kslab.CogroupedKStream of {len(self._groups)} grouped streams>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        """Jupyter display: the topology graph (``kslab.topology.display``'s renderer)."""
        return mimebundle(self, include, exclude)


class PassThroughSupplier:
    """Java's ``KTablePassThrough``: forwards the aggregates; reads go to the shared store."""

    def __init__(self, parents: list[AggregateSupplier], store_name: str) -> None:
        self.parents = parents
        self.store_name = store_name

    def enable_sending_old_values(self, force_materialization: bool) -> bool:
        """Every aggregate processor sends old values."""
        for parent in self.parents:
            parent.send_old_values = True
        return True

    def view(self) -> StoreGetterSupplier:
        """Getters reading the shared store."""
        return StoreGetterSupplier(self.store_name)

    def __call__(self) -> Processor:
        return _PassThrough()


class _PassThrough(Processor):
    def init(self, context: ProcessorContext) -> None:
        self.ctx = context

    def process(self, record: Record) -> None:
        self.ctx.forward(record)
