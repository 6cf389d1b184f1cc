"""Kafka's sub-topologies (node groups) of a topology, and the wiring checks run before using them.

A sub-topology is a connected component of the graph whose edges are parent links and shared
state stores; Kafka runs one task per sub-topology and input partition, and a global store's
source and processor form a group the global thread runs instead. Invariant: groups are numbered
0, 1, 2, ... in the order their first node was added, global-store groups included (a global
group takes an id like any other and shifts later ones), so ids equal Kafka's ``TaskId``
sub-topology numbers and the numbers in describe() text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kslab.errors import TopologyError
from kslab.topology._javaorder import utf16_key
from kslab.topology._nodes import Node, ProcessorNode, SinkNode, SourceNode

if TYPE_CHECKING:
    from kslab.topology.topology import Topology

__all__ = ["Subtopology", "check_copartitions", "subtopologies", "validate"]


@dataclass(frozen=True)
class Subtopology:
    """One node group: what one task runs per input partition, or the global thread runs.

    ``nodes`` are in insertion order; topics are raw names as the user gave them (internal
    topics without the ``<application.id>-`` prefix); ``stores`` are the stores its processors
    use, in order of first use. A global group (``is_global``) generates no tasks.
    """

    id: int
    nodes: tuple[str, ...]
    source_topics: tuple[str, ...]
    source_patterns: tuple[re.Pattern[str], ...]
    sink_topics: tuple[str, ...]
    stores: tuple[str, ...]
    is_global: bool


def subtopologies(topology: Topology) -> list[Subtopology]:
    """Kafka's node groups of ``topology`` by id; what the engines build one task per partition of.

    Runs the wiring checks of ``validate`` except the one for an empty topology, which has no
    sub-topologies.
    """
    check_wiring(topology)
    return [_subtopology(topology, gid, names) for gid, names in enumerate(node_groups(topology))]


def validate(topology: Topology) -> None:
    """Raise ``TopologyError`` for wiring that the add-time checks cannot see; run before running.

    Checks: the topology has a node; every node's parents exist and are not sinks; every store
    a processor uses is registered; a global store's source and processor stand alone (no
    children, no local stores); co-partitioned internal topics agree on partition counts.
    """
    if not topology.nodes:
        msg = (
            "Topology has no nodes, so it would subscribe to no topic; add a source with "
            "topology.add_source(name, topic) or a global store before building it"
        )
        raise TopologyError(msg)
    check_wiring(topology)


def node_groups(topology: Topology) -> list[list[str]]:
    """Node names per group, groups in order of their first node, names in insertion order."""
    root: dict[str, str] = {name: name for name in topology.nodes}

    def find(name: str) -> str:
        while root[name] != name:
            root[name] = root[root[name]]
            name = root[name]
        return name

    first_user: dict[str, str] = {}
    for node in topology.nodes.values():
        for parent in node.parents:
            root[find(node.name)] = find(parent)
        if isinstance(node, ProcessorNode):
            for store in node.stores:
                root[find(node.name)] = find(first_user.setdefault(store, node.name))

    groups: dict[str, list[str]] = {}
    for name in topology.nodes:
        groups.setdefault(find(name), []).append(name)
    return list(groups.values())


def check_wiring(topology: Topology) -> None:
    """Every check of ``validate`` but the empty-topology one (describe() accepts that)."""
    nodes = topology.nodes
    for node in nodes.values():
        _check_parents(node, nodes)
        if isinstance(node, ProcessorNode):
            _check_stores(topology, node)
    _check_global_groups(topology)
    check_copartitions(topology)


def _subtopology(topology: Topology, gid: int, names: list[str]) -> Subtopology:
    nodes = [topology.nodes[name] for name in names]
    source_topics: dict[str, None] = {}
    patterns: list[re.Pattern[str]] = []
    sink_topics: dict[str, None] = {}
    stores: dict[str, None] = {}
    for node in nodes:
        if isinstance(node, SourceNode):
            source_topics.update(dict.fromkeys(node.topics))
            if node.pattern is not None:
                patterns.append(node.pattern)
        elif isinstance(node, SinkNode):
            if node.topic is not None:
                sink_topics[node.topic] = None
        else:
            stores.update(dict.fromkeys(node.stores))
    return Subtopology(
        id=gid,
        nodes=tuple(names),
        source_topics=tuple(source_topics),
        source_patterns=tuple(patterns),
        sink_topics=tuple(sink_topics),
        stores=tuple(stores),
        is_global=any(isinstance(n, SourceNode) and n.is_global for n in nodes),
    )


def _check_parents(node: Node, nodes: dict[str, Node]) -> None:
    for parent in node.parents:
        found = nodes.get(parent)
        if found is None:
            msg = (
                f"Node '{node.name}' names parent '{parent}', which is not in the topology; "
                "add the parent before its children"
            )
            raise TopologyError(msg)
        if isinstance(found, SinkNode):
            msg = (
                f"Sink '{parent}' cannot be used a parent of '{node.name}'; a sink only "
                "writes to a topic: read that topic with a new source instead"
            )
            raise TopologyError(msg)


def _check_stores(topology: Topology, node: ProcessorNode) -> None:
    for store in node.stores:
        if store in topology.global_stores:
            if not node.is_global:
                msg = (
                    f"Global StateStore '{store}' can be used by a Processor without being "
                    f"specified; it should not be explicitly passed (processor '{node.name}')"
                )
                raise TopologyError(msg)
        elif store not in topology.state_stores:
            msg = (
                f"Processor '{node.name}' uses StateStore '{store}', which is not registered; "
                f"add it with add_state_store(builder, '{node.name}')"
            )
            raise TopologyError(msg)
        elif node.is_global:
            msg = (
                f"Global store processor '{node.name}' is connected to local StateStore "
                f"'{store}'; a global store's processor may only update its own global store"
            )
            raise TopologyError(msg)


def _check_global_groups(topology: Topology) -> None:
    nodes = topology.nodes
    for node in nodes.values():
        global_parents = [p for p in node.parents if nodes[p].is_global]
        if global_parents and not node.is_global:
            msg = (
                f"Node '{node.name}' has parent '{global_parents[0]}', which belongs to a global "
                "store; global store nodes cannot have children: read the topic with a "
                "regular source (or join against a global table) instead"
            )
            raise TopologyError(msg)


def check_copartitions(topology: Topology) -> None:
    """Kafka's ``validateCopartition``: the repartition topics of one co-partition group need
    equal partition counts (the DSL's builder checks them after its optimizations too)."""
    # Only a group made entirely of internal topics with known partition counts can be checked
    # before the topics exist.
    for group in topology.copartitioned_sources():
        topics: set[str] = set()
        for name in group:
            source = topology.nodes.get(name)
            if isinstance(source, SourceNode):
                topics.update(source.topics)
        counts = {
            topic: info.partitions
            for topic in topics
            if (info := topology.internal_topics.get(topic)) is not None
            and info.partitions is not None
        }
        if counts and set(counts) == topics and len(set(counts.values())) > 1:
            ordered = sorted(counts, key=utf16_key)
            listed = ", ".join(f"{topic}={counts[topic]}" for topic in ordered)
            msg = (
                f"Following topics do not have the same number of partitions: [{{{listed}}}]; "
                "give co-partitioned repartition topics the same number of partitions"
            )
            raise TopologyError(msg)
