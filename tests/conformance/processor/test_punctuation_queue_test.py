"""Kafka's ``PunctuationQueueTest`` (streams/processor/internals), through the test driver.

Java builds a ``PunctuationSchedule`` by hand and calls ``PunctuationQueue.maybePunctuate(now)``
with chosen times; kslab's queue is reached the way a user reaches it: a processor calls
``context.schedule(100, type, punctuator)`` in ``init``, and the driver moves the clock.

- ``testPunctuationInterval`` (due at ``now + 100``, interval 100) is the wall-clock schedule
  made at ``now`` (a wall-clock schedule is due one interval after it is made); each
  ``maybePunctuate(now + d)`` is an ``advance_wall_clock_time`` to ``now + d``. It is also run
  on stream time (the schedule Java's ``StreamTask`` makes for ``STREAM_TIME`` is due at 0), with
  records at the times ``d - 100`` from 0 on (a record's timestamp cannot be negative, so the two
  steps before 0 are left out; the record at 0 fires at once).
- ``testPunctuationIntervalCustomAlignment`` (due at ``now + 50``) is the wall-clock schedule
  made at ``now - 50``.
- ``testPunctuationIntervalCancelFromPunctuator``: the punctuator cancels its own
  ``Cancellable``; it fires once and never again (Java's ``canPunctuate(Long.MAX_VALUE)`` is
  false: nothing fires even after the clock moves far ahead).

Java counts punctuations; each punctuator is given the time it fired at (``maybePunctuate``'s
``now``, not the schedule's due time), so the exact list of those times is checked.
"""

from __future__ import annotations

import kslab as ks

INTERVAL = 100
TOPIC = "input"


def _driver(punctuation_type, fired, initial_wall_clock_time=0, cancel_in_punctuator=False):
    """A one-processor topology that schedules one punctuation of ``INTERVAL`` at ``init``."""

    class Scheduling(ks.Processor):
        def init(self, context):
            def punctuate(timestamp):
                fired.append(timestamp)
                if cancel_in_punctuator:
                    self.cancellable.cancel()

            self.cancellable = context.schedule(INTERVAL, punctuation_type, punctuate)

        def process(self, record):
            pass

    topology = ks.Topology().add_source("source", TOPIC).add_processor("p", Scheduling, "source")
    return ks.TopologyTestDriver(topology, initial_wall_clock_time=initial_wall_clock_time)


def _wall_clock_steps(driver, start, now, offsets, fired):
    """From ``start``, advance the wall clock to ``now + d`` for each ``d``; the punctuations
    seen after each step."""
    seen = []
    clock = start
    for offset in offsets:
        driver.advance_wall_clock_time(now + offset - clock)
        clock = now + offset
        seen.append(list(fired))
    return seen


def test_punctuation_interval():
    fired = []
    now = 0
    offsets = [0, 99, 100, 199, 200, 1001, 1002, 1100]
    with _driver(ks.PunctuationType.WALL_CLOCK_TIME, fired, initial_wall_clock_time=now) as driver:
        seen = _wall_clock_steps(driver, now, now, offsets, fired)
    assert [len(s) for s in seen] == [0, 0, 1, 1, 2, 3, 3, 4]
    assert fired == [100, 200, 1001, 1100]


def test_punctuation_interval_on_stream_time():
    fired = []
    seen = []
    with _driver(ks.PunctuationType.STREAM_TIME, fired) as driver:
        topic = driver.create_input_topic(TOPIC)
        for offset in [100, 199, 200, 1001, 1002, 1100]:
            topic.pipe_input("k", "v", offset - 100)
            seen.append(len(fired))
    assert seen == [1, 1, 2, 3, 3, 4]
    assert fired == [0, 100, 901, 1000]


def test_punctuation_interval_custom_alignment():
    fired = []
    now = 50
    offsets = [0, 49, 50, 149, 150, 1051, 1052, 1150]
    start = now - 50
    wall_clock = ks.PunctuationType.WALL_CLOCK_TIME
    with _driver(wall_clock, fired, initial_wall_clock_time=start) as driver:
        seen = _wall_clock_steps(driver, start, now, offsets, fired)
    assert [len(s) for s in seen] == [0, 0, 1, 1, 2, 3, 3, 4]
    assert fired == [100, 200, 1101, 1200]


def test_punctuation_interval_cancel_from_punctuator():
    fired = []
    now = 0
    with _driver(ks.PunctuationType.WALL_CLOCK_TIME, fired, initial_wall_clock_time=now,
                 cancel_in_punctuator=True) as driver:
        seen = _wall_clock_steps(driver, now, now, [0, 100, 200, 10_000_000], fired)
    assert [len(s) for s in seen] == [0, 1, 1, 1]
    assert fired == [100]


def test_punctuation_interval_cancel_from_punctuator_on_stream_time():
    fired = []
    with _driver(ks.PunctuationType.STREAM_TIME, fired, cancel_in_punctuator=True) as driver:
        topic = driver.create_input_topic(TOPIC)
        for timestamp in [0, 100, 200, 10_000_000]:
            topic.pipe_input("k", "v", timestamp)
    assert fired == [0]
