"""The DSL's logical plan: graph nodes that each know how to write themselves into a Topology.

A DSL call only adds a node here; ``StreamsBuilder.build()`` later writes every node into a
``kslab.Topology`` once all its parents are written, in build-priority order, as Kafka's
``GraphNode.writeToTopology`` does. Invariant: a node's ``name`` is the name its children see as
their parent in the topology (for a repartition node, the name of the source reading the topic).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from kslab.dsl.config import internal
from kslab.processor import FailOnInvalidTimestamp

if TYPE_CHECKING:
    from kslab.topology.topology import Topology

__all__ = [
    "GlobalStoreNode",
    "GraphNode",
    "GroupedTableRepartitionNode",
    "KTableKTableJoinNode",
    "ProcessorGraphNode",
    "RepartitionNode",
    "SinkGraphNode",
    "StateStoreNode",
    "StreamSourceNode",
    "StreamTableJoinNode",
    "TableProcessorNode",
    "TableSourceNode",
]

StoreFactory = Callable[[], Any]
"""Makes the store builder of a DSL store when the node is written (materialization is lazy)."""


class GraphNode:
    """A node of the logical plan: parents, children, build priority and optimizer flags."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.parents: list[GraphNode] = []
        self.children: list[GraphNode] = []
        self.build_priority = 0
        self.written = False
        self.key_changing = False
        self.value_changing = False
        self.merge_node = False
        self.relaxed_null_key_join = False

    def add_child(self, child: GraphNode) -> None:
        """Link ``child`` below this node (once)."""
        if child not in self.children:
            self.children.append(child)
        if self not in child.parents:
            child.parents.append(self)

    def remove_child(self, child: GraphNode) -> None:
        """Unlink ``child`` from this node."""
        if child in self.children:
            self.children.remove(child)
        if self in child.parents:
            child.parents.remove(self)

    def parent_names(self) -> tuple[str, ...]:
        """The topology names of the parents, in link order."""
        return tuple(p.name for p in self.parents)

    def write(self, topology: Topology) -> None:
        """Add this node's sources, processors, sinks and stores to ``topology``."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} priority={self.build_priority}>"


class StreamSourceNode(GraphNode):
    """``builder.stream``: one source node over topics or a pattern."""

    def __init__(self, name: str, topics: list[str] | re.Pattern[str], consumed: Any) -> None:
        super().__init__(name)
        self.topics = topics
        self.consumed = consumed

    def merge(self, other: StreamSourceNode) -> None:
        """Adopt the children of a second source over the same topics (same reset policy)."""
        mine, theirs = internal(self.consumed).offset_reset, internal(other.consumed).offset_reset
        if mine != theirs:
            from kslab.errors import TopologyError

            msg = (
                "Can't configure different offset reset policies on the same input topic(s) "
                f"(sources '{self.name}': {mine!r} and '{other.name}': {theirs!r}); give both "
                "streams the same Consumed offset reset policy"
            )
            raise TopologyError(msg)
        for child in list(other.children):
            other.remove_child(child)
            self.add_child(child)

    def write(self, topology: Topology) -> None:
        """Add the source."""
        topics = [self.topics] if isinstance(self.topics, re.Pattern) else self.topics
        c = internal(self.consumed)
        topology.add_source(
            self.name, *topics, key_serde=c.key_serde, value_serde=c.value_serde,
            timestamp_extractor=c.timestamp_extractor, offset_reset=c.offset_reset,
        )


class ProcessorGraphNode(GraphNode):
    """One processor; optionally connected to named stores and owning a store it creates."""

    def __init__(
        self,
        name: str,
        supplier: Callable[[], Any],
        *,
        fixed_key: bool = False,
        store_names: Iterable[str] = (),
        store_factory: StoreFactory | None = None,
    ) -> None:
        super().__init__(name)
        self.supplier = supplier
        self.fixed_key = fixed_key
        self.store_names = tuple(store_names)
        self.store_factory = store_factory

    def write(self, topology: Topology) -> None:
        """Add the processor, connect its stores, add the store it owns."""
        topology.add_processor_node(self.name, self.supplier, self.parent_names(),
                                    fixed_key=self.fixed_key)
        if self.store_names:
            topology.connect_processor_and_state_stores(self.name, *self.store_names)
        if self.store_factory is not None:
            builder = self.store_factory()
            if builder is not None:
                topology.add_state_store(builder, self.name)


class TableProcessorNode(ProcessorGraphNode):
    """A KTable operator; a table-source supplier adds its store only when materialized."""

    def write(self, topology: Topology) -> None:
        """Add the processor and, if it keeps one, its store."""
        topology.add_processor_node(self.name, self.supplier, self.parent_names(), fixed_key=False)
        if self.store_names:
            topology.connect_processor_and_state_stores(self.name, *self.store_names)
        materialized = getattr(self.supplier, "materialized", None)
        if materialized is not None and not materialized:
            return
        if self.store_factory is not None:
            topology.add_state_store(self.store_factory(), self.name)


class StreamTableJoinNode(ProcessorGraphNode):
    """A stream-table (or stream-global-table) join processor, connected to the table's stores."""

    def write(self, topology: Topology) -> None:
        """Add the join processor and connect the table's stores."""
        topology.add_processor_node(self.name, self.supplier, self.parent_names(), fixed_key=False)
        if self.store_names:
            topology.connect_processor_and_state_stores(self.name, *self.store_names)


class RepartitionNode(GraphNode):
    """A filter, a sink to ``<name>-repartition`` and a source reading it back.

    ``optimizable`` repartitions (inserted by the DSL) may be merged by ``topology.optimization``;
    those from ``repartition()`` may not.
    """

    def __init__(
        self,
        source_name: str,
        sink_name: str,
        filter_name: str,
        topic: str,
        key_serde: Any,
        value_serde: Any,
        *,
        filter_supplier: Callable[[], Any],
        partitioner: Callable[..., Any] | None = None,
        partitions: int | None = None,
        optimizable: bool = True,
    ) -> None:
        super().__init__(source_name)
        self.sink_name = sink_name
        self.filter_name = filter_name
        self.topic = topic
        self.key_serde = key_serde
        self.value_serde = value_serde
        self.filter_supplier = filter_supplier
        self.partitioner = partitioner
        self.partitions = partitions
        self.optimizable = optimizable

    def write(self, topology: Topology) -> None:
        """Add the internal topic, the filter, the sink and the source."""
        topology.add_internal_topic(self.topic, self.partitions)
        topology.add_processor_node(self.filter_name, self.filter_supplier, self.parent_names(),
                                    fixed_key=False)
        topology.add_sink(self.sink_name, self.topic, self.filter_name, key_serde=self.key_serde,
                          value_serde=self.value_serde, partitioner=self.partitioner)
        # Java reads its repartition topics with FailOnInvalidTimestamp, whatever
        # default.timestamp.extractor says: the timestamps were extracted once, upstream
        topology.add_source(self.name, self.topic, key_serde=self.key_serde,
                            value_serde=self.value_serde,
                            timestamp_extractor=FailOnInvalidTimestamp())


class GroupedTableRepartitionNode(GraphNode):
    """The sink and source of a table ``group_by``: change records go through the topic."""

    def __init__(self, source_name: str, sink_name: str, topic: str, key_serde: Any,
                 value_serde: Any) -> None:
        super().__init__(source_name)
        self.sink_name = sink_name
        self.topic = topic
        self.key_serde = key_serde
        self.value_serde = value_serde

    def write(self, topology: Topology) -> None:
        """Add the internal topic, the sink and the source."""
        topology.add_internal_topic(self.topic, None)
        topology.add_sink(self.sink_name, self.topic, *self.parent_names(),
                          key_serde=self.key_serde, value_serde=self.value_serde)
        topology.add_source(self.name, self.topic, key_serde=self.key_serde,
                            value_serde=self.value_serde,
                            timestamp_extractor=FailOnInvalidTimestamp())


class SinkGraphNode(GraphNode):
    """``to``: a sink writing to a topic or to the topic an extractor names."""

    def __init__(self, name: str, topic: str | Callable[..., str], key_serde: Any,
                 value_serde: Any, partitioner: Callable[..., Any] | None) -> None:
        super().__init__(name)
        self.topic = topic
        self.key_serde = key_serde
        self.value_serde = value_serde
        self.partitioner = partitioner

    def write(self, topology: Topology) -> None:
        """Add the sink (a windowed key serde without a partitioner partitions by the base key,
        as Java's ``StreamSinkNode``)."""
        from kslab.dsl._partitioners import windowed_partitioner

        topology.add_sink(self.name, self.topic, *self.parent_names(), key_serde=self.key_serde,
                          value_serde=self.value_serde,
                          partitioner=windowed_partitioner(self.key_serde, self.partitioner))


class TableSourceNode(GraphNode):
    """``builder.table`` / ``global_table``: a source plus the KTable-source processor."""

    def __init__(self, source_name: str, processor_name: str, topic: str, consumed: Any,
                 supplier: Any, store_factory: StoreFactory, *, is_global: bool = False) -> None:
        super().__init__(processor_name)
        self.source_name = source_name
        self.topic = topic
        self.consumed = consumed
        self.supplier = supplier
        self.store_factory = store_factory
        self.is_global = is_global
        self.reuse_source_topic = False

    def write(self, topology: Topology) -> None:
        """Add the source and processor; the store only when the table is materialized."""
        c = internal(self.consumed)
        if self.is_global:
            topology.add_global_store(
                self.store_factory(), self.source_name, self.topic, self.name, self.supplier,
                key_serde=c.key_serde, value_serde=c.value_serde,
                timestamp_extractor=c.timestamp_extractor,
            )
            return
        topology.add_source(self.source_name, self.topic, key_serde=c.key_serde,
                            value_serde=c.value_serde, timestamp_extractor=c.timestamp_extractor,
                            offset_reset=c.offset_reset)
        topology.add_processor_node(self.name, self.supplier, (self.source_name,), fixed_key=False)
        if self.supplier.materialized:
            builder = self.store_factory()
            topology.add_state_store(builder, self.name)
            if self.reuse_source_topic:
                builder.with_logging_disabled()
                topology.restore_store_from(builder.name, self.topic)


class KTableKTableJoinNode(GraphNode):
    """A table-table join: one processor per side and a merger after both."""

    def __init__(self, merge_name: str, this_name: str, this_supplier: Any, other_name: str,
                 other_supplier: Any, merger: Any, this_side: str, other_side: str,
                 this_stores: Callable[[], Iterable[str]],
                 other_stores: Callable[[], Iterable[str]],
                 store_factory: StoreFactory | None) -> None:
        super().__init__(merge_name)
        self.this_name, self.this_supplier = this_name, this_supplier
        self.other_name, self.other_supplier = other_name, other_supplier
        self.merger = merger
        self.this_side, self.other_side = this_side, other_side
        self.this_stores, self.other_stores = this_stores, other_stores
        self.store_factory = store_factory

    def write(self, topology: Topology) -> None:
        """Add both join processors, the merger, the store connections and the result store."""
        topology.add_processor_node(self.this_name, self.this_supplier, (self.this_side,),
                                    fixed_key=False)
        topology.add_processor_node(self.other_name, self.other_supplier, (self.other_side,),
                                    fixed_key=False)
        topology.add_processor_node(self.name, self.merger, (self.this_name, self.other_name),
                                    fixed_key=False)
        topology.connect_processor_and_state_stores(self.this_name, *self.other_stores())
        topology.connect_processor_and_state_stores(self.other_name, *self.this_stores())
        if self.store_factory is not None:
            topology.add_state_store(self.store_factory(), self.name)


class StateStoreNode(GraphNode):
    """``builder.add_state_store``: a store that processors connect to by name.

    ``store_builder`` is a builder, or a store factory called when the node is written.
    """

    def __init__(self, store_builder: Any, name: str | None = None) -> None:
        super().__init__(f"state-store:{name or store_builder.name}")
        self.store_builder = store_builder

    def write(self, topology: Topology) -> None:
        """Add the store, connected to nothing yet."""
        builder = self.store_builder
        topology.add_state_store(builder() if callable(builder) else builder)


class GlobalStoreNode(GraphNode):
    """``builder.add_global_store``: a source and state-update processor for a global store."""

    def __init__(self, store_builder: Any, source_name: str, topic: str, consumed: Any,
                 processor_name: str, supplier: Callable[[], Any]) -> None:
        super().__init__(processor_name)
        self.store_builder = store_builder
        self.source_name = source_name
        self.topic = topic
        self.consumed = consumed
        self.supplier = supplier

    def write(self, topology: Topology) -> None:
        """Add the global store with its source and processor."""
        c = internal(self.consumed)
        topology.add_global_store(
            self.store_builder, self.source_name, self.topic, self.name, self.supplier,
            key_serde=c.key_serde, value_serde=c.value_serde,
            timestamp_extractor=c.timestamp_extractor,
        )
