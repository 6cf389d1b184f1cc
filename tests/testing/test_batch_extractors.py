"""Timestamp extractors on the batch path: the source's extractor is called once per record in
each partition's order, with the partition time so far and the record's offset, and every
observable equals the record path's (on one partition, several, and from a DataFrame); a
negative extracted timestamp sends the chunk record by record, which skips it with its
warning."""

from __future__ import annotations

import logging
from typing import Any

import pandas as pd
import pytest

import kslab as ks
from kslab import serdes
from tests.testing.driver_observables import state

S, J = serdes.String(), serdes.Json()
SEEN: list[tuple[int, int, int, int]] = []  # what the extractor was called with, in order


def event_time(record: Any, partition_time: int) -> int:
    """The value's ``ts`` field, else the partition time so far (else the record's own)."""
    SEEN.append((record.partition, record.offset, record.timestamp, partition_time))
    value = record.value
    if value is not None and "ts" in value:
        return value["ts"]  # type: ignore[no-any-return]
    return partition_time if partition_time >= 0 else record.timestamp


def _topology(windowed: bool) -> ks.Topology:
    b = ks.StreamsBuilder()
    stream = b.stream("in", ks.Consumed.with_(S, J).with_timestamp_extractor(event_time))
    if windowed:
        (stream.group_by_key()
         .windowed_by(ks.TimeWindows.of_size_and_grace(100, 20))
         .count()
         .to_stream()
         .map(lambda wk, n: (wk.key, {"start": wk.window.start, "n": n}))
         .to("out", ks.Produced.with_(S, J)))
    else:
        stream.map_values(lambda v: {"seen": v}).to("out", ks.Produced.with_(S, J))
    return b.build()


def _rows(n: int) -> list[tuple[str, Any, int]]:
    """Values with an event time (out of order, some late) or without one; the records' own
    timestamps count down, so only the extractor's order the windows."""
    rows = []
    for i in range(n):
        value = {"ts": 100 + 5 * i + (37 if i % 11 == 0 else 0) - (90 if i % 13 == 0 else 0)} \
            if i % 7 else {"n": i}
        rows.append((f"k{i % 9}", value, 10 * (n - i)))
    return rows


def _drive(windowed: bool, bulk: bool, partitions: int, frame: bool,
           caplog: pytest.LogCaptureFixture) -> tuple[Any, ...]:
    caplog.clear()
    SEEN.clear()
    rows = _rows(700)
    with ks.TopologyTestDriver(_topology(windowed), {"kslab.driver.bulk": bulk},
                               partitions={"in": partitions} if partitions > 1 else None
                               ) as driver:
        topic = driver.create_input_topic("in", S, J)
        if frame:
            topic.pipe_dataframe(pd.DataFrame(rows, columns=["key", "value", "timestamp"]))
        else:
            topic.pipe_record_list([ks.TestRecord(k, v, ts) for k, v, ts in rows])
        # internal on purpose: the bulk executor itself (which one ran, its per-chunk counters)
        executor = driver._partitioned if partitions > 1 else driver._bulk
        return (state(driver), list(SEEN), [r.getMessage() for r in caplog.records
                                            if r.name.startswith("kslab")],
                executor.chunks if bulk else 0)


@pytest.mark.parametrize("windowed", [False, True], ids=["stateless", "windowed"])
@pytest.mark.parametrize(("partitions", "frame"), [(1, False), (1, True), (3, False)],
                         ids=["1", "frame", "3"])
def test_an_extractor_runs_in_batch_as_on_the_record_path(
        windowed: bool, partitions: int, frame: bool, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    bulk, bulk_seen, bulk_log, chunks = _drive(windowed, True, partitions, frame, caplog)
    record, record_seen, record_log, _ = _drive(windowed, False, partitions, frame, caplog)
    assert chunks > 0
    assert bulk == record
    # the same calls, in the same order per partition (tasks take a chunk one after another)
    assert sorted(bulk_seen, key=lambda call: call[0]) == sorted(record_seen,
                                                                 key=lambda call: call[0])
    assert bulk_log == record_log
    assert len(bulk_seen) == 700


def test_a_negative_extracted_timestamp_sends_the_chunk_record_by_record() -> None:
    """The record path skips the record with Kafka's warning and counts it; so does a chunk
    holding it, which the executor declines."""
    rows = [("a", {"ts": 10}), ("b", {"ts": -5}), ("c", {"ts": 30})]
    outcomes = []
    for bulk in (True, False):
        SEEN.clear()
        with ks.TopologyTestDriver(_topology(False), {"kslab.driver.bulk": bulk}) as driver:
            driver.create_input_topic("in", S, J).pipe_key_value_list(rows)
            out = driver.create_output_topic("out", S, J).read_records_to_list()
            # internal on purpose: the bulk executor itself (which one ran, its per-chunk counters)
            executor = driver._bulk
            outcomes.append(([(r.key, r.value, r.timestamp) for r in out],
                             driver.metrics()["0_0"]["dropped-records-total"],
                             (executor.chunks, executor.declined) if bulk else None))
    assert outcomes[0][:2] == outcomes[1][:2] == (
        [("a", {"seen": {"ts": 10}}, 10), ("c", {"seen": {"ts": 30}}, 30)], 1)
    assert outcomes[0][2] == (0, 1)  # declined, then run record by record
