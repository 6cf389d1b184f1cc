"""Stateless KStream operators in the test driver: exact outputs, errors that name the node."""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes

S = serdes.String()


STRINGS = {"default.key.serde": "string", "default.value.serde": "string"}


def run(builder: ks.StreamsBuilder, records, topic="in", out="out"):
    with ks.TopologyTestDriver(builder.build(), STRINGS) as driver:
        inp = driver.create_input_topic(topic, S, S)
        for key, value, *ts in records:
            inp.pipe_input(key, value, *ts)
        return driver.create_output_topic(out, S, S).read_key_values_to_list()


def stream(builder: ks.StreamsBuilder, topic="in") -> ks.KStream:
    return builder.stream(topic, ks.Consumed.with_(S, S))


def test_filter_filter_not_map_values_and_with_key():
    b = ks.StreamsBuilder()
    s = stream(b)
    s.filter(lambda k, v: v.startswith("a")).map_values(str.upper).to("out")
    s.filter_not(lambda k, v: v.startswith("a")).map_values(lambda k, v: k + v,
                                                              with_key=True).to("out")
    assert run(b, [("1", "ab"), ("2", "cd")]) == [("1", "AB"), ("2", "2cd")]


def test_map_flat_map_select_key_flat_map_values():
    b = ks.StreamsBuilder()
    s = stream(b)
    s.map(lambda k, v: (v, k)).to("out")
    s.flat_map(lambda k, v: [(k + "x", v), (k + "y", v)]).to("out")
    s.select_key(lambda k, v: v[0]).flat_map_values(lambda v: list(v)).to("out")
    assert run(b, [("k", "ab")]) == [
        ("ab", "k"), ("kx", "ab"), ("ky", "ab"), ("a", "a"), ("a", "b"),
    ]


def test_peek_foreach_and_print(capsys):
    seen = []
    b = ks.StreamsBuilder()
    s = stream(b)
    s.peek(lambda k, v: seen.append(("peek", k, v))).to("out")
    s.foreach(lambda k, v: seen.append(("foreach", k, v)))
    s.print_(label="lbl")
    s.print_()
    assert run(b, [("k", "v"), (None, "w")]) == [("k", "v"), (None, "w")]
    assert seen == [("peek", "k", "v"), ("foreach", "k", "v"), ("peek", None, "w"),
                    ("foreach", None, "w")]
    # Java's PrintForeachAction: "[label]: key, value"; the default label is the stream's name
    assert capsys.readouterr().out.splitlines() == [
        "[lbl]: k, v", "[KSTREAM-SOURCE-0000000000]: k, v", "[lbl]: null, w",
        "[KSTREAM-SOURCE-0000000000]: null, w",
    ]


def test_split_routes_to_first_matching_branch_and_default():
    b = ks.StreamsBuilder()
    branches = (stream(b).split(ks.Named.as_("s-"))
                .branch(lambda k, v: v == "a", ks.Branched.as_("a"))
                .branch(lambda k, v: v in ("a", "b"), ks.Branched.as_("b"))
                .default_branch(ks.Branched.as_("rest")))
    for name, branch in branches.items():
        branch.map_values(lambda v, n=name: f"{n}:{v}").to("out")
    assert run(b, [("1", "a"), ("2", "b"), ("3", "c")]) == [
        ("1", "s-a:a"), ("2", "s-b:b"), ("3", "s-rest:c"),
    ]


def test_branched_with_function_and_consumer():
    consumed = []
    b = ks.StreamsBuilder()
    branches = (stream(b).split()
                .branch(lambda k, v: v == "x", ks.Branched.with_function(
                    lambda s: s.map_values(str.upper)))
                .branch(lambda k, v: v == "y", ks.Branched.with_consumer(consumed.append))
                .no_default_branch())
    assert list(branches) == ["KSTREAM-BRANCH-00000000011"]
    assert len(consumed) == 1
    branches["KSTREAM-BRANCH-00000000011"].to("out")
    assert run(b, [("k", "x"), ("k", "y"), ("k", "z")]) == [("k", "X")]


def test_merge_keeps_arrival_order():
    b = ks.StreamsBuilder()
    stream(b, "a").merge(stream(b, "b")).to("out")
    with ks.TopologyTestDriver(b.build(), STRINGS) as driver:
        a, c = driver.create_input_topic("a", S, S), driver.create_input_topic("b", S, S)
        a.pipe_input("1", "x")
        c.pipe_input("2", "y")
        a.pipe_input("3", "z")
        out = driver.create_output_topic("out", S, S).read_key_values_to_list()
    assert out == [("1", "x"), ("2", "y"), ("3", "z")]


def test_to_with_topic_extractor_serdes_and_partitioner():
    b = ks.StreamsBuilder()
    stream(b).to(lambda k, v, ctx: f"out-{v}", ks.Produced.with_(S, S))
    with ks.TopologyTestDriver(b.build(), STRINGS) as driver:
        driver.create_input_topic("in", S, S).pipe_input("k", "a")
        assert driver.create_output_topic("out-a", S, S).read_key_value() == ("k", "a")

    b = ks.StreamsBuilder()
    stream(b).to("out", key_serde=S, value_serde=serdes.String(),
                 partitioner=lambda topic, k, v, n: 1)
    with ks.TopologyTestDriver(b.build(), STRINGS, partitions={"out": 2}) as driver:
        driver.create_input_topic("in", S, S).pipe_input("k", "a")
        records = driver.create_output_topic("out", S, S).read_records_to_list()
    assert [(r.key, r.value) for r in records] == [("k", "a")]


def test_stream_of_several_topics_and_a_pattern():
    import re

    b = ks.StreamsBuilder()
    b.stream(["a", "b"], ks.Consumed.with_(S, S)).to("out")
    b.stream(re.compile("p-.*"), ks.Consumed.with_(S, S)).to("out")
    with ks.TopologyTestDriver(b.build(), STRINGS) as driver:
        for topic in ("a", "b", "p-1"):
            driver.create_input_topic(topic, S, S).pipe_input(topic, "v")
        out = driver.create_output_topic("out", S, S).read_key_values_to_list()
    assert out == [("a", "v"), ("b", "v"), ("p-1", "v")]


def test_repartition_loops_back_through_the_internal_topic():
    b = ks.StreamsBuilder()
    stream(b).select_key(lambda k, v: v).repartition(ks.Repartitioned.as_("r")).to("out")
    with ks.TopologyTestDriver(b.build(), {**STRINGS, "application.id": "app"}) as driver:
        driver.create_input_topic("in", S, S).pipe_input("k", "v", 7)
        record = driver.create_output_topic("out", S, S).read_record()
        assert "app-r-repartition" in driver.produced_topic_names()
    assert (record.key, record.value, record.timestamp) == ("v", "v", 7)


def test_process_and_process_values_with_a_store():
    class Count(ks.Processor):
        def init(self, context):
            self.context = context
            self.store = context.get_state_store("seen")

        def process(self, record):
            n = (self.store.get(record.key) or 0) + 1
            self.store.put(record.key, n)
            self.context.forward(record.with_key(f"{record.key}#{n}"))

    class Upper(ks.FixedKeyProcessor):
        def init(self, context):
            self.context = context

        def process(self, record):
            self.context.forward(record.with_value(record.value.upper()))

    store = ks.Stores.key_value_store_builder(ks.Stores.in_memory_key_value_store("seen"),
                                              S, serdes.Long())
    b = ks.StreamsBuilder().add_state_store(store)
    stream(b).process(Count, "seen").process_values(Upper).to("out")
    assert run(b, [("k", "a"), ("k", "b")]) == [("k#1", "A"), ("k#2", "B")]


def test_error_in_a_mapper_names_the_node_and_record():
    b = ks.StreamsBuilder()
    stream(b).map_values(lambda v: 1 / 0).to("out")
    with ks.TopologyTestDriver(b.build(), STRINGS) as driver:
        inp = driver.create_input_topic("in", S, S)
        with pytest.raises(ks.StreamsError) as info:
            inp.pipe_input("k", "v")
    err = info.value
    assert err.node == "KSTREAM-MAPVALUES-0000000001"
    assert (err.topic, err.partition, err.offset, err.key, err.value) == ("in", 0, 0, "k", "v")
    assert isinstance(err.__cause__, ZeroDivisionError)


def test_bad_arguments_raise_topology_errors():
    b = ks.StreamsBuilder()
    s = stream(b)
    with pytest.raises(ks.TopologyError, match="predicate"):
        s.filter(None)
    with pytest.raises(ks.TopologyError, match="illegal"):
        s.filter(lambda k, v: True, named="bad name!")
