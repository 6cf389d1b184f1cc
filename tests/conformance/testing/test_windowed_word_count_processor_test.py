"""Kafka's ``WindowedWordCountProcessorTest`` (streams/test-utils, test.wordcount), in the driver.

Java runs ``WindowedWordCountProcessorSupplier``'s processor (counts words per 100 ms window in
the window store ``WindowedCounts``; a stream-time punctuator every second forwards the whole
store, ``Windowed.toString()`` as key, count as value, at the punctuation time) on a
``MockProcessorContext``, which is not in kslab's API. Here the same processor runs in a
``TopologyTestDriver`` between a source and a sink, with the same window store (24 days
retention, 100 ms windows, no duplicates, logging and caching disabled), once in memory and once
persistent, and the same records ("alpha beta gamma alpha" at 101, "gamma delta" at 221).

What Java checks by calling the punctuator by hand at 1000 is checked where the driver fires it:
stream-time punctuation is aligned to 0, so it first fires at 101, right after the first record
(forwarding that record's three counts), and next at 1000, for which a third record
("zeta" at 1000) is piped; its own count comes last in both orders. The store's iteration order
is the point of the test: the in-memory window store iterates by window start, then key; the
persistent one (RocksDB, one segment here) by key bytes, then window start.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes

STORE = "WindowedCounts"


class WindowedWordCountProcessor(ks.Processor):
    """Java's ``WindowedWordCountProcessorSupplier.get()``."""

    def init(self, context):
        self.context = context
        context.schedule(1000, ks.PunctuationType.STREAM_TIME, self.punctuate)
        self.window_store = context.get_state_store(STORE)

    def punctuate(self, timestamp):
        with self.window_store.all() as entries:
            for windowed, count in entries:
                self.context.forward(ks.Record(str(windowed), str(count), timestamp))

    def process(self, record):
        window_start = record.timestamp // 100 * 100
        for word in record.value.lower().split(" "):
            old_value = self.window_store.fetch(word, window_start)
            if old_value is None:
                self.window_store.put(word, 1, window_start)
            else:
                self.window_store.put(word, old_value + 1, window_start)


def _topology(supplier):
    store = (ks.Stores.window_store_builder(supplier, serdes.String(), serdes.Integer())
             .with_logging_disabled()
             .with_caching_disabled())
    return (ks.Topology()
            .add_source("source", "input", key_serde=serdes.String(), value_serde=serdes.String())
            .add_processor("counter", WindowedWordCountProcessor, "source")
            .add_state_store(store, "counter")
            .add_sink("sink", "output", "counter", key_serde=serdes.String(),
                      value_serde=serdes.String()))


IN_MEMORY = [
    ("[alpha@100/200]", "2"),
    ("[beta@100/200]", "1"),
    ("[gamma@100/200]", "1"),
    ("[delta@200/300]", "1"),
    ("[gamma@200/300]", "1"),
]
PERSISTENT = [
    ("[alpha@100/200]", "2"),
    ("[beta@100/200]", "1"),
    ("[delta@200/300]", "1"),
    ("[gamma@100/200]", "1"),
    ("[gamma@200/300]", "1"),
]


@pytest.mark.parametrize(("supplier", "expected"), [
    (ks.Stores.in_memory_window_store(STORE, 24 * 86_400_000, 100, False), IN_MEMORY),
    (ks.Stores.persistent_window_store(STORE, 24 * 86_400_000, 100, False), PERSISTENT),
], ids=["should_work_with_in_memory_store", "should_work_with_persistent_store"])
def test_windowed_word_count(supplier, expected):
    with ks.TopologyTestDriver(_topology(supplier)) as driver:
        inp = driver.create_input_topic("input")
        out = driver.create_output_topic("output")

        inp.pipe_input("key", "alpha beta gamma alpha", 101)
        assert out.read_records_to_list() == [
            ks.TestRecord("[alpha@100/200]", "2", 101),
            ks.TestRecord("[beta@100/200]", "1", 101),
            ks.TestRecord("[gamma@100/200]", "1", 101),
        ]

        inp.pipe_input("key", "gamma delta", 221)
        # the processor does not forward during process()
        assert out.is_empty()

        inp.pipe_input("key", "zeta", 1000)
        expected_forwards = [*expected, ("[zeta@1000/1100]", "1")]
        assert out.read_records_to_list() == [ks.TestRecord(k, v, 1000)
                                              for k, v in expected_forwards]
