"""Kafka's ``ReadOnlyStoreTest``, translated to kslab's ``Topology.add_read_only_state_store``.

Java's Integer/String deserializers on the sources are ``key_serde=serdes.Integer()`` and
``value_serde=serdes.String()``; the sink's serializers likewise. Nothing skipped.
"""

from __future__ import annotations

import kslab as ks
from kslab import serdes


class ReadOnlyStoreUpdater(ks.Processor):
    """Puts every record of the store topic in ``readOnlyStore``."""

    def init(self, context):
        self.store = context.get_state_store("readOnlyStore")

    def process(self, record):
        self.store.put(record.key, record.value)


class LookupProcessor(ks.Processor):
    """Forwards ``value -- <what readOnlyStore holds for the key>``."""

    def init(self, context):
        self.context = context
        self.store = context.get_state_store("readOnlyStore")

    def process(self, record):
        self.context.forward(record.with_value(f"{record.value} -- {self.store.get(record.key)}"))


def test_should_connect_processor_and_write_data_to_read_only_store():
    topology = ks.Topology()
    topology.add_read_only_state_store(
        ks.Stores.key_value_store_builder(
            ks.Stores.in_memory_key_value_store("readOnlyStore"),
            serdes.Integer(),
            serdes.String(),
        ),
        "readOnlySource",
        "storeTopic",
        "readOnlyProcessor",
        ReadOnlyStoreUpdater,
        key_serde=serdes.Integer(),
        value_serde=serdes.String(),
    )

    topology.add_source("source", "inputTopic", key_serde=serdes.Integer(),
                        value_serde=serdes.String())
    topology.add_processor("processor", LookupProcessor, "source")
    topology.connect_processor_and_state_stores("processor", "readOnlyStore")
    topology.add_sink("sink", "outputTopic", "processor", key_serde=serdes.Integer(),
                      value_serde=serdes.String())

    with ks.TopologyTestDriver(topology) as driver:
        read_only_store_topic = driver.create_input_topic(
            "storeTopic", serdes.Integer(), serdes.String())
        input_topic = driver.create_input_topic("inputTopic", serdes.Integer(), serdes.String())
        output = driver.create_output_topic("outputTopic", serdes.Integer(), serdes.String())

        read_only_store_topic.pipe_input(1, "foo")
        read_only_store_topic.pipe_input(2, "bar")

        input_topic.pipe_input(1, "bar")
        input_topic.pipe_input(2, "foo")

        store = driver.get_key_value_store("readOnlyStore")

        with store.all() as it:
            store_content = list(it)
            expected_result = [ks.KeyValue(1, "foo"), ks.KeyValue(2, "bar")]
            assert store_content == expected_result

        expected_result = [ks.KeyValue(1, "bar -- foo"), ks.KeyValue(2, "foo -- bar")]
        assert output.read_key_values_to_list() == expected_result
