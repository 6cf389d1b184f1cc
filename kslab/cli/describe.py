"""``kslab describe TARGET``: a topology as Kafka's text, Graphviz dot, SVG or JSON.

The JSON form (``--format json``) is one object::

    {"subtopologies": [{"id": 0, "nodes": [NODE, ...]}, ...],
     "global_stores": [{"id": 2, "source": NODE, "processor": NODE}, ...],
     "stores": [{"name": "counts", "processors": ["count"], "global": false,
                 "logged": true}, ...],
     "topics": {"source": [...], "sink": [...], "internal": [...]}}

where a NODE is ``{"kind": "source"|"processor"|"sink", "name", "predecessors",
"successors"}`` plus ``topics`` (or ``topic_pattern``) for a source, ``stores`` for a processor,
``topic`` (or ``topic_extractor``) for a sink; nodes and sub-topologies are in ``describe()``'s
order. Internal (repartition) topics are named without the ``<application.id>-`` prefix
they get at run time. Invariant: ``text`` is ``str(topology.describe())`` byte for byte.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from kslab.cli._target import load_target
from kslab.topology.description import (
    NodeDescription,
    ProcessorDescription,
    SinkDescription,
    SourceDescription,
    extractor_label,
)
from kslab.topology.topology import Topology

__all__ = ["FORMATS", "configure", "run", "to_json"]

FORMATS = ("text", "dot", "svg", "json")


def configure(parser: argparse.ArgumentParser) -> None:
    """The target, ``--format`` and ``--output``."""
    parser.add_argument("target", metavar="FILE_OR_MODULE[:VAR]",
                        help="e.g. app/topology.py:topology or mypkg.streams:build_topology; "
                             "VAR is a Topology, a StreamsBuilder or a function returning one "
                             "(left out: the module's only one, else its build_topology)")
    parser.add_argument("--format", "-f", choices=FORMATS, default="text",
                        help="text: Kafka Streams' describe() (default); dot: Graphviz source; "
                             "svg: the lab's picture; json: sub-topologies, nodes, stores, topics")
    parser.add_argument("--output", "-o", type=Path, metavar="FILE",
                        help="write to FILE instead of standard output")


def run(args: argparse.Namespace) -> int:
    """Print (or write) the target's topology in the chosen format."""
    topology = load_target(args.target).topology()
    text = render(topology, args.format)
    if args.output is not None:
        args.output.write_text(text)
        print(f"wrote {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def render(topology: Topology, fmt: str) -> str:
    """``topology`` in format ``fmt`` (one of ``FORMATS``), ending with a newline."""
    if fmt == "text":
        return str(topology.describe())
    if fmt == "dot":
        return _line(topology.to_dot())
    if fmt == "svg":
        from kslab.notebook.render import draw

        drawing = draw(topology)
        if drawing.note:
            print(drawing.note, file=sys.stderr)
        return _line(drawing.svg)
    return json.dumps(to_json(topology), indent=2) + "\n"


def to_json(topology: Topology) -> dict[str, Any]:
    """The documented JSON structure of ``topology`` (see this module's docstring)."""
    description = topology.describe()
    sinks: list[str] = []
    for sub in description.subtopologies:
        sinks.extend(n.topic for n in sub.nodes if isinstance(n, SinkDescription) and n.topic)
    internal = list(topology.internal_topics)
    stores = [{"name": name, "processors": topology.store_users(name), "global": False,
               "logged": topology.changelog_topic_for(name, "app") is not None}
              for name in topology.state_stores]
    stores += [{"name": name, "processors": [g.processor.name for g in description.global_stores
                                             if name in g.processor.stores],
                "global": True, "logged": False} for name in topology.global_stores]
    return {
        "subtopologies": [{"id": sub.id, "nodes": [_node(n) for n in sub.nodes]}
                          for sub in description.subtopologies],
        "global_stores": [{"id": g.id, "source": _node(g.source), "processor": _node(g.processor)}
                          for g in description.global_stores],
        "stores": stores,
        "topics": {
            "source": [t for t in topology.source_topics() if t not in internal],
            "sink": [t for t in dict.fromkeys(sinks) if t not in internal],
            "internal": internal,
        },
    }


def _node(node: NodeDescription) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": "", "name": node.name,
                           "predecessors": list(node.predecessors),
                           "successors": list(node.successors)}
    if isinstance(node, SourceDescription):
        out["kind"] = "source"
        if node.topics is not None:
            out["topics"] = list(node.topics)
        else:
            out["topic_pattern"] = node.topic_pattern.pattern if node.topic_pattern else None
    elif isinstance(node, ProcessorDescription):
        out["kind"] = "processor"
        out["stores"] = list(node.stores)
    elif isinstance(node, SinkDescription):
        out["kind"] = "sink"
        if node.topic_extractor is None:
            out["topic"] = node.topic
        else:
            out["topic_extractor"] = extractor_label(node.topic_extractor)
    return out


def _line(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"
