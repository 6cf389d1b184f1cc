"""Kafka's ``InternalTopologyBuilderTest``, translated to what kslab's public ``Topology`` shows.

Java drives ``InternalTopologyBuilder`` directly; kslab's ``Topology`` is that builder, so each
case calls the same ``add_*`` methods and reads the effect where kslab exposes it: errors
(``TopologyException`` is ``ks.TopologyError``, ``NullPointerException``
``MissingArgumentError``, ``IllegalArgumentException`` ``InvalidArgumentError``), the offset reset
and timestamp extractor of ``source_for_topic``, sub-topologies and their nodes, stores and
topics through ``describe()`` (Java's ``nodeGroups``, ``buildSubtopology`` and
``subtopologyToTopicsInfo``), and internal topic configs through ``TopicPlan`` (the topic
planner every engine uses, Java's ``TopicsInfo``/``InternalTopicConfig``). Mockito's
``MockKeyValueStoreBuilder("testStore", false)`` is a real in-memory store builder.

``InternalTopologyBuilder.Source`` is what ``describe()`` hands out, so its constructor and
equality cases run on ``ks.TopologyDescription.Source``.

Left out, as internal with no kslab counterpart: ``sourceTopicPatternString`` (kslab
subscribes to each pattern itself), named-topology ``TopologyConfig`` overrides
(``shouldOverrideGlobalStreamsConfig*``,
``newDeserializationExceptionHandlerConfigShouldOverwriteOldOne``,
``shouldNotOverrideGlobalStreamsConfigWhenGivenUnnamedTopologyProps``,
``shouldSetTopologyConfigOnRewriteTopology``), the null checks of setters kslab does not have
(``setApplicationId``, ``setStreamsConfig``, ``addInternalTopic``'s properties), and
``shouldAllowIncrementalBuilds`` / ``shouldSetCorrectSourceNodesWithRegexUpdatedTopics`` /
``shouldConnectRegexMatchedTopicsToStateStore``, which read the builder's caches between calls.
"""

from __future__ import annotations

import re

import pytest

import kslab as ks
from kslab import serdes
from kslab.core.topic_plan import TopicPlan
from kslab.errors import InvalidArgumentError, MissingArgumentError

S = serdes.String()
BAD_SUPPLIER = "#get() must return a new object each time it is called"


class MockApiProcessor(ks.Processor):
    def process(self, record):
        pass


def store_builder(name="testStore"):
    """Java's ``MockKeyValueStoreBuilder(name, false)``: an in-memory key-value store."""
    return ks.Stores.key_value_store_builder(ks.Stores.in_memory_key_value_store(name))


def global_store_builder(name="testStore"):
    return store_builder(name).with_logging_disabled()


@pytest.fixture
def builder():
    return ks.Topology()


def subtopologies(topology):
    """``{id: node names}`` per sub-topology, as Java's ``nodeGroups()``."""
    return {sub.id: {node.name for node in sub.nodes}
            for sub in topology.describe().subtopologies}


def source_topics(topology):
    """``{id: source topic names}`` per sub-topology (``TopicsInfo.sourceTopics``)."""
    found = {}
    for sub in topology.describe().subtopologies:
        found[sub.id] = {t for node in sub.nodes if isinstance(node, ks.TopologyDescription.Source)
                         for t in node.topics or ()}
    return found


# -- wiring mistakes: (setup, the call that must fail, the error) ---------------------------


def source1(b):
    b.add_source("source", "topic-1")


def source_and_sink(b):
    b.add_source("source-1", "topic-1")
    b.add_sink("sink-1", "topic-1", "source-1")


WIRING_ERRORS = {
    "shouldNotAllowOffsetResetSourceWithoutTopics": (
        None, lambda b: b.add_source("source", offset_reset="earliest", key_serde=S,
                                     value_serde=S), ks.TopologyError),
    "shouldNotAllowOffsetResetSourceWithDuplicateSourceName": (
        lambda b: b.add_source("source", "topic-1", offset_reset="earliest"),
        lambda b: b.add_source("source", "topic-2", offset_reset="latest"), ks.TopologyError),
    "testAddSourceWithSameName": (
        source1, lambda b: b.add_source("source", "topic-2"), ks.TopologyError),
    "testAddSourceWithSameTopic": (
        source1, lambda b: b.add_source("source-2", "topic-1"), ks.TopologyError),
    "testAddProcessorWithSameName": (
        lambda b: (source1(b), b.add_processor("processor", MockApiProcessor, "source")),
        lambda b: b.add_processor("processor", MockApiProcessor, "source"), ks.TopologyError),
    "testAddProcessorWithWrongParent": (
        None, lambda b: b.add_processor("processor", MockApiProcessor, "source"),
        ks.TopologyError),
    "testAddProcessorWithSelfParent": (
        None, lambda b: b.add_processor("processor", MockApiProcessor, "processor"),
        ks.TopologyError),
    "testAddProcessorWithEmptyParents": (
        None, lambda b: b.add_processor("processor", MockApiProcessor), ks.TopologyError),
    "testAddProcessorWithNullParents": (
        None, lambda b: b.add_processor("processor", MockApiProcessor, None),
        MissingArgumentError),
    "testAddSinkWithSameName": (
        lambda b: (source1(b), b.add_sink("sink", "topic-2", "source")),
        lambda b: b.add_sink("sink", "topic-3", "source"), ks.TopologyError),
    "testAddSinkWithWrongParent": (
        None, lambda b: b.add_sink("sink", "topic-2", "source"), ks.TopologyError),
    "testAddSinkWithSelfParent": (
        None, lambda b: b.add_sink("sink", "topic-2", "sink"), ks.TopologyError),
    "testAddSinkWithEmptyParents": (
        None, lambda b: b.add_sink("sink", "topic"), ks.TopologyError),
    "testAddSinkWithNullParents": (
        None, lambda b: b.add_sink("sink", "topic", None), MissingArgumentError),
    "testPatternMatchesAlreadyProvidedTopicSource": (
        lambda b: b.add_source("source-1", "foo"),
        lambda b: b.add_source("source-2", re.compile("f.*")), ks.TopologyError),
    "testNamedTopicMatchesAlreadyProvidedPattern": (
        lambda b: b.add_source("source-1", re.compile("f.*")),
        lambda b: b.add_source("source-2", "foo"), ks.TopologyError),
    "testAddStateStoreWithNonExistingProcessor": (
        None, lambda b: b.add_state_store(store_builder(), "no-such-processor"),
        ks.TopologyError),
    "testAddStateStoreWithSource": (
        source_and_sink, lambda b: b.add_state_store(store_builder(), "source-1"),
        ks.TopologyError),
    "testAddStateStoreWithSink": (
        source_and_sink, lambda b: b.add_state_store(store_builder(), "sink-1"),
        ks.TopologyError),
    "shouldNotAllowToAddGlobalStoreWithSourceNameEqualsProcessorName": (
        None, lambda b: b.add_global_store(store_builder(), "sameName", "anyTopicName",
                                           "sameName", MockApiProcessor), ks.TopologyError),
}


@pytest.mark.parametrize("case", list(WIRING_ERRORS))
def test_wiring_mistake_is_refused(builder, case):
    setup, call, error = WIRING_ERRORS[case]
    if setup is not None:
        setup(builder)
    with pytest.raises(error):
        call(builder)


# -- sources and offset reset -----------------------------------------------------------------


def test_should_add_source_with_offset_reset(builder):
    builder.add_source("source", "earliestTopic", offset_reset="earliest")
    builder.add_source("source2", "latestTopic", offset_reset="latest")
    assert builder.source_for_topic("earliestTopic").offset_reset == "earliest"
    assert builder.source_for_topic("latestTopic").offset_reset == "latest"


def test_should_add_source_pattern_with_offset_reset(builder):
    builder.add_source("source", re.compile("earliest.*Topic"), offset_reset="earliest")
    builder.add_source("source2", re.compile("latest.*Topic"), offset_reset="latest")
    assert builder.source_for_topic("earliestTestTopic").offset_reset == "earliest"
    assert builder.source_for_topic("latestTestTopic").offset_reset == "latest"


def test_should_add_source_without_offset_reset(builder):
    builder.add_source("source", "test-topic", key_serde=S, value_serde=S)
    assert builder.source_topics() == ["test-topic"]
    assert builder.source_for_topic("test-topic").offset_reset is None


def test_should_add_pattern_source_without_offset_reset(builder):
    builder.add_source("source", re.compile("test-.*"), key_serde=S, value_serde=S)
    source = builder.source_for_topic("test-topic")
    assert source.pattern.pattern == "test-.*"
    assert source.offset_reset is None


# -- processors -------------------------------------------------------------------------------


def test_add_processor_with_bad_supplier(builder):
    processor = MockApiProcessor()
    # Java checks the supplier before the (null) parent: the supplier is what is refused
    with pytest.raises(InvalidArgumentError, match=re.escape(BAD_SUPPLIER)):
        builder.add_processor("processor", lambda: processor, None)
    assert builder.nodes == {}


def test_add_global_store_with_bad_supplier(builder):
    processor = MockApiProcessor()
    with pytest.raises(InvalidArgumentError, match=re.escape(BAD_SUPPLIER)):
        builder.add_global_store(global_store_builder("global-store"), "globalSource",
                                 "globalTopic", "global-processor", lambda: processor)
    assert builder.nodes == {}
    assert builder.global_stores == {}


def test_process_and_process_values_refuse_a_bad_supplier():
    """``KStreamImpl.process`` / ``processValues`` call ``ApiUtils.checkSupplier`` too, when the
    operator is added (before ``build()``)."""
    stream = ks.StreamsBuilder().stream("topic")
    processor = MockApiProcessor()
    for op in (stream.process, stream.process_values):
        with pytest.raises(InvalidArgumentError, match=re.escape(BAD_SUPPLIER)):
            op(lambda: processor)
    stream.process(MockApiProcessor)  # a class makes a new processor on each call


# -- sinks ------------------------------------------------------------------------------------


def test_add_sink_connected_with_parent(builder):
    builder.add_source("source", "source-topic")
    builder.add_sink("sink", "dest-topic", "source")
    assert subtopologies(builder)[0] == {"source", "sink"}


def test_add_sink_connected_with_multiple_parent(builder):
    builder.add_source("source", "source-topic")
    builder.add_source("sourceII", "source-topicII")
    builder.add_sink("sink", "dest-topic", "source", "sourceII")
    assert subtopologies(builder)[0] == {"source", "sourceII", "sink"}


# -- source topics and patterns ---------------------------------------------------------------


def test_only_topic_name_source_topics(builder):
    builder.add_source("source-1", "topic-1")
    builder.add_source("source-2", "topic-2")
    builder.add_source("source-3", "topic-3")
    builder.add_internal_topic("topic-3")
    plan = TopicPlan.build(builder, "X", {"topic-1": 1, "topic-2": 1})
    assert sorted(plan.group_of_topic) == ["X-topic-3", "topic-1", "topic-2"]
    assert plan.patterns == []


def test_name_source_topics_with_global_topics(builder):
    builder.add_source("source-1", "topic-1")
    builder.add_source("source-2", "topic-2")
    builder.add_global_store(global_store_builder("global-store"), "globalSource", "globalTopic",
                             "global-processor", MockApiProcessor)
    plan = TopicPlan.build(builder, "X", {"topic-1": 1, "topic-2": 1, "globalTopic": 1})
    assert sorted(plan.group_of_topic) == ["topic-1", "topic-2"]
    assert plan.global_topics == ["globalTopic"]


def test_pattern_source_topics_with_global_topics(builder):
    builder.add_source("source-1", re.compile("topic-1"))
    builder.add_source("source-2", re.compile("topic-2"))
    builder.add_global_store(global_store_builder("global-store"), "globalSource", "globalTopic",
                             "global-processor", MockApiProcessor)
    plan = TopicPlan.build(builder, "X", {"topic-1": 1, "topic-2": 1, "globalTopic": 1})
    assert [p.pattern for _, p in plan.patterns] == ["topic-1", "topic-2"]
    assert sorted(plan.group_of_topic) == ["topic-1", "topic-2"]  # not the global topic


# -- state stores -----------------------------------------------------------------------------


def add_local(builder, suffix=""):
    builder.add_state_store(store_builder())


def add_global(builder, suffix=""):
    builder.add_global_store(global_store_builder(), f"global-store{suffix}", "global-topic",
                             f"global-processor{suffix}", MockApiProcessor)


DIFFERENT = "Invalid topology: A different {} has already been added with the name testStore"


@pytest.mark.parametrize(("first", "second", "kind"), [
    (add_local, add_local, "StateStore"),
    (add_global, add_local, "GlobalStateStore"),
    (add_local, add_global, "StateStore"),
    (add_global, add_global, "GlobalStateStore"),
], ids=["shouldNotAllowToAddStoresWithSameName",
        "shouldNotAllowToAddStoresWithSameNameWhenFirstStoreIsGlobal",
        "shouldNotAllowToAddStoresWithSameNameWhenSecondStoreIsGlobal",
        "shouldNotAllowToAddGlobalStoresWithSameName"])
def test_should_not_allow_to_add_stores_with_same_name(builder, first, second, kind):
    first(builder)
    with pytest.raises(ks.TopologyError) as caught:
        second(builder, "-2")
    assert str(caught.value) == DIFFERENT.format(kind)


def test_add_state_store(builder):
    testing_store = store_builder()
    builder.add_state_store(testing_store)
    builder.add_source("source-1", "topic-1")
    builder.add_processor("processor-1", MockApiProcessor, "source-1")
    processor = builder.describe().subtopologies[0].nodes[1]
    assert set(processor.stores) == set()

    builder.connect_processor_and_state_stores("processor-1", "testStore")
    processor = builder.describe().subtopologies[0].nodes[1]
    assert set(processor.stores) == {"testStore"}
    assert list(builder.state_stores) == ["testStore"]


def test_state_store_names_for_subtopology(builder):
    builder.add_state_store(store_builder())
    builder.add_source("source-1", "topic-1")
    builder.add_processor("processor-1", MockApiProcessor, "source-1")
    builder.connect_processor_and_state_stores("processor-1", "testStore")
    builder.add_source("source-2", "topic-2")
    builder.add_processor("processor-2", MockApiProcessor, "source-2")

    stores = {sub.id: set().union(*(getattr(n, "stores", set()) for n in sub.nodes))
              for sub in builder.describe().subtopologies}
    assert stores == {0: {"testStore"}, 1: set()}
    assert 13 not in stores


def test_should_allow_adding_same_store_builder_multiple_times(builder):
    testing_store = store_builder()
    builder.add_source("source-1", "topic-1")
    builder.add_state_store(testing_store)
    builder.add_processor("processor-1", MockApiProcessor, "source-1")
    builder.connect_processor_and_state_stores("processor-1", "testStore")
    builder.add_state_store(testing_store)
    builder.add_processor("processor-2", MockApiProcessor, "source-1")
    builder.connect_processor_and_state_stores("processor-2", "testStore")
    assert list(builder.state_stores) == ["testStore"]


# -- sub-topologies -----------------------------------------------------------------------------


def five_sources_three_processors(builder):
    """Java's ``testTopicGroups``/``testBuild`` wiring: sources 1-5 (``source-1`` reads
    ``topic-1`` and ``topic-1x``), processors 1-2 joining sources 1 and 2, processor 3 on
    sources 3 and 4."""
    builder.add_source("source-1", "topic-1", "topic-1x")
    for i in range(2, 6):
        builder.add_source(f"source-{i}", f"topic-{i}")
    builder.add_processor("processor-1", MockApiProcessor, "source-1")
    builder.add_processor("processor-2", MockApiProcessor, "source-2", "processor-1")
    builder.add_processor("processor-3", MockApiProcessor, "source-3", "source-4")


def test_topic_groups(builder):
    builder.add_internal_topic("topic-1x")
    five_sources_three_processors(builder)
    builder.add_copartition_group(["source-1", "source-2"])

    assert source_topics(builder) == {0: {"topic-1", "topic-1x", "topic-2"},
                                      1: {"topic-3", "topic-4"}, 2: {"topic-5"}}
    plan = TopicPlan.build(builder, "X", {f"topic-{i}": 1 for i in range(1, 6)})
    by_group = {}
    for topic, group in plan.group_of_topic.items():
        by_group.setdefault(group, set()).add(topic)
    assert by_group == {0: {"topic-1", "X-topic-1x", "topic-2"}, 1: {"topic-3", "topic-4"},
                        2: {"topic-5"}}
    assert builder.copartition_groups() == [{"topic-1", "topic-1x", "topic-2"}]


def test_topic_groups_by_state_store(builder):
    for i in range(1, 6):
        topics = ("topic-1", "topic-1x") if i == 1 else (f"topic-{i}",)
        builder.add_source(f"source-{i}", *topics)
    builder.add_processor("processor-1", MockApiProcessor, "source-1")
    builder.add_processor("processor-2", MockApiProcessor, "source-2")
    builder.add_state_store(store_builder("store-1"), "processor-1", "processor-2")
    builder.add_processor("processor-3", MockApiProcessor, "source-3")
    builder.add_processor("processor-4", MockApiProcessor, "source-4")
    builder.add_state_store(store_builder("store-2"), "processor-3", "processor-4")
    builder.add_processor("processor-5", MockApiProcessor, "source-5")
    builder.add_state_store(store_builder("store-3"))
    builder.connect_processor_and_state_stores("processor-5", "store-3")

    assert source_topics(builder) == {0: {"topic-1", "topic-1x", "topic-2"},
                                      1: {"topic-3", "topic-4"}, 2: {"topic-5"}}
    existing = {t: 1 for t in ("topic-1", "topic-1x", "topic-2", "topic-3", "topic-4", "topic-5")}
    plan = TopicPlan.build(builder, "X", existing)
    changelogs = {topic: plan.group_of_topic.get(topic) for topic in plan.internal}
    assert set(changelogs) == {"X-store-1-changelog", "X-store-2-changelog",
                               "X-store-3-changelog"}
    assert plan.internal["X-store-1-changelog"]["cleanup.policy"] == "compact"


def test_build(builder):
    five_sources_three_processors(builder)
    assert subtopologies(builder) == {
        0: {"source-1", "source-2", "processor-1", "processor-2"},
        1: {"source-3", "source-4", "processor-3"},
        2: {"source-5"},
    }


def test_should_sort_processor_nodes_correctly(builder):
    """Java's ``nodesInOrder``: by the size of the sub-graph a node reaches (largest first),
    then by name; ``describe()`` prints the nodes in that order."""
    builder.add_source("source1", "topic1")
    builder.add_source("source2", "topic2")
    builder.add_processor("processor1", MockApiProcessor, "source1")
    builder.add_processor("processor2", MockApiProcessor, "source1", "source2")
    builder.add_processor("processor3", MockApiProcessor, "processor2")
    builder.add_sink("sink1", "topic2", "processor1", "processor3")

    description = builder.describe()
    assert len(description.subtopologies) == 1
    printed = [line.split(":")[1].split()[0] for line in str(description).splitlines()
               if line.startswith("    ") and not line.startswith("      ")]
    assert printed == ["source1", "source2", "processor2", "processor1", "processor3", "sink1"]


# -- timestamp extractors ---------------------------------------------------------------------


class MockTimestampExtractor:
    """Java's ``MockTimestampExtractor``: the record's offset as its timestamp."""

    def __call__(self, record, partition_time):
        return record.offset


def test_should_add_timestamp_extractor_per_source(builder):
    builder.add_source("source", "topic", timestamp_extractor=MockTimestampExtractor())
    assert isinstance(builder.source_for_topic("topic").timestamp_extractor,
                      MockTimestampExtractor)


def test_should_add_timestamp_extractor_with_pattern_per_source(builder):
    pattern = re.compile("t.*")
    builder.add_source("source", pattern, timestamp_extractor=MockTimestampExtractor())
    assert isinstance(builder.source_for_topic("topic").timestamp_extractor,
                      MockTimestampExtractor)


def test_timestamp_extractor_per_source_is_used(builder):
    """What the extractor does once built: each record's timestamp is its offset."""
    builder.add_source("source", "topic", timestamp_extractor=MockTimestampExtractor(),
                       key_serde=S, value_serde=S)
    builder.add_sink("sink", "out", "source", key_serde=S, value_serde=S)
    with ks.TopologyTestDriver(builder) as driver:
        inp = driver.create_input_topic("topic", S, S)
        for timestamp in (100, 50, 75):
            inp.pipe_input("k", "v", timestamp)
        out = driver.create_output_topic("out", S, S)
        assert [r.timestamp for r in out.read_records_to_list()] == [0, 1, 2]


# -- internal topic configs -------------------------------------------------------------------


def _plan_with_store(builder, store):
    builder.add_source("source", "topic")
    builder.add_processor("processor", MockApiProcessor, "source")
    builder.add_state_store(store, "processor")
    return TopicPlan.build(builder, "appId", {"topic": 1},
                           {"windowstore.changelog.additional.retention.ms": 10000})


def test_should_add_internal_topic_config_for_window_stores(builder):
    builder.add_source("source", "topic")
    builder.add_processor("processor", MockApiProcessor, "source")
    builder.add_state_store(ks.Stores.window_store_builder(
        ks.Stores.persistent_window_store("store1", 30_000, 10_000, False), S, S), "processor")
    builder.add_state_store(ks.Stores.session_store_builder(
        ks.Stores.persistent_session_store("store2", 30_000), S, S), "processor")
    plan = TopicPlan.build(builder, "appId", {"topic": 1},
                           {"windowstore.changelog.additional.retention.ms": 10000})
    for changelog in ("appId-store1-changelog", "appId-store2-changelog"):
        properties = plan.internal[changelog]
        assert len(properties) == 3
        assert properties["cleanup.policy"] == "compact,delete"
        assert properties["retention.ms"] == "40000"


def test_should_add_internal_topic_config_for_versioned_stores(builder):
    plan = _plan_with_store(builder, ks.Stores.versioned_key_value_store_builder(
        ks.Stores.persistent_versioned_key_value_store("vstore", 60_000), S, S))
    properties = plan.internal["appId-vstore-changelog"]
    assert len(properties) == 3
    assert properties["cleanup.policy"] == "compact"
    assert properties["min.compaction.lag.ms"] == str(60_000 + 24 * 60 * 60 * 1000)


def test_should_add_internal_topic_config_for_non_window_non_versioned_stores(builder):
    plan = _plan_with_store(builder, store_builder())
    properties = plan.internal["appId-testStore-changelog"]
    assert len(properties) == 2
    assert properties["cleanup.policy"] == "compact"


def test_should_add_internal_topic_config_for_repartition_topics(builder):
    builder.add_internal_topic("foo")
    builder.add_source("source", "foo")
    plan = TopicPlan.build(builder, "appId", {})
    properties = plan.internal["appId-foo"]
    assert len(properties) == 4
    assert properties["retention.ms"] == "-1"
    assert properties["cleanup.policy"] == "delete"


def test_should_have_correct_internal_topic_config_when_internal_topic_properties_are_present(
        builder):
    builder.add_internal_topic("topic-1z", partitions=10)
    builder.add_source("source-1", "topic-1z")
    plan = TopicPlan.build(builder, "Z", {})
    assert plan.partitions["Z-topic-1z"] == 10


def test_should_have_correct_internal_topic_config_when_internal_topic_properties_are_not_present(
        builder):
    builder.add_internal_topic("topic-1y")
    builder.add_source("source-1", "topic-1y")
    plan = TopicPlan.build(builder, "Y", {})
    assert plan.partitions["Y-topic-1y"] == 1  # no count given: the writers' (none here: 1)
    assert plan.internal["Y-topic-1y"]["cleanup.policy"] == "delete"


def test_should_associate_state_store_name_with_source_topic(builder):
    builder.add_source("source", "topic")
    builder.add_processor("processor", MockApiProcessor, "source")
    builder.add_state_store(store_builder(), "processor")
    assert source_topics(builder) == {0: {"topic"}}
    assert builder.store_users("testStore") == ["processor"]


def test_should_correctly_map_state_store_to_internal_topics(builder):
    builder.add_internal_topic("internal-topic")
    builder.add_source("source", "internal-topic")
    builder.add_processor("processor", MockApiProcessor, "source")
    builder.add_state_store(store_builder(), "processor")
    plan = TopicPlan.build(builder, "appId", {})
    assert plan.group_of_topic == {"appId-internal-topic": 0}  # prefixed: Java's full name
    assert plan.partitions["appId-testStore-changelog"] == 1


def test_should_connect_global_state_store_to_input_topic(builder):
    builder.add_global_store(global_store_builder("global-store"), "globalSource", "global-topic",
                             "global-processor", MockApiProcessor)
    assert builder.global_stores["global-store"].topic == "global-topic"
    assert builder.global_stores["global-store"].source_name == "globalSource"


# -- InternalTopologyBuilder.Source, described as TopologyDescription.Source ---------------------


def Source(name, topics, pattern):  # Java's InternalTopologyBuilder.Source(name, topics, pattern)
    return ks.TopologyDescription.Source(name, (), (), topics, pattern)


def test_should_throw_if_name_is_null():
    with pytest.raises(MissingArgumentError, match=r"^name cannot be null$"):
        Source(None, (), None)


def test_should_throw_if_topic_and_pattern_are_null():
    with pytest.raises(InvalidArgumentError) as caught:
        Source("name", None, None)
    assert str(caught.value) == "Either topics or pattern must be not-null, but both are null."


def test_should_throw_if_both_topic_and_pattern_are_not_null():
    with pytest.raises(InvalidArgumentError) as caught:
        Source("name", (), re.compile(""))
    assert str(caught.value) == "Either topics or pattern must be null, but both are not null."


def test_source_should_be_equal_if_name_and_topic_list_are_the_same():
    assert Source("name", ("topic",), None) == Source("name", ("topic",), None)


def test_source_should_be_equal_if_name_and_pattern_are_the_same():
    assert Source("name", None, re.compile("topic")) == Source("name", None, re.compile("topic"))


def test_source_should_not_be_equal_for_different_names_with_same_topic_list():
    assert Source("name", ("topic",), None) != Source("name2", ("topic",), None)


def test_source_should_not_be_equal_for_different_names_with_same_pattern():
    assert Source("name", None, re.compile("topic")) != Source("name2", None, re.compile("topic"))


def test_source_should_not_be_equal_for_different_topic_list():
    base = Source("name", ("topic",), None)
    assert base != Source("name", (), None)
    assert base != Source("name", ("topic2",), None)


def test_source_should_not_be_equal_for_different_pattern():
    base = Source("name", None, re.compile("topic"))
    assert base != Source("name", None, re.compile("topic2"))
    assert base != Source("name", None, re.compile("top*"))
