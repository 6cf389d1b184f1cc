"""A micro-batch is not a restart: a record late for the run stays late in the next batch."""

from __future__ import annotations

import kslab as ks
from conftest import consume_all, produce
from kslab import serdes
from kslab.spark import start

S, L = serdes.String(), serdes.Long()


def windowed_count(source: str, sink: str) -> ks.Topology:
    """Counts per key in 60 s tumbling windows without grace, every update to ``sink``."""
    builder = ks.StreamsBuilder()
    (builder.stream(source, ks.Consumed.with_(S, S)).group_by_key()
     .windowed_by(ks.TimeWindows.of_size_with_no_grace(60_000)).count()
     .to_stream().to(sink, ks.Produced.with_(serdes.TimeWindowed(S, 60_000), L)))
    return builder.build()


def test_a_record_late_for_an_earlier_micro_batch_is_dropped_as_the_driver_drops_it(
        spark, broker, topics, tmp_path):
    source, sink = topics("clicks"), topics("counts")
    config = {"application.id": source.replace("-clicks", "-app"),
              "bootstrap.servers": broker.bootstrap_servers}
    first = [("a", "x", 1_000), ("a", "x", 70_000)]  # stream time passes window [0, 60000)
    late = [("a", "x", 5_000)]  # late in the next micro-batch: [0, 60000) has closed

    def run():
        streams = start(windowed_count(source, sink), config, spark=spark,
                        checkpoint_location=str(tmp_path / "ckpt"),
                        trigger={"availableNow": True})
        assert streams.await_termination(300)

    def send(rows):
        produce(broker, source, [(0, S.serialize("", k), S.serialize("", v), ts)
                                 for k, v, ts in rows])

    send(first)
    run()
    send(late)
    run()
    with ks.TopologyTestDriver(windowed_count(source, sink)) as driver:
        clicks = driver.create_input_topic(source, S, S)
        for key, value, ts in first + late:
            clicks.pipe_input(key, value, ts)
        expected = [(r.key, r.value, r.timestamp) for r in driver.create_output_topic(
            sink, serdes.TimeWindowed(S, 60_000), L).read_records_to_list()]
        assert driver.metrics()["0_0"]["dropped-records-total"] == 1
    windowed = serdes.TimeWindowed(S, 60_000)
    got = [(windowed.deserialize("", k), L.deserialize("", v), ts)
           for _, k, v, ts in consume_all(broker, sink, 1)]
    assert [(w.key, w.window.start, n, ts) for w, n, ts in got] == [
        ("a", 0, 1, 1_000), ("a", 60_000, 1, 70_000)]
    assert [(w.key, w.window.start, n, ts) for w, n, ts in expected] == [
        ("a", 0, 1, 1_000), ("a", 60_000, 1, 70_000)]
