"""kslab versions of Kafka's word-count examples (streams/examples, ``wordcount`` package).

``WordCountDemo.createWordCountStream``, ``WordCountProcessorDemo.WordCountProcessor`` and its
topology, ``WordCountTransformerDemo.MyProcessorSupplier`` and the demos' ``streamsConfig``
defaults, for the translated example tests to share.
"""

from __future__ import annotations

import re

import kslab as ks
from kslab import serdes

INPUT_TOPIC = "streams-plaintext-input"
OUTPUT_TOPIC = "streams-wordcount-output"
PROCESSOR_OUTPUT_TOPIC = "streams-wordcount-processor-output"


def java_split(text: str, pattern: str = r"\W+") -> list[str]:
    """Java's ``String.split``: like ``re.split``, minus the trailing empty strings."""
    parts = re.split(pattern, text)
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def streams_config(application_id: str = "streams-wordcount") -> dict:
    """The demos' config defaults (no configuration file)."""
    return {
        "application.id": application_id,
        "bootstrap.servers": "localhost:9092",
        "statestore.cache.max.bytes": 0,
        "default.key.serde": "string",
        "default.value.serde": "string",
        "auto.offset.reset": "earliest",
    }


def create_word_count_stream(builder: ks.StreamsBuilder) -> None:
    """WordCountDemo.createWordCountStream."""
    source = builder.stream(INPUT_TOPIC)
    counts = (source
              .flat_map_values(lambda value: java_split(value.lower()))
              .group_by(lambda key, value: value)
              .count())
    counts.to_stream().to(OUTPUT_TOPIC, ks.Produced.with_(serdes.String(), serdes.Long()))


class WordCountProcessor(ks.Processor):
    """Counts words in the ``Counts`` store; forwards all counts every second of stream time."""

    def init(self, context):
        self.context = context
        context.schedule(1000, ks.PunctuationType.STREAM_TIME, self.punctuate)
        self.kv_store = context.get_state_store("Counts")

    def punctuate(self, timestamp):
        with self.kv_store.all() as it:
            for entry in it:
                self.context.forward(ks.Record(entry.key, str(entry.value), timestamp))

    def process(self, record):
        for word in java_split(record.value.lower()):
            old_value = self.kv_store.get(word)
            self.kv_store.put(word, 1 if old_value is None else old_value + 1)


def counts_store_builder():
    return ks.Stores.key_value_store_builder(
        ks.Stores.in_memory_key_value_store("Counts"), serdes.String(), serdes.Integer())


def word_count_processor_topology() -> ks.Topology:
    """WordCountProcessorDemo.main's topology."""
    topology = ks.Topology()
    topology.add_source("Source", INPUT_TOPIC)
    topology.add_processor("Process", WordCountProcessor, "Source")
    topology.add_state_store(counts_store_builder(), "Process")
    topology.add_sink("Sink", PROCESSOR_OUTPUT_TOPIC, "Process")
    return topology


class MyProcessorSupplier:
    """WordCountTransformerDemo.MyProcessorSupplier: the processor and its ``Counts`` store."""

    def __call__(self):
        return WordCountProcessor()

    def stores(self):
        return {counts_store_builder()}


def word_count_transformer_topology() -> ks.Topology:
    """WordCountTransformerDemo.main's topology."""
    builder = ks.StreamsBuilder()
    builder.stream(INPUT_TOPIC).process(MyProcessorSupplier()).to(PROCESSOR_OUTPUT_TOPIC)
    return builder.build()
