"""Issue 24 item 6: ``metrics.exporter=prometheus`` serves ``metrics()`` in Prometheus' text
format with the JMX exporter's Kafka Streams names, scraped while an app runs."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest
from apps import final_counts, word_count_dsl
from runtime_fixtures import wait_for

import kslab as ks
from kslab.runtime.prometheus import metric_name

LINES = [(None, b"kafka streams"), (None, b"kafka lab"), (None, b"lab")]


def scrape(address) -> dict[str, float]:
    """``series -> value`` from one scrape (comments and created-timestamps left out)."""
    host, port = address
    with urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=5) as response:
        assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = response.read().decode()
    series = {}
    for line in text.splitlines():
        if line and not line.startswith("#") and "_created" not in line:
            name, _, value = line.rpartition(" ")
            series[name] = float(value)
    return series


def test_an_apps_metrics_scrape_with_kafka_streams_names(kafka):
    source, sink = kafka.create(kafka.name("lines")), kafka.create(kafka.name("counts"))
    kafka.produce(source, LINES)
    config = kafka.config("wc", **{"metrics.exporter": "prometheus", "metrics.exporter.port": 0})
    app = kafka.track(ks.KafkaStreams(word_count_dsl(source, sink).build(), config))
    app.start()
    host, port = app.metrics_address
    assert host == "127.0.0.1" and port > 0  # loopback unless configured otherwise
    assert final_counts(kafka.read_until(sink, lambda out: final_counts(out).get("lab") == 2,
                                         timeout=60)) == {"kafka": 2, "streams": 1, "lab": 2}
    thread = next(iter(app.metrics()["threads"]))
    client = app.client_id

    def processed() -> float:
        return scrape(app.metrics_address).get(
            f'kafka_streams_stream_thread_metrics_process_total{{thread_id="{thread}"}}', 0)

    assert wait_for(lambda: processed() == 8, timeout=30)  # 3 lines, then their 5 words
    series = scrape(app.metrics_address)
    assert series[f'kafka_streams_stream_metrics_state{{client_id="{client}",'
                  f'state="RUNNING"}}'] == 1.0
    assert series[f'kafka_streams_stream_metrics_state{{client_id="{client}",'
                  f'state="REBALANCING"}}'] == 0.0
    assert series[f'kafka_streams_stream_metrics_alive_stream_threads{{client_id="{client}"}}'] \
        == 1.0
    assert series[f'kafka_streams_stream_task_metrics_process_total{{task_id="0_0",'
                  f'thread_id="{thread}"}}'] == 3.0
    assert series[f'kafka_streams_stream_task_metrics_process_total{{task_id="1_0",'
                  f'thread_id="{thread}"}}'] == 5.0
    assert series[f'kafka_streams_stream_task_metrics_dropped_records_total{{task_id="0_0",'
                  f'thread_id="{thread}"}}'] == 0.0
    assert f'kafka_streams_stream_thread_metrics_commit_latency_avg{{thread_id="{thread}"}}' \
        in series
    lag = (f'kafka_consumer_consumer_fetch_manager_metrics_records_lag{{client_id='
           f'"{thread}-consumer",partition="0",topic="{source}"}}')
    assert wait_for(lambda: scrape(app.metrics_address).get(lag) == 0.0, timeout=30)
    app.close(timeout=10_000)
    with pytest.raises(urllib.error.URLError):  # the server goes with the app
        scrape((host, port))


def test_names_follow_the_jmx_exporters_rules():
    assert metric_name("stream-thread-metrics", "commit-latency-max-ms") == \
        "kafka_streams_stream_thread_metrics_commit_latency_max"
    assert metric_name("consumer-fetch-manager-metrics", "records-lag") == \
        "kafka_consumer_consumer_fetch_manager_metrics_records_lag"


def test_an_unknown_exporter_is_refused():
    with pytest.raises(ks.KslabError,
                       match=r"metrics\.exporter.*String must be one of: none, prometheus"):
        ks.KafkaStreams(ks.Topology().add_source("s", "t"),
                        {"application.id": "a", "bootstrap.servers": "x:9",
                         "metrics.exporter": "jmx"})
