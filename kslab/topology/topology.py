"""The Processor API topology builder: sources, processors, sinks and the stores they share.

``Topology`` records wiring only. Every ``add_*`` checks its arguments at once and raises
``TopologyError`` naming the node, as Kafka's ``InternalTopologyBuilder`` does, so a mistake
shows up on the line (or notebook cell) that made it. Node order is insertion order; Kafka's
sub-topology numbering and describe() text depend on it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kslab.errors import MissingArgumentError, TopologyError
from kslab.topology._nodes import (
    GlobalStoreSpec,
    Node,
    ProcessorNode,
    SinkNode,
    SourceNode,
    check_supplier,
)
from kslab.topology.display import mimebundle

if TYPE_CHECKING:
    import networkx

    from kslab.topology.description import TopologyDescription

__all__ = ["InternalTopic", "MissingTopologyArgumentError", "Topology"]

_OFFSET_RESETS = ("earliest", "latest", "none", None)


class MissingTopologyArgumentError(TopologyError, MissingArgumentError):
    """A Processor API call got ``None`` for a name, topic, supplier or store (Java's NPE)."""


def _require(value: Any, what: str, call: str) -> None:
    """Raise ``MissingTopologyArgumentError`` when ``value`` is ``None``, as Java's
    ``Objects.requireNonNull`` does before any other check."""
    if value is None:
        msg = f"{call}() got None for {what}; pass a value"
        raise MissingTopologyArgumentError(msg)


def _require_store_source_args(store_builder: Any, source_name: Any, topic: Any,
                               processor_name: Any, supplier: Any, call: str) -> None:
    """Java's null checks of ``addGlobalStore`` / ``addReadOnlyStateStore``, in its order."""
    _require(store_builder, "the store builder", call)
    _require(source_name, "the source name", call)
    _require(topic, "the topic", call)
    _require(supplier, "the state update supplier", call)
    _require(processor_name, "the processor name", call)


@dataclass
class InternalTopic:
    """A topic the topology creates for itself (repartition); named without the app id prefix."""

    name: str
    partitions: int | None = None


class Topology:
    """A graph of processing nodes: what ``StreamsBuilder.build()`` returns, or built by hand.

    >>> topo = Topology()
    >>> _ = topo.add_source("src", "in").add_sink("out", "out-topic", "src")
    >>> sorted(topo.source_topics())
    ['in']
    """

    def __init__(self) -> None:
        self._nodes: dict[str, Node] = {}
        self._stores: dict[str, Any] = {}
        self._store_users: dict[str, list[str]] = {}
        self._global_stores: dict[str, GlobalStoreSpec] = {}
        self._topic_to_source: dict[str, str] = {}
        self._pattern_sources: list[str] = []
        self._internal_topics: dict[str, InternalTopic] = {}
        self._store_changelog_override: dict[str, str] = {}
        self._copartition_groups: list[set[str]] = []
        self._version = 0

    # -- sources, processors, sinks ------------------------------------------------------------

    def add_source(
        self,
        name: str,
        *topics: str | re.Pattern[str],
        key_serde: Any = None,
        value_serde: Any = None,
        timestamp_extractor: Callable[..., int] | None = None,
        offset_reset: str | None = None,
    ) -> Topology:
        """Add a source node reading ``topics`` (or one compiled pattern) into the topology."""
        if not topics:
            msg = f"Source '{name}' has no topic; pass at least one topic name or a re.Pattern"
            raise TopologyError(msg)
        _require(name, "the source name", "add_source")
        self._check_new_name(name)
        for topic in topics:
            _require(topic, f"a topic of source '{name}'", "add_source")
        if isinstance(offset_reset, str):
            offset_reset = offset_reset.lower()
        if offset_reset not in _OFFSET_RESETS:
            msg = (
                f"Source '{name}' has offset_reset={offset_reset!r}; "
                "use 'earliest', 'latest', 'none' or None"
            )
            raise TopologyError(msg)
        patterns = [t for t in topics if isinstance(t, re.Pattern)]
        if patterns and len(topics) > 1:
            msg = f"Source '{name}' mixes a pattern with other topics; add one source per pattern"
            raise TopologyError(msg)
        node = SourceNode(
            name=name,
            topics=[] if patterns else [self._check_topic(name, t) for t in topics],
            pattern=patterns[0] if patterns else None,
            key_serde=key_serde,
            value_serde=value_serde,
            timestamp_extractor=timestamp_extractor,
            offset_reset=offset_reset,
        )
        self._register_source_topics(node)
        self._nodes[name] = node
        self._version += 1
        return self

    def add_processor(
        self, name: str, supplier: Callable[[], Any], *parent_names: str
    ) -> Topology:
        """Add a processor; ``supplier`` must return a new ``Processor`` on every call (one that
        does not is refused here, as Java's ``checkSupplier``)."""
        _require(name, "the processor name", "add_processor")
        _require(supplier, f"the supplier of processor '{name}'", "add_processor")
        check_supplier(supplier, f"Processor '{name}'")
        return self.add_processor_node(name, supplier, parent_names, fixed_key=False)

    def add_sink(
        self,
        name: str,
        topic: str | Callable[..., str],
        *parent_names: str,
        key_serde: Any = None,
        value_serde: Any = None,
        partitioner: Callable[..., int | None] | None = None,
    ) -> Topology:
        """Add a sink writing to ``topic``, or to ``topic(key, value, record_context)``."""
        _require(name, "the sink name", "add_sink")
        _require(topic, f"the topic (or topic extractor) of sink '{name}'", "add_sink")
        self._check_new_name(name)
        if not parent_names:
            msg = f"Sink '{name}' must have at least one parent; pass the node(s) it writes from"
            raise TopologyError(msg)
        self._check_parents(name, parent_names)
        if callable(topic):
            node = SinkNode(name, None, tuple(parent_names), topic_extractor=topic)
        else:
            node = SinkNode(name, self._check_topic(name, topic), tuple(parent_names))
        node.key_serde, node.value_serde, node.partitioner = key_serde, value_serde, partitioner
        self._attach(node)
        return self

    # -- state stores ---------------------------------------------------------------------------

    def add_state_store(self, store_builder: Any, *processor_names: str) -> Topology:
        """Add a store and connect it to the named processors (more can connect later)."""
        _require(store_builder, "the store builder", "add_state_store")
        for processor in processor_names:
            _require(processor, "a processor name", "add_state_store")
        store_name = _store_name(store_builder)
        existing = self._stores.get(store_name)
        if existing is not None and existing is not store_builder:
            raise TopologyError(_different_store("StateStore", store_name))
        if store_name in self._global_stores:
            raise TopologyError(_different_store("GlobalStateStore", store_name))
        for processor in processor_names:
            self._check_connectable(processor, store_name, adding=True)
        self._stores[store_name] = store_builder
        self._store_users.setdefault(store_name, [])
        for processor in processor_names:
            self._connect(processor, store_name)
        self._version += 1
        return self

    def connect_processor_and_state_stores(
        self, processor_name: str, *store_names: str
    ) -> Topology:
        """Give ``processor_name`` access to stores that were added already."""
        _require(processor_name, "the processor name", "connect_processor_and_state_stores")
        if not store_names:
            msg = (
                f"connect_processor_and_state_stores('{processor_name}') got no store; "
                "pass at least one store name"
            )
            raise TopologyError(msg)
        for store_name in store_names:
            _require(store_name, "a store name", "connect_processor_and_state_stores")
        for store_name in store_names:
            self._check_connectable(processor_name, store_name, adding=False)
        for store_name in store_names:
            self._connect(processor_name, store_name)
        self._version += 1
        return self

    def add_global_store(
        self,
        store_builder: Any,
        source_name: str,
        topic: str,
        processor_name: str,
        state_update_supplier: Callable[[], Any],
        key_serde: Any = None,
        value_serde: Any = None,
        timestamp_extractor: Callable[..., int] | None = None,
    ) -> Topology:
        """Add a store filled from every partition of ``topic`` on every instance.

        The topic is the store's changelog, so the builder must have logging disabled.
        """
        _require_store_source_args(store_builder, source_name, topic, processor_name,
                                   state_update_supplier, "add_global_store")
        check_supplier(state_update_supplier, f"Global store processor '{processor_name}'")
        store_name = _store_name(store_builder)
        self._check_store_source_args(store_builder, source_name, processor_name, store_name,
                                      global_store=True)
        source = SourceNode(
            source_name,
            [self._check_topic(source_name, topic)],
            key_serde=key_serde,
            value_serde=value_serde,
            timestamp_extractor=timestamp_extractor,
            is_global=True,
        )
        self._register_source_topics(source)
        self._nodes[source_name] = source
        processor = ProcessorNode(
            processor_name, state_update_supplier, (source_name,), stores=[store_name],
            is_global=True,
        )
        self._attach(processor)
        self._global_stores[store_name] = GlobalStoreSpec(
            store_builder, source_name, topic, processor_name
        )
        self._version += 1
        return self

    def add_read_only_state_store(
        self,
        store_builder: Any,
        source_name: str,
        topic: str,
        processor_name: str,
        state_update_supplier: Callable[[], Any],
        key_serde: Any = None,
        value_serde: Any = None,
        timestamp_extractor: Callable[..., int] | None = None,
    ) -> Topology:
        """Add a local store filled only from ``topic``, which doubles as its changelog."""
        _require_store_source_args(store_builder, source_name, topic, processor_name,
                                   state_update_supplier, "add_read_only_state_store")
        store_name = _store_name(store_builder)
        self._check_store_source_args(store_builder, source_name, processor_name, store_name)
        if hasattr(store_builder, "with_logging_disabled"):
            store_builder.with_logging_disabled()
        self.add_source(
            source_name,
            topic,
            key_serde=key_serde,
            value_serde=value_serde,
            timestamp_extractor=timestamp_extractor,
            offset_reset="earliest",
        )
        self.add_processor(processor_name, state_update_supplier, source_name)
        self.add_state_store(store_builder, processor_name)
        self.restore_store_from(store_name, topic)
        return self

    # -- what the engines and renderers read ----------------------------------------------------

    @property
    def nodes(self) -> dict[str, Node]:
        """Every node by name, in the order added."""
        return self._nodes

    @property
    def state_stores(self) -> dict[str, Any]:
        """Local store builders by store name."""
        return self._stores

    @property
    def global_stores(self) -> dict[str, GlobalStoreSpec]:
        """Global stores by store name."""
        return self._global_stores

    @property
    def internal_topics(self) -> dict[str, InternalTopic]:
        """Topics the topology creates itself, by unprefixed name."""
        return self._internal_topics

    def store_users(self, store_name: str) -> list[str]:
        """The processors connected to a store, in connection order."""
        return list(self._store_users.get(store_name, ()))

    def copartitioned_sources(self) -> list[set[str]]:
        """The source-node names of each co-partition group (``copartition_groups`` gives their
        topics), in the order the groups were added."""
        return [set(group) for group in self._copartition_groups]

    def copartition_groups(self) -> list[set[str]]:
        """The topics each join (or cogroup) needs co-partitioned, one set per group."""
        groups = []
        for group in self._copartition_groups:
            topics: set[str] = set()
            for name in group:
                node = self._nodes.get(name)
                if isinstance(node, SourceNode):
                    topics.update(node.topics)
            groups.append(topics)
        return groups

    def source_topics(self) -> list[str]:
        """Every named (non-pattern) source topic, in registration order."""
        return list(self._topic_to_source)

    def source_for_topic(self, topic: str) -> SourceNode | None:
        """The source node reading ``topic`` (by name or pattern), or ``None``."""
        name = self._topic_to_source.get(topic)
        if name is not None:
            return self._nodes[name]  # type: ignore[return-value]
        for name in self._pattern_sources:
            node = self._nodes[name]
            if node.matches(topic):  # type: ignore[union-attr]
                return node  # type: ignore[return-value]
        return None

    def store_source_topic(self, store_name: str) -> str | None:
        """The source topic ``store_name`` is restored from instead of a changelog of its own
        (a global or read-only store's topic, a source table's reused topic), or ``None``."""
        return self._store_changelog_override.get(store_name)

    def changelog_topic_for(self, store_name: str, application_id: str) -> str | None:
        """The topic a store is restored from, or ``None`` when it is not logged."""
        override = self._store_changelog_override.get(store_name)
        if override is not None:
            return override
        builder = self._stores.get(store_name)
        if builder is None or not getattr(builder, "logging_enabled", True):
            return None
        return f"{application_id}-{store_name}-changelog"

    def resolve_topic(self, topic: str, application_id: str) -> str:
        """The real name of ``topic``: internal topics get the ``<application.id>-`` prefix."""
        if topic in self._internal_topics:
            return f"{application_id}-{topic}"
        return topic

    def describe(self) -> TopologyDescription:
        """Kafka Streams' TopologyDescription of this topology; ``str()`` gives its text."""
        from kslab.topology.description import describe

        return describe(self)

    def to_networkx(self) -> networkx.DiGraph:
        """The topology as a networkx graph of nodes, topics and stores, for analysis."""
        from kslab.topology.rendering import to_networkx

        return to_networkx(self)

    def to_dot(self, highlight: str | Iterable[str] | None = None) -> str:
        """Graphviz source drawing the topology; ``highlight`` names node(s) to fill."""
        from kslab.topology.rendering import to_dot

        return to_dot(self, highlight=highlight)

    # -- what the DSL writes (Java's InternalTopologyBuilder) ------------------------------------

    def add_internal_topic(self, name: str, partitions: int | None = None) -> None:
        """Declare a topic the topology creates itself (a repartition or a join's topic), by
        unprefixed name; ``partitions`` ``None``: as many as its source topics have."""
        self._internal_topics[name] = InternalTopic(name, partitions)
        self._version += 1

    def add_copartition_group(self, source_names: Iterable[str]) -> None:
        """Require the topics of these source nodes to be co-partitioned (a join's or a
        cogroup's inputs); a group already added is not added twice."""
        group = set(source_names)
        if group not in self._copartition_groups:
            self._copartition_groups.append(group)

    def restore_store_from(self, store_name: str, topic: str) -> None:
        """Restore ``store_name`` from ``topic``, the topic its source reads, instead of a
        changelog of its own (Kafka's source-topic changelog reuse)."""
        self._store_changelog_override[store_name] = topic

    def add_processor_node(
        self,
        name: str,
        supplier: Callable[[], Any],
        parent_names: Iterable[str],
        *,
        fixed_key: bool,
    ) -> Topology:
        """``add_processor`` as the DSL calls it: the parents as one iterable, and ``fixed_key``
        saying whether the processor receives ``FixedKeyRecord``s (``process_values``)."""
        parent_names = tuple(parent_names)
        _require(name, "the processor name", "add_processor")
        _require(supplier, f"the supplier of processor '{name}'", "add_processor")
        self._check_new_name(name)
        if not callable(supplier):
            msg = (
                f"Processor '{name}' got supplier {supplier!r}, which is not callable; pass the "
                "Processor class or a zero-argument function returning a new instance"
            )
            raise TopologyError(msg)
        if not parent_names:
            msg = (
                f"Processor '{name}' must have at least one parent; pass the name of its "
                "source or upstream processor"
            )
            raise TopologyError(msg)
        self._check_parents(name, parent_names)
        node = ProcessorNode(name, supplier, parent_names, fixed_key=fixed_key)
        self._attach(node)
        for store_builder in _supplier_stores(supplier):
            self.add_state_store(store_builder, name)
        return self

    # -- checks ---------------------------------------------------------------------------------

    def _attach(self, node: Node) -> None:
        self._nodes[node.name] = node
        for parent in node.parents:
            self._nodes[parent].children.append(node.name)
        self._version += 1

    def _check_new_name(self, name: str) -> None:
        if not isinstance(name, str) or not name:
            msg = f"node name {name!r} must be a non-empty str"
            raise TopologyError(msg)
        if name in self._nodes:
            msg = f"Processor '{name}' is already added; give each node a unique name"
            raise TopologyError(msg)

    def _check_topic(self, node: str, topic: object) -> str:
        if not isinstance(topic, str) or not topic:
            msg = f"Node '{node}' got topic {topic!r}; a topic is a non-empty str"
            raise TopologyError(msg)
        return topic

    def _check_parents(self, name: str, parent_names: tuple[str, ...]) -> None:
        for parent in parent_names:
            _require(parent, f"a parent name of '{name}'", "add_processor / add_sink")
            if parent == name:
                msg = f"Processor '{name}' cannot be a predecessor of itself"
                raise TopologyError(msg)
            node = self._nodes.get(parent)
            if node is None:
                known = ", ".join(repr(n) for n in self._nodes) or "none yet"
                msg = (
                    f"Predecessor processor '{parent}' is not added yet for '{name}'; "
                    f"add it first (known nodes: {known})"
                )
                raise TopologyError(msg)
            if isinstance(node, SinkNode):
                msg = (
                    f"Sink '{parent}' cannot be used a parent of '{name}'; a sink only writes "
                    "to a topic: read that topic with a new source instead"
                )
                raise TopologyError(msg)

    def _register_source_topics(self, node: SourceNode) -> None:
        for index, topic in enumerate(node.topics):
            owner = self._topic_to_source.get(topic)
            if owner is None and topic in node.topics[:index]:
                owner = node.name
            if owner is not None:
                msg = (
                    f"Topic '{topic}' has already been registered by another source "
                    f"('{owner}'); read it through one source and fan out from there"
                )
                raise TopologyError(msg)
            for pattern_source in self._pattern_sources:
                if self._nodes[pattern_source].matches(topic):  # type: ignore[union-attr]
                    msg = (
                        f"Topic '{topic}' matches a Pattern already registered by another "
                        f"source ('{pattern_source}'); make the pattern exclude it"
                    )
                    raise TopologyError(msg)
        if node.pattern is not None:
            for topic, owner in self._topic_to_source.items():
                if node.pattern.fullmatch(topic):
                    msg = (
                        f"Pattern {node.pattern.pattern!r} of source '{node.name}' will match "
                        f"topic '{topic}' that has already been registered by another source "
                        f"('{owner}'); make the pattern exclude it"
                    )
                    raise TopologyError(msg)
            self._pattern_sources.append(node.name)
        for topic in node.topics:
            self._topic_to_source[topic] = node.name

    def _check_connectable(self, processor: str, store_name: str, *, adding: bool) -> None:
        if store_name in self._global_stores:
            msg = (
                f"Global StateStore '{store_name}' can be used by a Processor without being "
                f"specified; it should not be explicitly passed (processor '{processor}')"
            )
            raise TopologyError(msg)
        if not adding and store_name not in self._stores:
            known = ", ".join(repr(s) for s in self._stores) or "none"
            msg = (
                f"StateStore '{store_name}' is not added yet; add it with add_state_store "
                f"before connecting it to '{processor}' (stores: {known})"
            )
            raise TopologyError(msg)
        node = self._nodes.get(processor)
        if node is None:
            msg = f"Processor '{processor}' is not added yet; add it before connecting stores"
            raise TopologyError(msg)
        if not isinstance(node, ProcessorNode):
            msg = (
                f"cannot connect a state store '{store_name}' to a source node or a sink node "
                f"('{processor}'); connect it to a processor"
            )
            raise TopologyError(msg)

    def _connect(self, processor: str, store_name: str) -> None:
        node = self._nodes[processor]
        assert isinstance(node, ProcessorNode)
        if store_name not in node.stores:
            node.stores.append(store_name)
        users = self._store_users.setdefault(store_name, [])
        if processor not in users:
            users.append(processor)

    def _check_store_source_args(
        self, store_builder: Any, source_name: str, processor_name: str, store_name: str,
        *, global_store: bool = False,
    ) -> None:
        """Java's ``validateGlobalStoreArguments`` checks, in its order."""
        self._check_new_name(source_name)
        self._check_new_name(processor_name)
        if store_name in self._stores:
            raise TopologyError(_different_store("StateStore", store_name))
        if store_name in self._global_stores:
            raise TopologyError(_different_store("GlobalStateStore", store_name))
        if global_store and getattr(store_builder, "logging_enabled", False):
            msg = (
                f"StateStore '{store_name}' for global table must not have logging enabled; "
                "call .with_logging_disabled() on its builder (the source topic is its changelog)"
            )
            raise TopologyError(msg)
        if source_name == processor_name:
            msg = (
                f"sourceName and processorName must be different (both '{source_name}'); "
                "name the source and the state-update processor apart"
            )
            raise TopologyError(msg)

    def __repr__(self) -> str:
        return f"<kslab.Topology: {len(self._nodes)} nodes, {len(self._stores)} stores>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        """Jupyter display: the topology graph (``kslab.topology.display``'s renderer)."""
        return mimebundle(self, include, exclude)


def _different_store(kind: str, store_name: str) -> str:
    """Java's message, word for word, for a second store under a taken name."""
    return f"Invalid topology: A different {kind} has already been added with the name {store_name}"


def _store_name(store_builder: Any) -> str:
    name = getattr(store_builder, "name", None)
    if not isinstance(name, str) or not name:
        msg = (
            f"{store_builder!r} is not a store builder (no name); build one with "
            "ks.Stores.key_value_store_builder(ks.Stores.in_memory_key_value_store('name'), ...)"
        )
        raise TopologyError(msg)
    return name


def _supplier_stores(supplier: Any) -> list[Any]:
    """Stores a supplier declares it owns (Java's ConnectedStoreProvider.stores())."""
    stores = getattr(supplier, "stores", None)
    if stores is None or isinstance(supplier, type):
        return []
    declared = stores()
    return [] if declared is None else list(declared)  # Java treats a null stores() as none
