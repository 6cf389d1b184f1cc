"""A stream handle's part of the graph: its node, everything feeding it, and a collapsed rest.

A handle shown in a cell draws only what explains it: the node itself, every node upstream of
it back to the sources (across repartition and other topics), and the stores those processors
use; everything else is one node of kind ``more`` ("+N more"), reached from each kept node
that has an edge into the rest. Invariant: a pure function of the render model; kept nodes,
edges and clusters stay in the model's order, so the picture is stable.
"""

from __future__ import annotations

from collections import defaultdict

from kslab.topology.rendering import (
    RenderedCluster,
    RenderedEdge,
    RenderedNode,
    RenderedTopology,
)

__all__ = ["MORE_KEY", "neighbourhood", "resolve"]

MORE_KEY = "more:rest"
_UPSTREAM = ("record", "topic")  # edge kinds a record travels along


def resolve(model: RenderedTopology, name: str) -> str:
    """The model key of a node, store or topic called ``name`` (as highlighting finds them)."""
    keys = {node.key for node in model.nodes}
    for key in (name, f"store:{name}", f"topic:{name}"):
        if key in keys:
            return key
    known = ", ".join(repr(n.key) for n in model.nodes if n.kind not in ("topic", "store"))
    msg = f"no node, store or topic '{name}' in this topology; pass a node name (nodes: {known})"
    raise ValueError(msg)


def upstream(model: RenderedTopology, key: str) -> set[str]:
    """``key`` and every node a record reaches ``key`` from, plus the stores those use and
    the stores' changelog topics."""
    parents: dict[str, list[str]] = defaultdict(list)
    stores: dict[str, list[str]] = defaultdict(list)
    for edge in model.edges:
        if edge.kind in _UPSTREAM:
            parents[edge.target].append(edge.source)
        elif edge.kind == "store":
            stores[edge.source].append(edge.target)
    changelogs = {e.source: e.target for e in model.edges if e.kind == "changelog"}
    seen = {key}
    todo = [key]
    while todo:
        for parent in parents[todo.pop()]:
            if parent not in seen:
                seen.add(parent)
                todo.append(parent)
    kept = {store for node in seen for store in stores[node]}
    return seen | kept | {changelogs[store] for store in kept if store in changelogs}


def neighbourhood(model: RenderedTopology, name: str) -> RenderedTopology:
    """The part of ``model`` a handle of node ``name`` shows (see the module docstring)."""
    kept = upstream(model, resolve(model, name))
    rest = [node for node in model.nodes if node.key not in kept]
    nodes = [node for node in model.nodes if node.key in kept]
    edges = [e for e in model.edges if e.source in kept and e.target in kept]
    if rest:
        nodes.append(RenderedNode(MORE_KEY, f"+{len(rest)} more", "more"))
        leaving = dict.fromkeys(e.source for e in model.edges
                                if e.source in kept and e.target not in kept)
        edges.extend(RenderedEdge(source, MORE_KEY, "more") for source in leaving)
    clusters = [RenderedCluster(c.id, c.label, c.is_global,
                                tuple(k for k in c.members if k in kept))
                for c in model.clusters]
    return RenderedTopology(tuple(nodes), tuple(edges), tuple(c for c in clusters if c.members))
