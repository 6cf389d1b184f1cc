"""Kafka's ``ProcessorTopologyTest``, translated to kslab's ``Topology`` and test driver.

Java builds a ``TopologyWrapper`` and drives it through ``TopologyTestDriver`` with String
default serdes and ``CustomTimestampExtractor`` as ``default.timestamp.extractor``; here the
config carries ``"string"`` serdes and the extractor class (kslab instantiates a class with
``extract(record, partition_time)`` as Java does). ``StreamPartitioner.partitions`` is a
partitioner ``(topic, key, value, num_partitions)`` returning a set of partitions; Java's
``InternalTopologyBuilder.addInternalTopic`` (reached through ``TopologyWrapper``) is kslab's
``Topology.add_internal_topic``, its internal equivalent. A ``ProcessorSupplier`` that is
also a ``ConnectedStoreProvider`` is a callable with ``stores()``.

The deprecated old-Processor-API variants (``...OldAPI``, ``...OldProcessor``,
``createStatefulTopology`` / ``createConnectedStateStoreTopology`` with
``OldAPIStatefulProcessor``) run the same topology with the new-API ``StatefulProcessor``:
the old ``AbstractProcessor`` is not in kslab's API, but what those tests assert (the store's
content after the same inputs) is the same, so they are translated rather than skipped.

``testTopologyMetadata`` and ``shouldGetTerminalNodes`` read kslab's built topology
(``nodes``, ``source_topics()``, ``source_for_topic``) and its description (terminal nodes:
those without successors) where Java reads ``ProcessorTopology``;
``hasPersistentLocalStore()`` reads the store builders' ``persistent`` flag, as
``test_topology_test.py`` does, and ``hasPersistentGlobalStore()`` the global stores'.
The global-store tests at the end (``shouldDriveGlobalStore``, ``...PersistentGlobalStore...``)
are from Kafka trunk's version of this class.

Skipped, as outside kslab's API: the ``shouldUpdateSourceTopics...`` and
``shouldThrowIf...SourceNode...`` tests (``ProcessorTopology.updateSourceTopics``, an internal
hook of the rebalance protocol for pattern subscriptions) and the ``shouldCreateString...`` /
``shouldRecursivelyPrintChildren`` tests (``ProcessorTopology.toString()``, an internal debug
format; kslab's public text form is ``describe()``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import kslab as ks
from kslab import serdes

DEFAULT_STORE_NAME = "prefixScanStore"
DEFAULT_PREFIX = "key"

INPUT_TOPIC_1 = "input-topic-1"
INPUT_TOPIC_2 = "input-topic-2"
OUTPUT_TOPIC_1 = "output-topic-1"
OUTPUT_TOPIC_2 = "output-topic-2"
THROUGH_TOPIC_1 = "through-topic-1"

HEADER = ("key", b"value")
HEADERS = ks.Headers([HEADER])

STRING = serdes.String()
INTEGER = serdes.Integer()


class CustomTimestampExtractor:
    """The timestamp after ``@`` in the value, else the record's, else 1000 if negative."""

    DEFAULT_TIMESTAMP = 1000

    def extract(self, record, partition_time):
        value = str(record.value)
        if re.fullmatch(r".*@[0-9]+", value):
            return int(value.split("@")[1])
        if record.timestamp >= 0:
            return record.timestamp
        return self.DEFAULT_TIMESTAMP


@pytest.fixture
def props(tmp_path: Path) -> dict:
    return {
        "state.dir": str(tmp_path),
        "default.key.serde": "string",
        "default.value.serde": "string",
        "default.timestamp.extractor": CustomTimestampExtractor,
    }


@pytest.fixture
def topology() -> ks.Topology:
    return ks.Topology()


class ForwardingProcessor(ks.Processor):
    """Forwards every record to all children."""

    def init(self, context):
        self.context = context

    def process(self, record):
        self.context.forward(record)


class TimestampProcessor(ks.Processor):
    """Forwards every record with its timestamp advanced by 10."""

    def init(self, context):
        self.context = context

    def process(self, record):
        self.context.forward(record.with_timestamp(record.timestamp + 10))


class FanOutTimestampProcessor(ks.Processor):
    """Forwards to all, to each named child, and to all again, with shifted timestamps."""

    def __init__(self, first_child, second_child):
        self.first_child = first_child
        self.second_child = second_child

    def init(self, context):
        self.context = context

    def process(self, record):
        self.context.forward(record)
        self.context.forward(record.with_timestamp(record.timestamp + 5), self.first_child)
        self.context.forward(record, self.second_child)
        self.context.forward(record.with_timestamp(record.timestamp + 2))


class AddHeaderProcessor(ks.Processor):
    """Forwards a copy of each record with HEADER added."""

    def init(self, context):
        self.context = context

    def process(self, record):
        to_forward = record.with_headers(record.headers)
        to_forward.headers.add(*HEADER)
        self.context.forward(to_forward)


class ValueTimestampProcessor(ks.Processor):
    """Strips the ``@<timestamp>`` suffix from values."""

    def init(self, context):
        self.context = context

    def process(self, record):
        self.context.forward(record.with_value(record.value.split("@")[0]))


class StatefulProcessor(ks.Processor):
    """Puts each key-value pair in the named key-value store."""

    def __init__(self, store_name):
        self.store_name = store_name

    def init(self, context):
        self.store = context.get_state_store(self.store_name)

    def process(self, record):
        self.store.put(record.key, record.value)


class MockProcessor(ks.Processor):
    def process(self, record):
        pass


class WithStores:
    """``defineWithStores``: a processor supplier that is also a ConnectedStoreProvider."""

    def __init__(self, supplier, stores):
        self.supplier = supplier
        self._stores = stores

    def __call__(self):
        return self.supplier()

    def stores(self):
        return self._stores


def constant_partitioner(partition):
    return lambda topic, key, value, num_partitions: {partition}


def dropping_partitioner(topic, key, value, num_partitions):
    return set(range(1, num_partitions, 2))


def assert_next_output_record(record, key, value, timestamp=0, headers=None):
    assert record.key == key
    assert record.value == value
    assert record.timestamp == timestamp
    assert record.headers == (ks.Headers() if headers is None else headers)


def prefix_scan_results(store, prefix):
    with store.prefix_scan(prefix, STRING) as it:
        return list(it)


def create_simple_topology(topology, partition):
    return (topology
            .add_source("source", INPUT_TOPIC_1, key_serde=STRING, value_serde=STRING)
            .add_processor("processor", ForwardingProcessor, "source")
            .add_sink("sink", OUTPUT_TOPIC_1, "processor",
                      partitioner=constant_partitioner(partition)))


def create_timestamp_topology(topology, partition):
    return (topology
            .add_source("source", INPUT_TOPIC_1, key_serde=STRING, value_serde=STRING)
            .add_processor("processor", TimestampProcessor, "source")
            .add_sink("sink", OUTPUT_TOPIC_1, "processor",
                      partitioner=constant_partitioner(partition)))


def create_multi_processor_timestamp_topology(topology, partition):
    return (topology
            .add_source("source", INPUT_TOPIC_1, key_serde=STRING, value_serde=STRING)
            .add_processor("processor", lambda: FanOutTimestampProcessor("child1", "child2"),
                           "source")
            .add_processor("child1", ForwardingProcessor, "processor")
            .add_processor("child2", TimestampProcessor, "processor")
            .add_sink("sink1", OUTPUT_TOPIC_1, "child1",
                      partitioner=constant_partitioner(partition))
            .add_sink("sink2", OUTPUT_TOPIC_2, "child2",
                      partitioner=constant_partitioner(partition)))


def create_simple_topology_with_dropping_partitioner(topology):
    return (topology
            .add_source("source", INPUT_TOPIC_1, key_serde=STRING, value_serde=STRING)
            .add_processor("processor", ForwardingProcessor, "source")
            .add_sink("sink", OUTPUT_TOPIC_1, "processor", partitioner=dropping_partitioner))


def kv_builder(supplier):
    return ks.Stores.key_value_store_builder(supplier, STRING, STRING)


def create_stateful_topology(topology, store_name):
    return (topology
            .add_source("source", INPUT_TOPIC_1, key_serde=STRING, value_serde=STRING)
            .add_processor("processor", lambda: StatefulProcessor(store_name), "source")
            .add_state_store(kv_builder(ks.Stores.in_memory_key_value_store(store_name)),
                             "processor")
            .add_sink("counts", OUTPUT_TOPIC_1, "processor"))


def create_connected_state_store_topology(topology, store_name):
    store_builder = kv_builder(ks.Stores.in_memory_key_value_store(store_name))
    return (topology
            .add_source("source", INPUT_TOPIC_1, key_serde=STRING, value_serde=STRING)
            .add_processor("processor",
                           WithStores(lambda: StatefulProcessor(store_name), {store_builder}),
                           "source")
            .add_sink("counts", OUTPUT_TOPIC_1, "processor"))


def create_internal_repartitioning_topology(topology):
    (topology.add_source("source", INPUT_TOPIC_1)
     .add_sink("sink0", THROUGH_TOPIC_1, "source")
     .add_source("source1", THROUGH_TOPIC_1)
     .add_sink("sink1", OUTPUT_TOPIC_1, "source1"))
    topology.add_internal_topic(THROUGH_TOPIC_1)
    return topology


def create_internal_repartitioning_with_value_timestamp_topology(topology):
    (topology.add_source("source", INPUT_TOPIC_1)
     .add_processor("processor", ValueTimestampProcessor, "source")
     .add_sink("sink0", THROUGH_TOPIC_1, "processor")
     .add_source("source1", THROUGH_TOPIC_1)
     .add_sink("sink1", OUTPUT_TOPIC_1, "source1"))
    topology.add_internal_topic(THROUGH_TOPIC_1)
    return topology


def create_forward_to_source_topology(topology):
    return (topology.add_source("source-1", INPUT_TOPIC_1)
            .add_sink("sink-1", OUTPUT_TOPIC_1, "source-1")
            .add_source("source-2", OUTPUT_TOPIC_1)
            .add_sink("sink-2", OUTPUT_TOPIC_2, "source-2"))


def create_simple_multi_source_topology(topology, partition):
    return (topology
            .add_source("source-1", INPUT_TOPIC_1, key_serde=STRING, value_serde=STRING)
            .add_processor("processor-1", ForwardingProcessor, "source-1")
            .add_sink("sink-1", OUTPUT_TOPIC_1, "processor-1",
                      partitioner=constant_partitioner(partition))
            .add_source("source-2", INPUT_TOPIC_2, key_serde=STRING, value_serde=STRING)
            .add_processor("processor-2", ForwardingProcessor, "source-2")
            .add_sink("sink-2", OUTPUT_TOPIC_2, "processor-2",
                      partitioner=constant_partitioner(partition)))


def create_add_header_topology(topology):
    return (topology
            .add_source("source-1", INPUT_TOPIC_1, key_serde=STRING, value_serde=STRING)
            .add_processor("processor-1", AddHeaderProcessor, "source-1")
            .add_sink("sink-1", OUTPUT_TOPIC_1, "processor-1"))


def terminal_nodes(topology):
    """ProcessorTopology.terminalNodes(): processors and sinks without children."""
    names = set()
    for subtopology in topology.describe().subtopologies:
        for node in subtopology.nodes:
            if not node.successors and not isinstance(node, ks.TopologyDescription.Source):
                names.add(node.name)
    return names


def test_topology_metadata(topology):
    topology.add_source("source-1", "topic-1")
    topology.add_source("source-2", "topic-2", "topic-3")
    topology.add_processor("processor-1", MockProcessor, "source-1")
    topology.add_processor("processor-2", MockProcessor, "source-1", "source-2")
    topology.add_sink("sink-1", "topic-3", "processor-1")
    topology.add_sink("sink-2", "topic-4", "processor-1", "processor-2")

    assert len(topology.nodes) == 6
    assert sum(isinstance(n, ks.TopologyDescription.Source) for sub in
               topology.describe().subtopologies for n in sub.nodes) == 2
    assert len(topology.source_topics()) == 3
    assert topology.source_for_topic("topic-1") is not None
    assert topology.source_for_topic("topic-2") is not None
    assert topology.source_for_topic("topic-3") is not None
    assert topology.source_for_topic("topic-2") == topology.source_for_topic("topic-3")


def test_should_get_terminal_nodes(topology):
    topology.add_source("source-1", "topic-1")
    topology.add_source("source-2", "topic-2", "topic-3")
    topology.add_processor("processor-1", MockProcessor, "source-1")
    topology.add_processor("processor-2", MockProcessor, "source-1", "source-2")
    topology.add_sink("sink-1", "topic-3", "processor-1")

    assert terminal_nodes(topology) == {"processor-2", "sink-1"}


def test_driving_simple_topology(topology, props):
    partition = 10
    with ks.TopologyTestDriver(create_simple_topology(topology, partition), props) as driver:
        input_topic = driver.create_input_topic(INPUT_TOPIC_1, STRING, STRING, 0, 0)
        output_topic1 = driver.create_output_topic(OUTPUT_TOPIC_1, STRING, STRING)

        input_topic.pipe_input("key1", "value1")
        assert_next_output_record(output_topic1.read_record(), "key1", "value1")
        assert output_topic1.is_empty()

        input_topic.pipe_input("key2", "value2")
        assert_next_output_record(output_topic1.read_record(), "key2", "value2")
        assert output_topic1.is_empty()

        input_topic.pipe_input("key3", "value3")
        input_topic.pipe_input("key4", "value4")
        input_topic.pipe_input("key5", "value5")
        assert_next_output_record(output_topic1.read_record(), "key3", "value3")
        assert_next_output_record(output_topic1.read_record(), "key4", "value4")
        assert_next_output_record(output_topic1.read_record(), "key5", "value5")
        assert output_topic1.is_empty()


def test_driving_simple_topology_with_dropping_partitioner(topology, props):
    topo = create_simple_topology_with_dropping_partitioner(topology)
    with ks.TopologyTestDriver(topo, props) as driver:
        input_topic = driver.create_input_topic(INPUT_TOPIC_1, STRING, STRING, 0, 0)
        output_topic1 = driver.create_output_topic(OUTPUT_TOPIC_1, STRING, STRING)

        input_topic.pipe_input("key1", "value1")
        assert output_topic1.is_empty()


def _assert_store_after_four_records(driver, store_name):
    input_topic = driver.create_input_topic(INPUT_TOPIC_1, STRING, STRING)
    output_topic1 = driver.create_output_topic(OUTPUT_TOPIC_1, INTEGER, STRING)

    input_topic.pipe_input("key1", "value1")
    input_topic.pipe_input("key2", "value2")
    input_topic.pipe_input("key3", "value3")
    input_topic.pipe_input("key1", "value4")
    assert output_topic1.is_empty()

    store = driver.get_key_value_store(store_name)
    assert store.get("key1") == "value4"
    assert store.get("key2") == "value2"
    assert store.get("key3") == "value3"
    assert store.get("key4") is None


def test_driving_stateful_topology(topology, props):
    store_name = "entries"
    with ks.TopologyTestDriver(create_stateful_topology(topology, store_name), props) as driver:
        _assert_store_after_four_records(driver, store_name)


def test_driving_connected_state_store_topology(topology, props):
    topo = create_connected_state_store_topology(topology, "connectedStore")
    with ks.TopologyTestDriver(topo, props) as driver:
        _assert_store_after_four_records(driver, "connectedStore")


def _connected_store_in_different_processors(topology):
    store_name = "connectedStore"
    store_builder = kv_builder(ks.Stores.in_memory_key_value_store(store_name))
    return (topology
            .add_source("source1", INPUT_TOPIC_1, key_serde=STRING, value_serde=STRING)
            .add_source("source2", INPUT_TOPIC_2, key_serde=STRING, value_serde=STRING)
            .add_processor("processor1",
                           WithStores(lambda: StatefulProcessor(store_name), {store_builder}),
                           "source1")
            .add_processor("processor2",
                           WithStores(lambda: StatefulProcessor(store_name), {store_builder}),
                           "source2")
            .add_sink("counts", OUTPUT_TOPIC_1, "processor1", "processor2"))


def test_driving_connected_state_store_in_different_processors_topology_with_old_api(
        topology, props):
    topo = _connected_store_in_different_processors(topology)
    with ks.TopologyTestDriver(topo, props) as driver:
        _assert_store_after_four_records(driver, "connectedStore")


def test_driving_connected_state_store_in_different_processors_topology(topology, props):
    topo = _connected_store_in_different_processors(topology)
    with ks.TopologyTestDriver(topo, props) as driver:
        _assert_store_after_four_records(driver, "connectedStore")


def _prefix_scan_test(topology, props, supplier, caching, logging):
    builder = kv_builder(supplier)
    builder = builder.with_caching_enabled() if caching else builder.with_caching_disabled()
    builder = builder.with_logging_enabled({}) if logging else builder.with_logging_disabled()
    (topology
     .add_source("source1", INPUT_TOPIC_1, key_serde=STRING, value_serde=STRING)
     .add_processor("processor1",
                    WithStores(lambda: StatefulProcessor(DEFAULT_STORE_NAME), {builder}),
                    "source1")
     .add_sink("counts", OUTPUT_TOPIC_1, "processor1"))

    with ks.TopologyTestDriver(topology, props) as driver:
        input_topic = driver.create_input_topic(INPUT_TOPIC_1, STRING, STRING)
        output_topic1 = driver.create_output_topic(OUTPUT_TOPIC_1, INTEGER, STRING)

        input_topic.pipe_input("key1", "value1")
        input_topic.pipe_input("key2", "value2")
        input_topic.pipe_input("key3", "value3")
        input_topic.pipe_input("key1", "value4")
        assert output_topic1.is_empty()

        store = driver.get_key_value_store(DEFAULT_STORE_NAME)
        results = prefix_scan_results(store, DEFAULT_PREFIX)

        assert results[0].key == "key1"
        assert results[0].value == "value4"
        assert results[1].key == "key2"
        assert results[1].value == "value2"
        assert results[2].key == "key3"
        assert results[2].value == "value3"


def in_memory():
    return ks.Stores.in_memory_key_value_store(DEFAULT_STORE_NAME)


def persistent():
    return ks.Stores.persistent_key_value_store(DEFAULT_STORE_NAME)


def persistent_timestamped():
    return ks.Stores.persistent_timestamped_key_value_store(DEFAULT_STORE_NAME)


def lru_map():
    return ks.Stores.lru_map(DEFAULT_STORE_NAME, 100)


def test_prefix_scan_in_memory_store_no_caching_no_logging(topology, props):
    _prefix_scan_test(topology, props, in_memory(), False, False)


def test_prefix_scan_in_memory_store_with_caching_no_logging(topology, props):
    _prefix_scan_test(topology, props, in_memory(), True, False)


def test_prefix_scan_in_memory_store_with_caching_with_logging(topology, props):
    _prefix_scan_test(topology, props, in_memory(), True, True)


def test_prefix_scan_persistent_store_no_caching_no_logging(topology, props):
    _prefix_scan_test(topology, props, persistent(), False, False)


def test_prefix_scan_persistent_store_with_caching_no_logging(topology, props):
    _prefix_scan_test(topology, props, persistent(), True, False)


def test_prefix_scan_persistent_store_with_caching_with_logging(topology, props):
    _prefix_scan_test(topology, props, persistent(), True, True)


def test_prefix_scan_persistent_timestamped_store_no_caching_no_logging(topology, props):
    _prefix_scan_test(topology, props, persistent_timestamped(), False, False)


def test_prefix_scan_persistent_timestamped_store_with_caching_no_logging(topology, props):
    _prefix_scan_test(topology, props, persistent_timestamped(), True, False)


def test_prefix_scan_persistent_timestamped_store_with_caching_with_logging(topology, props):
    _prefix_scan_test(topology, props, persistent_timestamped(), True, True)


def test_prefix_scan_lru_map_no_caching_no_logging(topology, props):
    _prefix_scan_test(topology, props, lru_map(), False, False)


def test_prefix_scan_lru_map_with_caching_no_logging(topology, props):
    _prefix_scan_test(topology, props, lru_map(), True, False)


def test_prefix_scan_lru_map_with_caching_with_logging(topology, props):
    _prefix_scan_test(topology, props, lru_map(), True, True)


def test_prefix_scan_in_memory_store_no_caching_no_logging_old_processor(topology, props):
    _prefix_scan_test(topology, props, in_memory(), False, False)


def test_prefix_scan_in_memory_store_with_caching_no_logging_old_processor(topology, props):
    _prefix_scan_test(topology, props, in_memory(), True, False)


def test_prefix_scan_in_memory_store_with_caching_with_logging_old_processor(topology, props):
    _prefix_scan_test(topology, props, in_memory(), True, True)


def test_prefix_scan_persistent_store_no_caching_no_logging_old_processor(topology, props):
    _prefix_scan_test(topology, props, persistent(), False, False)


def test_prefix_scan_persistent_store_with_caching_no_logging_old_processor(topology, props):
    _prefix_scan_test(topology, props, persistent(), True, False)


def test_prefix_scan_persistent_store_with_caching_with_logging_old_processor(topology, props):
    _prefix_scan_test(topology, props, persistent(), True, True)


def test_prefix_scan_persistent_timestamped_store_no_caching_no_logging_old_processor(
        topology, props):
    _prefix_scan_test(topology, props, persistent_timestamped(), False, False)


def test_prefix_scan_persistent_timestamped_store_with_caching_no_logging_old_processor(
        topology, props):
    _prefix_scan_test(topology, props, persistent_timestamped(), True, False)


def test_prefix_scan_persistent_timestamped_store_with_caching_with_logging_old_processor(
        topology, props):
    _prefix_scan_test(topology, props, persistent_timestamped(), True, True)


def test_prefix_scan_lru_map_no_caching_no_logging_old_processor(topology, props):
    _prefix_scan_test(topology, props, lru_map(), False, False)


def test_prefix_scan_lru_map_with_caching_no_logging_old_processor(topology, props):
    _prefix_scan_test(topology, props, lru_map(), True, False)


def test_prefix_scan_lru_map_with_caching_with_logging_old_processor(topology, props):
    _prefix_scan_test(topology, props, lru_map(), True, True)


def test_driving_simple_multi_source_topology(topology, props):
    partition = 10
    topo = create_simple_multi_source_topology(topology, partition)
    with ks.TopologyTestDriver(topo, props) as driver:
        input_topic = driver.create_input_topic(INPUT_TOPIC_1, STRING, STRING, 0, 0)
        output_topic1 = driver.create_output_topic(OUTPUT_TOPIC_1, STRING, STRING)
        output_topic2 = driver.create_output_topic(OUTPUT_TOPIC_2, STRING, STRING)

        input_topic.pipe_input("key1", "value1")
        assert_next_output_record(output_topic1.read_record(), "key1", "value1")
        assert output_topic2.is_empty()

        input_topic2 = driver.create_input_topic(INPUT_TOPIC_2, STRING, STRING, 0, 0)
        input_topic2.pipe_input("key2", "value2")
        assert_next_output_record(output_topic2.read_record(), "key2", "value2")
        assert output_topic2.is_empty()


def test_driving_forward_to_source_topology(topology, props):
    with ks.TopologyTestDriver(create_forward_to_source_topology(topology), props) as driver:
        input_topic = driver.create_input_topic(INPUT_TOPIC_1, STRING, STRING, 0, 0)
        input_topic.pipe_input("key1", "value1")
        input_topic.pipe_input("key2", "value2")
        input_topic.pipe_input("key3", "value3")
        output_topic2 = driver.create_output_topic(OUTPUT_TOPIC_2, STRING, STRING)
        assert_next_output_record(output_topic2.read_record(), "key1", "value1")
        assert_next_output_record(output_topic2.read_record(), "key2", "value2")
        assert_next_output_record(output_topic2.read_record(), "key3", "value3")


def test_driving_internal_repartitioning_topology(topology, props):
    topo = create_internal_repartitioning_topology(topology)
    with ks.TopologyTestDriver(topo, props) as driver:
        input_topic = driver.create_input_topic(INPUT_TOPIC_1, STRING, STRING, 0, 0)
        input_topic.pipe_input("key1", "value1")
        input_topic.pipe_input("key2", "value2")
        input_topic.pipe_input("key3", "value3")
        output_topic1 = driver.create_output_topic(OUTPUT_TOPIC_1, STRING, STRING)
        assert_next_output_record(output_topic1.read_record(), "key1", "value1")
        assert_next_output_record(output_topic1.read_record(), "key2", "value2")
        assert_next_output_record(output_topic1.read_record(), "key3", "value3")


def test_driving_internal_repartitioning_forwarding_timestamp_topology(topology, props):
    topo = create_internal_repartitioning_with_value_timestamp_topology(topology)
    with ks.TopologyTestDriver(topo, props) as driver:
        input_topic = driver.create_input_topic(INPUT_TOPIC_1, STRING, STRING)
        input_topic.pipe_input("key1", "value1@1000")
        input_topic.pipe_input("key2", "value2@2000")
        input_topic.pipe_input("key3", "value3@3000")
        output_topic = driver.create_output_topic(OUTPUT_TOPIC_1, STRING, STRING)
        assert output_topic.read_record() == ks.TestRecord("key1", "value1", None, 1000)
        assert output_topic.read_record() == ks.TestRecord("key2", "value2", None, 2000)
        assert output_topic.read_record() == ks.TestRecord("key3", "value3", None, 3000)


def test_should_consider_time_stamps(topology, props):
    partition = 10
    with ks.TopologyTestDriver(create_simple_topology(topology, partition), props) as driver:
        input_topic = driver.create_input_topic(INPUT_TOPIC_1, STRING, STRING)
        input_topic.pipe_input("key1", "value1", 10)
        input_topic.pipe_input("key2", "value2", 20)
        input_topic.pipe_input("key3", "value3", 30)
        output_topic1 = driver.create_output_topic(OUTPUT_TOPIC_1, STRING, STRING)
        assert_next_output_record(output_topic1.read_record(), "key1", "value1", 10)
        assert_next_output_record(output_topic1.read_record(), "key2", "value2", 20)
        assert_next_output_record(output_topic1.read_record(), "key3", "value3", 30)


def test_should_consider_modified_time_stamps(topology, props):
    partition = 10
    with ks.TopologyTestDriver(create_timestamp_topology(topology, partition), props) as driver:
        input_topic = driver.create_input_topic(INPUT_TOPIC_1, STRING, STRING)
        input_topic.pipe_input("key1", "value1", 10)
        input_topic.pipe_input("key2", "value2", 20)
        input_topic.pipe_input("key3", "value3", 30)
        output_topic1 = driver.create_output_topic(OUTPUT_TOPIC_1, STRING, STRING)
        assert_next_output_record(output_topic1.read_record(), "key1", "value1", 20)
        assert_next_output_record(output_topic1.read_record(), "key2", "value2", 30)
        assert_next_output_record(output_topic1.read_record(), "key3", "value3", 40)


def test_should_consider_modified_time_stamps_for_multiple_processors(topology, props):
    partition = 10
    topo = create_multi_processor_timestamp_topology(topology, partition)
    with ks.TopologyTestDriver(topo, props) as driver:
        input_topic = driver.create_input_topic(INPUT_TOPIC_1, STRING, STRING)
        output_topic1 = driver.create_output_topic(OUTPUT_TOPIC_1, STRING, STRING)
        output_topic2 = driver.create_output_topic(OUTPUT_TOPIC_2, STRING, STRING)

        input_topic.pipe_input("key1", "value1", 10)
        assert_next_output_record(output_topic1.read_record(), "key1", "value1", 10)
        assert_next_output_record(output_topic2.read_record(), "key1", "value1", 20)
        assert_next_output_record(output_topic1.read_record(), "key1", "value1", 15)
        assert_next_output_record(output_topic2.read_record(), "key1", "value1", 20)
        assert_next_output_record(output_topic1.read_record(), "key1", "value1", 12)
        assert_next_output_record(output_topic2.read_record(), "key1", "value1", 22)
        assert output_topic1.is_empty()
        assert output_topic2.is_empty()

        input_topic.pipe_input("key2", "value2", 20)
        assert_next_output_record(output_topic1.read_record(), "key2", "value2", 20)
        assert_next_output_record(output_topic2.read_record(), "key2", "value2", 30)
        assert_next_output_record(output_topic1.read_record(), "key2", "value2", 25)
        assert_next_output_record(output_topic2.read_record(), "key2", "value2", 30)
        assert_next_output_record(output_topic1.read_record(), "key2", "value2", 22)
        assert_next_output_record(output_topic2.read_record(), "key2", "value2", 32)
        assert output_topic1.is_empty()
        assert output_topic2.is_empty()


def test_should_consider_headers(topology, props):
    partition = 10
    with ks.TopologyTestDriver(create_simple_topology(topology, partition), props) as driver:
        input_topic = driver.create_input_topic(INPUT_TOPIC_1, STRING, STRING)
        input_topic.pipe_input(ks.TestRecord("key1", "value1", HEADERS, 10))
        input_topic.pipe_input(ks.TestRecord("key2", "value2", HEADERS, 20))
        input_topic.pipe_input(ks.TestRecord("key3", "value3", HEADERS, 30))
        output_topic1 = driver.create_output_topic(OUTPUT_TOPIC_1, STRING, STRING)
        assert_next_output_record(output_topic1.read_record(), "key1", "value1", 10, HEADERS)
        assert_next_output_record(output_topic1.read_record(), "key2", "value2", 20, HEADERS)
        assert_next_output_record(output_topic1.read_record(), "key3", "value3", 30, HEADERS)


def test_should_add_headers(topology, props):
    with ks.TopologyTestDriver(create_add_header_topology(topology), props) as driver:
        input_topic = driver.create_input_topic(INPUT_TOPIC_1, STRING, STRING)
        input_topic.pipe_input("key1", "value1", 10)
        input_topic.pipe_input("key2", "value2", 20)
        input_topic.pipe_input("key3", "value3", 30)
        output_topic1 = driver.create_output_topic(OUTPUT_TOPIC_1, STRING, STRING)
        assert_next_output_record(output_topic1.read_record(), "key1", "value1", 10, HEADERS)
        assert_next_output_record(output_topic1.read_record(), "key2", "value2", 20, HEADERS)
        assert_next_output_record(output_topic1.read_record(), "key3", "value3", 30, HEADERS)


def has_persistent_local_store(topology):
    return any(builder.persistent for builder in topology.state_stores.values())


def has_persistent_global_store(topology):
    return any(spec.store_builder.persistent for spec in topology.global_stores.values())


def test_stateless_topology_should_not_have_persistent_store():
    topology = ks.Topology()
    assert has_persistent_local_store(topology) is False
    assert has_persistent_global_store(topology) is False


def create_local_store_topology(store_supplier):
    topology = ks.Topology()
    processor = "processor"
    store_builder = kv_builder(store_supplier)
    (topology.add_source("source", "topic", key_serde=STRING, value_serde=STRING)
     .add_processor(processor, lambda: StatefulProcessor(store_supplier.name), "source")
     .add_state_store(store_builder, processor))
    return topology


def test_in_memory_store_should_not_result_in_persistent_local_store():
    topology = create_local_store_topology(ks.Stores.in_memory_key_value_store("my-store"))
    assert has_persistent_local_store(topology) is False


def test_persistent_local_store_should_be_detected():
    topology = create_local_store_topology(ks.Stores.persistent_key_value_store("my-store"))
    assert has_persistent_local_store(topology) is True


# -- from Kafka trunk's ProcessorTopologyTest: global stores --------------------------------------


def test_should_drive_global_store(topology, props):
    store_name = "my-store"
    store_builder = kv_builder(
        ks.Stores.in_memory_key_value_store(store_name)).with_logging_disabled()
    global_ = "global"
    topic = "topic"

    topology.add_global_store(store_builder, global_, topic, "processor",
                              lambda: StatefulProcessor(store_name),
                              key_serde=STRING, value_serde=STRING)

    with ks.TopologyTestDriver(topology, props) as driver:
        input_topic = driver.create_input_topic(topic, STRING, STRING)
        input_topic.pipe_input("key1", "value1")
        input_topic.pipe_input("key2", "value2")

        global_store = driver.get_key_value_store(store_name)
        assert global_store.get("key1") == "value1"
        assert global_store.get("key2") == "value2"


def create_global_store_topology(store_supplier):
    topology = ks.Topology()
    store_builder = kv_builder(store_supplier).with_logging_disabled()
    topology.add_global_store(store_builder, "global", "topic", "processor",
                              lambda: StatefulProcessor(store_supplier.name),
                              key_serde=STRING, value_serde=STRING)
    return topology


def test_in_memory_store_should_not_result_in_persistent_global_store():
    topology = create_global_store_topology(ks.Stores.in_memory_key_value_store("my-store"))
    assert has_persistent_global_store(topology) is False


def test_persistent_global_store_should_be_detected():
    topology = create_global_store_topology(ks.Stores.persistent_key_value_store("my-store"))
    assert has_persistent_global_store(topology) is True
