"""Batch replay on Spark equals the test driver record for record."""

from __future__ import annotations

from collections import defaultdict

import spark_apps as apps

import kslab as ks
from kslab import serdes
from kslab.spark import run_batch

S, L = serdes.String(), serdes.Long()


def encode(rows, topic):
    """(partition, key, value, ts) rows as serialized tuples with offsets per partition."""
    offsets: dict[int, int] = defaultdict(int)
    out = []
    for p, key, value, ts in rows:
        out.append((p, offsets[p], S.serialize(topic, key), S.serialize(topic, value), ts))
        offsets[p] += 1
    return out


def frame(spark, rows, topic):
    """A Spark frame of a topic's records, as the kslab-kafka source gives them."""
    return spark.createDataFrame(
        encode(rows, topic), "partition int, offset long, key binary, value binary, timestamp long")


def driver_output(topology, piped, partitions, out_topic, value_serde):
    """Pipe ``piped`` = [(topic, partition, key, value, ts)] into the driver; read the output."""
    with ks.TopologyTestDriver(topology, partitions=partitions) as driver:
        for topic, p, key, value, ts in piped:
            driver.pipe_raw(topic, S.serialize(topic, key), S.serialize(topic, value), None,
                            ts, p)
        return [(r.key, r.value, r.timestamp) for r in
                driver.create_output_topic(out_topic, S, value_serde).read_records_to_list()]


def spark_output(df, topic, value_serde):
    rows = df.orderBy("partition", "task", "seq").collect()
    return [(S.deserialize(topic, r["key"]), value_serde.deserialize(topic, r["value"]),
             r["timestamp"]) for r in rows]


def assert_same(spark_records, driver_records):
    """Same records (all fields), and each key's records in the same order."""
    assert sorted(spark_records, key=repr) == sorted(driver_records, key=repr)
    by_key_spark, by_key_driver = defaultdict(list), defaultdict(list)
    for k, v, ts in spark_records:
        by_key_spark[k].append((v, ts))
    for k, v, ts in driver_records:
        by_key_driver[k].append((v, ts))
    assert by_key_spark == by_key_driver


def test_word_count_dsl_equals_the_driver(spark):
    rows = apps.lines(60)
    out = run_batch(apps.word_count(), {"lines": frame(spark, rows, "lines")})
    assert list(out) == ["counts"]
    expected = driver_output(apps.word_count(), [("lines", *r) for r in rows], {"lines": 2},
                             "counts", L)
    got = spark_output(out["counts"], "counts", L)
    assert len(got) == sum(len(r[2].split()) for r in rows)
    assert_same(got, expected)


def test_two_subtopology_repartition_program_with_punctuation(spark):
    rows = [(i % 3, f"u{i % 4}", apps.WORDS[(i * 5) % 6], 100 + 7 * i) for i in range(45)]
    partitions = {"clicks": 3, "clicks-by-word": 2}
    out = run_batch(apps.two_stage(), {"clicks": frame(spark, rows, "clicks")},
                    partitions=partitions)
    expected = driver_output(apps.two_stage(), [("clicks", *r) for r in rows], partitions,
                             "counts", L)
    got = spark_output(out["counts"], "counts", L)
    assert any(k.startswith("__total__") for k, _, _ in got)  # stream-time punctuation fired
    assert_same(got, expected)


def test_stream_table_join_equals_the_driver(spark):
    # frames without partition or offset: Spark picks partitions with murmur2 of the key, as
    # the driver's default partitioner does, and keeps timestamp order
    regions = [(f"u{i % 4}", f"region{i}", 10 * i + 5) for i in range(8)]
    clicks = [(f"u{i % 5}", f"click{i}", 10 * i) for i in range(20)]

    def keyed(rows, topic):
        return spark.createDataFrame(
            [(S.serialize(topic, k), S.serialize(topic, v), ts) for k, v, ts in rows],
            "key binary, value binary, timestamp long")

    inputs = {"regions": keyed(regions, "regions"), "clicks": keyed(clicks, "clicks")}
    partitions = {"regions": 2, "clicks": 2}
    out = run_batch(apps.stream_table_join(), inputs, partitions=partitions)
    piped = sorted([("regions", None, *r) for r in regions] +
                   [("clicks", None, *r) for r in clicks], key=lambda r: r[4])
    expected = driver_output(apps.stream_table_join(), piped, partitions, "enriched", S)
    got = spark_output(out["enriched"], "enriched", S)
    assert any("@region" in v for _, v, _ in got) and any("@None" in v for _, v, _ in got)
    assert_same(got, expected)


def test_windowed_aggregation_with_suppress_equals_the_driver(spark):
    windowed = serdes.TimeWindowed(S, 60_000)
    clicks = [(f"u{(i * 7) % 5}", "x", 997 * i) for i in range(300)]  # ~5 minutes of clicks
    frame_ = spark.createDataFrame(
        [(S.serialize("clicks", k), S.serialize("clicks", v), ts) for k, v, ts in clicks],
        "key binary, value binary, timestamp long")
    partitions = {"clicks": 2}
    out = run_batch(apps.windowed_counts_final(), {"clicks": frame_}, partitions=partitions,
                    config={"application.id": "app"})["click-counts-final"]
    with ks.TopologyTestDriver(apps.windowed_counts_final(), {"application.id": "app"},
                               partitions=partitions) as driver:
        for key, value, ts in clicks:
            driver.pipe_raw("clicks", S.serialize("clicks", key), S.serialize("clicks", value),
                            None, ts, None)
        topic = driver.create_output_topic("click-counts-final", windowed, L)
        expected = [(r.key.key, r.key.window.start, r.value, r.timestamp)
                    for r in topic.read_records_to_list()]
    got = []
    for r in out.orderBy("partition", "task", "seq").collect():
        w = windowed.deserialize("click-counts-final", r["key"])
        got.append((w.key, w.window.start, L.deserialize("", r["value"]), r["timestamp"]))
    assert len(got) >= 15  # final counts of closed windows, once each
    assert sorted(got) == sorted(expected)
    per_key = defaultdict(list)
    for key, start, count, ts in got:
        per_key[key].append((start, count, ts))
    assert all(starts == sorted(starts) for starts in per_key.values())
    assert per_key == {k: [(s, c, t) for kk, s, c, t in expected if kk == k] for k in per_key}


def test_headers_survive_the_replay(spark):
    topo = (ks.Topology().add_source("src", "in", key_serde="string", value_serde="string")
            .add_sink("out", "out", "src", key_serde="string", value_serde="string"))
    df = spark.createDataFrame(
        [(b"k", b"v", 5, [("h", b"\x00\xff"), ("n", None)]), (b"k", b"w", 6, None)],
        "key binary, value binary, timestamp long, headers array<struct<key:string,value:binary>>")
    rows = run_batch(topo, {"in": df})["out"].orderBy("seq").collect()
    assert [[(h["key"], h["value"]) for h in r["headers"]] if r["headers"] else None
            for r in rows] == [[("h", b"\x00\xff"), ("n", None)], None]
