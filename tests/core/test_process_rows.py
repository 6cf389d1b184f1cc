"""``StreamTask.process_rows`` (the engines' hot loop) has exactly ``process_now``'s outcome:
the same records seen with the same context, punctuations, skips, metrics, times and errors."""

from __future__ import annotations

from typing import Any

import pytest

import kslab as ks
from kslab import serdes

L, S = serdes.Long(), serdes.String()


class _Seeing(ks.Processor):
    """Notes what it sees, forwards, and punctuates every 10 ms of stream time."""

    def init(self, context: Any) -> None:
        self.context = context
        self.seen: list[Any] = []
        context.schedule(10, ks.PunctuationType.STREAM_TIME,
                         lambda ts: self.seen.append(("punctuate", ts)))

    def process(self, record: Any) -> None:
        c = self.context
        self.seen.append((c.topic, c.partition, c.offset, record.key, record.value,
                          record.timestamp, list(record.headers)))
        c.forward(record)


def _driver() -> ks.TopologyTestDriver:
    topo = ks.Topology()
    topo.add_source("src", "in", key_serde=L, value_serde=S)
    topo.add_processor("see", _Seeing, "src")
    topo.add_sink("out", "out", "see", key_serde=L, value_serde=S)
    config = {"default.deserialization.exception.handler": "log_and_continue"}
    return ks.TopologyTestDriver(topo, config)


def _rows() -> list[tuple[Any, ...]]:
    k = L.serialize("in", 7)
    return [
        (k, b"first", None, 5, None),
        (None, b"null key", None, 12, None),
        (k, None, None, 13, None),
        (b"abc", b"key the Long codec refuses: skipped", None, 14, None),
        (k, b"late", None, 3, None),
        (k, b"with headers", ks.Headers([("h", b"1")]), 31, None),
        (k, b"last", None, 40, None),
    ]


def _observe(driver: ks.TopologyTestDriver) -> dict[str, Any]:
    (task,) = driver.tasks.values()
    queue = task.queue_for("in", 0)
    return {
        "seen": task.nodes["see"].processor.seen,
        "out": driver.create_output_topic("out", L, S).read_records_to_list(),
        "metrics": task.metrics.as_dict(),
        "stream_time": task.stream_time,
        "partition_time": queue.partition_time,
    }


def test_process_rows_matches_process_now_row_by_row() -> None:
    with _driver() as by_rows, _driver() as by_record:
        (task,) = by_rows.tasks.values()
        assert task.process_rows(task.queue_for("in", 0), 100, _rows()) == 7
        (other,) = by_record.tasks.values()
        queue = other.queue_for("in", 0)
        for offset, (key, value, headers, timestamp, _) in enumerate(_rows(), 100):
            if other.process_now(("in", 0, offset, timestamp, key, value, headers), queue):
                other.maybe_punctuate_stream_time()
        rows_view, record_view = _observe(by_rows), _observe(by_record)
    assert rows_view == record_view
    seen = rows_view["seen"]
    assert seen[0] == ("in", 0, 100, 7, "first", 5, [])
    assert ("punctuate", 12) in seen and ("punctuate", 31) in seen
    assert ("in", 0, 105, 7, "with headers", 31, [("h", b"1")]) in seen
    assert rows_view["metrics"]["dropped-records-total"] == 1
    assert rows_view["metrics"]["process-total"] == 6
    assert rows_view["stream_time"] == 40


def test_a_negative_timestamp_raises_process_nows_error_after_the_rows_before_it() -> None:
    rows = [*_rows()[:2], (L.serialize("in", 1), b"bad", None, -1, None), *_rows()[2:]]
    with _driver() as driver:
        (task,) = driver.tasks.values()
        with pytest.raises(ks.StreamsError, match=r"has invalid \(negative\) timestamp"):
            task.process_rows(task.queue_for("in", 0), 0, rows)
        assert task.processed_rows == 2
        assert [s[2] for s in task.nodes["see"].processor.seen if s[0] == "in"] == [0, 1]
        assert task.context.current is None
