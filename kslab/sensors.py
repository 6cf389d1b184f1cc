"""Kafka's metric stats over a task's clock, written into a node's metrics dict as they change.

Kafka measures ``-avg``, ``-max`` and ``-rate`` over two samples of 30 s (``metrics.num.samples``,
``metrics.sample.window.ms``): a sample older than both is forgotten, and a rate divides by the
time its samples span but never by less than one full window (so one event right after start
reads ``1 / 30`` per second). These classes keep those samples and write the measured values
into a plain dict (``TaskContext.node_metrics``) at every record: what an engine's ``metrics()``
returns is the value as of the last record, measured at that record's time.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

__all__ = ["AvgMaxSensor", "RateTotalSensor", "SampledStat"]

SAMPLES = 2
WINDOW_MS = 30_000


class SampledStat:
    """Kafka's ``SampledStat``: ``SAMPLES`` windows of ``WINDOW_MS`` holding a value each."""

    __slots__ = ("_combine", "_current", "_initial", "samples")

    def __init__(self, initial: float, combine: Callable[[float, float], float]) -> None:
        self._initial = initial
        self._combine = combine
        self._current = 0
        self.samples: list[list[Any]] = []  # [window start ms, value, event count]

    def record(self, value: float, now: int) -> None:
        """Add ``value`` to the current sample, starting a new one when it is full."""
        samples = self.samples
        if not samples:
            samples.append([now, self._initial, 0])
        sample = samples[self._current]
        if now - sample[0] >= WINDOW_MS:
            self._current = (self._current + 1) % SAMPLES
            if self._current >= len(samples):
                samples.append([now, self._initial, 0])
            else:
                samples[self._current][:] = [now, self._initial, 0]
            sample = samples[self._current]
        sample[1] = self._combine(sample[1], value)
        sample[2] += 1

    def live(self, now: int) -> list[list[Any]]:
        """The samples not yet forgotten at ``now`` (older ones are reset, as Kafka's purge)."""
        for sample in self.samples:
            if now - sample[0] >= SAMPLES * WINDOW_MS:
                sample[:] = [now, self._initial, 0]
        return self.samples

    def oldest_start(self, now: int) -> int:
        """When the oldest sample began (``now`` when there is none)."""
        return min((sample[0] for sample in self.live(now)), default=now)


class AvgMaxSensor:
    """``<name>-avg`` and ``<name>-max`` of the recorded values (NaN with none, as Kafka)."""

    __slots__ = ("_avg", "_avg_name", "_clock", "_max", "_max_name", "metrics", "name")

    def __init__(self, metrics: dict[str, float], name: str, clock: Callable[[], int]) -> None:
        self.metrics, self.name, self._clock = metrics, name, clock
        self._avg = SampledStat(0.0, lambda total, v: total + v)
        self._max = SampledStat(-math.inf, max)
        self._avg_name, self._max_name = f"{name}-avg", f"{name}-max"  # named once, not per record
        metrics[self._avg_name] = math.nan
        metrics[self._max_name] = math.nan

    def record(self, value: float) -> None:
        """Record ``value`` now and write the measured avg and max."""
        now = self._clock()
        self._avg.record(value, now)
        self._max.record(value, now)
        samples = self._avg.live(now)
        count = sum(sample[2] for sample in samples)
        total = sum(sample[1] for sample in samples)
        highest = max((s[1] for s in self._max.live(now) if s[2]), default=-math.inf)
        self.metrics[self._avg_name] = total / count if count else math.nan
        self.metrics[self._max_name] = highest if count else math.nan


class RateTotalSensor:
    """``<name>-total`` (the sum of everything recorded) and ``<name>-rate`` (per second over
    the live samples, as Kafka's ``Rate``)."""

    __slots__ = ("_clock", "_rate", "_rate_name", "_total_name", "metrics", "name", "total")

    def __init__(self, metrics: dict[str, float], name: str, clock: Callable[[], int]) -> None:
        self.metrics, self.name, self._clock = metrics, name, clock
        self._rate = SampledStat(0.0, lambda total, v: total + v)
        self.total = 0.0
        self._total_name, self._rate_name = f"{name}-total", f"{name}-rate"
        metrics[self._total_name] = 0.0
        metrics[self._rate_name] = 0.0

    def record(self, value: float = 1.0) -> None:
        """Record ``value`` now and write the total and the measured rate."""
        now = self._clock()
        self.total += value
        self._rate.record(value, now)
        live = self._rate.live(now)
        elapsed = now - self._rate.oldest_start(now)
        full = elapsed // WINDOW_MS
        if full < SAMPLES - 1:  # never over less than one full window
            elapsed += (SAMPLES - 1 - full) * WINDOW_MS
        self.metrics[self._total_name] = self.total
        self.metrics[self._rate_name] = sum(s[1] for s in live) / (elapsed / 1000)
