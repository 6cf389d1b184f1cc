"""Issue 23 item 8: a Spark replay shows progress (``kslab.spark.progress.watch``): the bar
counts every task of the block's jobs to the end, and an interrupt cancels the jobs, closes the
bar and leaves the session usable."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

import kslab as ks
from kslab.spark import run_batch
from kslab.spark.progress import watch


class Recorder:
    """A reporter that keeps what it was told."""

    made: list[Recorder] = []

    def __init__(self, total: int, description: str) -> None:
        self.total, self.description, self.done, self.closed = total, description, 0, False
        Recorder.made.append(self)

    def update(self, n: int) -> None:
        self.done += n

    def close(self) -> None:
        self.closed = True


def _word_count() -> ks.StreamsBuilder:
    builder = ks.StreamsBuilder()
    (builder.stream("lines", key_serde="string", value_serde="string")
     .flat_map_values(str.split).group_by(lambda k, v: v).count().to_stream().to("counts"))
    return builder


def test_a_replay_reports_every_task_to_the_end(spark):
    Recorder.made.clear()
    lines = spark.createDataFrame([(None, f"w{i % 5} w{i % 3}", i) for i in range(200)],
                                  "key string, value string, timestamp long").repartition(3)
    with watch(spark, "word count", factory=Recorder, interval=0.05) as progress:
        rows = run_batch(_word_count(), {"lines": lines})["counts"].toPandas()
    assert len(rows) == 400
    bar = Recorder.made[0]
    assert bar.description == "word count" and bar.closed
    assert bar.done == progress.total == progress.done > 0
    assert spark.sparkContext.getLocalProperty("spark.jobGroup.id") is None


def test_an_interrupt_cancels_the_jobs_and_the_session_runs_again(spark):
    Recorder.made.clear()
    slow = spark.range(0, 4, numPartitions=4).selectExpr(
        "reflect('java.lang.Thread', 'sleep', cast(60000 as long)) as x")
    timer = threading.Timer(3.0, os.kill, (os.getpid(), signal.SIGINT))  # the stop button
    started = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt), watch(spark, "slow", factory=Recorder,
                                                     interval=0.05) as progress:
            slow.collect()
    finally:
        timer.cancel()
    assert time.monotonic() - started < 50  # not the 60 s of the sleeps
    assert Recorder.made and Recorder.made[0].closed and Recorder.made[0].total == 4
    tracker = spark.sparkContext.statusTracker()
    for _ in range(100):  # the cancelled tasks wind down
        jobs = [tracker.getJobInfo(j) for j in tracker.getJobIdsForGroup(progress.group)]
        if all(j is None or j.status != "RUNNING" for j in jobs):
            break
        time.sleep(0.1)
    assert all(j is None or j.status != "RUNNING" for j in jobs)
    assert spark.range(5).count() == 5  # usable
