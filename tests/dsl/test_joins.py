"""Key joins: stream-table, stream-global-table, table-table; repartitioning and co-partitioning."""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes

S = serdes.String()
NO_CACHE = {"statestore.cache.max.bytes": 0}


def rekeyed_joins(joined_one=None, joined_two=None) -> ks.Topology:
    b = ks.StreamsBuilder()
    stream_a = b.stream("topic", ks.Consumed.with_(S, S))
    table_b = b.table("topic2", ks.Consumed.with_(S, S))
    table_c = b.table("topic3", ks.Consumed.with_(S, S))
    rekeyed = stream_a.map(lambda k, v: (v, k))
    rekeyed.join(table_b, lambda v1, v2: v1 + v2, joined_one).to("out-one")
    rekeyed.join(table_c, lambda v1, v2: v1 + v2, joined_two).to("out-two")
    return b.build({"topology.optimization": "none"})


def test_key_changed_stream_is_repartitioned_once_before_two_joins():
    # KStreamKTableJoinTest.shouldReuseRepartitionTopicWithGeneratedName: the repartition node
    # named after the key-changing node is reused by the second join (its names still use
    # indexes), and both tables are materialized for the joins to read.
    assert str(rekeyed_joins().describe()) == """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [topic])
      --> KSTREAM-MAP-0000000007
    Processor: KSTREAM-MAP-0000000007 (stores: [])
      --> KSTREAM-FILTER-0000000009
      <-- KSTREAM-SOURCE-0000000000
    Processor: KSTREAM-FILTER-0000000009 (stores: [])
      --> KSTREAM-SINK-0000000008
      <-- KSTREAM-MAP-0000000007
    Sink: KSTREAM-SINK-0000000008 (topic: KSTREAM-MAP-0000000007-repartition)
      <-- KSTREAM-FILTER-0000000009

  Sub-topology: 1
    Source: KSTREAM-SOURCE-0000000010 (topics: [KSTREAM-MAP-0000000007-repartition])
      --> KSTREAM-JOIN-0000000011, KSTREAM-JOIN-0000000016
    Processor: KSTREAM-JOIN-0000000011 (stores: [topic2-STATE-STORE-0000000001])
      --> KSTREAM-SINK-0000000012
      <-- KSTREAM-SOURCE-0000000010
    Processor: KSTREAM-JOIN-0000000016 (stores: [topic3-STATE-STORE-0000000004])
      --> KSTREAM-SINK-0000000017
      <-- KSTREAM-SOURCE-0000000010
    Source: KSTREAM-SOURCE-0000000002 (topics: [topic2])
      --> KTABLE-SOURCE-0000000003
    Source: KSTREAM-SOURCE-0000000005 (topics: [topic3])
      --> KTABLE-SOURCE-0000000006
    Sink: KSTREAM-SINK-0000000012 (topic: out-one)
      <-- KSTREAM-JOIN-0000000011
    Sink: KSTREAM-SINK-0000000017 (topic: out-two)
      <-- KSTREAM-JOIN-0000000016
    Processor: KTABLE-SOURCE-0000000003 (stores: [topic2-STATE-STORE-0000000001])
      --> none
      <-- KSTREAM-SOURCE-0000000002
    Processor: KTABLE-SOURCE-0000000006 (stores: [topic3-STATE-STORE-0000000004])
      --> none
      <-- KSTREAM-SOURCE-0000000005

"""


def test_joined_names_name_the_repartition_topics():
    # KStreamKTableJoinTest.shouldCreateRepartitionTopicsWithUserProvidedName.
    topology = rekeyed_joins(ks.Joined.with_(S, S, S, "first-join"),
                             ks.Joined.with_(S, S, S, "second-join"))
    text = str(topology.describe())
    assert """\
    Processor: KSTREAM-MAP-0000000007 (stores: [])
      --> first-join-repartition-filter, second-join-repartition-filter
      <-- KSTREAM-SOURCE-0000000000
""" in text
    assert """\
  Sub-topology: 1
    Source: first-join-repartition-source (topics: [first-join-repartition])
      --> first-join
    Source: KSTREAM-SOURCE-0000000002 (topics: [topic2])
      --> KTABLE-SOURCE-0000000003
    Processor: first-join (stores: [topic2-STATE-STORE-0000000001])
      --> KSTREAM-SINK-0000000012
      <-- first-join-repartition-source
""" in text


def test_rekeyed_stream_table_join_outputs():
    strings = {"default.key.serde": "string", "default.value.serde": "string"}
    with ks.TopologyTestDriver(rekeyed_joins(), strings) as driver:
        driver.create_input_topic("topic2", S, S).pipe_input("v", "T")
        driver.create_input_topic("topic", S, S).pipe_input("k", "v")
        driver.create_input_topic("topic", S, S).pipe_input("k", "w")
        assert driver.create_output_topic("out-one", S, S).read_key_values_to_list() == [
            ("v", "kT")]
        assert driver.create_output_topic("out-two", S, S).is_empty()


def test_stream_table_inner_and_left_join():
    b = ks.StreamsBuilder()
    s = b.stream("s", ks.Consumed.with_(S, S))
    t = b.table("t", ks.Consumed.with_(S, S))
    s.join(t, lambda v, tv: f"{v}+{tv}").to("inner", ks.Produced.with_(S, S))
    s.left_join(t, lambda k, v, tv: f"{k}:{v}+{tv}", with_key=True).to(
        "left", ks.Produced.with_(S, S))
    with ks.TopologyTestDriver(b.build()) as driver:
        st, tt = driver.create_input_topic("s", S, S), driver.create_input_topic("t", S, S)
        st.pipe_input("a", "1")
        tt.pipe_input("a", "A")
        st.pipe_input("a", "2")
        st.pipe_input(None, "3")  # left join keeps a null key (KIP-962), inner drops it
        st.pipe_input("a", None)  # null values are dropped by both
        assert driver.create_output_topic("inner", S, S).read_key_values_to_list() == [
            ("a", "2+A")]
        assert driver.create_output_topic("left", S, S).read_key_values_to_list() == [
            ("a", "a:1+None"), ("a", "a:2+A"), (None, "None:3+None")]


def test_seed_000_orders_enrichment_with_a_global_table():
    b = ks.StreamsBuilder()
    customers = b.global_table("customers", ks.Consumed.with_(S, S), "customers-by-id")
    (b.stream("orders", ks.Consumed.with_(S, S))
     .left_join(customers, lambda order_id, order: order.split(":")[0],
                lambda order, customer: f"{order}|customer={customer or 'unknown'}")
     .to("enriched-orders", ks.Produced.with_(S, S)))
    topology = b.build()
    assert topology.source_topics() == ["customers", "orders"]
    with ks.TopologyTestDriver(topology) as driver:
        driver.create_input_topic("customers", S, S).pipe_input("c1", "Ann")
        orders = driver.create_input_topic("orders", S, S)
        orders.pipe_input("o1", "c1:10")
        orders.pipe_input("o2", "c2:20")
        assert driver.create_output_topic("enriched-orders", S, S).read_key_values_to_list() == [
            ("o1", "c1:10|customer=Ann"), ("o2", "c2:20|customer=unknown")]


def test_global_table_inner_join_skips_misses_and_names_with_leftjoin_prefix():
    # Java names both global-table joins KSTREAM-LEFTJOIN-.
    b = ks.StreamsBuilder()
    g = b.global_table("g", ks.Consumed.with_(S, S))
    b.stream("s", ks.Consumed.with_(S, S)).join(g, lambda k, v: v, lambda v, gv: gv).to(
        "out", ks.Produced.with_(S, S))
    topology = b.build()
    assert "Processor: KSTREAM-LEFTJOIN-0000000004 (stores: [])" in str(topology.describe())
    with ks.TopologyTestDriver(topology) as driver:
        driver.create_input_topic("g", S, S).pipe_input("x", "X")
        s = driver.create_input_topic("s", S, S)
        s.pipe_input("k", "x")
        s.pipe_input("k", "y")
        assert driver.create_output_topic("out", S, S).read_key_values_to_list() == [("k", "X")]


def test_table_table_left_join_when_the_right_side_arrives_later():
    b = ks.StreamsBuilder()
    left = b.table("left", ks.Consumed.with_(S, S))
    right = b.table("right", ks.Consumed.with_(S, S))
    left.left_join(right, lambda lv, rv: f"{lv}/{rv}").to_stream().to(
        "out", ks.Produced.with_(S, S))
    with ks.TopologyTestDriver(b.build(), NO_CACHE) as driver:
        lt, rt = driver.create_input_topic("left", S, S), driver.create_input_topic("right", S, S)
        lt.pipe_input("k", "L", 1)
        rt.pipe_input("k", "R", 5)
        rt.pipe_input("k", None, 6)
        lt.pipe_input("k", None, 7)
        rt.pipe_input("x", "R", 8)  # no left row: nothing
        out = driver.create_output_topic("out", S, S).read_records_to_list()
    assert [(r.key, r.value, r.timestamp) for r in out] == [
        ("k", "L/None", 1), ("k", "L/R", 5), ("k", "L/None", 6), ("k", None, 7)]


def test_table_table_inner_and_outer_join():
    b = ks.StreamsBuilder()
    left = b.table("l", ks.Consumed.with_(S, S))
    right = b.table("r", ks.Consumed.with_(S, S))
    left.join(right, lambda a, c: a + c).to_stream().to("inner", ks.Produced.with_(S, S))
    left.outer_join(right, lambda a, c: f"{a}/{c}").to_stream().to("outer",
                                                                    ks.Produced.with_(S, S))
    with ks.TopologyTestDriver(b.build(), NO_CACHE) as driver:
        lt, rt = driver.create_input_topic("l", S, S), driver.create_input_topic("r", S, S)
        rt.pipe_input("k", "R")
        lt.pipe_input("k", "L")
        lt.pipe_input("k", None)
        assert driver.create_output_topic("inner", S, S).read_key_values_to_list() == [
            ("k", "LR"), ("k", None)]
        assert driver.create_output_topic("outer", S, S).read_key_values_to_list() == [
            ("k", "None/R"), ("k", "L/R"), ("k", "None/R")]


def test_table_table_join_describe():
    # Rule: the merge name takes its index first, then -join-this / -join-other; each side's
    # join processor is connected to the other side's store.
    b = ks.StreamsBuilder()
    b.table("a").join(b.table("b"), lambda x, y: x, materialized="joined")
    assert str(b.build().describe()) == """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000001 (topics: [a])
      --> KTABLE-SOURCE-0000000002
    Source: KSTREAM-SOURCE-0000000004 (topics: [b])
      --> KTABLE-SOURCE-0000000005
    Processor: KTABLE-SOURCE-0000000002 (stores: [a-STATE-STORE-0000000000])
      --> KTABLE-JOINTHIS-0000000007
      <-- KSTREAM-SOURCE-0000000001
    Processor: KTABLE-SOURCE-0000000005 (stores: [b-STATE-STORE-0000000003])
      --> KTABLE-JOINOTHER-0000000008
      <-- KSTREAM-SOURCE-0000000004
    Processor: KTABLE-JOINOTHER-0000000008 (stores: [a-STATE-STORE-0000000000])
      --> KTABLE-MERGE-0000000006
      <-- KTABLE-SOURCE-0000000005
    Processor: KTABLE-JOINTHIS-0000000007 (stores: [b-STATE-STORE-0000000003])
      --> KTABLE-MERGE-0000000006
      <-- KTABLE-SOURCE-0000000002
    Processor: KTABLE-MERGE-0000000006 (stores: [joined])
      --> none
      <-- KTABLE-JOINTHIS-0000000007, KTABLE-JOINOTHER-0000000008

"""


def test_joined_tables_on_repartition_topics_of_different_sizes_cannot_be_copartitioned():
    b = ks.StreamsBuilder()
    one = b.stream("a").repartition(ks.Repartitioned.as_("one").with_number_of_partitions(2))
    two = b.stream("b").repartition(ks.Repartitioned.as_("two").with_number_of_partitions(3))
    one.to_table().join(two.to_table(), lambda x, y: x)
    with pytest.raises(ks.TopologyError, match="one-repartition=2, two-repartition=3"):
        b.build()


def test_join_arguments_are_checked():
    b = ks.StreamsBuilder()
    s = b.stream("s")
    with pytest.raises(ks.TopologyError, match="joiner"):
        s.join(b.table("t"), "not a function")
    with pytest.raises(ks.TopologyError, match="KTable"):
        s.join(42, lambda a, c: a)


def test_table_table_outer_join_sequence():
    # KTableKTableOuterJoinTest.testJoin
    def joiner(a, c):
        return f"{'null' if a is None else a}+{'null' if c is None else c}"

    ints = serdes.Integer()
    b = ks.StreamsBuilder()
    t1, t2 = b.table("t1", ks.Consumed.with_(ints, S)), b.table("t2", ks.Consumed.with_(ints, S))
    t1.outer_join(t2, joiner).to_stream().to("out", ks.Produced.with_(ints, S))
    steps = []
    with ks.TopologyTestDriver(b.build()) as driver:
        one = driver.create_input_topic("t1", ints, S)
        two = driver.create_input_topic("t2", ints, S)
        out = driver.create_output_topic("out", ints, S)

        def read():
            steps.append([(r.key, r.value, r.timestamp) for r in out.read_records_to_list()])

        for k in (0, 1):
            one.pipe_input(k, f"X{k}", 5 + k)
        one.pipe_input(None, "SomeVal", 42)
        read()
        for k in (0, 1):
            two.pipe_input(k, f"Y{k}", 10 * k)
        read()
        for k in range(4):
            one.pipe_input(k, f"XX{k}", 7)
        read()
        for k in range(4):
            two.pipe_input(k, f"YY{k}", k * 5)
        read()
        two.pipe_input(0, None, 5)
        two.pipe_input(1, None, 7)
        read()
        for k, ts in zip(range(4), (0, 42, 5, 20), strict=True):
            one.pipe_input(k, None, ts)
        read()
    assert steps == [
        [(0, "X0+null", 5), (1, "X1+null", 6)],
        [(0, "X0+Y0", 5), (1, "X1+Y1", 10)],
        [(0, "XX0+Y0", 7), (1, "XX1+Y1", 10), (2, "XX2+null", 7), (3, "XX3+null", 7)],
        [(0, "XX0+YY0", 7), (1, "XX1+YY1", 7), (2, "XX2+YY2", 10), (3, "XX3+YY3", 15)],
        [(0, "XX0+null", 7), (1, "XX1+null", 7)],
        [(0, None, 0), (1, None, 42), (2, "null+YY2", 10), (3, "null+YY3", 20)],
    ]
