"""The Processor API examples of the seed documents, run in the test driver with exact outputs."""

from __future__ import annotations

import re

import kslab as ks
from kslab import serdes


class Upper(ks.Processor):
    """Seed 000: upper-cases values."""

    def init(self, context):
        self.context = context

    def process(self, record):
        self.context.forward(record.with_value(record.value.upper()))


class Counter(ks.Processor):
    """Seed 000: counts values in the `counts` store and forwards the running count."""

    def init(self, context):
        self.context = context
        self.store = context.get_state_store("counts")

    def process(self, record):
        n = (self.store.get(record.value) or 0) + 1
        self.store.put(record.value, n)
        self.context.forward(ks.Record(record.value, n, record.timestamp))


class Scheduler(ks.Processor):
    """Seed 000: every 10 ms of stream time forward the fire timestamp; drop the records."""

    def init(self, context):
        context.schedule(10, ks.PunctuationType.STREAM_TIME,
                         lambda ts: context.forward(ks.Record(None, ts, ts)))

    def process(self, record):
        pass


class WordCountProcessor(ks.Processor):
    """Seed 001: count words into `Counts`; every 1000 ms of stream time emit the store."""

    def init(self, context):
        self.context = context
        self.kv_store = context.get_state_store("Counts")
        context.schedule(1000, ks.PunctuationType.STREAM_TIME, self.punctuate)

    def punctuate(self, timestamp):
        with self.kv_store.all() as entries:
            for key, value in entries:
                self.context.forward(ks.Record(key, str(value), timestamp))

    def process(self, record):
        for word in re.split(r"\W+", record.value.lower()):
            old = self.kv_store.get(word)
            self.kv_store.put(word, 1 if old is None else old + 1)


def string_topology(processor, *stores):
    topo = ks.Topology()
    topo.add_source("src", "in", key_serde=serdes.String(), value_serde=serdes.String())
    topo.add_processor("p", processor, "src")
    for store in stores:
        topo.add_state_store(store, "p")
    topo.add_sink("out", "out", "p", key_serde=serdes.String(), value_serde=serdes.String())
    return topo


def test_upper_processor_forwards_upper_cased_value():
    with ks.TopologyTestDriver(string_topology(Upper)) as driver:
        driver.create_input_topic("in").pipe_input("k", "hello", 0)
        out = driver.create_output_topic("out")
        assert out.read_record() == ks.TestRecord("k", "HELLO", 0)
        assert out.is_empty()


def test_counter_with_counts_store():
    topo = ks.Topology()
    topo.add_source("src", "in", key_serde=serdes.String(), value_serde=serdes.String())
    topo.add_processor("c", Counter, "src")
    topo.add_state_store(
        ks.Stores.key_value_store_builder(
            ks.Stores.in_memory_key_value_store("counts"), serdes.String(), serdes.Long()
        ),
        "c",
    )
    topo.add_sink("out", "out", "c", key_serde=serdes.String(), value_serde=serdes.Long())
    with ks.TopologyTestDriver(topo) as driver:
        inp = driver.create_input_topic("in")
        inp.pipe_input(None, "a", 0)
        inp.pipe_input(None, "a", 1)
        inp.pipe_input(None, "b", 2)
        out = driver.create_output_topic("out")
        assert out.read_key_values_to_list() == [("a", 1), ("a", 2), ("b", 1)]
        assert driver.get_key_value_store("counts").get("a") == 2
        assert driver.get_key_value_store("counts").get("b") == 1


def test_stream_time_punctuation_fires_at_0_and_10_not_5():
    topo = ks.Topology()
    topo.add_source("src", "in", key_serde=serdes.String(), value_serde=serdes.String())
    topo.add_processor("p", Scheduler, "src")
    topo.add_sink("out", "out", "p", key_serde=serdes.String(), value_serde=serdes.Long())
    with ks.TopologyTestDriver(topo) as driver:
        inp = driver.create_input_topic("in")
        for ts in (0, 5, 10):
            inp.pipe_input("k", "v", ts)
        out = driver.create_output_topic("out")
        assert out.read_records_to_list() == [
            ks.TestRecord(None, 0, 0),
            ks.TestRecord(None, 10, 10),
        ]


def test_word_count_processor_emits_store_every_second_of_stream_time():
    counts = ks.Stores.key_value_store_builder(
        ks.Stores.persistent_key_value_store("Counts"), serdes.String(), serdes.Integer()
    )
    topo = (
        ks.Topology()
        .add_source("Source", "source-topic", key_serde="string", value_serde="string")
        .add_processor("Process", WordCountProcessor, "Source")
        .add_state_store(counts, "Process")
        .add_sink("Sink", "sink-topic", "Process", key_serde="string", value_serde="string")
    )
    with ks.TopologyTestDriver(topo) as driver:
        inp = driver.create_input_topic("source-topic")
        out = driver.create_output_topic("sink-topic")
        # the first record sets stream time to 0: the punctuation fires at once, store empty
        inp.pipe_input(None, "Hello world", 0)
        assert out.read_key_values_to_list() == [("hello", "1"), ("world", "1")]
        inp.pipe_input(None, "hello Kafka", 500)
        assert out.is_empty()  # 500 < 1000: not due
        inp.pipe_input(None, "streams", 1000)
        assert out.read_records_to_list() == [
            ks.TestRecord("hello", "2", 1000),
            ks.TestRecord("kafka", "1", 1000),
            ks.TestRecord("streams", "1", 1000),
            ks.TestRecord("world", "1", 1000),
        ]
        # a gap of several intervals fires once, stamped with the current stream time
        inp.pipe_input(None, "world", 3500)
        assert [r.timestamp for r in out.read_records_to_list()] == [3500] * 4
        inp.pipe_input(None, "x", 3999)
        assert out.is_empty()  # next boundary after 3500 is 4000
        inp.pipe_input(None, "x", 4000)
        assert out.read_key_values_to_map()["x"] == "2"
