"""Client settings as Java's StreamsConfig passes them: unprefixed consumer/producer/admin
configs reach the clients that know them, prefixed ones win, and what Streams owns (group id,
auto commit, read_committed and the transactional id under exactly-once) stays Streams'."""

from __future__ import annotations

import pytest

import kslab as ks
from kslab.errors import KslabError


def _streams(**extra: object) -> ks.KafkaStreams:
    topology = ks.Topology().add_source("src", "in").add_sink("out", "out", "src")
    return ks.KafkaStreams(topology, {"application.id": "app", "bootstrap.servers": "x:9",
                                      **{k.replace("__", "."): v for k, v in extra.items()}})


def test_unprefixed_client_configs_reach_their_clients() -> None:
    streams = _streams(auto__offset__reset="latest", acks="1", linger__ms=50,
                       consumer__fetch__min__bytes=7, fetch__min__bytes=3,
                       group__id="mine", enable__auto__commit=True)
    consumer = streams.consumer_config(1)
    assert consumer["auto.offset.reset"] == "latest"
    assert consumer["fetch.min.bytes"] == 7  # the prefixed one wins
    assert (consumer["group.id"], consumer["enable.auto.commit"]) == ("app", False)
    assert "acks" not in consumer and "linger.ms" not in consumer
    producer = streams.producer_config(1)
    assert (producer["acks"], producer["linger.ms"]) == ("1", 50)
    assert "auto.offset.reset" not in producer


def test_exactly_once_keeps_what_streams_owns() -> None:
    streams = _streams(processing__guarantee="exactly_once_v2", isolation__level="read_uncommitted",
                       transactional__id="mine", enable__idempotence=False)
    assert streams.consumer_config(1)["isolation.level"] == "read_committed"
    assert streams.restore_config()["isolation.level"] == "read_committed"
    producer = streams.producer_config(1)
    assert producer["transactional.id"].startswith("app-") and producer["enable.idempotence"]


def test_an_unknown_config_is_still_refused() -> None:
    with pytest.raises(KslabError, match=r"unknown config 'auto\.offset\.rest'"):
        _streams(auto__offset__rest="latest")


def test_static_membership_gives_each_thread_its_own_instance_id() -> None:
    streams = _streams(group__instance__id="pod-0", num__stream__threads=2)
    ids = [streams.consumer_config(i)["group.instance.id"] for i in (1, 2)]
    assert ids == ["pod-0-1", "pod-0-2"]  # Java: group.instance.id + "-" + thread index
    prefixed = _streams(main__consumer__group__instance__id="pod-1")
    assert prefixed.consumer_config(3)["group.instance.id"] == "pod-1-3"
    assert "group.instance.id" not in _streams().consumer_config(1)
    assert "group.instance.id" not in _streams(group__instance__id="pod-0").restore_config()


def test_a_short_max_poll_interval_reaches_the_main_consumer_only() -> None:
    """``consumer.max.poll.interval.ms`` below librdkafka's 45 s default session timeout: the
    restore and global consumers (no group) leave it out, or librdkafka refuses to make them
    ("max.poll.interval.ms must be >= session.timeout.ms"), failing every stream thread."""
    from confluent_kafka import Consumer

    streams = _streams(consumer__max__poll__interval__ms=20_000,
                       consumer__session__timeout__ms=6_000)
    assert streams.consumer_config(1)["max.poll.interval.ms"] == 20_000
    restore = streams.restore_config()
    assert "max.poll.interval.ms" not in restore and "session.timeout.ms" not in restore
    Consumer({**restore, "group.id": "never-joins"}).close()  # librdkafka accepts it (as used)
