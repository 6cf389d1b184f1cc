"""``metrics.exporter=prometheus``: ``KafkaStreams.metrics()`` served in Prometheus' text format.

A team running Kafka Streams scrapes it through the Prometheus JMX exporter, whose Kafka
Streams rules turn an MBean ``kafka.streams:type=stream-thread-metrics,thread-id=T`` attribute
``process-total`` into ``kafka_streams_stream_thread_metrics_process_total{thread_id="T"}``.
kslab serves the same names and labels, so the dashboards and alerts written for Java apps
work: client metrics (``stream-metrics``, label ``client_id``), thread metrics
(``stream-thread-metrics``, ``thread_id``), task metrics (``stream-task-metrics``,
``thread_id``, ``task_id``) and the consumer's lag per partition
(``kafka_consumer_consumer_fetch_manager_metrics_records_lag``, ``client_id``, ``topic``,
``partition``). prometheus-client does the format and the HTTP server; each scrape reads
``metrics()`` once, so nothing is sampled in between. The server binds to loopback unless
``metrics.exporter.host`` says otherwise (``metrics.exporter.port``, default 9464; 0 picks a
free one, read back from ``KafkaStreams.metrics_address``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

__all__ = ["DEFAULT_PORT", "StreamsCollector", "metric_name", "serve_metrics"]

DEFAULT_PORT = 9464  # the port Prometheus' exporters conventionally start from
# kslab's names for what Kafka's metrics call otherwise: (kslab name) -> Kafka's
_KAFKA_NAMES = {"commit-latency-avg-ms": "commit-latency-avg",
                "commit-latency-max-ms": "commit-latency-max"}
_STATES = ("CREATED", "REBALANCING", "RUNNING", "PENDING_SHUTDOWN", "NOT_RUNNING",
           "PENDING_ERROR", "ERROR")


def metric_name(group: str, name: str) -> str:
    """The JMX exporter's name for attribute ``name`` of MBean type ``group``."""
    name = _KAFKA_NAMES.get(name, name)
    prefix = "kafka_consumer" if group.startswith("consumer") else "kafka_streams"
    return re.sub(r"[^a-zA-Z0-9_]", "_", f"{prefix}_{group}_{name}").lower()


class StreamsCollector:
    """A prometheus-client collector over one ``KafkaStreams``' ``metrics()``."""

    def __init__(self, streams: Any) -> None:
        self.streams = streams

    def collect(self) -> Iterator[Any]:
        """One metric family per name, read from one ``metrics()`` call."""
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

        metrics = self.streams.metrics()
        client_id = self.streams.client_id
        families: dict[str, Any] = {}

        def add(group: str, name: str, value: Any, labels: dict[str, str]) -> None:
            if isinstance(value, bool) or not isinstance(value, int | float):
                return
            if isinstance(value, float) and math.isnan(value):
                return
            full = metric_name(group, name)
            family = families.get(full)
            if family is None:
                kind = CounterMetricFamily if full.endswith("_total") else GaugeMetricFamily
                family = families[full] = kind(full, f"Kafka Streams {group} {name}",
                                               labels=list(labels))
            family.add_metric(list(labels.values()), value)

        client = {"client_id": client_id}
        for name, value in metrics.get("client", {}).items():
            add("stream-metrics", name, value, client)
        state = metrics.get("client", {}).get("state")
        for candidate in _STATES:  # Kafka's state as one gauge per state, 1 for the current
            add("stream-metrics", "state", int(candidate == state),
                {"client_id": client_id, "state": candidate})
        for thread, values in metrics.get("threads", {}).items():
            labels = {"thread_id": thread}
            for name, value in values.items():
                add("stream-thread-metrics", name, value, labels)
            for task, entry in values.get("tasks", {}).items():
                task_labels = {"thread_id": thread, "task_id": task}
                for name, value in entry.items():
                    add("stream-task-metrics", name, value, task_labels)
                for topic_partition, lag in entry.get("records-lag", {}).items():
                    topic, _, partition = topic_partition.rpartition("-")
                    add("consumer-fetch-manager-metrics", "records-lag", lag,
                        {"client_id": f"{thread}-consumer", "topic": topic,
                         "partition": partition})
        yield from families.values()


def serve_metrics(streams: Any, host: str, port: int) -> tuple[Any, tuple[str, int]]:
    """Start the HTTP server for ``streams``' metrics; the server and its bound address."""
    from prometheus_client import CollectorRegistry, start_http_server

    registry = CollectorRegistry(auto_describe=False)
    registry.register(StreamsCollector(streams))
    server, _thread = start_http_server(port, addr=host, registry=registry)
    return server, server.server_address[:2]
