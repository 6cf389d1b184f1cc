"""Kafka's ``KTableSuppressProcessorMetricsTest``, translated to kslab's DSL and the driver's
``metrics()``.

Java drives the suppress processor with a mocked context and reads its metrics registry. Here the
same suppression (``until_time_limit(100 days, max_records(1))``, buffer ``test-store``) runs
through the DSL and the driver, and the metrics are read from ``driver.metrics()["0_0"]``: the
suppress node's under its name ``test``, the buffer's under ``test-store``, by Kafka's metric
names. Java's input ``Change(null, 5)`` becomes a tombstone
piped to a table without cache, i.e. ``Change(null, null)``, read from topic ``input`` instead of
Java's ``""``: each buffered record's size estimate is therefore Java's minus the 8-byte prior
value plus the 5-byte topic name (40 bytes for ``longKey`` instead of 43, 36 for ``key`` instead
of 39); the counts and the emit total are Java's. Like Java's sensors, the buffer metrics sample
the buffer at init and after every put and eviction. The emit rate is Java's for a clock that
stands still: one emit over the minimum span of one 30 s sample window.
"""

from __future__ import annotations

import kslab as ks
from kslab import serdes

STRING = serdes.String()
LONG = serdes.Long()
DAYS_100 = 100 * 24 * 3_600_000


def test_should_record_metrics_with_built_in_metrics_version_latest():
    builder = ks.StreamsBuilder()
    (builder.table("input", ks.Consumed.with_(STRING, LONG),
                   ks.Materialized.with_(STRING, LONG).with_caching_disabled())
     .suppress(ks.Suppressed.until_time_limit(DAYS_100, ks.BufferConfig.max_records(1))
               .with_name("test"))
     .to_stream().to("output", ks.Produced.with_(STRING, LONG)))
    with ks.TopologyTestDriver(builder.build()) as driver:
        topic = driver.create_input_topic("input", STRING, LONG)
        topic.pipe_input("longKey", None, 100)
        node, buffer = driver.metrics()["0_0"]["test"], driver.metrics()["0_0"]["test-store"]
        assert node["suppression-emit-rate"] == 0.0
        assert node["suppression-emit-total"] == 0.0
        assert buffer["suppression-buffer-size-avg"] == 20.0
        assert buffer["suppression-buffer-size-max"] == 40.0
        assert buffer["suppression-buffer-count-avg"] == 0.5
        assert buffer["suppression-buffer-count-max"] == 1.0

        topic.pipe_input("key", None, 101)
        node, buffer = driver.metrics()["0_0"]["test"], driver.metrics()["0_0"]["test-store"]
        assert node["suppression-emit-rate"] == 1 / 30  # one emit, at least one 30 s window
        assert node["suppression-emit-total"] == 1.0
        assert buffer["suppression-buffer-size-avg"] == 38.0
        assert buffer["suppression-buffer-size-max"] == 76.0
        assert buffer["suppression-buffer-count-avg"] == 1.0
        assert buffer["suppression-buffer-count-max"] == 2.0
