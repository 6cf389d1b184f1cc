"""Task metrics as Kafka's: record lateness (task level) and node-level metrics that processors
record through ``context.node_metrics()``, reported by the driver and kept by its snapshots."""

from __future__ import annotations

import math

import pytest

import kslab as ks
from kslab import serdes
from kslab.processor import Processor, ProcessorContext
from kslab.records import Record

S = serdes.String()


class _Counting(Processor):
    """Counts what it sees into its node metrics, and into a store's name once at init."""

    def init(self, context: ProcessorContext) -> None:
        self.metrics = context.node_metrics()
        self.metrics["seen-total"] = 0.0
        context.node_metrics("some-store")["opened-total"] = 1.0

    def process(self, record: Record) -> None:
        self.metrics["seen-total"] += 1


def _driver(**config: object) -> ks.TopologyTestDriver:
    topology = ks.Topology()
    topology.add_source("src", "in", key_serde=S, value_serde=S)
    topology.add_processor("count", _Counting, "src")
    return ks.TopologyTestDriver(topology, dict(config))


def test_no_records_no_lateness_samples() -> None:
    with _driver() as driver:
        metrics = driver.metrics()["0_0"]
        assert metrics["process-total"] == 0
        assert math.isnan(metrics["record-lateness-avg"])
        assert math.isnan(metrics["record-lateness-max"])
        assert metrics["count"] == {"seen-total": 0.0}
        assert metrics["some-store"] == {"opened-total": 1.0}


@pytest.mark.parametrize("bulk", [True, False])
def test_lateness_is_stream_time_minus_timestamp(bulk: bool) -> None:
    # Kafka's KStreamWindowAggregateTest: 100, then 0..6 (100..94 late), then 105, 106
    timestamps = [100, 0, 1, 2, 3, 4, 5, 6, 105, 106]
    with _driver(**{"kslab.driver.bulk": bulk}) as driver:
        topic = driver.create_input_topic("in", S, S)
        topic.pipe_record_list([ks.TestRecord("k", str(ts), ts) for ts in timestamps])
        metrics = driver.metrics()["0_0"]
        assert metrics["process-total"] == 10
        assert metrics["record-lateness-max"] == 100.0
        assert metrics["record-lateness-avg"] == pytest.approx(67.9)
        assert metrics["count"] == {"seen-total": 10.0}


@pytest.mark.parametrize("bulk", [True, False])
def test_looped_back_records_are_late_as_their_input_row(bulk: bool) -> None:
    """Each repartitioned word is taken behind stream time as its line was: the bulk path
    must count them as the record path does."""
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, S)).flat_map_values(str.split)
     .group_by(lambda k, w: w, ks.Grouped.with_(S, S)).count().to_stream()
     .to("out", ks.Produced.with_(S, serdes.Long())))
    with ks.TopologyTestDriver(b.build(), {"kslab.driver.bulk": bulk}) as driver:
        topic = driver.create_input_topic("in", S, S)
        topic.pipe_record_list([ks.TestRecord(None, "a b", 50), ks.TestRecord(None, "c", 20),
                                ks.TestRecord(None, "d e f", 40), ks.TestRecord(None, "g", 60)])
        metrics = driver.metrics()["0_0"]
        # lines: 0, 30, 10, 0; words: a b 0 0, c 30, d e f 10 10 10, g 0
        assert metrics["process-total"] == 11
        assert metrics["record-lateness-max"] == 30.0
        assert metrics["record-lateness-avg"] == pytest.approx(100 / 11)
        assert (driver.bulk_stats()["chunks"] == 1) is bulk


def test_snapshots_restore_lateness_and_node_metrics() -> None:
    with _driver() as driver:
        topic = driver.create_input_topic("in", S, S)
        topic.pipe_input("k", "v", 100)
        topic.pipe_input("k", "v", 40)
        saved = driver.snapshot()
        before = driver.metrics()
        topic.pipe_input("k", "v", 0)
        assert driver.metrics()["0_0"]["record-lateness-max"] == 100.0
        assert driver.metrics()["0_0"]["count"] == {"seen-total": 3.0}
        driver.restore(saved)
        assert driver.metrics() == before
        assert before["0_0"]["record-lateness-max"] == 60.0
        topic.pipe_input("k", "v", 90)  # the processor's dict is still the one reported
        assert driver.metrics()["0_0"]["count"] == {"seen-total": 3.0}


def test_node_metrics_outside_a_node_needs_a_name() -> None:
    with _driver() as driver:
        (task,) = driver.tasks.values()
        with pytest.raises(ks.KslabError, match="needs a node name"):
            task.context.node_metrics()
        assert task.context.node_metrics("count") == {"seen-total": 0.0}
