"""Kafka's ``StreamsMetadataTest``: what ``metadata_for_all_streams_clients()`` hands out.

``StreamsMetadataImpl(hostInfo, stateStoreNames, topicPartitions, standbyStateStoreNames,
standbyTopicPartitions)`` is ``kslab.runtime.StreamsMetadata`` with the same fields; a
``TopicPartition`` is a ``(topic, partition)`` tuple and Java's unmodifiable sets are frozen
sets (``clear()`` is not there, as Java's throws ``UnsupportedOperationException``).
"""

from __future__ import annotations

import pytest

from kslab.runtime import HostInfo, StreamsMetadata

HOST_INFO = HostInfo("local", 12)
STATE_STORE_NAMES = {"store1", "store2"}
TP_0, TP_1 = ("t", 0), ("t", 1)
TOPIC_PARTITIONS = {TP_0, TP_1}
STAND_BY_STORE_NAMES = {"store2"}
STANDBY_TOPIC_PARTITIONS = {TP_1}
FIELDS = (HOST_INFO, STATE_STORE_NAMES, TOPIC_PARTITIONS, STAND_BY_STORE_NAMES,
          STANDBY_TOPIC_PARTITIONS)


@pytest.fixture
def streams_metadata():
    return StreamsMetadata(*FIELDS)


def test_should_not_allow_modification_of_internal_state_via_getters(streams_metadata):
    for field in (streams_metadata.state_store_names, streams_metadata.topic_partitions,
                  streams_metadata.standby_topic_partitions,
                  streams_metadata.standby_state_store_names):
        assert isinstance(field, frozenset)
        with pytest.raises(AttributeError):
            field.clear()
    STATE_STORE_NAMES.add("store3")  # nor through the set it was made from
    try:
        assert streams_metadata.state_store_names == {"store1", "store2"}
    finally:
        STATE_STORE_NAMES.discard("store3")


def test_should_be_equals_if_same_object(streams_metadata):
    same = StreamsMetadata(*FIELDS)
    assert streams_metadata == same
    assert hash(streams_metadata) == hash(same)


@pytest.mark.parametrize(("index", "different"), [
    (0, HostInfo("different", 122)),
    (1, {"store1"}),
    (2, {TP_0}),
    (3, {"store1"}),
    (4, {TP_0}),
], ids=["shouldNotBeEqualIfDifferInHostInfo", "shouldNotBeEqualIfDifferStateStoreNames",
        "shouldNotBeEqualIfDifferInTopicPartitions", "shouldNotBeEqualIfDifferInStandByStores",
        "shouldNotBeEqualIfDifferInStandByTopicPartitions"])
def test_should_not_be_equal_if_a_field_differs(streams_metadata, index, different):
    fields = list(FIELDS)
    fields[index] = different
    other = StreamsMetadata(*fields)
    assert streams_metadata != other
    assert hash(streams_metadata) != hash(other)
