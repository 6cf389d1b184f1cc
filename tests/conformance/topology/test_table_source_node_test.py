"""Kafka's ``TableSourceNodeTest`` (``kstream.internals.graph``), translated through kslab's
``StreamsBuilder``.

Java writes a ``TableSourceNode`` into a Mockito ``InternalTopologyBuilder`` and verifies whether
``connectSourceStoreAndTopic(store, topic)`` was called; kslab builds the same table source
(``Consumed.as_("node-name")``, ``Materialized.as_("store-name")``) and reads what that call
decides: the topic the store is restored from (``changelog_topic_for``) and whether the store
writes its own changelog. ``reuseSourceTopicForChangeLog(true)`` is what
``topology.optimization`` ``reuse.ktable.source.topics`` sets. Nothing is skipped.
"""

from __future__ import annotations

import kslab as ks

STORE_NAME = "store-name"
TOPIC = "input-topic"


def build_table_source_node(should_reuse_source_topic_for_changelog):
    builder = ks.StreamsBuilder()
    builder.table(TOPIC, ks.Consumed.as_("node-name"), ks.Materialized.as_(STORE_NAME))
    props = {"topology.optimization": "reuse.ktable.source.topics"} \
        if should_reuse_source_topic_for_changelog else None
    return builder.build(props)


def test_should_connect_state_store_to_input_topic_if_input_topic_is_used_as_changelog():
    topology = build_table_source_node(True)
    assert topology.changelog_topic_for(STORE_NAME, "app") == TOPIC
    assert topology.state_stores[STORE_NAME].logging_enabled is False


def test_should_connect_state_store_to_changelog_topic():
    topology = build_table_source_node(False)
    assert topology.changelog_topic_for(STORE_NAME, "app") == "app-" + STORE_NAME + "-changelog"
    assert topology.state_stores[STORE_NAME].logging_enabled is True
