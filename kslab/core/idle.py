"""Opt-in idle stream time (``kslab.idle.stream.time.advance.ms``): quiet inputs close windows.

Kafka Streams moves a task's stream time only with new records, so on a quiet topic windows
never close and ``suppress`` never emits. With this setting (default off: Kafka Streams'
behaviour is kept exactly), once a task has received no record for the configured wall-clock
duration, its stream time follows the wall clock: it becomes the stream time at the last record
plus the wall-clock time elapsed since. Invariant: stream time never moves backwards, and nothing
changes unless the setting is a positive number of milliseconds.
"""

from __future__ import annotations

from typing import Any

__all__ = ["IDLE_ADVANCE_CONFIG", "IdleStreamTime"]

IDLE_ADVANCE_CONFIG = "kslab.idle.stream.time.advance.ms"


class IdleStreamTime:
    """Tracks when a task last saw input and what its stream time should be while idle."""

    __slots__ = ("base_stream_time", "idle_ms", "last_input")

    def __init__(self, idle_ms: int) -> None:
        self.idle_ms = idle_ms
        self.last_input: int | None = None
        self.base_stream_time = -1

    @staticmethod
    def from_config(config: dict[str, Any]) -> IdleStreamTime | None:
        """The tracker for ``config``, or ``None`` when the setting is absent or not positive."""
        value = config.get(IDLE_ADVANCE_CONFIG)
        if value is None:
            return None
        idle_ms = int(value)
        return IdleStreamTime(idle_ms) if idle_ms > 0 else None

    def on_record(self, now: int, stream_time: int) -> None:
        """A record was processed at wall-clock ``now``; stream time is ``stream_time``."""
        self.last_input = now
        self.base_stream_time = stream_time

    def stream_time_at(self, now: int) -> int | None:
        """The idle stream time at wall-clock ``now``, or ``None`` while inputs are not idle."""
        if self.last_input is None or self.base_stream_time < 0:
            return None
        idle = now - self.last_input
        if idle < self.idle_ms:
            return None
        return self.base_stream_time + idle
