"""``StreamsBuilder``: the DSL's entry point, its one name counter and the lowering to a Topology.

Sources and stores are added as graph nodes under a root; ``build()`` merges duplicate sources,
applies ``topology.optimization``, rewrites repartition filters, then writes every node into a
new ``kslab.Topology`` in build-priority order once all of a node's parents are written, as
Kafka's ``InternalStreamsBuilder.buildAndOptimizeTopology`` does. Invariant: the name counter only
moves forward, one index per generated name, in the order DSL calls are made.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from kslab.dsl import _optimize
from kslab.dsl._graph import (
    GlobalStoreNode,
    GraphNode,
    RepartitionNode,
    StateStoreNode,
    StreamSourceNode,
    TableSourceNode,
)
from kslab.dsl._naming import (
    or_generate,
    resolve_config,
    resolve_materialized,
    suffix_or_generate,
)
from kslab.dsl._stores import MaterializedInternal, store_factory
from kslab.dsl.config import Consumed, Materialized, internal, replaced
from kslab.errors import TopologyError
from kslab.topology.display import mimebundle
from kslab.topology.topology import Topology

__all__ = ["StreamsBuilder"]

SOURCE_NAME = "KSTREAM-SOURCE-"
TABLE_SOURCE_NAME = "KTABLE-SOURCE-"
STATE_STORE_NAME = "STATE-STORE-"


class StreamsBuilder:
    """Builds a topology with the KStream / KTable DSL.

    ``config`` plays Java's ``TopologyConfig``: a ``default.dsl.store`` or
    ``dsl.store.suppliers.class`` given here wins over the one given to ``build()``.

    >>> import kslab as ks
    >>> builder = ks.StreamsBuilder()
    >>> builder.stream("in").filter(lambda k, v: v > 0).to("out")
    >>> print(builder.build().describe())  # doctest: +NORMALIZE_WHITESPACE
    Topologies:
       Sub-topology: 0
        Source: KSTREAM-SOURCE-0000000000 (topics: [in])
          --> KSTREAM-FILTER-0000000001
        Processor: KSTREAM-FILTER-0000000001 (stores: [])
          --> KSTREAM-SINK-0000000002
          <-- KSTREAM-SOURCE-0000000000
        Sink: KSTREAM-SINK-0000000002 (topic: out)
          <-- KSTREAM-FILTER-0000000001
    """

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        # Java's StreamsBuilder(TopologyConfig): a store type set here wins over build()'s.
        self._topology_store_type = _configured_store_type(config)
        self._index = 0
        self._priority = 0
        self.root = GraphNode("root")
        self.key_changing: dict[GraphNode, list[RepartitionNode]] = {}
        self.merge_nodes: list[GraphNode] = []
        self.table_sources: list[TableSourceNode] = []
        self.copartition_groups: list[set[str]] = []
        self.internal_topics: dict[str, int | None] = {}
        self.samples: dict[str, Any] = {}
        self.default_store_type = "persistent"
        # what build() returns every time, and the graph nodes already written into it
        self._topology: Topology | None = None
        self._written: set[int] = set()

    # -- names --------------------------------------------------------------------------------

    def new_processor_name(self, prefix: str) -> str:
        """``prefix`` + the next index, zero-padded to ten digits."""
        name = f"{prefix}{self._index:010d}"
        self._index += 1
        return name

    def new_store_name(self, prefix: str) -> str:
        """``prefix`` + ``STATE-STORE-`` + the next index."""
        return self.new_processor_name(prefix + STATE_STORE_NAME)

    def materialize(self, materialized: Materialized | None, prefix: str | None
                    ) -> MaterializedInternal:
        """Resolve ``materialized``: an anonymous store gets a name from ``prefix`` (one index)."""
        m = materialized if materialized is not None else Materialized()
        name = m.store_name
        queryable = name is not None
        if name is None and prefix is not None:
            name = self.new_store_name(prefix)
        mat = MaterializedInternal(m, name, queryable)
        mat.builder = self
        return mat

    # -- graph --------------------------------------------------------------------------------

    def add_node(self, parents: GraphNode | Iterable[GraphNode], child: GraphNode) -> None:
        """Link ``child`` under ``parents`` and record what the optimizer needs to know."""
        for parent in [parents] if isinstance(parents, GraphNode) else list(parents):
            parent.add_child(child)
            child.build_priority = self._priority
            self._priority += 1
            self._note(child)

    def _note(self, node: GraphNode) -> None:
        if node.key_changing:
            self.key_changing.setdefault(node, [])
        elif isinstance(node, RepartitionNode) and node.optimizable:
            parent = _optimize.key_changing_parent(node)
            if parent is not None and node not in self.key_changing[parent]:
                self.key_changing[parent].append(node)
        elif node.merge_node:
            if node not in self.merge_nodes:
                self.merge_nodes.append(node)
        elif isinstance(node, TableSourceNode) and node not in self.table_sources:
            self.table_sources.append(node)

    def copartition(self, source_nodes: Iterable[str]) -> None:
        """Record that the topics of these source nodes must be co-partitioned."""
        self.copartition_groups.append(set(source_nodes))

    # -- sources ------------------------------------------------------------------------------

    def stream(
        self,
        topics: str | Iterable[str] | re.Pattern[str],
        consumed: Consumed | None = None,
        *,
        key_serde: Any = None,
        value_serde: Any = None,
        name: str | None = None,
        sample: Any = None,
    ) -> Any:
        """A ``KStream`` reading ``topics`` (a name, a list of names, or a compiled pattern)."""
        from kslab.dsl.kstream import KStream

        consumed = resolve_config(Consumed, consumed, "stream", key_serde=key_serde,
                                  value_serde=value_serde, name=name)
        if isinstance(topics, str):
            topic_list: list[str] | re.Pattern[str] = [topics]
        elif isinstance(topics, re.Pattern):
            topic_list = topics
        else:
            # An empty list or a None topic fails at build(), where Java's addSource checks them.
            topic_list = list(topics)
            if not all(t is None or (isinstance(t, str) and t) for t in topic_list):
                msg = f"stream() got topics={topics!r}; pass a topic name, a list, or a re.Pattern"
                raise TopologyError(msg)
        node_name = or_generate(self, consumed.name, SOURCE_NAME)
        node = StreamSourceNode(node_name, topic_list, consumed)
        self.add_node(self.root, node)
        self._keep_sample(topic_list, sample)
        serdes = internal(consumed)
        return KStream(self, node_name, serdes.key_serde, serdes.value_serde,
                       {node_name}, False, node)

    def table(
        self,
        topic: str,
        consumed: Consumed | None = None,
        materialized: Materialized | str | None = None,
        *,
        key_serde: Any = None,
        value_serde: Any = None,
        name: str | None = None,
        sample: Any = None,
    ) -> Any:
        """A ``KTable`` of ``topic``: the latest value per key, stored when needed or asked."""
        from kslab.dsl._table_processors import TableSource
        from kslab.dsl.ktable import KTable

        consumed, mat = self._table_configs(topic, consumed, materialized, key_serde,
                                            value_serde, name)
        source_name = suffix_or_generate(self, consumed.name, "-source", SOURCE_NAME)
        table_name = or_generate(self, consumed.name, TABLE_SOURCE_NAME)
        supplier = TableSource(mat.store_name, mat.queryable_store_name)
        node = TableSourceNode(source_name, table_name, topic, consumed, supplier,
                               store_factory(mat))
        self.add_node(self.root, node)
        self._keep_sample([topic], sample)
        serdes = internal(consumed)
        return KTable(self, table_name, serdes.key_serde, serdes.value_serde,
                      {source_name}, mat.queryable_store_name, supplier, node)

    def global_table(
        self,
        topic: str,
        consumed: Consumed | None = None,
        materialized: Materialized | str | None = None,
        *,
        key_serde: Any = None,
        value_serde: Any = None,
        name: str | None = None,
        sample: Any = None,
    ) -> Any:
        """A ``GlobalKTable``: every instance holds all partitions of ``topic``."""
        from kslab.dsl._table_processors import TableSource
        from kslab.dsl.ktable import GlobalKTable

        _check_not_versioned(materialized if materialized is not None else consumed)
        consumed, mat = self._table_configs(topic, consumed, materialized, key_serde,
                                            value_serde, name)
        mat.logging = False
        mat.caching = False  # nothing reads a global table's updates downstream; skip the cache
        source_name = suffix_or_generate(self, consumed.name, "-source", SOURCE_NAME)
        processor_name = or_generate(self, consumed.name, TABLE_SOURCE_NAME)
        supplier = TableSource(mat.store_name, mat.store_name)
        node = TableSourceNode(source_name, processor_name, topic, consumed, supplier,
                               store_factory(mat), is_global=True)
        self.add_node(self.root, node)
        self._keep_sample([topic], sample)
        return GlobalKTable(mat.store_name, mat.queryable_store_name)

    def _table_configs(self, topic: str, consumed: Any, materialized: Any, key_serde: Any,
                       value_serde: Any, name: str | None) -> tuple[Consumed, MaterializedInternal]:
        if not isinstance(topic, str) or not topic:
            msg = f"table() got topic={topic!r}; pass one topic name"
            raise TopologyError(msg)
        if isinstance(consumed, Materialized | str) and materialized is None:
            consumed, materialized = None, consumed
        mat = resolve_materialized(materialized, "table")
        explicit = consumed is not None or key_serde is not None or value_serde is not None
        consumed = resolve_config(Consumed, consumed, "table", key_serde=key_serde,
                                  value_serde=value_serde, name=name)
        given, stored = internal(consumed), internal(mat) if mat is not None else None
        if stored is None:
            mat = Materialized.with_(given.key_serde, given.value_serde)
        elif explicit or name is not None:
            mat = replaced(mat, key_serde=given.key_serde, value_serde=given.value_serde)
        else:
            consumed = replaced(consumed, key_serde=stored.key_serde,
                                value_serde=stored.value_serde)
        return consumed, self.materialize(mat, topic + "-")

    def _keep_sample(self, topics: Any, sample: Any) -> None:
        if sample is not None and isinstance(topics, list):
            for topic in topics:
                self.samples[topic] = sample

    # -- stores -------------------------------------------------------------------------------

    def add_state_store(self, store_builder: Any) -> StreamsBuilder:
        """Add a store that ``process`` / ``process_values`` calls can connect to by name."""
        if not isinstance(getattr(store_builder, "name", None), str):
            msg = (
                f"add_state_store() got {store_builder!r}, not a store builder; build one with "
                "ks.Stores.key_value_store_builder(...)"
            )
            raise TopologyError(msg)
        self.add_node(self.root, StateStoreNode(store_builder))
        return self

    def add_global_store(
        self,
        store_builder: Any,
        topic: str,
        consumed: Consumed | None,
        state_update_supplier: Callable[[], Any],
        *,
        key_serde: Any = None,
        value_serde: Any = None,
        name: str | None = None,
    ) -> StreamsBuilder:
        """Add a global store filled from ``topic`` by ``state_update_supplier``'s processors."""
        consumed = resolve_config(Consumed, consumed, "add_global_store", key_serde=key_serde,
                                  value_serde=value_serde, name=name)
        if hasattr(store_builder, "with_logging_disabled"):
            store_builder.with_logging_disabled()
        source_name = suffix_or_generate(self, consumed.name, "-source", SOURCE_NAME)
        processor_name = or_generate(self, consumed.name, TABLE_SOURCE_NAME)
        self.add_node(self.root, GlobalStoreNode(store_builder, source_name, topic, consumed,
                                                 processor_name, state_update_supplier))
        return self

    @property
    def generation(self) -> tuple[int, int]:
        """Changes whenever a DSL call adds a node or takes a generated name (the counters of
        generated names and of node order): what a preview compares to see the graph grew."""
        return (self._index, self._priority)

    # -- build --------------------------------------------------------------------------------

    def build(self, props: dict[str, Any] | None = None) -> Topology:
        """Lower the DSL graph onto the builder's ``Topology``, applying
        ``topology.optimization``. As Java's, every call returns the same object: what was
        added to it (``add_processor`` ...) stays, and DSL operators added since the last call
        are written into it."""
        self._prepare(props)
        if self._topology is None:
            self._topology = Topology()
        self._write_graph(self._topology, self._written)
        return self._finish(self._topology)

    def build_detached(self, props: dict[str, Any] | None = None) -> Topology:
        """The whole graph written into a ``Topology`` nobody else holds: what kslab's own
        displays and previews build, so adding nodes to it never changes a user's topology."""
        self._prepare(props)
        topology = Topology()
        self._write_graph(topology, set())
        return self._finish(topology)

    def _finish(self, topology: Topology) -> Topology:
        """Add the internal topics and co-partition groups not yet in ``topology``; check
        co-partitioning."""
        for topic, partitions in self.internal_topics.items():
            if topic not in topology.internal_topics:
                topology.add_internal_topic(topic, partitions)
        for group in self.copartition_groups:
            topology.add_copartition_group(group)
        _optimize.check_copartitioning(topology)
        return topology

    def _prepare(self, props: dict[str, Any] | None) -> None:
        """Resolve the store type and apply Java's graph rewrites (idempotent)."""
        self.default_store_type = (self._topology_store_type or _configured_store_type(props)
                                   or "persistent")
        _optimize.merge_duplicate_sources(self)
        _optimize.optimize(self, props)

    def _write_graph(self, topology: Topology, written: set[int]) -> None:
        """Write every node not in ``written`` once all its parents are, by build priority."""
        queue: list[tuple[int, int, GraphNode]] = [(-1, 0, self.root)]
        seq = 1
        while queue:
            _, _, node = heapq.heappop(queue)
            if id(node) not in written and all(id(p) in written or p is self.root
                                               for p in node.parents):
                node.write(topology)
                written.add(id(node))
            for child in node.children:
                heapq.heappush(queue, (child.build_priority, seq, child))
                seq += 1

    def __repr__(self) -> str:
        return f"<kslab.StreamsBuilder: {self._index} names used>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        """Jupyter display: the topology graph (``kslab.topology.display``'s renderer)."""
        return mimebundle(self, include, exclude)


def _configured_store_type(props: Mapping[str, Any] | None) -> str | None:
    """The DSL store type ``props`` asks for, or ``None``: ``dsl.store.suppliers.class`` wins
    over ``default.dsl.store``, as in Java's ``TopologyConfig.resolveDslStoreSuppliers``."""
    props = props or {}
    suppliers = props.get("dsl.store.suppliers.class")
    if suppliers is not None:
        return suppliers_store_type(suppliers)
    value = props.get("default.dsl.store")
    if value is None:
        return None
    kind = str(value).lower().replace("-", "_")
    if kind in ("rocksdb", "rocks_db", "persistent"):
        return "persistent"
    if kind in ("in_memory", "inmemory"):
        return "in_memory"
    msg = f"default.dsl.store={value!r} is not a store type; use 'rocksDB' or 'in_memory'"
    raise TopologyError(msg)


def suppliers_store_type(value: Any) -> str:
    """Map a ``dsl.store.suppliers.class`` (Java's built-in class names, or kslab's store type
    names) to ``"in_memory"`` or ``"persistent"``."""
    name = value if isinstance(value, str) else getattr(value, "__name__", str(value))
    key = re.sub(r"[^a-z]", "", name.lower().rsplit(".", 1)[-1].rsplit("$", 1)[-1])
    if key in ("inmemorydslstoresuppliers", "inmemory"):
        return "in_memory"
    if key in ("rocksdbdslstoresuppliers", "rocksdb", "persistent"):
        return "persistent"
    msg = (
        f"dsl.store.suppliers.class={value!r} is not a built-in DSL store supplier; use "
        "'org.apache.kafka.streams.state.BuiltInDslStoreSuppliers$InMemoryDslStoreSuppliers', "
        "'...$RocksDBDslStoreSuppliers', 'in_memory' or 'rocks_db'"
    )
    raise TopologyError(msg)


def _check_not_versioned(materialized: Any) -> None:
    """Global tables are never versioned: Java rejects a versioned store supplier up front."""
    if not isinstance(materialized, Materialized):
        return
    settings = internal(materialized)
    supplier = settings.supplier
    if settings.history_retention is not None or (
        getattr(supplier, "history_retention", None) is not None
    ):
        msg = (
            "GlobalTables cannot be versioned; give global_table() a key-value store "
            "(Materialized.as_(name) or a key-value store supplier)"
        )
        raise TopologyError(msg)
