"""Kafka's ``WordCountProcessorTest`` (streams/examples), through kslab's test driver.

Java drives ``WordCountProcessorDemo.WordCountProcessor`` with ``MockProcessorContext``,
which is not in kslab's API; here the demo's own topology (source, processor, ``Counts``
store, sink) runs in ``TopologyTestDriver``. The record goes in at time 0; the stream-time
punctuator, aligned to 0 as Kafka schedules it, fires right after it at 0, where Java calls
``punctuate(0)`` by hand; what it forwards is what the sink writes. The ``Counts`` store is
logged here (Java disables logging only because the mock context has no changelog).
"""

from __future__ import annotations

import kslab as ks
from kslab import serdes
from tests.conformance.examples._wordcount_examples import (
    INPUT_TOPIC,
    PROCESSOR_OUTPUT_TOPIC,
    streams_config,
    word_count_processor_topology,
)


def test():
    config = streams_config("streams-wordcount-processor")
    with ks.TopologyTestDriver(word_count_processor_topology(), config) as driver:
        inp = driver.create_input_topic(INPUT_TOPIC, serdes.String(), serdes.String())
        out = driver.create_output_topic(PROCESSOR_OUTPUT_TOPIC, serdes.String(), serdes.String())

        inp.pipe_input("key", "alpha beta\tgamma\n\talpha", 0)

        expected = [
            ks.TestRecord("alpha", "2", 0),
            ks.TestRecord("beta", "1", 0),
            ks.TestRecord("gamma", "1", 0),
        ]
        assert out.read_records_to_list() == expected
        assert driver.get_key_value_store("Counts").get("alpha") == 2
