"""Kafka's sampled stats: avg/max forget samples two windows old, a rate spans at least one
full 30 s window, totals never forget."""

from __future__ import annotations

import math

from kslab.sensors import AvgMaxSensor, RateTotalSensor


class _Clock:
    def __init__(self) -> None:
        self.now = 0

    def __call__(self) -> int:
        return self.now


def test_avg_and_max_are_nan_until_recorded_then_over_live_samples() -> None:
    clock, metrics = _Clock(), {}
    sensor = AvgMaxSensor(metrics, "x", clock)
    assert math.isnan(metrics["x-avg"]) and math.isnan(metrics["x-max"])
    sensor.record(10)
    sensor.record(20)
    assert (metrics["x-avg"], metrics["x-max"]) == (15.0, 20)
    clock.now = 30_000  # a second sample
    sensor.record(0)
    assert (metrics["x-avg"], metrics["x-max"]) == (10.0, 20)
    clock.now = 60_000  # the first sample (started at 0) is two windows old: forgotten
    sensor.record(3)
    assert (metrics["x-avg"], metrics["x-max"]) == (1.5, 3)


def test_rate_spans_at_least_one_window_and_total_keeps_everything() -> None:
    clock, metrics = _Clock(), {}
    sensor = RateTotalSensor(metrics, "e", clock)
    assert metrics == {"e-total": 0.0, "e-rate": 0.0}
    sensor.record()
    assert metrics == {"e-total": 1.0, "e-rate": 1 / 30}
    clock.now = 45_000  # 45 s since the first sample began
    sensor.record(2.0)
    assert metrics == {"e-total": 3.0, "e-rate": 3 / 45}
    clock.now = 200_000  # both older samples forgotten: one event over one window
    sensor.record()
    assert metrics == {"e-total": 4.0, "e-rate": 1 / 30}
