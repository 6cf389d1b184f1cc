"""Kafka Streams configuration: the known property names, their defaults, and typo checks.

A config is a plain dict of Kafka Streams property names. ``StreamsConfig`` validates the names
once (an unknown key raises, naming the closest known one) and reads typed values; every engine
reads its settings through it, so a typo fails the same way in the driver and in production.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

from kslab.errors import KslabError

__all__ = ["StreamsConfig"]

_DEFAULTS: dict[str, Any] = {
    "application.id": None,
    "bootstrap.servers": None,
    "application.server": "",
    "processing.guarantee": "at_least_once",
    "num.stream.threads": 1,
    "commit.interval.ms": None,  # 30000, or 100 under exactly_once_v2
    "state.dir": None,
    "default.key.serde": "json",
    "default.value.serde": "json",
    "default.timestamp.extractor": None,
    "default.deserialization.exception.handler": "log_and_fail",
    "deserialization.exception.handler": None,
    "default.production.exception.handler": "default",
    "production.exception.handler": None,
    "processing.exception.handler": "log_and_fail",
    "replication.factor": -1,
    "statestore.cache.max.bytes": 10 * 1024 * 1024,
    "cache.max.bytes.buffering": None,
    "topology.optimization": "none",
    "max.task.idle.ms": 0,
    "buffered.records.per.partition": 1000,
    "windowstore.changelog.additional.retention.ms": 24 * 60 * 60 * 1000,
    "errors.dead.letter.queue.topic.name": None,  # KIP-1034 (Kafka 4.2)
    "errors.deadletterqueue.topic.name": None,  # Connect's spelling, accepted as an alias
}

_KNOWN = set(_DEFAULTS) | {
    "acceptable.recovery.lag", "built.in.metrics.version", "client.id", "client.rack",
    "connections.max.idle.ms", "default.client.supplier", "default.dsl.store",
    "default.list.key.serde.inner", "default.list.key.serde.type",
    "default.list.value.serde.inner", "default.list.value.serde.type",
    "dsl.store.suppliers.class", "enable.metrics.push", "log.summary.interval.ms",
    "max.warmup.replicas", "metadata.max.age.ms", "metric.reporters", "metrics.num.samples",
    "metrics.recording.level", "metrics.sample.window.ms", "num.standby.replicas", "poll.ms",
    "probing.rebalance.interval.ms", "rack.aware.assignment.non_overlap_cost",
    "rack.aware.assignment.strategy", "rack.aware.assignment.tags",
    "rack.aware.assignment.traffic_cost", "receive.buffer.bytes", "reconnect.backoff.max.ms",
    "reconnect.backoff.ms", "repartition.purge.interval.ms", "request.timeout.ms", "retries",
    "retry.backoff.ms", "retry.backoff.max.ms", "rocksdb.config.setter", "security.protocol",
    "send.buffer.bytes", "state.cleanup.delay.ms", "task.assignor.class", "task.timeout.ms",
    "upgrade.from", "window.size.ms", "windowed.inner.class.serde",
    "default.windowed.key.serde.inner", "default.windowed.value.serde.inner",
    "__emit.interval.ms.kstreams.outer.join.spurious.results.fix__",
    "__emit.interval.ms.kstreams.windowed.aggregation__",
    "__internal.override.topic.prefix__", "__state.updater.enabled__",
    "__processing.threads.enabled__",
}

_PREFIXES = (
    "topic.", "consumer.", "main.consumer.", "restore.consumer.", "global.consumer.",
    "producer.", "admin.", "client.tag.", "sasl.", "ssl.", "kslab.",
)


class StreamsConfig:
    """A validated Kafka Streams config: ``get(name)`` returns the value or its default."""

    def __init__(self, props: Mapping[str, Any] | None = None, *, strict: bool = True) -> None:
        props = dict(props or {})
        for key in props:
            if not isinstance(key, str):
                msg = f"config key {key!r} must be a str property name like 'application.id'"
                raise KslabError(msg)
            if strict and key not in _KNOWN and not key.startswith(_PREFIXES):
                close = difflib.get_close_matches(key, sorted(_KNOWN), n=1)
                hint = f"did you mean '{close[0]}'?" if close else (
                    "client settings go under a 'consumer.', 'producer.' or 'admin.' prefix"
                )
                msg = f"unknown config '{key}'; {hint}"
                raise KslabError(msg)
        self._props = props

    def get(self, name: str, default: Any = None) -> Any:
        """The configured value of ``name``, else kslab's default for it, else ``default``."""
        if name in self._props and self._props[name] is not None:
            return self._props[name]
        value = _DEFAULTS.get(name)
        return default if value is None else value

    def get_int(self, name: str, default: int | None = None) -> int | None:
        """``get`` as an int, accepting numeric strings and timedeltas (as ms)."""
        value = self.get(name, default)
        if value is None:
            return None
        if hasattr(value, "total_seconds"):
            return int(value.total_seconds() * 1000)
        try:
            return int(value)
        except (TypeError, ValueError):
            msg = f"config '{name}' = {value!r} is not an integer; give a number"
            raise KslabError(msg) from None

    def as_dict(self) -> dict[str, Any]:
        """The properties exactly as given."""
        return dict(self._props)

    def __contains__(self, name: str) -> bool:
        return name in self._props

    def __repr__(self) -> str:
        return f"StreamsConfig({self._props!r})"
