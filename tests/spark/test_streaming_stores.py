"""Streaming with window, session, suppress, versioned and timestamped stores: Kafka -> Spark ->
Kafka with availableNow, more input in several micro-batches, a restart from the checkpoint, and
every output topic equal to the test driver's on the same input."""

from __future__ import annotations

from collections import defaultdict

import spark_apps as apps

import kslab as ks
from conftest import consume_all, produce
from kslab import serdes
from kslab.processor.partitioner import default_partition
from kslab.spark import start

S, L, B = serdes.String(), serdes.Long(), serdes.Bytes()
OUTPUTS = ("final", "sessions", "priced", "totals", "joined")


def clicks(first: int, last: int) -> list[tuple[str, str, int]]:
    """Clicks ``first..last-1``: 5 users, 2 s apart, two 45 s pauses (sessions close); no
    timestamp 0, which a Kafka producer replaces with the wall clock."""
    return [(f"user-{(i * 3) % 5}", f"c{i}",
             1_000 + 2_000 * i + 45_000 * (i >= 40) + 45_000 * (i >= 110))
            for i in range(first, last)]


def prices() -> list[tuple[str, int, int]]:
    """A price update per user every 15 s (timestamps end in 500: never equal to a click's)."""
    return [(f"user-{j % 5}", 10 * j + 7, 500 + 15_000 * j) for j in range(12)]


def views(first: int, last: int) -> list[tuple[str, str, int]]:
    """A page view every 7 s (timestamps end in 250), some near a click of the same user."""
    return [(f"user-{j % 5}", f"v{j}", 1_250 + 7_000 * j) for j in range(first, last)]


def raw(rows, value_serde):
    """``(partition, key bytes, value bytes, ts)``: co-partitioned by murmur2 of the key."""
    out = []
    for key, value, ts in rows:
        k = S.serialize("", key)
        out.append((default_partition(k, 2), k, value_serde.serialize("", value), ts))
    return out


def driver_outputs(topology, clicks_topic, prices_topic, views_topic, out):
    """Every input piped into the driver in timestamp order; each output topic's raw records."""
    piped = sorted([(ts, prices_topic, p, k, v) for p, k, v, ts in raw(prices(), L)] +
                   [(ts, clicks_topic, p, k, v) for p, k, v, ts in raw(clicks(0, 160), S)] +
                   [(ts, views_topic, p, k, v) for p, k, v, ts in raw(views(0, 30), S)])
    partitions = {clicks_topic: 2, prices_topic: 2, views_topic: 2}
    with ks.TopologyTestDriver(topology, partitions=partitions) as driver:
        for ts, topic, p, k, v in piped:
            driver.pipe_raw(topic, k, v, None, ts, p)
        return {name: [(r.key, r.value, r.timestamp) for r in
                       driver.create_output_topic(f"{out}-{name}", B, B).read_records_to_list()]
                for name in OUTPUTS}


def by_key(records):
    grouped = defaultdict(list)
    for key, value, ts in records:
        grouped[key].append((value, ts))
    return dict(grouped)


def test_every_store_kind_streams_across_batches_and_restarts_equal_to_the_driver(
        spark, broker, topics, tmp_path):
    clicks_topic, prices_topic = topics("clicks", 2), topics("prices", 2)
    views_topic = topics("views", 2)
    out = clicks_topic.replace("-clicks", "-out")
    for name in OUTPUTS:
        topics(f"out-{name}", 2)
    config = {"application.id": clicks_topic.replace("-clicks", "-app"),
              "bootstrap.servers": broker.bootstrap_servers}

    def run(limit=None, preload=None):
        topology = apps.store_kinds(clicks_topic, prices_topic, out, views_topic)
        streams = start(topology, config, checkpoint_location=str(tmp_path / "ckpt"),
                        trigger={"availableNow": True}, spark=spark,
                        max_offsets_per_trigger=limit, preload_state=preload)
        assert streams.await_termination(300)
        return len(streams.queries[0].recentProgress)

    produce(broker, prices_topic, raw(prices(), L))
    produce(broker, clicks_topic, raw(clicks(0, 90), S))
    produce(broker, views_topic, raw(views(0, 30), S))
    run()
    produce(broker, clicks_topic, raw(clicks(90, 160), S))
    # 70 clicks, 35 per micro-batch: state carried batch to batch, key-value and versioned
    # stores read key by key
    assert run(limit=35, preload=False) >= 2

    expected = driver_outputs(apps.store_kinds(clicks_topic, prices_topic, out, views_topic),
                              clicks_topic, prices_topic, views_topic, out)
    windowed = serdes.TimeWindowed(S, 60_000)
    finals = [(windowed.deserialize("", k).window.start, L.deserialize("", v))
              for k, v, _ in expected["final"]]
    assert len(finals) >= 20 and all(n > 0 for _, n in finals)  # closed windows, once each
    assert any(v is None for _, v, _ in expected["sessions"])  # merged sessions: tombstones
    assert 100 < len(expected["priced"]) < 160  # clicks before a first price find none
    joined = [v for _, v, _ in expected["joined"]]
    assert any(v.endswith(b"+None") for v in joined) and any(v.startswith(b"None+") for v in joined)
    assert any(b"+v" in v and b"c" in v for v in joined)  # matched pairs too
    for name in OUTPUTS:
        got = consume_all(broker, f"{out}-{name}", 2)
        records = [(k, v, ts) for _, k, v, ts in got]
        assert sorted(records, key=repr) == sorted(expected[name], key=repr), name
        assert by_key(records) == by_key(expected[name]), name  # each key's records in order
        # windowed results go by their base key (Java's WindowedStreamPartitioner): the key
        # bytes without the 8-byte window start (time windows) or 16-byte end + start (sessions)
        base = {"final": 8, "sessions": 16}.get(name, 0)
        assert all(p == default_partition(k[:len(k) - base], 2) for p, k, _, _ in got), name
