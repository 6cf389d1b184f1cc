"""Every Kafka Streams config key kslab does not act on is refused or warned about, never accepted
in silence: one test per class of ``kslab.config.KEY_SUPPORT``, with the exact message, and
README's "Config keys" table checked against the table itself."""

from __future__ import annotations

import logging
import re
import warnings
from pathlib import Path

import pytest

import kslab as ks
from kslab.config import (
    CLIENTS,
    IMPLEMENTED,
    KEY_SUPPORT,
    NO_EFFECT,
    REFUSED,
    ConfigError,
    ConfigWarning,
    StreamsConfig,
)

README = Path(__file__).resolve().parent.parent / "README.md"
BASE = {"application.id": "cfg", "bootstrap.servers": "127.0.0.1:9"}  # never contacted

# The keys Java's StreamsConfig (Kafka 4.2) defines, without the client configs it hands on
JAVA_STREAMS_KEYS = {
    "acceptable.recovery.lag", "application.id", "application.server", "bootstrap.servers",
    "buffered.records.per.partition", "built.in.metrics.version", "cache.max.bytes.buffering",
    "client.id", "commit.interval.ms", "connections.max.idle.ms", "default.client.supplier",
    "default.deserialization.exception.handler", "default.dsl.store", "default.key.serde",
    "default.list.key.serde.inner", "default.list.key.serde.type",
    "default.list.value.serde.inner", "default.list.value.serde.type",
    "default.production.exception.handler", "default.timestamp.extractor",
    "default.value.serde", "deserialization.exception.handler", "dsl.store.suppliers.class",
    "enable.metrics.push", "ensure.explicit.internal.resource.naming",
    "errors.dead.letter.queue.topic.name", "group.protocol", "log.summary.interval.ms",
    "max.task.idle.ms",
    "max.warmup.replicas", "metadata.max.age.ms", "metadata.recovery.rebootstrap.trigger.ms",
    "metadata.recovery.strategy", "metric.reporters", "metrics.num.samples",
    "metrics.recording.level", "metrics.sample.window.ms", "num.standby.replicas",
    "num.stream.threads", "poll.ms", "probing.rebalance.interval.ms",
    "processing.exception.handler", "processing.guarantee", "production.exception.handler",
    "rack.aware.assignment.non_overlap_cost", "rack.aware.assignment.strategy",
    "rack.aware.assignment.tags", "rack.aware.assignment.traffic_cost", "receive.buffer.bytes",
    "reconnect.backoff.max.ms", "reconnect.backoff.ms", "repartition.purge.interval.ms",
    "replication.factor", "request.timeout.ms", "retry.backoff.ms", "rocksdb.config.setter",
    "security.protocol", "send.buffer.bytes", "state.cleanup.delay.ms", "state.dir",
    "statestore.cache.max.bytes", "task.assignor.class", "task.timeout.ms",
    "topology.optimization", "upgrade.from", "window.size.ms", "windowed.inner.class.serde",
    "windowstore.changelog.additional.retention.ms",
}


def _topology() -> ks.Topology:
    return ks.Topology().add_source("src", "in").add_sink("out", "out", "src")


def _live(**extra) -> tuple[ks.KafkaStreams, list[str]]:
    """A KafkaStreams built (not started) with ``extra``, and the ConfigWarnings it issued."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        streams = ks.KafkaStreams(_topology(), {**BASE, **extra})
    return streams, [str(w.message) for w in caught if w.category is ConfigWarning]


def test_every_java_streams_key_has_a_row():
    assert sorted(JAVA_STREAMS_KEYS - set(KEY_SUPPORT)) == []
    statuses = {row.status for row in KEY_SUPPORT.values()}
    assert statuses == {IMPLEMENTED, CLIENTS, NO_EFFECT, REFUSED}


def test_an_unknown_key_raises_kslabs_own_too():
    with pytest.raises(ks.KslabError, match=re.escape(
            "unknown config 'kslab.htp.bind'; did you mean 'kslab.http.bind'?")):
        ks.TopologyTestDriver(_topology(), {"kslab.htp.bind": "0.0.0.0"})
    with pytest.raises(ks.KslabError, match=re.escape("unknown config 'rocksdb.config.seter'")):
        ks.KafkaStreams(_topology(), {**BASE, "rocksdb.config.seter": "com.acme.Tuning"})


def test_a_key_with_no_effect_warns_once_naming_the_key_and_what_kslab_does():
    streams, got = _live(**{"rocksdb.config.setter": "com.acme.Tuning",
                            "repartition.purge.interval.ms": 50})
    assert got == [
        "config 'rocksdb.config.setter' = 'com.acme.Tuning' has no effect in kslab: kslab opens "
        "RocksDB (rocksdict) with its own options; the data is the same",
        "config 'repartition.purge.interval.ms' = 50 has no effect in kslab: kslab deletes no "
        "consumed records from repartition topics; their retention.ms applies",
    ]
    with warnings.catch_warnings(record=True) as again:
        warnings.simplefilter("always")
        streams.config.check_support("runtime")  # the same config: warned already
    assert again == []


def test_a_no_effect_key_at_javas_default_is_silent():
    _, got = _live(**{
        "metrics.num.samples": "2", "state.cleanup.delay.ms": 600_000,
        "rack.aware.assignment.tags": "", "rack.aware.assignment.strategy": "none",
        "__state.updater.enabled__": "true", "metric.reporters": [],
        "task.timeout.ms": 300_000, "log.summary.interval.ms": "120000",
    })
    assert got == []


def test_assignment_keys_and_client_tags_warn_with_what_kslab_assigns_by():
    _, got = _live(**{"task.assignor.class": "com.acme.Sticky", "client.tag.zone": "eu-1",
                      "rack.aware.assignment.strategy": "min_traffic"})
    what = ("kslab's stream threads join the group with the consumer's range assignor, which "
            "places tasks by partition")
    assert got == [f"config 'task.assignor.class' = 'com.acme.Sticky' has no effect in kslab: "
                   f"{what}",
                   f"config 'client.tag.zone' = 'eu-1' has no effect in kslab: {what}",
                   f"config 'rack.aware.assignment.strategy' = 'min_traffic' has no effect in "
                   f"kslab: {what}"]


def test_a_refused_key_raises_with_what_to_do_instead():
    with pytest.raises(ConfigError) as info:
        ks.KafkaStreams(_topology(), {**BASE, "default.client.supplier": "com.acme.Clients"})
    assert str(info.value) == (
        "config 'default.client.supplier' = 'com.acme.Clients' is not supported by kslab; kslab "
        "makes its own confluent-kafka clients; set their configs with the 'consumer.', "
        "'producer.' and 'admin.' prefixes")
    with pytest.raises(ConfigError, match=re.escape("config 'group.protocol' = 'streams' is not")):
        ks.KafkaStreams(_topology(), {**BASE, "group.protocol": "streams"})
    _, got = _live(**{"group.protocol": "classic"})  # Java's default: fine
    assert got == []


def test_a_key_refused_everywhere_raises_in_the_driver_too_and_its_default_passes():
    key = "ensure.explicit.internal.resource.naming"
    with pytest.raises(ConfigError) as info:
        ks.TopologyTestDriver(_topology(), {key: True})
    assert str(info.value) == (
        f"config '{key}' = True is not supported by kslab; kslab does not check that internal "
        "topics and stores are named; name them with Named, Grouped, Materialized and "
        "Repartitioned instead")
    with pytest.raises(ConfigError, match=re.escape(f"config '{key}' = 'true' is not")):
        StreamsConfig({key: "true"}).check_support("spark")
    _, got = _live(**{"ensure.explicit.internal.resource.naming": "false"})
    assert got == []


def test_live_only_keys_are_silent_in_the_replaying_engines():
    props = {"num.stream.threads": 4, "rocksdb.config.setter": "com.acme.Tuning",
             "task.assignor.class": "com.acme.Sticky", "default.client.supplier": "com.acme.C",
             "metrics.recording.level": "DEBUG", "client.tag.zone": "eu-1",
             "send.buffer.bytes": -1, "num.standby.replicas": 1}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with ks.TopologyTestDriver(_topology(), props) as driver:
            assert driver.config.get("num.stream.threads") == 4
        StreamsConfig(props).check_support("spark")


def test_implemented_keys_are_silent_and_acted_on():
    streams, got = _live(**{"num.stream.threads": 3, "commit.interval.ms": 250,
                            "upgrade.from": "3.4", "poll.ms": 20, "kslab.http.bind": "0.0.0.0",
                            "client.id": "me", "security.protocol": "plaintext"})
    assert got == []
    assert (streams.num_threads, streams.commit_interval_ms, streams.poll_ms) == (3, 250, 20)
    assert streams.consumer_config(2)["client.id"] == "me-StreamThread-2"
    assert streams.producer_config(1)["security.protocol"] == "plaintext"


def test_standby_replicas_and_warm_ups_are_implemented_and_probing_warns():
    streams, got = _live(**{"num.standby.replicas": 1, "acceptable.recovery.lag": 10_000,
                            "max.warmup.replicas": 2, "probing.rebalance.interval.ms": 600_000})
    assert got == []  # implemented, and the rest at Java's defaults
    assert streams.warmup_enabled
    streams, got = _live(**{"acceptable.recovery.lag": 5, "max.warmup.replicas": 3,
                            "probing.rebalance.interval.ms": 60_000})
    assert streams.warmup_enabled  # a warm-up key set turns warm-ups on without standbys
    assert [message.split(" ", 2)[1] for message in got] == ["'probing.rebalance.interval.ms'"]
    assert "no probing rebalance is needed" in got[0]
    streams, _ = _live()
    assert not streams.warmup_enabled


def test_client_keys_reach_their_clients_under_librdkafkas_names():
    streams, got = _live(**{"send.buffer.bytes": -1, "receive.buffer.bytes": 65536,
                            "request.timeout.ms": 20_000, "client.rack": "eu-1a",
                            "metadata.max.age.ms": 60_000, "retries": 7})
    assert got == []
    consumer, producer = streams.consumer_config(1), streams.producer_config(1)
    restore = streams.restore_config()
    for conf in (consumer, producer, restore):
        assert (conf["socket.send.buffer.bytes"], conf["socket.receive.buffer.bytes"],
                conf["metadata.max.age.ms"]) == (0, 65536, 60_000)
        assert "send.buffer.bytes" not in conf
    assert (producer["request.timeout.ms"], producer["retries"]) == (20_000, 7)
    assert "request.timeout.ms" not in consumer and "retries" not in consumer
    assert consumer["client.rack"] == restore["client.rack"] == "eu-1a"
    assert "client.rack" not in producer


def readme_table() -> str:
    """README's "Config keys" table, generated from ``KEY_SUPPORT``."""
    lines = ["| Key | kslab | What kslab does |", "|---|---|---|"]
    for key, row in sorted(KEY_SUPPORT.items()):
        status = row.status
        if row.status in (NO_EFFECT, REFUSED):
            default = "no value" if row.java_default in (None, []) else f"`{row.java_default}`"
            verb = "warns" if row.status == NO_EFFECT else "raises"
            where = " (every engine)" if row.everywhere else ""
            status = f"{row.status}: {verb} unless {default}{where}"
        elif row.status == CLIENTS:
            status = f"passed to the clients ({row.clients.replace(' ', ', ')})"
        lines.append(f"| `{key}` | {status} | {row.note.replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def test_readme_table_is_the_config_table():
    text = README.read_text()
    found = re.search(r"<!-- config-keys -->\n(.*?)<!-- /config-keys -->", text, re.S)
    assert found, "README.md lost its <!-- config-keys --> block"
    assert found.group(1) == readme_table(), (
        "README's config table differs from kslab.config.KEY_SUPPORT; paste this in:\n"
        + readme_table())


def test_streams_overrides_the_main_consumer_settings_it_decides_and_says_so(caplog):
    streams, _ = _live(**{"consumer.enable.partition.eof": False,
                          "consumer.enable.auto.commit": "true"})
    with caplog.at_level(logging.WARNING, logger="kslab.runtime"):
        conf = streams.consumer_config(0)
    assert (conf["group.id"], conf["enable.auto.commit"], conf["enable.partition.eof"]) == (
        "cfg", False, True)
    assert [r.getMessage() for r in caplog.records] == [
        "unexpected user-specified consumer config: enable.auto.commit; the user setting (true) "
        "is ignored and the Streams setting (False) used",
        "unexpected user-specified consumer config: enable.partition.eof; the user setting "
        "(False) is ignored and the Streams setting (True) used",
    ]
