"""``StreamsBuilder.build()`` as Java's: one Topology per builder, written incrementally."""

from __future__ import annotations

import kslab as ks
from kslab import serdes

S = serdes.String()


class _Upper(ks.Processor):
    def init(self, context: ks.ProcessorContext) -> None:
        self.context = context

    def process(self, record: ks.Record) -> None:
        self.context.forward(record.with_value(record.value.upper()))


def test_build_returns_the_same_topology_with_what_was_added_to_it() -> None:
    builder = ks.StreamsBuilder()
    builder.stream("in", ks.Consumed.with_(S, S)).to("out")
    topology = builder.build()
    topology.add_processor("upper", _Upper, "KSTREAM-SOURCE-0000000000")
    topology.add_sink("upper-sink", "upper-out", "upper", key_serde=S, value_serde=S)
    builder.stream("other", ks.Consumed.with_(S, S)).filter(lambda k, v: v != "x").to("out")
    again = builder.build()
    assert again is topology
    assert sorted(again.nodes) == [
        "KSTREAM-FILTER-0000000003", "KSTREAM-SINK-0000000001", "KSTREAM-SINK-0000000004",
        "KSTREAM-SOURCE-0000000000", "KSTREAM-SOURCE-0000000002", "upper", "upper-sink"]
    with ks.TopologyTestDriver(builder.build()) as driver:
        driver.create_input_topic("in", S, S).pipe_input("k", "a")
        driver.create_input_topic("other", S, S).pipe_value_list(["x", "b"])
        assert driver.create_output_topic("out", S, S).read_values_to_list() == ["a", "b"]
        assert driver.create_output_topic("upper-out", S, S).read_values_to_list() == ["A"]


def test_kslab_own_builds_leave_the_users_topology_alone() -> None:
    builder = ks.StreamsBuilder()
    builder.stream("in", ks.Consumed.with_(S, S)).to("out")
    detached = builder.build_detached()
    detached.add_processor("extra", _Upper, "KSTREAM-SOURCE-0000000000")
    assert "extra" not in builder.build().nodes
    assert builder.build_detached() is not builder.build()
