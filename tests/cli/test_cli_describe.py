"""``kslab describe`` on a real module, in each format, against the in-process topology."""

from __future__ import annotations

import json
from xml.etree import ElementTree

import cli_targets
import pytest
from cli_fixtures import ROOT, TARGETS, kslab


@pytest.mark.parametrize("var", ["topology", "builder", "make_topology"])
def test_text_is_describe_exactly(var):
    done = kslab("describe", f"{TARGETS}:{var}")
    assert done.returncode == 0, done.stderr
    assert done.stdout == str(cli_targets.make_topology().describe())
    assert done.stdout.startswith("Topologies:\n   Sub-topology: 0\n")


def test_a_module_path_and_its_only_topology():
    done = kslab("describe", "kslab.cli.demo:word_count")
    from kslab.cli.demo import word_count

    assert done.returncode == 0, done.stderr
    assert done.stdout == str(word_count().describe())


def test_dot_is_to_dot():
    done = kslab("describe", f"{TARGETS}:topology", "--format", "dot")
    assert done.returncode == 0, done.stderr
    assert done.stdout == cli_targets.topology.to_dot()


def test_svg_draws_every_node_and_topic(tmp_path):
    out = tmp_path / "graph.svg"
    done = kslab("describe", f"{TARGETS}:builder", "-f", "svg", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    root = ElementTree.fromstring(out.read_text())  # a well-formed SVG document
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    labels = {"".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")}
    assert {"KSTREAM-SOURCE-0000000000", "KSTREAM-AGGREGATE-0000000003", "cli-lines",
            "cli-counts", "counts-store", "Sub-topology 0", "Sub-topology 1"} <= labels


def test_json_structure_of_a_word_count():
    done = kslab("describe", f"{TARGETS}:topology", "-f", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert [sub["id"] for sub in data["subtopologies"]] == [0, 1]
    assert [(n["kind"], n["name"]) for n in data["subtopologies"][1]["nodes"]] == [
        ("source", "counts-store-repartition-source"),
        ("processor", "KSTREAM-AGGREGATE-0000000003"),
        ("processor", "KTABLE-TOSTREAM-0000000007"),
        ("sink", "KSTREAM-SINK-0000000008"),
    ]
    assert data["subtopologies"][0]["nodes"][0] == {
        "kind": "source", "name": "KSTREAM-SOURCE-0000000000", "predecessors": [],
        "successors": ["KSTREAM-FLATMAPVALUES-0000000001"], "topics": ["cli-lines"]}
    assert data["subtopologies"][1]["nodes"][1]["stores"] == ["counts-store"]
    assert data["subtopologies"][1]["nodes"][3]["topic"] == "cli-counts"
    assert data["global_stores"] == []
    assert data["stores"] == [{"name": "counts-store",
                               "processors": ["KSTREAM-AGGREGATE-0000000003"],
                               "global": False, "logged": True}]
    assert data["topics"] == {"source": ["cli-lines"], "sink": ["cli-counts"],
                              "internal": ["counts-store-repartition"]}


def test_json_lists_a_global_store():
    data = json.loads(kslab("describe", f"{TARGETS}:enrichment", "-f", "json").stdout)
    assert data["global_stores"] == [{
        "id": 0,
        "source": {"kind": "source", "name": "KSTREAM-SOURCE-0000000000", "predecessors": [],
                   "successors": ["KTABLE-SOURCE-0000000001"], "topics": ["cli-products"]},
        "processor": {"kind": "processor", "name": "KTABLE-SOURCE-0000000001",
                      "predecessors": ["KSTREAM-SOURCE-0000000000"], "successors": [],
                      "stores": ["products"]},
    }]
    assert data["stores"] == [{"name": "products", "processors": ["KTABLE-SOURCE-0000000001"],
                               "global": True, "logged": False}]
    assert data["topics"] == {"source": ["cli-products", "cli-orders"], "sink": ["cli-enriched"],
                              "internal": []}


def test_without_var_an_exported_build_topology_is_used(tmp_path):
    (tmp_path / "topology.py").write_text(  # the shape `kslab export` writes
        "import cli_targets\n\n\n"
        "def build_topology(config: dict | None = None):\n"
        "    return cli_targets.word_count_builder().build(config)\n")
    (tmp_path / "cli_targets.py").write_text((ROOT / TARGETS).read_text())
    done = kslab("describe", str(tmp_path / "topology.py"))
    assert done.returncode == 0, done.stderr
    assert done.stdout == str(cli_targets.make_topology().describe())
