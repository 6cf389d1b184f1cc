"""A handle's neighbourhood: its node, everything upstream to the sources, the stores used on
the way, and one node for the rest (exact node and edge sets)."""

from __future__ import annotations

import pytest

import kslab as ks
from kslab.notebook.neighbourhood import MORE_KEY, neighbourhood, resolve, upstream
from kslab.topology.rendering import RenderedEdge, to_rendered
from tests.notebook.fixtures import word_count

SOURCE, FLAT, SELECT = ("KSTREAM-SOURCE-0000000000", "KSTREAM-FLATMAPVALUES-0000000001",
                        "KSTREAM-KEY-SELECT-0000000002")
AGG, TO_STREAM, SINK = ("KSTREAM-AGGREGATE-0000000003", "KTABLE-TOSTREAM-0000000007",
                        "KSTREAM-SINK-0000000008")
SUB0 = ["topic:lines", SOURCE, FLAT, SELECT, "counts-repartition-filter",
        "counts-repartition-sink", "topic:counts-repartition"]


@pytest.fixture
def model():
    builder, _ = word_count()
    return to_rendered(builder.build())


def keys(part):
    return [node.key for node in part.nodes]


def test_a_first_node_keeps_its_topic_and_collapses_the_rest(model):
    part = neighbourhood(model, FLAT)
    assert keys(part) == ["topic:lines", SOURCE, FLAT, MORE_KEY]
    assert part.nodes[-1].label == "+11 more" and part.nodes[-1].kind == "more"
    assert part.edges == (RenderedEdge("topic:lines", SOURCE, "topic"),
                          RenderedEdge(SOURCE, FLAT, "record"),
                          RenderedEdge(FLAT, MORE_KEY, "more"))
    assert [(c.id, c.members) for c in part.clusters] == [(0, (SOURCE, FLAT))]


def test_upstream_crosses_the_repartition_topic_and_keeps_the_store(model):
    part = neighbourhood(model, AGG)
    assert keys(part) == [*SUB0, "counts-repartition-source", AGG, "store:counts",
                          "topic:counts-changelog", MORE_KEY]
    assert part.nodes[-1].label == "+3 more"  # to-stream, the sink and its topic
    assert [e for e in part.edges if e.kind == "more"] == [RenderedEdge(AGG, MORE_KEY, "more")]
    assert RenderedEdge("store:counts", "topic:counts-changelog", "changelog") in part.edges
    assert [c.members for c in part.clusters] == [
        (SOURCE, FLAT, SELECT, "counts-repartition-filter", "counts-repartition-sink"),
        ("counts-repartition-source", AGG, "store:counts")]


def test_the_last_node_needs_the_whole_graph(model):
    assert neighbourhood(model, "topic:counts-out") == model
    assert upstream(model, TO_STREAM) == {n.key for n in model.nodes} - {SINK, "topic:counts-out"}


def test_a_store_name_and_a_topic_name_resolve(model):
    assert resolve(model, "counts") == "store:counts"
    assert resolve(model, "lines") == "topic:lines"
    assert upstream(model, "topic:lines") == {"topic:lines"}
    with pytest.raises(ValueError, match=r"no node, store or topic 'nope'.*KSTREAM-SOURCE"):
        resolve(model, "nope")


def test_a_join_keeps_both_sides_only_through_their_records():
    builder = ks.StreamsBuilder()
    left = builder.stream("left")
    right = builder.stream("right")
    joined = left.merge(right).filter(lambda k, v: True, named="keep")
    left.map_values(str.upper, named="other").to("elsewhere")
    joined.to("out")
    model = to_rendered(builder.build())
    part = neighbourhood(model, "keep")
    merge = next(n.key for n in model.nodes if "MERGE" in n.key)
    left_source, right_source = (n.key for n in model.nodes if n.kind == "source")
    assert set(keys(part)) == {"topic:left", "topic:right", left_source, right_source, merge,
                               "keep", MORE_KEY}
    # "other" and its sink and topic, and the sink of "keep" and its topic: four left out
    assert part.nodes[-1].label == "+5 more"
    assert {e.source for e in part.edges if e.kind == "more"} == {left_source, "keep"}
