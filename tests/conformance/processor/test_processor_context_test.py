"""Kafka's ``ProcessorContextTest``, translated to a processor's context in kslab's driver.

Java calls ``schedule`` on a ``ProcessorContextImpl`` of an active task; here a processor calls
it from ``init``. ``IllegalArgumentException`` is ``kslab.errors.InvalidArgumentError`` (the
error is also a ``ks.StreamsError``); Java's message opens kslab's, which then names the
processor and the interval it asked for.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

import kslab as ks
from kslab.errors import InvalidArgumentError

MESSAGE = "The minimum supported scheduling interval is 1 millisecond."


def schedule_in_init(interval):
    """The error ``schedule(interval, ...)`` raised in a processor's ``init`` (or ``None``)."""
    raised = []

    class Scheduling(ks.Processor):
        def init(self, context):
            try:
                context.schedule(interval, None, None)
            except Exception as error:
                raised.append(error)

        def process(self, record):
            pass

    topology = ks.Topology().add_source("source", "topic").add_processor(
        "processor", Scheduling, "source")
    with ks.TopologyTestDriver(topology):
        pass
    return raised[0] if raised else None


def test_should_not_allow_to_schedule_zero_millisecond_punctuation():
    error = schedule_in_init(timedelta(milliseconds=0))
    assert isinstance(error, InvalidArgumentError)
    assert str(error).startswith(MESSAGE)


def test_should_not_allow_to_schedule_sub_millisecond_punctuation():
    error = schedule_in_init(timedelta(microseconds=999))  # Java's Duration.ofNanos(999_999)
    assert isinstance(error, InvalidArgumentError)
    assert str(error).startswith(MESSAGE)


@pytest.mark.parametrize("interval", [0, -1])
def test_should_not_allow_to_schedule_a_non_positive_interval_in_ms(interval):
    error = schedule_in_init(interval)
    assert isinstance(error, InvalidArgumentError)
    assert str(error).startswith(MESSAGE)
