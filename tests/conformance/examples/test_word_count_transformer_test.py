"""Kafka's ``WordCountTransformerTest`` (streams/examples), through kslab's test driver.

Java drives ``WordCountTransformerDemo.MyProcessorSupplier``'s processor and the store its
``stores()`` provides with ``MockProcessorContext``, which is not in kslab's API; here the
demo's own DSL topology (``stream(...).process(MyProcessorSupplier()).to(...)``) runs in
``TopologyTestDriver``: the stream-time punctuator fires at 0 right after the record at 0,
where Java calls ``punctuate(0)`` by hand.
"""

from __future__ import annotations

import kslab as ks
from kslab import serdes
from tests.conformance.examples._wordcount_examples import (
    INPUT_TOPIC,
    PROCESSOR_OUTPUT_TOPIC,
    streams_config,
    word_count_transformer_topology,
)


def test():
    config = streams_config("streams-wordcount-transformer")
    with ks.TopologyTestDriver(word_count_transformer_topology(), config) as driver:
        inp = driver.create_input_topic(INPUT_TOPIC, serdes.String(), serdes.String())
        out = driver.create_output_topic(PROCESSOR_OUTPUT_TOPIC, serdes.String(), serdes.String())

        inp.pipe_input("key", "alpha beta\tgamma\n\talpha", 0)

        expected = [
            ks.TestRecord("alpha", "2", 0),
            ks.TestRecord("beta", "1", 0),
            ks.TestRecord("gamma", "1", 0),
        ]
        assert out.read_records_to_list() == expected
