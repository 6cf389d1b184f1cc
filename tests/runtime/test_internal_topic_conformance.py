"""Kafka's ``InternalTopicIntegrationTest`` on the live runtime (a LocalBroker): the topic
configs kslab sets on the internal topics it creates. A key-value store's changelog is
compacted; a window store's is compacted and deleted with a retention of the store's plus one
day (``windowstore.changelog.additional.retention.ms``); a repartition topic is deleted, with
exactly Java's four topic-level configs (``cleanup.policy``, ``segment.bytes``, ``retention.ms``,
``message.timestamp.type``). A windowed table on the left of a foreign-key join gets to RUNNING
(KAFKA-10689: the partition count of its repartition topics resolves). Java's configs: String
serdes, commit every 100 ms, no cache, earliest reset.
"""

from __future__ import annotations

import re

from confluent_kafka.admin import ConfigResource, ConfigSource

import kslab as ks
from kslab import serdes

S = serdes.String()


def _config(kafka, app: str):
    return kafka.config(app, default__key__serde=S, default__value__serde=S,
                        commit__interval__ms=100, statestore__cache__max__bytes=0,
                        consumer__auto__offset__reset="earliest")


def _topic_properties(kafka, topic: str) -> dict[str, str]:
    """Java's ``getTopicProperties``: the configs set on the topic itself. Java keeps the
    entries whose source is ``DYNAMIC_TOPIC_CONFIG``; Tansu 0.6 describes only a topic's own
    configs and reports each as ``DEFAULT_CONFIG``, so every entry it lists is kept."""
    resource = ConfigResource(ConfigResource.Type.TOPIC, topic)
    described = kafka.admin.describe_configs([resource])[resource].result(10)
    return {name: entry.value for name, entry in described.items()
            if entry.source in (ConfigSource.DYNAMIC_TOPIC_CONFIG.value,
                                ConfigSource.DEFAULT_CONFIG.value)}


def _word_counts(kafka, windowed: bool) -> tuple[str, dict]:
    """Run the word count until its changelog has the counts of Java's four lines."""
    source = kafka.create(kafka.name("inputTopic"))
    builder = ks.StreamsBuilder()
    grouped = builder.stream(source) \
        .flat_map_values(lambda value: re.split(r"\W+", value.lower())) \
        .group_by(lambda key, value: value)
    if windowed:
        grouped.windowed_by(ks.TimeWindows.of_size_with_no_grace(1000)) \
            .count(ks.Materialized.as_("CountWindows").with_retention(2000))
    else:
        grouped.count(ks.Materialized.as_("Counts"))
    config = _config(kafka, "internal-topics-compact")
    streams = kafka.track(ks.KafkaStreams(builder.build(), config))
    streams.start()
    assert streams.wait_until_running(30)
    kafka.produce(source, [(None, v.encode()) for v in ["hello", "world", "world",
                                                         "hello world"]])
    store = "CountWindows" if windowed else "Counts"
    changelog = f"{config['application.id']}-{store}-changelog"
    if not windowed:  # Java's waitForCompletion: the counts are in the changelog
        assert kafka.read_until(changelog, lambda r: dict((k, v) for k, v, _p in r) == {
            b"hello": (2).to_bytes(8, "big"), b"world": (3).to_bytes(8, "big")})
    else:
        assert kafka.read(changelog, 1)
    assert streams.close(timeout=10_000)
    return config["application.id"], store


def test_should_compact_topics_for_key_value_store_changelogs(kafka):
    app_id, store = _word_counts(kafka, windowed=False)
    changelog = _topic_properties(kafka, f"{app_id}-{store}-changelog")
    assert changelog["cleanup.policy"] == "compact"
    repartition = _topic_properties(kafka, f"{app_id}-{store}-repartition")
    assert repartition["cleanup.policy"] == "delete"
    assert len(repartition) == 4, repartition


def test_should_compact_and_delete_topics_for_window_store_changelogs(kafka):
    app_id, store = _word_counts(kafka, windowed=True)
    changelog = _topic_properties(kafka, f"{app_id}-{store}-changelog")
    assert sorted(changelog["cleanup.policy"].split(",")) == ["compact", "delete"]
    assert int(changelog["retention.ms"]) == 24 * 3600 * 1000 + 2000
    repartition = _topic_properties(kafka, f"{app_id}-{store}-repartition")
    assert repartition["cleanup.policy"] == "delete"
    assert len(repartition) == 4, repartition


def test_should_get_to_running_with_windowed_table_in_fkj(kafka):
    source = kafka.create(kafka.name("inputTopic"))
    table = kafka.create(kafka.name("inputTable"))
    builder = ks.StreamsBuilder()
    input_table = builder.table(table)
    builder.stream(source) \
        .group_by(lambda k, v: k, ks.Grouped.with_(S, S, name="GroupName")) \
        .windowed_by(ks.TimeWindows.of_size_with_no_grace(10 * 60 * 1000)) \
        .aggregate(lambda: "", lambda k, v, a: a + k) \
        .left_join(input_table, lambda v: v, lambda x, y: x + y)
    streams = kafka.track(ks.KafkaStreams(builder.build(),
                                          _config(kafka, "internal-topics-windowed-FKJ")))
    streams.start()
    assert streams.wait_until_running(30)
    assert streams.close(timeout=10_000)
