"""Rendering: the frozen render model, the networkx graph and the Graphviz text built on it."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from kslab.errors import TopologyError
from kslab.topology import Topology
from kslab.topology.rendering import RenderedCluster, RenderedEdge, to_rendered


def supplier() -> None:
    """A processor supplier; rendering never calls it."""


@pytest.fixture
def counting(store) -> Topology:
    """source -> counter (logged store) -> repartition -> re-source -> sink, plus a global store."""
    topology = Topology()
    topology.add_source("source", "orders")
    topology.add_processor("counter", supplier, "source")
    topology.add_state_store(store("counts"), "counter")
    topology.add_sink("to-repartition", "counts-repartition", "counter")
    topology.add_internal_topic("counts-repartition")
    topology.add_source("re-source", "counts-repartition")
    topology.add_sink("sink", "totals", "re-source")
    topology.add_global_store(store("rates", logging_enabled=False), "gs", "fx", "gp", supplier)
    return topology


def test_networkx_nodes_and_edges(counting):
    graph = counting.to_networkx()
    assert dict(graph.nodes(data="kind")) == {
        "topic:orders": "topic",
        "source": "source",
        "counter": "processor",
        "store:counts": "store",
        "topic:counts-changelog": "topic",
        "to-repartition": "sink",
        "topic:counts-repartition": "topic",
        "re-source": "source",
        "sink": "sink",
        "topic:totals": "topic",
        "topic:fx": "topic",
        "gs": "source",
        "gp": "processor",
        "store:rates": "store",
    }
    assert set(graph.edges(data="kind")) == {
        ("topic:orders", "source", "topic"),
        ("source", "counter", "record"),
        ("counter", "store:counts", "store"),
        ("store:counts", "topic:counts-changelog", "changelog"),
        ("counter", "to-repartition", "record"),
        ("to-repartition", "topic:counts-repartition", "topic"),
        ("topic:counts-repartition", "re-source", "topic"),
        ("re-source", "sink", "record"),
        ("sink", "topic:totals", "topic"),
        ("topic:fx", "gs", "topic"),
        ("gs", "gp", "record"),
        ("gp", "store:rates", "store"),
    }


def test_networkx_attributes(counting):
    nodes = counting.to_networkx().nodes
    assert nodes["counter"]["subtopology"] == 0
    assert nodes["counter"]["stores"] == ("counts",)
    assert nodes["source"]["topics"] == ("orders",)
    assert nodes["re-source"]["subtopology"] == 1
    assert nodes["sink"]["topics"] == ("totals",)
    assert (nodes["gp"]["subtopology"], nodes["gp"]["is_global"]) == (2, True)
    assert nodes["store:rates"]["is_global"] is True
    assert nodes["topic:counts-repartition"]["internal"] is True
    assert nodes["topic:counts-changelog"]["internal"] is True
    assert nodes["topic:orders"]["internal"] is False
    assert nodes["topic:orders"]["subtopology"] is None


def test_render_model_clusters(counting):
    rendered = to_rendered(counting)
    assert rendered.clusters == (
        RenderedCluster(
            0, "Sub-topology 0", False, ("source", "counter", "store:counts", "to-repartition")
        ),
        RenderedCluster(1, "Sub-topology 1", False, ("re-source", "sink")),
        RenderedCluster(2, "Sub-topology 2 for global store", True, ("gs", "gp", "store:rates")),
    )
    assert RenderedEdge("source", "counter", "record") in rendered.edges


def test_unlogged_and_read_only_stores_have_no_changelog_edge(store):
    topology = Topology().add_source("source", "in")
    topology.add_processor("processor", supplier, "source")
    topology.add_state_store(store("cache", logging_enabled=False), "processor")
    topology.add_read_only_state_store(store("lookup"), "ro-source", "lookup-topic", "ro", supplier)
    kinds = {edge.kind for edge in to_rendered(topology).edges}
    assert "changelog" not in kinds


def test_pattern_and_dynamic_targets():
    topology = Topology().add_source("logs", re.compile(r"logs-\d+"))
    topology.add_sink("router", lambda k, v, c: "x", "logs")
    graph = topology.to_networkx()
    assert graph.nodes[r"pattern:logs-\d+"]["pattern"] == r"logs-\d+"
    assert graph.nodes["extractor:router"]["dynamic"] is True
    assert graph.has_edge("router", "extractor:router")


def test_dot_text_for_a_tiny_topology():
    topology = Topology().add_source("source", "in")
    topology.add_sink("sink", "out", "source")
    assert topology.to_dot(highlight="sink") == (
        "digraph topology {\n"
        '  graph [rankdir=LR, fontname="Helvetica", fontsize=11];\n'
        '  node [fontname="Helvetica", fontsize=10];\n'
        '  edge [fontname="Helvetica", fontsize=9];\n'
        '  "topic:in" [label="in", shape=cds];\n'
        '  "topic:out" [label="out", shape=cds];\n'
        "  subgraph cluster_0 {\n"
        '    label="Sub-topology 0";\n'
        '    style="rounded";\n'
        "    color=gray50;\n"
        '    "source" [label="source", shape=box, style="rounded"];\n'
        '    "sink" [label="sink", shape=box, fillcolor="#ffd54f", style="rounded,bold,filled"];\n'
        "  }\n"
        '  "topic:in" -> "source";\n'
        '  "source" -> "sink";\n'
        '  "sink" -> "topic:out";\n'
        "}\n"
    )


def test_dot_shapes_and_styles(counting):
    text = counting.to_dot()
    assert '"store:counts" [label="counts", shape=cylinder];' in text
    assert (
        '"topic:counts-repartition" [label="counts-repartition", shape=cds, style="dashed"]' in text
    )
    assert '"counter" [label="counter", shape=box];' in text
    assert 'subgraph cluster_2 {\n    label="Sub-topology 2 for global store";' in text
    assert '"counter" -> "store:counts" [dir=none, style=dotted];' in text


def test_dot_is_deterministic(counting):
    assert counting.to_dot() == counting.to_dot()
    assert to_rendered(counting) == to_rendered(counting)


def test_dot_escapes_quotes_and_backslashes():
    topology = Topology().add_source('say "hi"\\', re.compile(r"a\d"))
    text = topology.to_dot()
    assert '"say \\"hi\\"\\\\" [label="say \\"hi\\"\\\\"' in text
    assert '"pattern:a\\\\d" [label="a\\\\d", shape=cds, style="dotted"];' in text


def test_highlight_several_nodes_and_a_store(counting):
    rendered = to_rendered(counting, highlight=["counter", "counts", "topic:fx"])
    marked = {node.key for node in rendered.nodes if node.highlighted}
    assert marked == {"counter", "store:counts", "topic:fx"}


def test_highlight_of_an_unknown_name_names_it(counting):
    with pytest.raises(TopologyError, match=r"Cannot highlight 'nope'"):
        counting.to_dot(highlight="nope")


def test_node_name_clashing_with_a_topic_key_is_rejected():
    topology = Topology().add_source("src", "orders")
    topology.add_processor("topic:orders", supplier, "src")
    with pytest.raises(TopologyError, match=r"'topic:orders' clashes"):
        topology.to_networkx()


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot is not installed")
def test_graphviz_accepts_the_output(counting, store):
    counting.add_source("weird", re.compile(r'x"\d'))
    counting.add_processor('we"ird\\name', supplier, "weird")
    counting.connect_processor_and_state_stores('we"ird\\name', "counts")
    counting.add_sink("router", lambda k, v, c: "x", "weird")
    result = subprocess.run(
        ["dot", "-Tsvg"],
        input=counting.to_dot(highlight="counter"),
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.lstrip().startswith("<?xml")
    assert "<title>cluster_0</title>" in result.stdout
