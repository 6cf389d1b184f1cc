"""Kafka's ``TopologyTest``, translated to kslab's ``Topology`` and ``StreamsBuilder``.

Java's ``TopologyException`` maps to ``ks.TopologyError``; a ``NullPointerException`` for a
``None`` argument to ``kslab.errors.MissingArgumentError`` (a ``TypeError``; for the Processor
API it is also a ``ks.TopologyError``); ``StreamsException`` to ``ks.StreamsError``. Mockito
store builders become real in-memory store builders with the mocked name. Description objects
are built with ``ks.TopologyDescription``'s nested classes (``Source``, ``Processor``, ``Sink``,
``Subtopology``, ``GlobalStore``) as Java builds ``InternalTopologyBuilder``'s; equal
descriptions must hash equal, as Java asserts. ``hasPersistentLocalStore()`` and
``stateStores().get(i).persistent()`` read the built topology's store builders in order.
Deprecated ``JoinWindows.of(100)`` becomes ``of_time_difference_and_grace(100, 24h - 100)``,
what ``of`` gives.

Java's ``StreamsBuilder(TopologyConfig("my-topology", config, {default.dsl.store: in_memory}))``
becomes ``ks.StreamsBuilder({"default.dsl.store": "in_memory"})``: the store type is checked,
and the description body after the header line; the ``Topology: my-topology:`` header belongs to
named topologies (deprecated, internal), which kslab does not have.

Skipped, as outside kslab's API: ``sinkShouldReturnNullTopicWithDynamicRouting`` and
``sinkShouldReturnTopicNameExtractorWithDynamicRouting`` construct
``InternalTopologyBuilder.Sink`` directly (kslab's equivalent is checked through a described
dynamic sink instead).
"""

from __future__ import annotations

import re

import pytest

import kslab as ks
from kslab import serdes
from kslab.errors import MissingArgumentError

INTEGER = serdes.Integer()
STRING = serdes.String()
LONG = serdes.Long()
IN_MEMORY = ks.Materialized.StoreType.IN_MEMORY
ROCKS_DB = ks.Materialized.StoreType.ROCKS_DB
IN_MEMORY_DSL_STORE = {"default.dsl.store": "in_memory"}
DEPRECATED_DEFAULT_GRACE = 24 * 60 * 60 * 1000 - 100
TopologyDescription = ks.TopologyDescription


def TOSTRING_JOINER(value1, value2):  # MockValueJoiner.TOSTRING_JOINER
    return f"{value1}+{value2}"


class MockProcessor(ks.Processor):
    def process(self, record):
        pass


def mock_processor_supplier():
    return MockProcessor()


def store_builder(name="store"):
    return ks.Stores.key_value_store_builder(ks.Stores.in_memory_key_value_store(name))


def global_store_builder(name):
    return store_builder(name).with_logging_disabled()


def has_persistent_local_store(topology):
    return any(builder.persistent for builder in topology.state_stores.values())


def assert_body(topology, expected):
    # "Topology: my-topology:" header of a named topology: compare what follows it
    actual = str(topology.describe())
    assert actual.split("\n", 1)[1] == expected.split("\n", 1)[1]


@pytest.fixture
def topology():
    return ks.Topology()


class Expected:
    """Mirrors Java's expectedDescription and its addSource / addProcessor / addSink helpers."""

    def __init__(self, topology):
        self.topology = topology
        self.nodes = {}
        self.subtopologies = []
        self.global_stores = []

    def add_source(self, name, *topics):
        self.topology.add_source(name, *topics)
        if len(topics) == 1 and isinstance(topics[0], re.Pattern):
            self.nodes[name] = ["source", [], [], None, topics[0]]
        else:
            self.nodes[name] = ["source", [], [], tuple(topics), None]
        return name

    def add_processor(self, name, *parents, stores=(), new_stores=True):
        self.topology.add_processor(name, mock_processor_supplier, *parents)
        if new_stores:
            for store in stores:
                self.topology.add_state_store(store_builder(store), name)
        else:
            self.topology.connect_processor_and_state_stores(name, *stores)
        self.nodes[name] = ["processor", list(parents), [], tuple(stores)]
        for parent in parents:
            self.nodes[parent][2].append(name)
        return name

    def add_sink(self, name, topic, *parents):
        self.topology.add_sink(name, topic, *parents)
        self.nodes[name] = ["sink", list(parents), [], topic]
        for parent in parents:
            self.nodes[parent][2].append(name)
        return name

    def node(self, name):
        kind, preds, succs, *extra = self.nodes[name]
        if kind == "source":
            return TopologyDescription.Source(name, (), tuple(succs), extra[0], extra[1])
        if kind == "processor":
            return TopologyDescription.Processor(name, tuple(preds), tuple(succs), extra[0])
        return TopologyDescription.Sink(name, tuple(preds), (), extra[0])

    def add_subtopology(self, sub_id, *names):
        nodes = tuple(self.node(n) for n in names)
        self.subtopologies.append(TopologyDescription.Subtopology(sub_id, nodes))

    def add_global_store(self, store, source, topic, processor, sub_id):
        self.topology.add_global_store(global_store_builder(store), source, topic, processor,
                                       mock_processor_supplier)
        self.global_stores.append(TopologyDescription.GlobalStore(
            sub_id,
            TopologyDescription.Source(source, (), (processor,), (topic,), None),
            TopologyDescription.Processor(processor, (source,), (), (store,)),
        ))

    def description(self):
        return TopologyDescription(tuple(self.subtopologies), tuple(self.global_stores))

    def check(self):
        expected = self.description()
        assert self.topology.describe() == expected
        assert hash(self.topology.describe()) == hash(expected)


@pytest.fixture
def expected(topology):
    return Expected(topology)


# -- argument checks ------------------------------------------------------------------------------


def test_should_not_allow_null_name_when_adding_source_with_topic(topology):
    with pytest.raises(MissingArgumentError):
        topology.add_source(None, "topic")


def test_should_not_allow_null_name_when_adding_source_with_pattern(topology):
    with pytest.raises(MissingArgumentError):
        topology.add_source(None, re.compile(".*"))


def test_should_not_allow_null_topics_when_adding_source_with_topic(topology):
    with pytest.raises(MissingArgumentError):
        topology.add_source("source", None)


def test_should_not_allow_null_topics_when_adding_source_with_pattern(topology):
    # Java's (Pattern) null and (String[]) null are both a None topic in Python
    with pytest.raises(MissingArgumentError):
        topology.add_source("source", None)


def test_should_not_allow_zero_topics_when_adding_source(topology):
    with pytest.raises(ks.TopologyError):
        topology.add_source("source")


def test_should_not_allow_null_name_when_adding_processor(topology):
    with pytest.raises(MissingArgumentError):
        topology.add_processor(None, mock_processor_supplier)


def test_should_not_allow_null_processor_supplier_when_adding_processor(topology):
    with pytest.raises(MissingArgumentError):
        topology.add_processor("name", None)


def test_should_not_allow_null_name_when_adding_sink(topology):
    with pytest.raises(MissingArgumentError):
        topology.add_sink(None, "topic")


def test_should_not_allow_null_topic_when_adding_sink(topology):
    with pytest.raises(MissingArgumentError):
        topology.add_sink("name", None)


def test_should_not_allow_null_topic_chooser_when_adding_sink(topology):
    # a None TopicNameExtractor is a None topic in Python
    with pytest.raises(MissingArgumentError):
        topology.add_sink("name", None)


def test_should_not_allow_null_processor_name_when_connecting_processor_and_state_stores(topology):
    with pytest.raises(MissingArgumentError):
        topology.connect_processor_and_state_stores(None, "store")


def test_should_not_allow_null_store_name_when_connecting_processor_and_state_stores(topology):
    with pytest.raises(MissingArgumentError):
        topology.connect_processor_and_state_stores("processor", None)


def test_should_not_allow_zero_store_name_when_connecting_processor_and_state_stores(topology):
    with pytest.raises(ks.TopologyError):
        topology.connect_processor_and_state_stores("processor")


def test_should_not_add_null_state_store_supplier(topology):
    with pytest.raises(MissingArgumentError):
        topology.add_state_store(None)


# -- wiring errors --------------------------------------------------------------------------------


def test_should_not_allow_to_add_sources_with_same_name(topology):
    topology.add_source("source", "topic-1")
    with pytest.raises(ks.TopologyError):
        topology.add_source("source", "topic-2")


def test_should_not_allow_to_add_topic_twice(topology):
    topology.add_source("source", "topic-1")
    with pytest.raises(ks.TopologyError):
        topology.add_source("source-2", "topic-1")


def test_pattern_matches_already_provided_topic_source(topology):
    topology.add_source("source-1", "foo")
    with pytest.raises(ks.TopologyError):
        topology.add_source("source-2", re.compile("f.*"))


def test_named_topic_matches_already_provided_pattern(topology):
    topology.add_source("source-1", re.compile("f.*"))
    with pytest.raises(ks.TopologyError):
        topology.add_source("source-2", "foo")


def test_should_not_allow_to_add_processor_with_same_name(topology):
    topology.add_source("source", "topic-1")
    topology.add_processor("processor", mock_processor_supplier, "source")
    with pytest.raises(ks.TopologyError):
        topology.add_processor("processor", mock_processor_supplier, "source")


def test_should_not_allow_to_add_processor_with_empty_parents(topology):
    topology.add_source("source", "topic-1")
    with pytest.raises(ks.TopologyError):
        topology.add_processor("processor", mock_processor_supplier)


def test_should_not_allow_to_add_processor_with_null_parents(topology):
    topology.add_source("source", "topic-1")
    with pytest.raises(MissingArgumentError):
        topology.add_processor("processor", mock_processor_supplier, None)


def test_should_fail_on_unknown_source(topology):
    with pytest.raises(ks.TopologyError):
        topology.add_processor("processor", mock_processor_supplier, "source")


def test_should_fail_if_node_is_its_own_parent(topology):
    with pytest.raises(ks.TopologyError):
        topology.add_processor("processor", mock_processor_supplier, "processor")


def test_should_not_allow_to_add_sink_with_same_name(topology):
    topology.add_source("source", "topic-1")
    topology.add_sink("sink", "topic-2", "source")
    with pytest.raises(ks.TopologyError):
        topology.add_sink("sink", "topic-3", "source")


def test_should_not_allow_to_add_sink_with_empty_parents(topology):
    topology.add_source("source", "topic-1")
    topology.add_processor("processor", mock_processor_supplier, "source")
    with pytest.raises(ks.TopologyError):
        topology.add_sink("sink", "topic-2")


def test_should_not_allow_to_add_sink_with_null_parents(topology):
    topology.add_source("source", "topic-1")
    topology.add_processor("processor", mock_processor_supplier, "source")
    with pytest.raises(MissingArgumentError):
        topology.add_sink("sink", "topic-2", None)


def test_should_fail_with_unknown_parent(topology):
    with pytest.raises(ks.TopologyError):
        topology.add_sink("sink", "topic-2", "source")


def test_should_fail_if_sink_is_its_own_parent(topology):
    with pytest.raises(ks.TopologyError):
        topology.add_sink("sink", "topic-2", "sink")


def test_should_fail_if_sink_is_parent(topology):
    topology.add_source("source", "topic-1")
    topology.add_sink("sink-1", "topic-2", "source")
    with pytest.raises(ks.TopologyError):
        topology.add_sink("sink-2", "topic-3", "sink-1")


def test_should_not_allow_to_add_state_store_to_non_existing_processor(topology):
    with pytest.raises(ks.TopologyError):
        topology.add_state_store(store_builder(), "no-such-processor")


def test_should_not_allow_to_add_state_store_to_source(topology):
    topology.add_source("source-1", "topic-1")
    with pytest.raises(ks.TopologyError):
        topology.add_state_store(store_builder(), "source-1")


def test_should_not_allow_to_add_state_store_to_sink(topology):
    topology.add_source("source-1", "topic-1")
    topology.add_sink("sink-1", "topic-1", "source-1")
    with pytest.raises(ks.TopologyError):
        topology.add_state_store(store_builder(), "sink-1")


def test_should_not_allow_to_add_store_with_same_name_and_different_instance(topology):
    topology.add_state_store(store_builder())
    with pytest.raises(ks.TopologyError):
        topology.add_state_store(store_builder())


class MockProcessorSupplierProvidingStore:
    """A supplier that declares its store (Java's ConnectedStoreProvider.stores())."""

    def __init__(self, builder):
        self.builder = builder

    def __call__(self):
        return MockProcessor()

    def stores(self):
        return {self.builder}


def test_should_allow_to_share_store_using_same_store_builder(topology):
    builder = store_builder()
    topology.add_source("source", "topic-1")
    topology.add_processor("processor-1", MockProcessorSupplierProvidingStore(builder), "source")
    topology.add_processor("processor-2", MockProcessorSupplierProvidingStore(builder), "source")


class LocalMockProcessor(ks.Processor):
    STORE_NAME = "store"

    def init(self, context):
        context.get_state_store(self.STORE_NAME)

    def process(self, record):
        pass


def test_should_throw_on_unassigned_state_store_access(topology):
    source_node_name = "source"
    good_node_name = "goodGuy"
    bad_node_name = "badGuy"
    (topology
        .add_source(source_node_name, "topic")
        .add_processor(good_node_name, LocalMockProcessor, source_node_name)
        .add_state_store(store_builder(), good_node_name)
        .add_processor(bad_node_name, LocalMockProcessor, source_node_name))
    config = {"default.key.serde": "bytes", "default.value.serde": "bytes"}
    with pytest.raises(ks.StreamsError) as error:
        ks.TopologyTestDriver(topology, config)
    assert str(error.value).startswith("failed to initialize processor " + bad_node_name)
    assert isinstance(error.value.__cause__, ks.StoreError)


def test_should_not_allow_to_add_global_store_with_source_name_equals_processor_name(topology):
    with pytest.raises(ks.TopologyError):
        topology.add_global_store(global_store_builder("anyName"), "sameName", "anyTopicName",
                                  "sameName", mock_processor_supplier)


# -- descriptions ---------------------------------------------------------------------------------


def test_should_describe_empty_topology(topology, expected):
    assert topology.describe() == expected.description()


def test_single_source_should_have_single_subtopology(expected):
    expected.add_subtopology(0, expected.add_source("source", "topic"))
    expected.check()


def test_single_source_with_list_of_topics_should_have_single_subtopology(expected):
    expected.add_subtopology(0, expected.add_source("source", "topic1", "topic2", "topic3"))
    expected.check()


def test_single_source_pattern_should_have_single_subtopology(expected):
    expected.add_subtopology(0, expected.add_source("source", re.compile("topic[0-9]")))
    expected.check()


def test_multiple_sources_should_have_distinct_subtopologies(expected):
    expected.add_subtopology(0, expected.add_source("source1", "topic1"))
    expected.add_subtopology(1, expected.add_source("source2", "topic2"))
    expected.add_subtopology(2, expected.add_source("source3", "topic3"))
    expected.check()


def test_source_and_processor_should_have_single_subtopology(expected):
    source = expected.add_source("source", "topic")
    processor = expected.add_processor("processor", source)
    expected.add_subtopology(0, source, processor)
    expected.check()


def test_source_and_processor_with_state_should_have_single_subtopology(expected):
    source = expected.add_source("source", "topic")
    processor = expected.add_processor("processor", source, stores=["store"])
    expected.add_subtopology(0, source, processor)
    expected.check()


def test_source_and_processor_with_multiple_states_should_have_single_subtopology(expected):
    source = expected.add_source("source", "topic")
    processor = expected.add_processor("processor", source, stores=["store1", "store2"])
    expected.add_subtopology(0, source, processor)
    expected.check()


def test_source_with_multiple_processors_should_have_single_subtopology(expected):
    source = expected.add_source("source", "topic")
    processor1 = expected.add_processor("processor1", source)
    processor2 = expected.add_processor("processor2", source)
    expected.add_subtopology(0, source, processor1, processor2)
    expected.check()


def test_processor_with_multiple_sources_should_have_single_subtopology(expected):
    source1 = expected.add_source("source1", "topic0")
    source2 = expected.add_source("source2", re.compile("topic[1-9]"))
    processor = expected.add_processor("processor", source1, source2)
    expected.add_subtopology(0, source1, source2, processor)
    expected.check()


def test_multiple_sources_with_processors_should_have_distinct_subtopologies(expected):
    pairs = []
    for i in (1, 2, 3):
        source = expected.add_source(f"source{i}", f"topic{i}")
        pairs.append((source, expected.add_processor(f"processor{i}", source)))
    for sub_id, (source, processor) in enumerate(pairs):
        expected.add_subtopology(sub_id, source, processor)
    expected.check()


def test_multiple_sources_with_sinks_should_have_distinct_subtopologies(expected):
    pairs = []
    for i in (1, 2, 3):
        source = expected.add_source(f"source{i}", f"topic{i}")
        pairs.append((source, expected.add_sink(f"sink{i}", f"sinkTopic{i}", source)))
    for sub_id, (source, sink) in enumerate(pairs):
        expected.add_subtopology(sub_id, source, sink)
    expected.check()


def test_processors_with_same_sink_should_have_same_subtopology(expected):
    source1 = expected.add_source("source", "topic")
    processor1 = expected.add_processor("processor1", source1)
    source2 = expected.add_source("source2", "topic2")
    processor2 = expected.add_processor("processor2", source2)
    source3 = expected.add_source("source3", "topic3")
    processor3 = expected.add_processor("processor3", source3)
    sink = expected.add_sink("sink", "sinkTopic", processor1, processor2, processor3)
    expected.add_subtopology(0, source1, processor1, source2, processor2, source3, processor3,
                             sink)
    expected.check()


def test_processors_with_shared_state_should_have_same_subtopology(expected):
    source1 = expected.add_source("source", "topic")
    processor1 = expected.add_processor("processor1", source1, stores=["store1"])
    source2 = expected.add_source("source2", "topic2")
    processor2 = expected.add_processor("processor2", source2, stores=["store2"])
    source3 = expected.add_source("source3", "topic3")
    processor3 = expected.add_processor("processor3", source3, stores=["store1", "store2"],
                                        new_stores=False)
    expected.add_subtopology(0, source1, processor1, source2, processor2, source3, processor3)
    expected.check()


def test_should_describe_global_store_topology(expected):
    expected.add_global_store("globalStore", "source", "globalTopic", "processor", 0)
    expected.check()


def test_should_describe_multiple_global_store_topology(expected):
    expected.add_global_store("globalStore1", "source1", "globalTopic1", "processor1", 0)
    expected.add_global_store("globalStore2", "source2", "globalTopic2", "processor2", 1)
    expected.check()


def test_read_only_state_stores_should_have_their_own_sub_topology(topology, expected):
    topology.add_read_only_state_store(store_builder("store"), "source", "topic", "processor",
                                       mock_processor_supplier)
    expected.subtopologies.append(TopologyDescription.Subtopology(0, (
        TopologyDescription.Source("source", (), ("processor",), ("topic",), None),
        TopologyDescription.Processor("processor", ("source",), (), ("store",)),
    )))
    expected.check()


def test_read_only_state_stores_should_not_log(topology):
    topology.add_read_only_state_store(store_builder("store"), "source", "topic", "processor",
                                       mock_processor_supplier)
    assert topology.state_stores["store"].logging_enabled is False


def test_topology_with_static_topic_name_extractor_should_respect_equal_hashcode_contract():
    def topology_with_static_topic_name():
        builder = ks.StreamsBuilder()
        builder.stream("from-topic-name").to("to-topic-name")
        return builder.build()

    topology_a = topology_with_static_topic_name()
    topology_b = topology_with_static_topic_name()
    assert topology_a.describe() == topology_b.describe()
    assert hash(topology_a.describe()) == hash(topology_b.describe())


class AnonymousTopicNameExtractor:
    def __call__(self, key, value, record_context):
        return record_context.topic + "-" + key

    def __str__(self):
        return "anonymous topic name extractor. topic is [recordContext.topic()]-[key]"


def test_topology_with_dynamic_routing_should_describe_extractor_class():
    builder = ks.StreamsBuilder()
    builder.stream("input-topic").to(AnonymousTopicNameExtractor())
    assert str(builder.build().describe()) == (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])\n"
        "      --> KSTREAM-SINK-0000000001\n"
        "    Sink: KSTREAM-SINK-0000000001 (extractor class: anonymous topic name extractor. "
        "topic is [recordContext.topic()]-[key])\n"
        "      <-- KSTREAM-SOURCE-0000000000\n\n"
    )


# -- DSL descriptions (assertEquals on describe().toString()) -------------------------------------


def test_stream_stream_join_topology_with_default_stores_names():
    # streamStreamJoinTopologyWithDefaultStoresNames
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic1])\n"
        "      --> KSTREAM-WINDOWED-0000000002\n"
        "    Source: KSTREAM-SOURCE-0000000001 (topics: [input-topic2])\n"
        "      --> KSTREAM-WINDOWED-0000000003\n"
        "    Processor: KSTREAM-WINDOWED-0000000002 (stores: [KSTREAM-JOINTHIS-0000000004-store])\n"
        "      --> KSTREAM-JOINTHIS-0000000004\n"
        "      <-- KSTREAM-SOURCE-0000000000\n"
        "    Processor: KSTREAM-WINDOWED-0000000003 (stores:"
        " [KSTREAM-JOINOTHER-0000000005-store])\n"
        "      --> KSTREAM-JOINOTHER-0000000005\n"
        "      <-- KSTREAM-SOURCE-0000000001\n"
        "    Processor: KSTREAM-JOINOTHER-0000000005 (stores:"
        " [KSTREAM-JOINTHIS-0000000004-store])\n"
        "      --> KSTREAM-MERGE-0000000006\n"
        "      <-- KSTREAM-WINDOWED-0000000003\n"
        "    Processor: KSTREAM-JOINTHIS-0000000004 (stores:"
        " [KSTREAM-JOINOTHER-0000000005-store])\n"
        "      --> KSTREAM-MERGE-0000000006\n"
        "      <-- KSTREAM-WINDOWED-0000000002\n"
        "    Processor: KSTREAM-MERGE-0000000006 (stores: [])\n"
        "      --> none\n"
        "      <-- KSTREAM-JOINTHIS-0000000004, KSTREAM-JOINOTHER-0000000005\n\n"
    )
    builder = ks.StreamsBuilder()
    stream1 = builder.stream("input-topic1")
    stream2 = builder.stream("input-topic2")
    stream1.join(
        stream2, TOSTRING_JOINER,
        ks.JoinWindows.of_time_difference_and_grace(100, DEPRECATED_DEFAULT_GRACE),
        ks.StreamJoined.with_(INTEGER, STRING, STRING))
    assert str(builder.build().describe()) == expected


def test_stream_stream_join_topology_with_custom_stores_names():
    # streamStreamJoinTopologyWithCustomStoresNames
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic1])\n"
        "      --> KSTREAM-WINDOWED-0000000002\n"
        "    Source: KSTREAM-SOURCE-0000000001 (topics: [input-topic2])\n"
        "      --> KSTREAM-WINDOWED-0000000003\n"
        "    Processor: KSTREAM-WINDOWED-0000000002 (stores: [custom-name-this-join-store])\n"
        "      --> KSTREAM-JOINTHIS-0000000004\n"
        "      <-- KSTREAM-SOURCE-0000000000\n"
        "    Processor: KSTREAM-WINDOWED-0000000003 (stores: [custom-name-other-join-store])\n"
        "      --> KSTREAM-JOINOTHER-0000000005\n"
        "      <-- KSTREAM-SOURCE-0000000001\n"
        "    Processor: KSTREAM-JOINOTHER-0000000005 (stores: [custom-name-this-join-store])\n"
        "      --> KSTREAM-MERGE-0000000006\n"
        "      <-- KSTREAM-WINDOWED-0000000003\n"
        "    Processor: KSTREAM-JOINTHIS-0000000004 (stores: [custom-name-other-join-store])\n"
        "      --> KSTREAM-MERGE-0000000006\n"
        "      <-- KSTREAM-WINDOWED-0000000002\n"
        "    Processor: KSTREAM-MERGE-0000000006 (stores: [])\n"
        "      --> none\n"
        "      <-- KSTREAM-JOINTHIS-0000000004, KSTREAM-JOINOTHER-0000000005\n\n"
    )
    builder = ks.StreamsBuilder()
    stream1 = builder.stream("input-topic1")
    stream2 = builder.stream("input-topic2")
    stream1.join(
        stream2, TOSTRING_JOINER,
        ks.JoinWindows.of_time_difference_and_grace(100, DEPRECATED_DEFAULT_GRACE),
        ks.StreamJoined.with_(INTEGER, STRING, STRING).with_store_name("custom-name"))
    assert str(builder.build().describe()) == expected


def test_stream_stream_left_join_topology_with_default_stores_names():
    # streamStreamLeftJoinTopologyWithDefaultStoresNames
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic1])\n"
        "      --> KSTREAM-WINDOWED-0000000002\n"
        "    Source: KSTREAM-SOURCE-0000000001 (topics: [input-topic2])\n"
        "      --> KSTREAM-WINDOWED-0000000003\n"
        "    Processor: KSTREAM-WINDOWED-0000000002 (stores: [KSTREAM-JOINTHIS-0000000004-store])\n"
        "      --> KSTREAM-JOINTHIS-0000000004\n"
        "      <-- KSTREAM-SOURCE-0000000000\n"
        "    Processor: KSTREAM-WINDOWED-0000000003 (stores:"
        " [KSTREAM-OUTEROTHER-0000000005-store])\n"
        "      --> KSTREAM-OUTEROTHER-0000000005\n"
        "      <-- KSTREAM-SOURCE-0000000001\n"
        "    Processor: KSTREAM-JOINTHIS-0000000004 (stores: [KSTREAM-OUTEROTHER-0000000005-store,"
        " KSTREAM-OUTERSHARED-0000000004-store])\n"
        "      --> KSTREAM-MERGE-0000000006\n"
        "      <-- KSTREAM-WINDOWED-0000000002\n"
        "    Processor: KSTREAM-OUTEROTHER-0000000005 (stores: [KSTREAM-JOINTHIS-0000000004-store,"
        " KSTREAM-OUTERSHARED-0000000004-store])\n"
        "      --> KSTREAM-MERGE-0000000006\n"
        "      <-- KSTREAM-WINDOWED-0000000003\n"
        "    Processor: KSTREAM-MERGE-0000000006 (stores: [])\n"
        "      --> none\n"
        "      <-- KSTREAM-JOINTHIS-0000000004, KSTREAM-OUTEROTHER-0000000005\n\n"
    )
    builder = ks.StreamsBuilder()
    stream1 = builder.stream("input-topic1")
    stream2 = builder.stream("input-topic2")
    stream1.left_join(
        stream2, TOSTRING_JOINER,
        ks.JoinWindows.of_time_difference_with_no_grace(100),
        ks.StreamJoined.with_(INTEGER, STRING, STRING))
    assert str(builder.build().describe()) == expected


def test_stream_stream_left_join_topology_with_custom_stores_names():
    # streamStreamLeftJoinTopologyWithCustomStoresNames
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic1])\n"
        "      --> KSTREAM-WINDOWED-0000000002\n"
        "    Source: KSTREAM-SOURCE-0000000001 (topics: [input-topic2])\n"
        "      --> KSTREAM-WINDOWED-0000000003\n"
        "    Processor: KSTREAM-WINDOWED-0000000002 (stores: [custom-name-this-join-store])\n"
        "      --> KSTREAM-JOINTHIS-0000000004\n"
        "      <-- KSTREAM-SOURCE-0000000000\n"
        "    Processor: KSTREAM-WINDOWED-0000000003 (stores:"
        " [custom-name-outer-other-join-store])\n"
        "      --> KSTREAM-OUTEROTHER-0000000005\n"
        "      <-- KSTREAM-SOURCE-0000000001\n"
        "    Processor: KSTREAM-JOINTHIS-0000000004 (stores: [custom-name-outer-other-join-store,"
        " custom-name-left-shared-join-store])\n"
        "      --> KSTREAM-MERGE-0000000006\n"
        "      <-- KSTREAM-WINDOWED-0000000002\n"
        "    Processor: KSTREAM-OUTEROTHER-0000000005 (stores: [custom-name-this-join-store,"
        " custom-name-left-shared-join-store])\n"
        "      --> KSTREAM-MERGE-0000000006\n"
        "      <-- KSTREAM-WINDOWED-0000000003\n"
        "    Processor: KSTREAM-MERGE-0000000006 (stores: [])\n"
        "      --> none\n"
        "      <-- KSTREAM-JOINTHIS-0000000004, KSTREAM-OUTEROTHER-0000000005\n\n"
    )
    builder = ks.StreamsBuilder()
    stream1 = builder.stream("input-topic1")
    stream2 = builder.stream("input-topic2")
    stream1.left_join(
        stream2, TOSTRING_JOINER,
        ks.JoinWindows.of_time_difference_with_no_grace(100),
        ks.StreamJoined.with_(INTEGER, STRING, STRING).with_store_name("custom-name"))
    assert str(builder.build().describe()) == expected


def test_stream_stream_outer_join_topology_with_default_stores_names():
    # streamStreamOuterJoinTopologyWithDefaultStoresNames
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic1])\n"
        "      --> KSTREAM-WINDOWED-0000000002\n"
        "    Source: KSTREAM-SOURCE-0000000001 (topics: [input-topic2])\n"
        "      --> KSTREAM-WINDOWED-0000000003\n"
        "    Processor: KSTREAM-WINDOWED-0000000002 (stores:"
        " [KSTREAM-OUTERTHIS-0000000004-store])\n"
        "      --> KSTREAM-OUTERTHIS-0000000004\n"
        "      <-- KSTREAM-SOURCE-0000000000\n"
        "    Processor: KSTREAM-WINDOWED-0000000003 (stores:"
        " [KSTREAM-OUTEROTHER-0000000005-store])\n"
        "      --> KSTREAM-OUTEROTHER-0000000005\n"
        "      <-- KSTREAM-SOURCE-0000000001\n"
        "    Processor: KSTREAM-OUTEROTHER-0000000005 (stores: [KSTREAM-OUTERTHIS-0000000004-store,"
        " KSTREAM-OUTERSHARED-0000000004-store])\n"
        "      --> KSTREAM-MERGE-0000000006\n"
        "      <-- KSTREAM-WINDOWED-0000000003\n"
        "    Processor: KSTREAM-OUTERTHIS-0000000004 (stores: [KSTREAM-OUTEROTHER-0000000005-store,"
        " KSTREAM-OUTERSHARED-0000000004-store])\n"
        "      --> KSTREAM-MERGE-0000000006\n"
        "      <-- KSTREAM-WINDOWED-0000000002\n"
        "    Processor: KSTREAM-MERGE-0000000006 (stores: [])\n"
        "      --> none\n"
        "      <-- KSTREAM-OUTERTHIS-0000000004, KSTREAM-OUTEROTHER-0000000005\n\n"
    )
    builder = ks.StreamsBuilder()
    stream1 = builder.stream("input-topic1")
    stream2 = builder.stream("input-topic2")
    stream1.outer_join(
        stream2, TOSTRING_JOINER,
        ks.JoinWindows.of_time_difference_with_no_grace(100),
        ks.StreamJoined.with_(INTEGER, STRING, STRING))
    assert str(builder.build().describe()) == expected


def test_stream_stream_outer_join_topology_with_custom_stores_names():
    # streamStreamOuterJoinTopologyWithCustomStoresNames
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic1])\n"
        "      --> KSTREAM-WINDOWED-0000000002\n"
        "    Source: KSTREAM-SOURCE-0000000001 (topics: [input-topic2])\n"
        "      --> KSTREAM-WINDOWED-0000000003\n"
        "    Processor: KSTREAM-WINDOWED-0000000002 (stores: [custom-name-outer-this-join-store])\n"
        "      --> KSTREAM-OUTERTHIS-0000000004\n"
        "      <-- KSTREAM-SOURCE-0000000000\n"
        "    Processor: KSTREAM-WINDOWED-0000000003 (stores:"
        " [custom-name-outer-other-join-store])\n"
        "      --> KSTREAM-OUTEROTHER-0000000005\n"
        "      <-- KSTREAM-SOURCE-0000000001\n"
        "    Processor: KSTREAM-OUTEROTHER-0000000005 (stores: [custom-name-outer-this-join-store,"
        " custom-name-outer-shared-join-store])\n"
        "      --> KSTREAM-MERGE-0000000006\n"
        "      <-- KSTREAM-WINDOWED-0000000003\n"
        "    Processor: KSTREAM-OUTERTHIS-0000000004 (stores: [custom-name-outer-other-join-store,"
        " custom-name-outer-shared-join-store])\n"
        "      --> KSTREAM-MERGE-0000000006\n"
        "      <-- KSTREAM-WINDOWED-0000000002\n"
        "    Processor: KSTREAM-MERGE-0000000006 (stores: [])\n"
        "      --> none\n"
        "      <-- KSTREAM-OUTERTHIS-0000000004, KSTREAM-OUTEROTHER-0000000005\n\n"
    )
    builder = ks.StreamsBuilder()
    stream1 = builder.stream("input-topic1")
    stream2 = builder.stream("input-topic2")
    stream1.outer_join(
        stream2, TOSTRING_JOINER,
        ks.JoinWindows.of_time_difference_with_no_grace(100),
        ks.StreamJoined.with_(INTEGER, STRING, STRING).with_store_name("custom-name"))
    assert str(builder.build().describe()) == expected


def test_k_grouped_stream_zero_arg_count_should_preserve_topology_structure():
    # kGroupedStreamZeroArgCountShouldPreserveTopologyStructure
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])\n"
        "      --> KSTREAM-AGGREGATE-0000000002\n"
        "    Processor: KSTREAM-AGGREGATE-0000000002 (stores:"
        " [KSTREAM-AGGREGATE-STATE-STORE-0000000001])\n"
        "      --> none\n"
        "      <-- KSTREAM-SOURCE-0000000000\n\n"
    )
    builder = ks.StreamsBuilder()
    (builder.stream("input-topic")
        .group_by_key().count())
    topology = builder.build()
    assert str(topology.describe()) == expected
    assert has_persistent_local_store(topology) is True


def test_k_grouped_stream_named_materialized_count_should_preserve_topology_structure():
    # kGroupedStreamNamedMaterializedCountShouldPreserveTopologyStructure
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])\n"
        "      --> KSTREAM-AGGREGATE-0000000001\n"
        "    Processor: KSTREAM-AGGREGATE-0000000001 (stores: [count-store])\n"
        "      --> none\n"
        "      <-- KSTREAM-SOURCE-0000000000\n\n"
    )
    builder = ks.StreamsBuilder()
    (builder.stream("input-topic")
        .group_by_key().count(
        ks.Materialized.as_("count-store").with_store_type(IN_MEMORY)))
    topology = builder.build()
    assert str(topology.describe()) == expected
    assert has_persistent_local_store(topology) is False


def test_k_grouped_stream_anonymous_materialized_count_should_preserve_topology_structure():
    # kGroupedStreamAnonymousMaterializedCountShouldPreserveTopologyStructure
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])\n"
        "      --> KSTREAM-AGGREGATE-0000000003\n"
        "    Processor: KSTREAM-AGGREGATE-0000000003 (stores:"
        " [KSTREAM-AGGREGATE-STATE-STORE-0000000002])\n"
        "      --> none\n"
        "      <-- KSTREAM-SOURCE-0000000000\n\n"
    )
    builder = ks.StreamsBuilder()
    (builder.stream("input-topic")
        .group_by_key().count(
        ks.Materialized.with_(None, LONG).with_store_type(ROCKS_DB)))
    topology = builder.build()
    assert str(topology.describe()) == expected
    assert has_persistent_local_store(topology) is True


def test_k_grouped_stream_anonymous_store_typed_materialized_count_should_preserve_topology_structure():  # noqa: E501
    # kGroupedStreamAnonymousStoreTypedMaterializedCountShouldPreserveTopologyStructure
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])\n"
        "      --> KSTREAM-AGGREGATE-0000000003\n"
        "    Processor: KSTREAM-AGGREGATE-0000000003 (stores:"
        " [KSTREAM-AGGREGATE-STATE-STORE-0000000002])\n"
        "      --> none\n"
        "      <-- KSTREAM-SOURCE-0000000000\n\n"
    )
    builder = ks.StreamsBuilder()
    (builder.stream("input-topic")
        .group_by_key().count(ks.Materialized.as_(IN_MEMORY)))
    topology = builder.build()
    assert str(topology.describe()) == expected
    assert has_persistent_local_store(topology) is False


def test_k_grouped_stream_zero_arg_count_with_topology_config_should_preserve_topology_structure():
    # kGroupedStreamZeroArgCountWithTopologyConfigShouldPreserveTopologyStructure
    expected = (
        "Topology: my-topology:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])\n"
        "      --> KSTREAM-AGGREGATE-0000000002\n"
        "    Processor: KSTREAM-AGGREGATE-0000000002 (stores:"
        " [KSTREAM-AGGREGATE-STATE-STORE-0000000001])\n"
        "      --> none\n"
        "      <-- KSTREAM-SOURCE-0000000000\n\n"
    )
    builder = ks.StreamsBuilder(IN_MEMORY_DSL_STORE)
    (builder.stream("input-topic")
        .group_by_key().count())
    topology = builder.build()
    assert_body(topology, expected)
    assert has_persistent_local_store(topology) is False


def test_time_window_zero_arg_count_should_preserve_topology_structure():
    # timeWindowZeroArgCountShouldPreserveTopologyStructure
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])\n"
        "      --> KSTREAM-AGGREGATE-0000000002\n"
        "    Processor: KSTREAM-AGGREGATE-0000000002 (stores:"
        " [KSTREAM-AGGREGATE-STATE-STORE-0000000001])\n"
        "      --> none\n"
        "      <-- KSTREAM-SOURCE-0000000000\n\n"
    )
    builder = ks.StreamsBuilder()
    (builder.stream("input-topic")
        .group_by_key()
        .windowed_by(ks.TimeWindows.of_size_with_no_grace(1))
        .count())
    topology = builder.build()
    assert str(topology.describe()) == expected
    assert has_persistent_local_store(topology) is True


def test_time_window_named_materialized_count_should_preserve_topology_structure():
    # timeWindowNamedMaterializedCountShouldPreserveTopologyStructure
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])\n"
        "      --> KSTREAM-AGGREGATE-0000000001\n"
        "    Processor: KSTREAM-AGGREGATE-0000000001 (stores: [count-store])\n"
        "      --> none\n"
        "      <-- KSTREAM-SOURCE-0000000000\n\n"
    )
    builder = ks.StreamsBuilder()
    (builder.stream("input-topic")
        .group_by_key()
        .windowed_by(ks.TimeWindows.of_size_with_no_grace(1))
        .count(
        ks.Materialized.as_("count-store").with_store_type(IN_MEMORY)))
    topology = builder.build()
    assert str(topology.describe()) == expected
    assert has_persistent_local_store(topology) is False


def test_time_window_anonymous_materialized_count_should_preserve_topology_structure():
    # timeWindowAnonymousMaterializedCountShouldPreserveTopologyStructure
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])\n"
        "      --> KSTREAM-AGGREGATE-0000000003\n"
        "    Processor: KSTREAM-AGGREGATE-0000000003 (stores:"
        " [KSTREAM-AGGREGATE-STATE-STORE-0000000002])\n"
        "      --> none\n"
        "      <-- KSTREAM-SOURCE-0000000000\n\n"
    )
    builder = ks.StreamsBuilder()
    (builder.stream("input-topic")
        .group_by_key()
        .windowed_by(ks.TimeWindows.of_size_with_no_grace(1))
        .count(
        ks.Materialized.with_(None, LONG).with_store_type(ROCKS_DB)))
    topology = builder.build()
    assert str(topology.describe()) == expected
    assert has_persistent_local_store(topology) is True


def test_time_window_anonymous_store_type_materialized_count_should_preserve_topology_structure():
    # timeWindowAnonymousStoreTypeMaterializedCountShouldPreserveTopologyStructure
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])\n"
        "      --> KSTREAM-AGGREGATE-0000000003\n"
        "    Processor: KSTREAM-AGGREGATE-0000000003 (stores:"
        " [KSTREAM-AGGREGATE-STATE-STORE-0000000002])\n"
        "      --> none\n"
        "      <-- KSTREAM-SOURCE-0000000000\n\n"
    )
    builder = ks.StreamsBuilder()
    (builder.stream("input-topic")
        .group_by_key()
        .windowed_by(ks.TimeWindows.of_size_with_no_grace(1))
        .count(
        ks.Materialized.as_(IN_MEMORY)))
    topology = builder.build()
    assert str(topology.describe()) == expected
    assert has_persistent_local_store(topology) is False


def test_time_window_zero_arg_count_with_topology_config_should_preserve_topology_structure():
    # timeWindowZeroArgCountWithTopologyConfigShouldPreserveTopologyStructure
    expected = (
        "Topology: my-topology:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])\n"
        "      --> KSTREAM-AGGREGATE-0000000002\n"
        "    Processor: KSTREAM-AGGREGATE-0000000002 (stores:"
        " [KSTREAM-AGGREGATE-STATE-STORE-0000000001])\n"
        "      --> none\n"
        "      <-- KSTREAM-SOURCE-0000000000\n\n"
    )
    builder = ks.StreamsBuilder(IN_MEMORY_DSL_STORE)
    (builder.stream("input-topic")
        .group_by_key()
        .windowed_by(ks.TimeWindows.of_size_with_no_grace(1))
        .count())
    topology = builder.build()
    assert_body(topology, expected)
    assert has_persistent_local_store(topology) is False


def test_sliding_window_zero_arg_count_should_preserve_topology_structure():
    # slidingWindowZeroArgCountShouldPreserveTopologyStructure
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])\n"
        "      --> KSTREAM-AGGREGATE-0000000002\n"
        "    Processor: KSTREAM-AGGREGATE-0000000002 (stores:"
        " [KSTREAM-AGGREGATE-STATE-STORE-0000000001])\n"
        "      --> none\n"
        "      <-- KSTREAM-SOURCE-0000000000\n\n"
    )
    builder = ks.StreamsBuilder()
    (builder.stream("input-topic")
        .group_by_key()
        .windowed_by(ks.TimeWindows.of_size_with_no_grace(1))
        .count())
    topology = builder.build()
    assert str(topology.describe()) == expected
    assert has_persistent_local_store(topology) is True


def test_sliding_window_named_materialized_count_should_preserve_topology_structure():
    # slidingWindowNamedMaterializedCountShouldPreserveTopologyStructure
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])\n"
        "      --> KSTREAM-AGGREGATE-0000000001\n"
        "    Processor: KSTREAM-AGGREGATE-0000000001 (stores: [count-store])\n"
        "      --> none\n"
        "      <-- KSTREAM-SOURCE-0000000000\n\n"
    )
    builder = ks.StreamsBuilder()
    (builder.stream("input-topic")
        .group_by_key()
        .windowed_by(ks.TimeWindows.of_size_with_no_grace(1))
        .count(
        ks.Materialized.as_("count-store").with_store_type(IN_MEMORY)))
    topology = builder.build()
    assert str(topology.describe()) == expected
    assert has_persistent_local_store(topology) is False


def test_sliding_window_zero_arg_count_with_topology_config_should_preserve_topology_structure():
    # slidingWindowZeroArgCountWithTopologyConfigShouldPreserveTopologyStructure
    expected = (
        "Topology: my-topology:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])\n"
        "      --> KSTREAM-AGGREGATE-0000000002\n"
        "    Processor: KSTREAM-AGGREGATE-0000000002 (stores:"
        " [KSTREAM-AGGREGATE-STATE-STORE-0000000001])\n"
        "      --> none\n"
        "      <-- KSTREAM-SOURCE-0000000000\n\n"
    )
    builder = ks.StreamsBuilder(IN_MEMORY_DSL_STORE)
    (builder.stream("input-topic")
        .group_by_key()
        .windowed_by(ks.SlidingWindows.of_time_difference_with_no_grace(1))
        .count())
    topology = builder.build()
    assert_body(topology, expected)
    assert has_persistent_local_store(topology) is False


def test_time_windowed_cogrouped_zero_arg_count_should_preserve_topology_structure():
    # timeWindowedCogroupedZeroArgCountShouldPreserveTopologyStructure
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])\n"
        "      --> COGROUPKSTREAM-AGGREGATE-0000000002\n"
        "    Processor: COGROUPKSTREAM-AGGREGATE-0000000002 (stores:"
        " [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000001])\n"
        "      --> COGROUPKSTREAM-MERGE-0000000003\n"
        "      <-- KSTREAM-SOURCE-0000000000\n"
        "    Processor: COGROUPKSTREAM-MERGE-0000000003 (stores: [])\n"
        "      --> none\n"
        "      <-- COGROUPKSTREAM-AGGREGATE-0000000002\n\n"
    )
    builder = ks.StreamsBuilder()
    (builder.stream("input-topic")
        .group_by_key()
        .cogroup(lambda key, value, aggregate: value)
        .windowed_by(ks.TimeWindows.of_size_with_no_grace(1))
        .aggregate(
        lambda: ""))
    topology = builder.build()
    assert str(topology.describe()) == expected
    assert has_persistent_local_store(topology) is True


def test_time_windowed_cogrouped_named_materialized_count_should_preserve_topology_structure():
    # timeWindowedCogroupedNamedMaterializedCountShouldPreserveTopologyStructure
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])\n"
        "      --> COGROUPKSTREAM-AGGREGATE-0000000001\n"
        "    Processor: COGROUPKSTREAM-AGGREGATE-0000000001 (stores: [aggregate-store])\n"
        "      --> COGROUPKSTREAM-MERGE-0000000002\n"
        "      <-- KSTREAM-SOURCE-0000000000\n"
        "    Processor: COGROUPKSTREAM-MERGE-0000000002 (stores: [])\n"
        "      --> none\n"
        "      <-- COGROUPKSTREAM-AGGREGATE-0000000001\n\n"
    )
    builder = ks.StreamsBuilder()
    (builder.stream("input-topic")
        .group_by_key()
        .cogroup(lambda key, value, aggregate: value)
        .windowed_by(ks.TimeWindows.of_size_with_no_grace(1))
        .aggregate(
            lambda: "", ks.Materialized.as_("aggregate-store").with_store_type(IN_MEMORY)))
    topology = builder.build()
    assert str(topology.describe()) == expected
    assert has_persistent_local_store(topology) is False


def test_time_windowed_cogrouped_zero_arg_count_with_topology_config_should_preserve_topology_structure():  # noqa: E501
    # timeWindowedCogroupedZeroArgCountWithTopologyConfigShouldPreserveTopologyStructure
    expected = (
        "Topology: my-topology:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])\n"
        "      --> COGROUPKSTREAM-AGGREGATE-0000000002\n"
        "    Processor: COGROUPKSTREAM-AGGREGATE-0000000002 (stores:"
        " [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000001])\n"
        "      --> COGROUPKSTREAM-MERGE-0000000003\n"
        "      <-- KSTREAM-SOURCE-0000000000\n"
        "    Processor: COGROUPKSTREAM-MERGE-0000000003 (stores: [])\n"
        "      --> none\n"
        "      <-- COGROUPKSTREAM-AGGREGATE-0000000002\n\n"
    )
    builder = ks.StreamsBuilder(IN_MEMORY_DSL_STORE)
    (builder.stream("input-topic")
        .group_by_key()
        .cogroup(lambda key, value, aggregate: value)
        .windowed_by(ks.TimeWindows.of_size_with_no_grace(1))
        .aggregate(
        lambda: ""))
    topology = builder.build()
    assert_body(topology, expected)
    assert has_persistent_local_store(topology) is False


def test_sliding_windowed_cogrouped_zero_arg_count_should_preserve_topology_structure():
    # slidingWindowedCogroupedZeroArgCountShouldPreserveTopologyStructure
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])\n"
        "      --> COGROUPKSTREAM-AGGREGATE-0000000002\n"
        "    Processor: COGROUPKSTREAM-AGGREGATE-0000000002 (stores:"
        " [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000001])\n"
        "      --> COGROUPKSTREAM-MERGE-0000000003\n"
        "      <-- KSTREAM-SOURCE-0000000000\n"
        "    Processor: COGROUPKSTREAM-MERGE-0000000003 (stores: [])\n"
        "      --> none\n"
        "      <-- COGROUPKSTREAM-AGGREGATE-0000000002\n\n"
    )
    builder = ks.StreamsBuilder()
    (builder.stream("input-topic")
        .group_by_key()
        .cogroup(lambda key, value, aggregate: value)
        .windowed_by(ks.SlidingWindows.of_time_difference_with_no_grace(1))
        .aggregate(
        lambda: ""))
    topology = builder.build()
    assert str(topology.describe()) == expected
    assert has_persistent_local_store(topology) is True


def test_sliding_windowed_cogrouped_named_materialized_count_should_preserve_topology_structure():
    # slidingWindowedCogroupedNamedMaterializedCountShouldPreserveTopologyStructure
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])\n"
        "      --> COGROUPKSTREAM-AGGREGATE-0000000001\n"
        "    Processor: COGROUPKSTREAM-AGGREGATE-0000000001 (stores: [aggregate-store])\n"
        "      --> COGROUPKSTREAM-MERGE-0000000002\n"
        "      <-- KSTREAM-SOURCE-0000000000\n"
        "    Processor: COGROUPKSTREAM-MERGE-0000000002 (stores: [])\n"
        "      --> none\n"
        "      <-- COGROUPKSTREAM-AGGREGATE-0000000001\n\n"
    )
    builder = ks.StreamsBuilder()
    (builder.stream("input-topic")
        .group_by_key()
        .cogroup(lambda key, value, aggregate: value)
        .windowed_by(ks.SlidingWindows.of_time_difference_with_no_grace(1))
        .aggregate(
            lambda: "", ks.Materialized.as_("aggregate-store").with_store_type(IN_MEMORY)))
    topology = builder.build()
    assert str(topology.describe()) == expected
    assert has_persistent_local_store(topology) is False


def test_sliding_windowed_cogrouped_zero_arg_count_with_topology_config_should_preserve_topology_structure():  # noqa: E501
    # slidingWindowedCogroupedZeroArgCountWithTopologyConfigShouldPreserveTopologyStructure
    expected = (
        "Topology: my-topology:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])\n"
        "      --> COGROUPKSTREAM-AGGREGATE-0000000002\n"
        "    Processor: COGROUPKSTREAM-AGGREGATE-0000000002 (stores:"
        " [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000001])\n"
        "      --> COGROUPKSTREAM-MERGE-0000000003\n"
        "      <-- KSTREAM-SOURCE-0000000000\n"
        "    Processor: COGROUPKSTREAM-MERGE-0000000003 (stores: [])\n"
        "      --> none\n"
        "      <-- COGROUPKSTREAM-AGGREGATE-0000000002\n\n"
    )
    builder = ks.StreamsBuilder(IN_MEMORY_DSL_STORE)
    (builder.stream("input-topic")
        .group_by_key()
        .cogroup(lambda key, value, aggregate: value)
        .windowed_by(ks.SlidingWindows.of_time_difference_with_no_grace(1))
        .aggregate(
        lambda: ""))
    topology = builder.build()
    assert_body(topology, expected)
    assert has_persistent_local_store(topology) is False


def test_session_windowed_cogrouped_zero_arg_count_should_preserve_topology_structure():
    # sessionWindowedCogroupedZeroArgCountShouldPreserveTopologyStructure
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])\n"
        "      --> COGROUPKSTREAM-AGGREGATE-0000000002\n"
        "    Processor: COGROUPKSTREAM-AGGREGATE-0000000002 (stores:"
        " [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000001])\n"
        "      --> COGROUPKSTREAM-MERGE-0000000003\n"
        "      <-- KSTREAM-SOURCE-0000000000\n"
        "    Processor: COGROUPKSTREAM-MERGE-0000000003 (stores: [])\n"
        "      --> none\n"
        "      <-- COGROUPKSTREAM-AGGREGATE-0000000002\n\n"
    )
    builder = ks.StreamsBuilder()
    (builder.stream("input-topic")
        .group_by_key()
        .cogroup(lambda key, value, aggregate: value)
        .windowed_by(ks.SessionWindows.of_inactivity_gap_with_no_grace(1))
        .aggregate(
        lambda: "", lambda agg_key, agg_one, agg_two: ""))
    topology = builder.build()
    assert str(topology.describe()) == expected
    assert has_persistent_local_store(topology) is True


def test_session_windowed_cogrouped_named_materialized_count_should_preserve_topology_structure():
    # sessionWindowedCogroupedNamedMaterializedCountShouldPreserveTopologyStructure
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])\n"
        "      --> COGROUPKSTREAM-AGGREGATE-0000000001\n"
        "    Processor: COGROUPKSTREAM-AGGREGATE-0000000001 (stores: [aggregate-store])\n"
        "      --> COGROUPKSTREAM-MERGE-0000000002\n"
        "      <-- KSTREAM-SOURCE-0000000000\n"
        "    Processor: COGROUPKSTREAM-MERGE-0000000002 (stores: [])\n"
        "      --> none\n"
        "      <-- COGROUPKSTREAM-AGGREGATE-0000000001\n\n"
    )
    builder = ks.StreamsBuilder()
    (builder.stream("input-topic")
        .group_by_key()
        .cogroup(lambda key, value, aggregate: value)
        .windowed_by(ks.SessionWindows.of_inactivity_gap_with_no_grace(1))
        .aggregate(
        lambda: "", lambda agg_key, agg_one, agg_two: "",
        ks.Materialized.as_("aggregate-store").with_store_type(IN_MEMORY)))
    topology = builder.build()
    assert str(topology.describe()) == expected
    assert has_persistent_local_store(topology) is False


def test_session_windowed_cogrouped_zero_arg_count_with_topology_config_should_preserve_topology_structure():  # noqa: E501
    # sessionWindowedCogroupedZeroArgCountWithTopologyConfigShouldPreserveTopologyStructure
    expected = (
        "Topology: my-topology:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])\n"
        "      --> COGROUPKSTREAM-AGGREGATE-0000000002\n"
        "    Processor: COGROUPKSTREAM-AGGREGATE-0000000002 (stores:"
        " [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000001])\n"
        "      --> COGROUPKSTREAM-MERGE-0000000003\n"
        "      <-- KSTREAM-SOURCE-0000000000\n"
        "    Processor: COGROUPKSTREAM-MERGE-0000000003 (stores: [])\n"
        "      --> none\n"
        "      <-- COGROUPKSTREAM-AGGREGATE-0000000002\n\n"
    )
    builder = ks.StreamsBuilder(IN_MEMORY_DSL_STORE)
    (builder.stream("input-topic")
        .group_by_key()
        .cogroup(lambda key, value, aggregate: value)
        .windowed_by(ks.SessionWindows.of_inactivity_gap_with_no_grace(1))
        .aggregate(
        lambda: "", lambda agg_key, agg_one, agg_two: ""))
    topology = builder.build()
    assert_body(topology, expected)
    assert has_persistent_local_store(topology) is False


def test_session_window_zero_arg_count_should_preserve_topology_structure():
    # sessionWindowZeroArgCountShouldPreserveTopologyStructure
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])\n"
        "      --> KSTREAM-AGGREGATE-0000000002\n"
        "    Processor: KSTREAM-AGGREGATE-0000000002 (stores:"
        " [KSTREAM-AGGREGATE-STATE-STORE-0000000001])\n"
        "      --> none\n"
        "      <-- KSTREAM-SOURCE-0000000000\n\n"
    )
    builder = ks.StreamsBuilder()
    (builder.stream("input-topic")
        .group_by_key()
        .windowed_by(ks.SessionWindows.of_inactivity_gap_with_no_grace(1))
        .count())
    topology = builder.build()
    assert str(topology.describe()) == expected
    assert has_persistent_local_store(topology) is True


def test_session_window_named_materialized_count_should_preserve_topology_structure():
    # sessionWindowNamedMaterializedCountShouldPreserveTopologyStructure
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])\n"
        "      --> KSTREAM-AGGREGATE-0000000001\n"
        "    Processor: KSTREAM-AGGREGATE-0000000001 (stores: [count-store])\n"
        "      --> none\n"
        "      <-- KSTREAM-SOURCE-0000000000\n\n"
    )
    builder = ks.StreamsBuilder()
    (builder.stream("input-topic")
        .group_by_key()
        .windowed_by(ks.SessionWindows.of_inactivity_gap_with_no_grace(1))
        .count(
        ks.Materialized.as_("count-store").with_store_type(IN_MEMORY)))
    topology = builder.build()
    assert str(topology.describe()) == expected
    assert has_persistent_local_store(topology) is False


def test_session_window_anonymous_materialized_count_should_preserve_topology_structure():
    # sessionWindowAnonymousMaterializedCountShouldPreserveTopologyStructure
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])\n"
        "      --> KSTREAM-AGGREGATE-0000000003\n"
        "    Processor: KSTREAM-AGGREGATE-0000000003 (stores:"
        " [KSTREAM-AGGREGATE-STATE-STORE-0000000002])\n"
        "      --> none\n"
        "      <-- KSTREAM-SOURCE-0000000000\n\n"
    )
    builder = ks.StreamsBuilder()
    (builder.stream("input-topic")
        .group_by_key()
        .windowed_by(ks.SessionWindows.of_inactivity_gap_with_no_grace(1))
        .count(
        ks.Materialized.with_(None, LONG).with_store_type(ROCKS_DB)))
    topology = builder.build()
    assert str(topology.describe()) == expected
    assert has_persistent_local_store(topology) is True


def test_session_window_anonymous_store_typed_materialized_count_should_preserve_topology_structure():  # noqa: E501
    # sessionWindowAnonymousStoreTypedMaterializedCountShouldPreserveTopologyStructure
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])\n"
        "      --> KSTREAM-AGGREGATE-0000000003\n"
        "    Processor: KSTREAM-AGGREGATE-0000000003 (stores:"
        " [KSTREAM-AGGREGATE-STATE-STORE-0000000002])\n"
        "      --> none\n"
        "      <-- KSTREAM-SOURCE-0000000000\n\n"
    )
    builder = ks.StreamsBuilder()
    (builder.stream("input-topic")
        .group_by_key()
        .windowed_by(ks.SessionWindows.of_inactivity_gap_with_no_grace(1))
        .count(
        ks.Materialized.as_(IN_MEMORY)))
    topology = builder.build()
    assert str(topology.describe()) == expected
    assert has_persistent_local_store(topology) is False


def test_session_window_zero_arg_count_with_topology_config_should_preserve_topology_structure():
    # sessionWindowZeroArgCountWithTopologyConfigShouldPreserveTopologyStructure
    expected = (
        "Topology: my-topology:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])\n"
        "      --> KSTREAM-AGGREGATE-0000000002\n"
        "    Processor: KSTREAM-AGGREGATE-0000000002 (stores:"
        " [KSTREAM-AGGREGATE-STATE-STORE-0000000001])\n"
        "      --> none\n"
        "      <-- KSTREAM-SOURCE-0000000000\n\n"
    )
    builder = ks.StreamsBuilder(IN_MEMORY_DSL_STORE)
    (builder.stream("input-topic")
        .group_by_key()
        .windowed_by(ks.SessionWindows.of_inactivity_gap_with_no_grace(1))
        .count())
    topology = builder.build()
    assert_body(topology, expected)
    assert has_persistent_local_store(topology) is False


def test_table_zero_arg_count_should_preserve_topology_structure():
    # tableZeroArgCountShouldPreserveTopologyStructure
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000001 (topics: [input-topic])\n"
        "      --> KTABLE-SOURCE-0000000002\n"
        "    Processor: KTABLE-SOURCE-0000000002 (stores: [input-topic-STATE-STORE-0000000000])\n"
        "      --> KTABLE-SELECT-0000000003\n"
        "      <-- KSTREAM-SOURCE-0000000001\n"
        "    Processor: KTABLE-SELECT-0000000003 (stores: [])\n"
        "      --> KSTREAM-SINK-0000000005\n"
        "      <-- KTABLE-SOURCE-0000000002\n"
        "    Sink: KSTREAM-SINK-0000000005 (topic:"
        " KTABLE-AGGREGATE-STATE-STORE-0000000004-repartition)\n"
        "      <-- KTABLE-SELECT-0000000003\n"
        "\n"
        "  Sub-topology: 1\n"
        "    Source: KSTREAM-SOURCE-0000000006 (topics:"
        " [KTABLE-AGGREGATE-STATE-STORE-0000000004-repartition])\n"
        "      --> KTABLE-AGGREGATE-0000000007\n"
        "    Processor: KTABLE-AGGREGATE-0000000007 (stores:"
        " [KTABLE-AGGREGATE-STATE-STORE-0000000004])\n"
        "      --> none\n"
        "      <-- KSTREAM-SOURCE-0000000006\n"
        "\n"
    )
    builder = ks.StreamsBuilder()
    builder.table("input-topic").group_by(lambda key, value: None).count()
    topology = builder.build()
    assert str(topology.describe()) == expected
    # one for ktable, and one for count operation
    stores = list(topology.state_stores.values())
    assert len(stores) == 2
    assert stores[0].persistent is True
    assert stores[1].persistent is True


def test_table_named_materialized_count_should_preserve_topology_structure():
    # tableNamedMaterializedCountShouldPreserveTopologyStructure
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000001 (topics: [input-topic])\n"
        "      --> KTABLE-SOURCE-0000000002\n"
        "    Processor: KTABLE-SOURCE-0000000002 (stores: [input-topic-STATE-STORE-0000000000])\n"
        "      --> KTABLE-SELECT-0000000003\n"
        "      <-- KSTREAM-SOURCE-0000000001\n"
        "    Processor: KTABLE-SELECT-0000000003 (stores: [])\n"
        "      --> KSTREAM-SINK-0000000004\n"
        "      <-- KTABLE-SOURCE-0000000002\n"
        "    Sink: KSTREAM-SINK-0000000004 (topic: count-store-repartition)\n"
        "      <-- KTABLE-SELECT-0000000003\n"
        "\n"
        "  Sub-topology: 1\n"
        "    Source: KSTREAM-SOURCE-0000000005 (topics: [count-store-repartition])\n"
        "      --> KTABLE-AGGREGATE-0000000006\n"
        "    Processor: KTABLE-AGGREGATE-0000000006 (stores: [count-store])\n"
        "      --> none\n"
        "      <-- KSTREAM-SOURCE-0000000005\n"
        "\n"
    )
    builder = ks.StreamsBuilder()
    builder.table("input-topic").group_by(lambda key, value: None).count(
        ks.Materialized.as_("count-store").with_store_type(IN_MEMORY))
    topology = builder.build()
    assert str(topology.describe()) == expected
    # one for ktable, and one for count operation
    stores = list(topology.state_stores.values())
    assert len(stores) == 2
    assert stores[0].persistent is True
    assert stores[1].persistent is False


def test_table_named_materialized_count_with_topology_config_should_preserve_topology_structure():
    # tableNamedMaterializedCountWithTopologyConfigShouldPreserveTopologyStructure
    expected = (
        "Topology: my-topology:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000001 (topics: [input-topic])\n"
        "      --> KTABLE-SOURCE-0000000002\n"
        "    Processor: KTABLE-SOURCE-0000000002 (stores: [input-topic-STATE-STORE-0000000000])\n"
        "      --> KTABLE-SELECT-0000000003\n"
        "      <-- KSTREAM-SOURCE-0000000001\n"
        "    Processor: KTABLE-SELECT-0000000003 (stores: [])\n"
        "      --> KSTREAM-SINK-0000000005\n"
        "      <-- KTABLE-SOURCE-0000000002\n"
        "    Sink: KSTREAM-SINK-0000000005 (topic:"
        " KTABLE-AGGREGATE-STATE-STORE-0000000004-repartition)\n"
        "      <-- KTABLE-SELECT-0000000003\n"
        "\n"
        "  Sub-topology: 1\n"
        "    Source: KSTREAM-SOURCE-0000000006 (topics:"
        " [KTABLE-AGGREGATE-STATE-STORE-0000000004-repartition])\n"
        "      --> KTABLE-AGGREGATE-0000000007\n"
        "    Processor: KTABLE-AGGREGATE-0000000007 (stores:"
        " [KTABLE-AGGREGATE-STATE-STORE-0000000004])\n"
        "      --> none\n"
        "      <-- KSTREAM-SOURCE-0000000006\n"
        "\n"
    )
    builder = ks.StreamsBuilder(IN_MEMORY_DSL_STORE)
    builder.table("input-topic").group_by(lambda key, value: None).count(
        ks.Materialized.as_(ROCKS_DB))
    topology = builder.build()
    assert_body(topology, expected)
    # one for ktable, and one for count operation
    stores = list(topology.state_stores.values())
    assert len(stores) == 2
    assert stores[0].persistent is False
    assert stores[1].persistent is True


def test_table_anonymous_materialized_count_should_preserve_topology_structure():
    # tableAnonymousMaterializedCountShouldPreserveTopologyStructure
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000001 (topics: [input-topic])\n"
        "      --> KTABLE-SOURCE-0000000002\n"
        "    Processor: KTABLE-SOURCE-0000000002 (stores: [input-topic-STATE-STORE-0000000000])\n"
        "      --> KTABLE-SELECT-0000000003\n"
        "      <-- KSTREAM-SOURCE-0000000001\n"
        "    Processor: KTABLE-SELECT-0000000003 (stores: [])\n"
        "      --> KSTREAM-SINK-0000000005\n"
        "      <-- KTABLE-SOURCE-0000000002\n"
        "    Sink: KSTREAM-SINK-0000000005 (topic:"
        " KTABLE-AGGREGATE-STATE-STORE-0000000004-repartition)\n"
        "      <-- KTABLE-SELECT-0000000003\n"
        "\n"
        "  Sub-topology: 1\n"
        "    Source: KSTREAM-SOURCE-0000000006 (topics:"
        " [KTABLE-AGGREGATE-STATE-STORE-0000000004-repartition])\n"
        "      --> KTABLE-AGGREGATE-0000000007\n"
        "    Processor: KTABLE-AGGREGATE-0000000007 (stores:"
        " [KTABLE-AGGREGATE-STATE-STORE-0000000004])\n"
        "      --> none\n"
        "      <-- KSTREAM-SOURCE-0000000006\n"
        "\n"
    )
    builder = ks.StreamsBuilder()
    builder.table("input-topic").group_by(lambda key, value: None).count(
        ks.Materialized.with_(None, LONG).with_store_type(ROCKS_DB))
    topology = builder.build()
    assert str(topology.describe()) == expected
    # one for ktable, and one for count operation
    stores = list(topology.state_stores.values())
    assert len(stores) == 2
    assert stores[0].persistent is True
    assert stores[1].persistent is True


def test_table_anonymous_store_typed_materialized_count_should_preserve_topology_structure():
    # tableAnonymousStoreTypedMaterializedCountShouldPreserveTopologyStructure
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000001 (topics: [input-topic])\n"
        "      --> KTABLE-SOURCE-0000000002\n"
        "    Processor: KTABLE-SOURCE-0000000002 (stores: [input-topic-STATE-STORE-0000000000])\n"
        "      --> KTABLE-SELECT-0000000003\n"
        "      <-- KSTREAM-SOURCE-0000000001\n"
        "    Processor: KTABLE-SELECT-0000000003 (stores: [])\n"
        "      --> KSTREAM-SINK-0000000005\n"
        "      <-- KTABLE-SOURCE-0000000002\n"
        "    Sink: KSTREAM-SINK-0000000005 (topic:"
        " KTABLE-AGGREGATE-STATE-STORE-0000000004-repartition)\n"
        "      <-- KTABLE-SELECT-0000000003\n"
        "\n"
        "  Sub-topology: 1\n"
        "    Source: KSTREAM-SOURCE-0000000006 (topics:"
        " [KTABLE-AGGREGATE-STATE-STORE-0000000004-repartition])\n"
        "      --> KTABLE-AGGREGATE-0000000007\n"
        "    Processor: KTABLE-AGGREGATE-0000000007 (stores:"
        " [KTABLE-AGGREGATE-STATE-STORE-0000000004])\n"
        "      --> none\n"
        "      <-- KSTREAM-SOURCE-0000000006\n"
        "\n"
    )
    builder = ks.StreamsBuilder()
    builder.table("input-topic").group_by(lambda key, value: None).count(
        ks.Materialized.as_(IN_MEMORY))
    topology = builder.build()
    assert str(topology.describe()) == expected
    # one for ktable, and one for count operation
    stores = list(topology.state_stores.values())
    assert len(stores) == 2
    assert stores[0].persistent is True
    assert stores[1].persistent is False


def test_k_table_non_materialized_map_values_should_preserve_topology_structure():
    # kTableNonMaterializedMapValuesShouldPreserveTopologyStructure
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000001 (topics: [input-topic])\n"
        "      --> KTABLE-SOURCE-0000000002\n"
        "    Processor: KTABLE-SOURCE-0000000002 (stores: [])\n"
        "      --> KTABLE-MAPVALUES-0000000003\n"
        "      <-- KSTREAM-SOURCE-0000000001\n"
        "    Processor: KTABLE-MAPVALUES-0000000003 (stores: [])\n"
        "      --> none\n"
        "      <-- KTABLE-SOURCE-0000000002\n\n"
    )
    builder = ks.StreamsBuilder()
    table = builder.table("input-topic")
    table.map_values(lambda read_only_key, value: None, with_key=True)
    assert str(builder.build().describe()) == expected


def test_k_table_anonymous_materialized_map_values_should_preserve_topology_structure():
    # kTableAnonymousMaterializedMapValuesShouldPreserveTopologyStructure
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000001 (topics: [input-topic])\n"
        "      --> KTABLE-SOURCE-0000000002\n"
        "    Processor: KTABLE-SOURCE-0000000002 (stores: [])\n"
        "      --> KTABLE-MAPVALUES-0000000004\n"
        "      <-- KSTREAM-SOURCE-0000000001\n"
        "    Processor: KTABLE-MAPVALUES-0000000004 (stores: [])\n"
        "      --> none\n"
        "      <-- KTABLE-SOURCE-0000000002\n"
        "\n"
    )
    builder = ks.StreamsBuilder()
    table = builder.table("input-topic")
    table.map_values(
        lambda read_only_key, value: None,
        materialized=ks.Materialized.with_(None, None).with_store_type(IN_MEMORY),
        with_key=True)
    assert str(builder.build().describe()) == expected


def test_k_table_named_materialized_map_values_should_preserve_topology_structure():
    # kTableNamedMaterializedMapValuesShouldPreserveTopologyStructure
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000001 (topics: [input-topic])\n"
        "      --> KTABLE-SOURCE-0000000002\n"
        "    Processor: KTABLE-SOURCE-0000000002 (stores: [])\n"
        "      --> KTABLE-MAPVALUES-0000000003\n"
        "      <-- KSTREAM-SOURCE-0000000001\n"
        "    Processor: KTABLE-MAPVALUES-0000000003 (stores: [store-name])\n"
        "      --> none\n"
        "      <-- KTABLE-SOURCE-0000000002\n"
        "\n"
    )
    builder = ks.StreamsBuilder()
    table = builder.table("input-topic")
    table.map_values(
        lambda read_only_key, value: None,
        materialized=ks.Materialized.as_("store-name").with_key_serde(None).with_value_serde(None),
        with_key=True)
    assert str(builder.build().describe()) == expected


def test_k_table_non_materialized_filter_should_preserve_topology_structure():
    # kTableNonMaterializedFilterShouldPreserveTopologyStructure
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000001 (topics: [input-topic])\n"
        "      --> KTABLE-SOURCE-0000000002\n"
        "    Processor: KTABLE-SOURCE-0000000002 (stores: [])\n"
        "      --> KTABLE-FILTER-0000000003\n"
        "      <-- KSTREAM-SOURCE-0000000001\n"
        "    Processor: KTABLE-FILTER-0000000003 (stores: [])\n"
        "      --> none\n"
        "      <-- KTABLE-SOURCE-0000000002\n\n"
    )
    builder = ks.StreamsBuilder()
    table = builder.table("input-topic")
    table.filter(lambda key, value: False)
    assert str(builder.build().describe()) == expected


def test_k_table_anonymous_materialized_filter_should_preserve_topology_structure():
    # kTableAnonymousMaterializedFilterShouldPreserveTopologyStructure
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000001 (topics: [input-topic])\n"
        "      --> KTABLE-SOURCE-0000000002\n"
        "    Processor: KTABLE-SOURCE-0000000002 (stores: [])\n"
        "      --> KTABLE-FILTER-0000000004\n"
        "      <-- KSTREAM-SOURCE-0000000001\n"
        "    Processor: KTABLE-FILTER-0000000004 (stores: [])\n"
        "      --> none\n"
        "      <-- KTABLE-SOURCE-0000000002\n"
        "\n"
    )
    builder = ks.StreamsBuilder()
    table = builder.table("input-topic")
    table.filter(lambda key, value: False, materialized=ks.Materialized.with_(None, None))
    assert str(builder.build().describe()) == expected


def test_k_table_named_materialized_filter_should_preserve_topology_structure():
    # kTableNamedMaterializedFilterShouldPreserveTopologyStructure
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000001 (topics: [input-topic])\n"
        "      --> KTABLE-SOURCE-0000000002\n"
        "    Processor: KTABLE-SOURCE-0000000002 (stores: [])\n"
        "      --> KTABLE-FILTER-0000000003\n"
        "      <-- KSTREAM-SOURCE-0000000001\n"
        "    Processor: KTABLE-FILTER-0000000003 (stores: [store-name])\n"
        "      --> none\n"
        "      <-- KTABLE-SOURCE-0000000002\n"
        "\n"
    )
    builder = ks.StreamsBuilder()
    table = builder.table("input-topic")
    table.filter(lambda key, value: False, materialized=ks.Materialized.as_("store-name"))
    assert str(builder.build().describe()) == expected


def test_stream_stream_join_topology_with_custom_stores_suppliers():
    # streamStreamJoinTopologyWithCustomStoresSuppliers
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic1])\n"
        "      --> KSTREAM-WINDOWED-0000000002\n"
        "    Source: KSTREAM-SOURCE-0000000001 (topics: [input-topic2])\n"
        "      --> KSTREAM-WINDOWED-0000000003\n"
        "    Processor: KSTREAM-WINDOWED-0000000002 (stores: [in-memory-join-store])\n"
        "      --> KSTREAM-JOINTHIS-0000000004\n"
        "      <-- KSTREAM-SOURCE-0000000000\n"
        "    Processor: KSTREAM-WINDOWED-0000000003 (stores: [in-memory-join-store-other])\n"
        "      --> KSTREAM-JOINOTHER-0000000005\n"
        "      <-- KSTREAM-SOURCE-0000000001\n"
        "    Processor: KSTREAM-JOINOTHER-0000000005 (stores: [in-memory-join-store])\n"
        "      --> KSTREAM-MERGE-0000000006\n"
        "      <-- KSTREAM-WINDOWED-0000000003\n"
        "    Processor: KSTREAM-JOINTHIS-0000000004 (stores: [in-memory-join-store-other])\n"
        "      --> KSTREAM-MERGE-0000000006\n"
        "      <-- KSTREAM-WINDOWED-0000000002\n"
        "    Processor: KSTREAM-MERGE-0000000006 (stores: [])\n"
        "      --> none\n"
        "      <-- KSTREAM-JOINTHIS-0000000004, KSTREAM-JOINOTHER-0000000005\n\n"
    )
    join_windows = ks.JoinWindows.of_time_difference_with_no_grace(100)
    this_store_supplier = ks.Stores.in_memory_window_store(
        "in-memory-join-store", 200, 200, True)
    other_store_supplier = ks.Stores.in_memory_window_store(
        "in-memory-join-store-other", 200, 200, True)
    builder = ks.StreamsBuilder()
    stream1 = builder.stream("input-topic1")
    stream2 = builder.stream("input-topic2")
    stream1.join(
        stream2, TOSTRING_JOINER, join_windows,
        ks.StreamJoined.with_(INTEGER, STRING, STRING)
        .with_this_store_supplier(this_store_supplier)
        .with_other_store_supplier(other_store_supplier))
    assert str(builder.build().describe()) == expected


def test_stream_stream_left_join_topology_with_custom_stores_suppliers():
    # streamStreamLeftJoinTopologyWithCustomStoresSuppliers
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic1])\n"
        "      --> KSTREAM-WINDOWED-0000000002\n"
        "    Source: KSTREAM-SOURCE-0000000001 (topics: [input-topic2])\n"
        "      --> KSTREAM-WINDOWED-0000000003\n"
        "    Processor: KSTREAM-WINDOWED-0000000002 (stores: [in-memory-join-store])\n"
        "      --> KSTREAM-JOINTHIS-0000000004\n"
        "      <-- KSTREAM-SOURCE-0000000000\n"
        "    Processor: KSTREAM-WINDOWED-0000000003 (stores: [in-memory-join-store-other])\n"
        "      --> KSTREAM-OUTEROTHER-0000000005\n"
        "      <-- KSTREAM-SOURCE-0000000001\n"
        "    Processor: KSTREAM-JOINTHIS-0000000004 (stores: [in-memory-join-store-other,"
        " in-memory-join-store-left-shared-join-store])\n"
        "      --> KSTREAM-MERGE-0000000006\n"
        "      <-- KSTREAM-WINDOWED-0000000002\n"
        "    Processor: KSTREAM-OUTEROTHER-0000000005 (stores: [in-memory-join-store,"
        " in-memory-join-store-left-shared-join-store])\n"
        "      --> KSTREAM-MERGE-0000000006\n"
        "      <-- KSTREAM-WINDOWED-0000000003\n"
        "    Processor: KSTREAM-MERGE-0000000006 (stores: [])\n"
        "      --> none\n"
        "      <-- KSTREAM-JOINTHIS-0000000004, KSTREAM-OUTEROTHER-0000000005\n\n"
    )
    join_windows = ks.JoinWindows.of_time_difference_with_no_grace(100)
    this_store_supplier = ks.Stores.in_memory_window_store(
        "in-memory-join-store", 200, 200, True)
    other_store_supplier = ks.Stores.in_memory_window_store(
        "in-memory-join-store-other", 200, 200, True)
    builder = ks.StreamsBuilder()
    stream1 = builder.stream("input-topic1")
    stream2 = builder.stream("input-topic2")
    stream1.left_join(
        stream2, TOSTRING_JOINER, join_windows,
        ks.StreamJoined.with_(INTEGER, STRING, STRING)
        .with_this_store_supplier(this_store_supplier)
        .with_other_store_supplier(other_store_supplier))
    assert str(builder.build().describe()) == expected


def test_stream_stream_outer_join_topology_with_custom_stores_suppliers():
    # streamStreamOuterJoinTopologyWithCustomStoresSuppliers
    expected = (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic1])\n"
        "      --> KSTREAM-WINDOWED-0000000002\n"
        "    Source: KSTREAM-SOURCE-0000000001 (topics: [input-topic2])\n"
        "      --> KSTREAM-WINDOWED-0000000003\n"
        "    Processor: KSTREAM-WINDOWED-0000000002 (stores: [in-memory-join-store])\n"
        "      --> KSTREAM-OUTERTHIS-0000000004\n"
        "      <-- KSTREAM-SOURCE-0000000000\n"
        "    Processor: KSTREAM-WINDOWED-0000000003 (stores: [in-memory-join-store-other])\n"
        "      --> KSTREAM-OUTEROTHER-0000000005\n"
        "      <-- KSTREAM-SOURCE-0000000001\n"
        "    Processor: KSTREAM-OUTEROTHER-0000000005 (stores:"
        " [in-memory-join-store-outer-shared-join-store, in-memory-join-store])\n"
        "      --> KSTREAM-MERGE-0000000006\n"
        "      <-- KSTREAM-WINDOWED-0000000003\n"
        "    Processor: KSTREAM-OUTERTHIS-0000000004 (stores: [in-memory-join-store-other,"
        " in-memory-join-store-outer-shared-join-store])\n"
        "      --> KSTREAM-MERGE-0000000006\n"
        "      <-- KSTREAM-WINDOWED-0000000002\n"
        "    Processor: KSTREAM-MERGE-0000000006 (stores: [])\n"
        "      --> none\n"
        "      <-- KSTREAM-OUTERTHIS-0000000004, KSTREAM-OUTEROTHER-0000000005\n\n"
    )
    join_windows = ks.JoinWindows.of_time_difference_with_no_grace(100)
    this_store_supplier = ks.Stores.in_memory_window_store(
        "in-memory-join-store", 200, 200, True)
    other_store_supplier = ks.Stores.in_memory_window_store(
        "in-memory-join-store-other", 200, 200, True)
    builder = ks.StreamsBuilder()
    stream1 = builder.stream("input-topic1")
    stream2 = builder.stream("input-topic2")
    stream1.outer_join(
        stream2, TOSTRING_JOINER, join_windows,
        ks.StreamJoined.with_(INTEGER, STRING, STRING)
        .with_this_store_supplier(this_store_supplier)
        .with_other_store_supplier(other_store_supplier))
    assert str(builder.build().describe()) == expected


