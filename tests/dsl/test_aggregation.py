"""Grouping and aggregation in the test driver: exact outputs, caching as Java's driver shows it."""

from __future__ import annotations

import kslab as ks
from kslab import serdes

S, L = serdes.String(), serdes.Long()
NO_CACHE = {"statestore.cache.max.bytes": 0}


def word_count(builder: ks.StreamsBuilder) -> None:
    # seed 004: flatMapValues -> groupBy(word) -> count -> toStream -> to
    (builder.stream("in", ks.Consumed.with_(S, S))
     .flat_map_values(lambda line: line.lower().split())
     .group_by(lambda key, word: word, ks.Grouped.with_(S, S))
     .count(materialized=ks.Materialized.as_("counts-store"))
     .to_stream()
     .to("out", ks.Produced.with_(S, L)))


def test_seed_004_word_count():
    b = ks.StreamsBuilder()
    word_count(b)
    with ks.TopologyTestDriver(b.build()) as driver:
        inp = driver.create_input_topic("in", S, S)
        inp.pipe_input(None, "Hello Kafka Streams", 1)
        inp.pipe_input(None, "hello world", 2)
        out = driver.create_output_topic("out", S, L)
        assert [(r.key, r.value, r.timestamp) for r in out.read_records_to_list()] == [
            ("hello", 1, 1), ("kafka", 1, 1), ("streams", 1, 1), ("hello", 2, 2),
            ("world", 1, 2),
        ]
        store = driver.get_key_value_store("counts-store")
        assert store.get("hello") == 2
        assert driver.get_timestamped_key_value_store("counts-store").get("hello") == \
            ks.ValueAndTimestamp(2, 2)


def test_cache_sends_one_update_per_key_per_record_in_the_driver():
    # Java's driver commits (flushes caches) after each input record: two updates of one key
    # made while processing one record reach downstream once, with the latest value.
    def build() -> ks.Topology:
        b = ks.StreamsBuilder()
        (b.stream("in", ks.Consumed.with_(S, S)).flat_map_values(str.split)
         .group_by_key().count().to_stream().to("out", ks.Produced.with_(S, L)))
        return b.build()

    for config, expected in [(None, [("k", 2), ("k", 3)]),
                             (NO_CACHE, [("k", 1), ("k", 2), ("k", 3)])]:
        with ks.TopologyTestDriver(build(), config) as driver:
            inp = driver.create_input_topic("in", S, S)
            inp.pipe_input("k", "a b")
            inp.pipe_input("k", "c")
            assert driver.create_output_topic("out", S, L).read_key_values_to_list() == expected


def test_reduce_and_aggregate_with_timestamps():
    b = ks.StreamsBuilder()
    grouped = b.stream("in", ks.Consumed.with_(S, serdes.Long())).group_by_key()
    grouped.reduce(lambda agg, v: agg + v).to_stream().to("sum", ks.Produced.with_(S, L))
    grouped.aggregate(lambda: "", lambda k, v, agg: agg + str(v),
                      materialized=ks.Materialized.with_(S, S)).to_stream().to("cat")
    with ks.TopologyTestDriver(b.build(), NO_CACHE) as driver:
        inp = driver.create_input_topic("in", S, serdes.Long())
        inp.pipe_input("a", 1, 10)
        inp.pipe_input("a", 2, 5)
        inp.pipe_input(None, 3, 20)  # null keys are dropped by aggregations
        sums = driver.create_output_topic("sum", S, L).read_records_to_list()
        cats = driver.create_output_topic("cat", S, S).read_key_values_to_list()
    # the aggregate keeps the largest timestamp seen
    assert [(r.key, r.value, r.timestamp) for r in sums] == [("a", 1, 10), ("a", 3, 10)]
    assert cats == [("a", "1"), ("a", "12")]


def test_group_by_drops_null_keys_before_the_repartition_topic():
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, S)).group_by(lambda k, v: v or None)
     .count().to_stream().to("out", ks.Produced.with_(S, L)))
    with ks.TopologyTestDriver(b.build()) as driver:
        inp = driver.create_input_topic("in", S, S)
        inp.pipe_input("k", "")
        inp.pipe_input("k", "x")
        assert driver.create_output_topic("out", S, L).read_key_values_to_list() == [("x", 1)]


def test_table_group_by_moves_a_row_between_groups():
    # KGroupedTable: an update that changes the group subtracts from the old group and adds to
    # the new one; an update keeping the group is one change (Kafka 3.5+).
    b = ks.StreamsBuilder()
    (b.table("users", ks.Consumed.with_(S, S))
     .group_by(lambda user, region: (region, user), ks.Grouped.with_(S, S))
     .count()
     .to_stream().to("out", ks.Produced.with_(S, L)))
    with ks.TopologyTestDriver(b.build(), NO_CACHE) as driver:
        users = driver.create_input_topic("users", S, S)
        users.pipe_input("ann", "eu")
        users.pipe_input("bob", "eu")
        users.pipe_input("ann", "us")
        users.pipe_input("bob", "eu")
        users.pipe_input("bob", None)
        out = driver.create_output_topic("out", S, L).read_key_values_to_list()
    assert out == [("eu", 1), ("eu", 2), ("eu", 1), ("us", 1), ("eu", 1), ("eu", 0)]


def test_table_reduce_and_aggregate_with_subtractors():
    b = ks.StreamsBuilder()
    grouped = (b.table("t", ks.Consumed.with_(S, serdes.Long()))
               .group_by(lambda k, v: ("all", v), ks.Grouped.with_(S, serdes.Long())))
    grouped.reduce(lambda a, v: a + v, lambda a, v: a - v).to_stream().to(
        "sum", ks.Produced.with_(S, L))
    grouped.aggregate(lambda: 0, lambda k, v, a: a + 1, lambda k, v, a: a - 1,
                      materialized=ks.Materialized.with_(S, L)).to_stream().to(
        "n", ks.Produced.with_(S, L))
    with ks.TopologyTestDriver(b.build()) as driver:
        t = driver.create_input_topic("t", S, serdes.Long())
        t.pipe_input("x", 5)
        t.pipe_input("y", 7)
        t.pipe_input("x", 1)
        sums = driver.create_output_topic("sum", S, L).read_values_to_list()
        counts = driver.create_output_topic("n", S, L).read_values_to_list()
    assert sums == [5, 12, 8]
    assert counts == [1, 2, 2]


def test_changelog_of_an_aggregation_store():
    b = ks.StreamsBuilder()
    b.stream("in", ks.Consumed.with_(S, S)).group_by_key().count(materialized="c")
    with ks.TopologyTestDriver(b.build(), {"application.id": "app"}) as driver:
        driver.create_input_topic("in", S, S).pipe_input("k", "v", 3)
        changelog = driver.create_output_topic("app-c-changelog", S, L).read_records_to_list()
    assert [(r.key, r.value, r.timestamp) for r in changelog] == [("k", 1, 3)]


def test_skipped_records_are_logged_in_javas_words_and_counted(caplog):
    # KGroupedStreamImplTest.shouldLogAndMeasureSkipsInAggregate
    b = ks.StreamsBuilder()
    b.stream("topic", ks.Consumed.with_(S, S)).group_by_key().count(materialized="count")
    with caplog.at_level("WARNING", logger="kslab.dsl"), \
            ks.TopologyTestDriver(b.build()) as driver:
        inp = driver.create_input_topic("topic", S, S)
        for key, value, ts in [("1", "A", 5), ("2", "B", 1), ("1", "C", 3), ("1", "D", 10),
                               ("3", "E", 8), ("3", "F", 9), ("3", None, 0)]:
            inp.pipe_input(key, value, ts)
        assert driver.metrics()["0_0"]["dropped-records-total"] == 1
        counts = driver.get_timestamped_key_value_store("count")
        assert counts.get("1") == ks.ValueAndTimestamp(3, 10)
        assert counts.get("3") == ks.ValueAndTimestamp(2, 9)
    assert ("Skipping record due to null key or value. topic=[topic] partition=[0] offset=[6]"
            in caplog.messages)
