"""Pictures of a topology: a frozen render model, and the networkx and Graphviz formats built on it.

``to_rendered`` turns the wiring into ``RenderedTopology`` (nodes, edges, sub-topology clusters);
every format reads only that model, as Bytewax's visualizer does, so a new format (SVG layout,
HTML) is one more reader. Invariant: the model is a pure, deterministic function of the wiring:
same topology, same nodes and edges in the same order, so text output can be diffed and tested.

Graph keys: sources, processors and sinks are keyed by their node name; topics by
``"topic:<name>"`` (internal and changelog topics without the application id), pattern
subscriptions by ``"pattern:<regex>"``, a dynamic sink's target by ``"extractor:<sink name>"``
and stores by ``"store:<name>"``. Edge kinds: ``record`` (parent to child), ``topic`` (topic to
source, sink to topic), ``store`` (processor to the store it uses) and ``changelog`` (store to
its changelog topic). A part of a model (``kslab.notebook.neighbourhood``) stands for what it
leaves out with one node of kind ``more``, reached by edges of kind ``more``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from kslab.errors import TopologyError
from kslab.topology._nodes import ProcessorNode, SinkNode, SourceNode
from kslab.topology._subtopologies import Subtopology, subtopologies
from kslab.topology.description import extractor_label

if TYPE_CHECKING:
    import networkx

    from kslab.topology.topology import Topology

__all__ = [
    "RenderedCluster",
    "RenderedEdge",
    "RenderedNode",
    "RenderedTopology",
    "dot_source",
    "to_dot",
    "to_networkx",
    "to_rendered",
]


@dataclass(frozen=True)
class RenderedNode:
    """One thing to draw: a source, processor or sink (by node name), a topic or a store."""

    key: str
    label: str
    kind: str  # "source" | "processor" | "sink" | "topic" | "store" | "more" (nodes left out)
    subtopology: int | None = None  # topics sit between sub-topologies: None
    is_global: bool = False
    internal: bool = False  # repartition and changelog topics
    dynamic: bool = False  # the topic a sink's extractor picks per record
    pattern: str | None = None  # a pattern subscription's regex
    topics: tuple[str, ...] = ()  # topics a source reads or a sink writes
    stores: tuple[str, ...] = ()  # stores a processor uses
    highlighted: bool = False


@dataclass(frozen=True)
class RenderedEdge:
    """A directed edge between two rendered nodes, by key; ``kind`` says what flows."""

    source: str
    target: str
    kind: str  # "record" | "topic" | "store" | "changelog"


@dataclass(frozen=True)
class RenderedCluster:
    """A sub-topology drawn as a box around its nodes and stores (``members``, by key)."""

    id: int
    label: str
    is_global: bool
    members: tuple[str, ...]


@dataclass(frozen=True)
class RenderedTopology:
    """Everything a format needs: nodes and edges in a stable order, and the clusters."""

    nodes: tuple[RenderedNode, ...]
    edges: tuple[RenderedEdge, ...]
    clusters: tuple[RenderedCluster, ...]


def to_rendered(
    topology: Topology, highlight: str | Iterable[str] | None = None
) -> RenderedTopology:
    """Build the render model of ``topology``; ``highlight`` marks nodes, stores or topics."""
    builder = _ModelBuilder(topology)
    for group in subtopologies(topology):
        builder.add_group(group)
    return builder.finish(_highlight_names(highlight))


def to_networkx(topology: Topology) -> networkx.DiGraph:
    """A ``networkx.DiGraph`` of the topology; every node has the render model's attributes."""
    import networkx

    rendered = to_rendered(topology)
    graph = networkx.DiGraph()
    for node in rendered.nodes:
        graph.add_node(
            node.key,
            kind=node.kind,
            label=node.label,
            subtopology=node.subtopology,
            is_global=node.is_global,
            internal=node.internal,
            dynamic=node.dynamic,
            pattern=node.pattern,
            topics=node.topics,
            stores=node.stores,
        )
    for edge in rendered.edges:
        graph.add_edge(edge.source, edge.target, kind=edge.kind)
    return graph


def to_dot(topology: Topology, highlight: str | Iterable[str] | None = None) -> str:
    """Graphviz source for the topology: one cluster per sub-topology, topics between them."""
    return dot_source(to_rendered(topology, highlight))


def dot_source(rendered: RenderedTopology, rankdir: str = "LR", side_by_side: bool = False
               ) -> str:
    """Graphviz source for a render model (``to_dot``'s, or a part of one).

    ``side_by_side`` lets a topic written by one sub-topology and read by another not push the
    reader below the writer (the edge does not constrain ranks), so sub-topologies sit side by
    side in a top-to-bottom picture instead of one under the other.
    """
    by_key = {node.key: node for node in rendered.nodes}
    clustered = {key for cluster in rendered.clusters for key in cluster.members}
    written = {edge.target for edge in rendered.edges if edge.kind == "topic"}
    free = set()
    if side_by_side:
        free = {e for e in rendered.edges if e.kind == "topic" and e.source in written}
    lines = [
        "digraph topology {",
        f'  graph [rankdir={rankdir}, fontname="Helvetica", fontsize=11];',
        '  node [fontname="Helvetica", fontsize=10];',
        '  edge [fontname="Helvetica", fontsize=9];',
    ]
    lines.extend(f"  {_dot_node(n)};" for n in rendered.nodes if n.key not in clustered)
    for cluster in rendered.clusters:
        style = "rounded,dashed" if cluster.is_global else "rounded"
        lines.append(f"  subgraph cluster_{cluster.id} {{")
        lines.append(f"    label={_quote(cluster.label)};")
        lines.append(f'    style="{style}";')
        lines.append("    color=gray50;")
        lines.extend(f"    {_dot_node(by_key[key])};" for key in cluster.members)
        lines.append("  }")
    lines.extend(f"  {_dot_edge(edge, edge in free)};" for edge in rendered.edges)
    lines.append("}")
    return "\n".join(lines) + "\n"


# -- building the model ---------------------------------------------------------------------------


class _ModelBuilder:
    """Collects nodes and edges in walk order: sub-topologies by id, nodes as they were added."""

    def __init__(self, topology: Topology) -> None:
        self.topology = topology
        self.nodes: dict[str, RenderedNode] = {}
        self.edges: dict[RenderedEdge, None] = {}
        self.clusters: list[RenderedCluster] = []

    def add_group(self, group: Subtopology) -> None:
        members: list[str] = []
        for name in group.nodes:
            node = self.topology.nodes[name]
            members.append(name)
            for parent in node.parents:
                self._edge(parent, name, "record")
            if isinstance(node, SourceNode):
                self._source(node, group)
            elif isinstance(node, SinkNode):
                self._sink(node, group)
            else:
                members.extend(self._processor(node, group))
        label = f"Sub-topology {group.id}" + (" for global store" if group.is_global else "")
        self.clusters.append(RenderedCluster(group.id, label, group.is_global, tuple(members)))

    def finish(self, highlight: list[str]) -> RenderedTopology:
        marked = {self._resolve(name) for name in highlight}
        nodes = tuple(
            _with_highlight(node) if node.key in marked else node for node in self.nodes.values()
        )
        return RenderedTopology(nodes, tuple(self.edges), tuple(self.clusters))

    def _source(self, node: SourceNode, group: Subtopology) -> None:
        if node.pattern is not None:
            regex = node.pattern.pattern
            key = f"pattern:{regex}"
            self._add(RenderedNode(key, regex, "topic", pattern=regex))
            self._edge(key, node.name, "topic")
        for topic in node.topics:
            self._edge(self._topic(topic), node.name, "topic")
        self._add(
            RenderedNode(
                node.name,
                node.name,
                "source",
                group.id,
                is_global=node.is_global,
                pattern=None if node.pattern is None else node.pattern.pattern,
                topics=tuple(node.topics),
            )
        )

    def _sink(self, node: SinkNode, group: Subtopology) -> None:
        topics = () if node.topic is None else (node.topic,)
        self._add(RenderedNode(node.name, node.name, "sink", group.id, topics=topics))
        if node.topic is not None:
            self._edge(node.name, self._topic(node.topic), "topic")
        elif node.topic_extractor is not None:
            key = f"extractor:{node.name}"
            label = extractor_label(node.topic_extractor)
            self._add(RenderedNode(key, label, "topic", dynamic=True))
            self._edge(node.name, key, "topic")

    def _processor(self, node: ProcessorNode, group: Subtopology) -> list[str]:
        self._add(
            RenderedNode(
                node.name,
                node.name,
                "processor",
                group.id,
                is_global=node.is_global,
                stores=tuple(node.stores),
            )
        )
        keys = []
        for store in node.stores:
            key = f"store:{store}"
            self._edge(node.name, key, "store")
            if key in self.nodes:
                continue
            self._add(RenderedNode(key, store, "store", group.id, is_global=node.is_global))
            keys.append(key)
            changelog = self._changelog(store)
            if changelog is not None:
                self._edge(key, self._topic(changelog, internal=True), "changelog")
        return keys

    def _changelog(self, store: str) -> str | None:
        # Global and read-only stores are restored from the topic their source reads; drawing
        # that as a changelog edge would draw a cycle, so only logged local stores get one.
        builder = self.topology.state_stores.get(store)
        if builder is None or self.topology.store_source_topic(store) is not None:
            return None
        return f"{store}-changelog" if getattr(builder, "logging_enabled", True) else None

    def _topic(self, topic: str, *, internal: bool = False) -> str:
        key = f"topic:{topic}"
        internal = internal or topic in self.topology.internal_topics
        existing = self.nodes.get(key)
        if existing is not None and existing.kind == "topic" and internal and not existing.internal:
            self.nodes[key] = replace(existing, internal=True)
        self._add(RenderedNode(key, topic, "topic", internal=internal))
        return key

    def _add(self, node: RenderedNode) -> None:
        existing = self.nodes.get(node.key)
        if existing is None:
            self.nodes[node.key] = node
        elif existing.kind != node.kind:
            msg = (
                f"Node '{node.key}' clashes with the key kslab gives the {node.kind} "
                f"'{node.label}' in drawings; rename the node"
            )
            raise TopologyError(msg)

    def _edge(self, source: str, target: str, kind: str) -> None:
        self.edges[RenderedEdge(source, target, kind)] = None

    def _resolve(self, name: str) -> str:
        for key in (name, f"store:{name}", f"topic:{name}"):
            if key in self.nodes:
                return key
        known = ", ".join(repr(n) for n in self.topology.nodes) or "none"
        msg = (
            f"Cannot highlight '{name}': no node, store or topic has that name; "
            f"pass a node name (nodes: {known})"
        )
        raise TopologyError(msg)


def _highlight_names(highlight: str | Iterable[str] | None) -> list[str]:
    if highlight is None:
        return []
    if isinstance(highlight, str):
        return [highlight]
    return list(highlight)


def _with_highlight(node: RenderedNode) -> RenderedNode:
    return replace(node, highlighted=True)


# -- Graphviz text ------------------------------------------------------------------------------

_SHAPES = {
    "source": ("box", ["rounded"]),
    "processor": ("box", []),
    "sink": ("box", ["rounded", "bold"]),
    "topic": ("cds", []),
    "store": ("cylinder", []),
    "more": ("box", ["rounded", "dashed"]),
}


def _dot_node(node: RenderedNode) -> str:
    shape, styles = _SHAPES[node.kind]
    styles = list(styles)
    if node.internal or node.dynamic:
        styles.append("dashed")
    if node.pattern is not None and node.kind == "topic":
        styles.append("dotted")
    attrs = [f"label={_quote(node.label)}", f"shape={shape}"]
    if node.highlighted:
        styles.append("filled")
        attrs.append('fillcolor="#ffd54f"')
    if styles:
        attrs.append(f'style="{",".join(styles)}"')
    return f"{_quote(node.key)} [{', '.join(attrs)}]"


def _dot_edge(edge: RenderedEdge, free: bool = False) -> str:
    attrs = {
        "record": "",
        "topic": " [constraint=false]" if free else "",
        "store": " [dir=none, style=dotted]",
        "changelog": " [style=dashed]",
        "more": " [style=dashed, arrowhead=none]",
    }[edge.kind]
    return f"{_quote(edge.source)} -> {_quote(edge.target)}{attrs}"


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'
