"""Kafka's ``TopologyTestDriverTest`` (test-utils), translated to kslab's driver.

Each test quotes the Java method it mirrors. The Java suite drives records with the
package-private ``driver.pipeRecord(topic, record, serializers, time)`` and reads them with
``driver.readRecord(topic, ...)``; here they go through ``create_input_topic`` /
``create_output_topic``, which is what those methods back. ``TopologyTestDriverAtLeastOnceTest``
and ``TopologyTestDriverEosTest`` run this suite with ``processing.guarantee`` at_least_once and
exactly_once_v2; the ``config`` fixture does the same.

Exceptions: Java's ``IllegalArgumentException`` for an unknown input topic and for a built-in
store asked for with ``getStateStore`` maps to ``ks.KslabError`` (the latter a
``ks.StoreError``); ``TopologyException`` to ``ks.TopologyError``; ``NoSuchElementException``
to ``ks.NoSuchElementError``.

Skipped, as outside kslab's API:

- ``shouldThrowForMissingTime``: Java's internal ``pipeRecord(..., time=null)`` for a record
  without a timestamp; kslab's input topics always take a missing timestamp from their clock.
- (What ``get_window_store`` returns for a timestamped window store — Java's
  ``WindowStoreFacade`` — is checked only for being there.) Versioned stores are persistent only,
  so, as in Java, their parts run for the persistent case.
- ``metrics()`` names: not part of kslab's API.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple

import pytest

import kslab as ks
from kslab import serdes

SOURCE_TOPIC_1 = "source-topic-1"
SOURCE_TOPIC_2 = "source-topic-2"
SINK_TOPIC_1 = "sink-topic-1"
SINK_TOPIC_2 = "sink-topic-2"

HEADERS = ks.Headers([("key", b"value")])
KEY1 = b""
VALUE1 = b""
TIMESTAMP1 = 42
TEST_RECORD1 = ks.TestRecord(KEY1, VALUE1, TIMESTAMP1, HEADERS)
KEY2 = b""
VALUE2 = b""
TIMESTAMP2 = 43


@pytest.fixture(params=["at_least_once", "exactly_once_v2"])
def config(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, Any]:
    # TopologyTestDriverAtLeastOnceTest and TopologyTestDriverEosTest run the suite with each
    return {
        "application.id": "test-TopologyTestDriver",
        "state.dir": str(tmp_path),
        "default.key.serde": "bytes",
        "default.value.serde": "bytes",
        "processing.guarantee": request.param,
    }


class TTDTestRecord(NamedTuple):
    key: Any
    value: Any
    headers: Any
    timestamp: int
    offset: int
    topic: str | None

    @classmethod
    def of(cls, topic: str, record: ks.TestRecord, offset: int) -> TTDTestRecord:
        return cls(record.key, record.value, record.headers, record.timestamp, offset, topic)


class MockPunctuator:
    def __init__(self) -> None:
        self.punctuated_at: list[int] = []

    def __call__(self, timestamp: int) -> None:
        self.punctuated_at.append(timestamp)


class MockProcessor(ks.Processor):
    def __init__(self, punctuations: tuple[tuple[int, Any, Any], ...] = ()) -> None:
        self.punctuations = punctuations
        self.initialized = False
        self.closed = False
        self.processed_records: list[TTDTestRecord] = []

    def init(self, context: ks.ProcessorContext) -> None:
        self.initialized = True
        self.context = context
        for interval, kind, callback in self.punctuations:
            context.schedule(timedelta(milliseconds=interval), kind, callback)

    def process(self, record: ks.Record) -> None:
        meta = self.context.record_metadata()
        self.processed_records.append(TTDTestRecord(
            record.key, record.value, record.headers, record.timestamp,
            meta.offset if meta is not None else -1,
            meta.topic if meta is not None else None,
        ))
        self.context.forward(record)

    def close(self) -> None:
        self.closed = True


class MockProcessorSupplier:
    def __init__(self, made: list[MockProcessor], punctuations: tuple = ()) -> None:
        self.made = made
        self.punctuations = punctuations

    def __call__(self) -> MockProcessor:
        processor = MockProcessor(self.punctuations)
        self.made.append(processor)
        return processor


class VoidProcessor(ks.Processor):
    def process(self, record: ks.Record) -> None:
        pass


def pipe_record(driver: ks.TopologyTestDriver, topic: str, record: ks.TestRecord) -> None:
    driver.create_input_topic(topic, serdes.Bytes(), serdes.Bytes()).pipe_input(record)


def read_record(driver: ks.TopologyTestDriver, topic: str, key_serde: Any = None,
                value_serde: Any = None) -> ks.TestRecord:
    return driver.create_output_topic(
        topic, key_serde or serdes.Bytes(), value_serde or serdes.Bytes()
    ).read_record()


def source_sink_topology() -> ks.Topology:
    topology = ks.Topology()
    topology.add_source("source", SOURCE_TOPIC_1)
    topology.add_sink("sink", SINK_TOPIC_1, "source")
    return topology


def two_subtopologies() -> ks.Topology:
    topology = ks.Topology()
    topology.add_source("source-1", SOURCE_TOPIC_1)
    topology.add_sink("sink-1", SINK_TOPIC_1, "source-1")
    topology.add_source("source-2", SINK_TOPIC_1)
    topology.add_sink("sink-2", SINK_TOPIC_2, "source-2")
    return topology


def single_processor_topology(made: list[MockProcessor], interval: int = -1,
                              kind: Any = None, callback: Any = None) -> ks.Topology:
    punctuations = ((interval, kind, callback),) if interval > 0 and kind and callback else ()
    topology = ks.Topology()
    topology.add_source("source", SOURCE_TOPIC_1)
    topology.add_processor("processor", MockProcessorSupplier(made, punctuations), "source")
    return topology


def multiple_source_topology(made: list[MockProcessor], *topics: Any) -> ks.Topology:
    topology = ks.Topology()
    processors = []
    for topic in topics:
        label = topic.pattern if isinstance(topic, re.Pattern) else topic
        topology.add_source(f"{label}-source", topic)
        topology.add_processor(f"{label}-processor", MockProcessorSupplier(made),
                               f"{label}-source")
        processors.append(f"{label}-processor")
    topology.add_sink("sink-topic", SINK_TOPIC_1, *processors)
    return topology


class GlobalPut(ks.Processor):
    def __init__(self, store_name: str) -> None:
        self.store_name = store_name

    def init(self, context: ks.ProcessorContext) -> None:
        self.store = context.get_state_store(self.store_name)

    def process(self, record: ks.Record) -> None:
        self.store.put(record.key, record.value)


def global_store_topology(*topics: str) -> ks.Topology:
    topology = ks.Topology()
    for topic in topics:
        store = f"{topic}-globalStore"
        topology.add_global_store(
            ks.Stores.key_value_store_builder(
                ks.Stores.in_memory_key_value_store(store), None, None
            ).with_logging_disabled(),
            topic, topic, f"{topic}-processor", lambda store=store: GlobalPut(store),
        )
    return topology


def internal_topic_topology(config: dict[str, Any], first: str, second: str,
                            join: str) -> ks.Topology:
    builder = ks.StreamsBuilder()
    t1 = (builder.stream(SOURCE_TOPIC_1)
          .select_key(lambda k, v: v)
          .group_by_key()
          .count(ks.Materialized.as_(first)))
    builder.table(SOURCE_TOPIC_2, materialized=ks.Materialized.as_(second)).join(
        t1, lambda v: v, lambda v1, v2: v2, ks.TableJoined.as_(join)
    )
    return builder.build(config)


def test_should_not_require_parameters(config):
    # shouldNotRequireParameters
    ks.TopologyTestDriver(single_processor_topology([]), config).close()


def test_should_init_processor(config):
    # shouldInitProcessor
    made: list[MockProcessor] = []
    with ks.TopologyTestDriver(single_processor_topology(made), config):
        assert made[0].initialized


def test_should_close_processor(config):
    # shouldCloseProcessor
    made: list[MockProcessor] = []
    driver = ks.TopologyTestDriver(single_processor_topology(made), config)
    driver.close()
    assert made[0].closed


def test_should_throw_for_unknown_topic():
    # shouldThrowForUnknownTopic
    with ks.TopologyTestDriver(ks.Topology()) as driver:
        topic = driver.create_input_topic("unknownTopic", serdes.Bytes(), serdes.Bytes())
        with pytest.raises(ks.KslabError, match=r"Unknown topic.*unknownTopic"):
            topic.pipe_input(ks.TestRecord(None), timestamp=datetime.now(UTC))


def test_should_throw_no_such_element_exception_for_unused_output_topic_with_dynamic_routing(
        config):
    # shouldThrowNoSuchElementExceptionForUnusedOutputTopicWithDynamicRouting
    with ks.TopologyTestDriver(source_sink_topology(), config) as driver:
        out = ks.TestOutputTopic(driver, "unused-topic", serdes.String(), serdes.String())
        assert out.is_empty()
        with pytest.raises(ks.NoSuchElementError):
            out.read_record()


def test_should_capture_sink_topic_names_if_written_into(config):
    # shouldCaptureSinkTopicNamesIfWrittenInto
    with ks.TopologyTestDriver(source_sink_topology(), config) as driver:
        assert driver.produced_topic_names() == set()
        pipe_record(driver, SOURCE_TOPIC_1, TEST_RECORD1)
        assert SINK_TOPIC_1 in driver.produced_topic_names()


def test_should_capture_internal_topic_names_if_written_into(config):
    # shouldCaptureInternalTopicNamesIfWrittenInto
    topology = internal_topic_topology(config, "table1", "table2", "join")
    app = config["application.id"]
    with ks.TopologyTestDriver(topology, config) as driver:
        assert driver.produced_topic_names() == set()
        pipe_record(driver, SOURCE_TOPIC_1, TEST_RECORD1)
        assert driver.produced_topic_names() == {
            f"{app}-table1-repartition",
            f"{app}-table1-changelog",
        }
        pipe_record(driver, SOURCE_TOPIC_2, TEST_RECORD1)
        assert driver.produced_topic_names() == {
            f"{app}-table1-repartition",
            f"{app}-table1-changelog",
            f"{app}-table2-changelog",
            f"{app}-join-subscription-registration-topic",
            f"{app}-join-subscription-store-changelog",
            f"{app}-join-subscription-response-topic",
        }


def test_should_capture_global_topic_name_if_written_into(config):
    # shouldCaptureGlobalTopicNameIfWrittenInto
    builder = ks.StreamsBuilder()
    builder.global_table(SOURCE_TOPIC_1, materialized=ks.Materialized.as_("globalTable"))
    builder.stream(SOURCE_TOPIC_2).to(SOURCE_TOPIC_1)
    with ks.TopologyTestDriver(builder.build(), config) as driver:
        assert driver.produced_topic_names() == set()
        pipe_record(driver, SOURCE_TOPIC_2, TEST_RECORD1)
        assert driver.produced_topic_names() == {SOURCE_TOPIC_1}


def test_should_process_record_for_topic(config):
    # shouldProcessRecordForTopic
    with ks.TopologyTestDriver(source_sink_topology(), config) as driver:
        pipe_record(driver, SOURCE_TOPIC_1, TEST_RECORD1)
        output = read_record(driver, SINK_TOPIC_1)
        assert output.key == KEY1
        assert output.value == VALUE1


def test_should_set_record_metadata(config):
    # shouldSetRecordMetadata
    made: list[MockProcessor] = []
    with ks.TopologyTestDriver(single_processor_topology(made), config) as driver:
        pipe_record(driver, SOURCE_TOPIC_1, TEST_RECORD1)
        processed = made[0].processed_records
        assert len(processed) == 1
        assert processed[0] == TTDTestRecord.of(SOURCE_TOPIC_1, TEST_RECORD1, 0)


def test_should_send_record_via_correct_source_topic(config):
    # shouldSendRecordViaCorrectSourceTopic
    made: list[MockProcessor] = []
    topology = multiple_source_topology(made, SOURCE_TOPIC_1, SOURCE_TOPIC_2)
    with ks.TopologyTestDriver(topology, config) as driver:
        processed1, processed2 = made[0].processed_records, made[1].processed_records
        in1 = driver.create_input_topic(SOURCE_TOPIC_1, serdes.Bytes(), serdes.Bytes())
        in2 = driver.create_input_topic(SOURCE_TOPIC_2, serdes.Bytes(), serdes.Bytes())

        in1.pipe_input(ks.TestRecord(KEY1, VALUE1, TIMESTAMP1, HEADERS))
        assert len(processed1) == 1
        assert len(processed2) == 0
        assert processed1[0] == TTDTestRecord(KEY1, VALUE1, HEADERS, TIMESTAMP1, 0,
                                              SOURCE_TOPIC_1)

        in2.pipe_input(ks.TestRecord(KEY2, VALUE2, datetime.fromtimestamp(0.043, UTC)))
        assert len(processed1) == 1
        assert len(processed2) == 1
        assert processed2[0] == TTDTestRecord(KEY2, VALUE2, ks.Headers(), TIMESTAMP2, 0,
                                              SOURCE_TOPIC_2)


def _by_type(**serde_for: Any) -> Any:
    def serialize(data: Any) -> bytes | None:
        for kind, serde in serde_for.items():
            if type(data).__name__ == kind:
                return serde.serialize(SINK_TOPIC_1, data)
        msg = f"no serde for {data!r}"
        raise TypeError(msg)

    return serdes.from_functions(serialize, lambda data: data)


def test_should_use_source_specific_deserializers():
    # shouldUseSourceSpecificDeserializers
    made: list[MockProcessor] = []
    topology = ks.Topology()
    topology.add_source("source-1", SOURCE_TOPIC_1, key_serde=serdes.Long(),
                        value_serde=serdes.String())
    topology.add_source("source-2", SOURCE_TOPIC_2, key_serde=serdes.Integer(),
                        value_serde=serdes.Double())
    topology.add_processor("processor", MockProcessorSupplier(made), "source-1", "source-2")
    # Python has one int type: keys from source-1 are longs, from source-2 integers; the sink
    # tells them apart by the value's type as Java's serializer tells Long from Integer.
    topology.add_sink(
        "sink", SINK_TOPIC_1, "processor",
        key_serde=serdes.from_functions(
            lambda data: (serdes.Long() if data == 42 else serdes.Integer())
            .serialize(SINK_TOPIC_1, data),
            lambda data: data,
        ),
        value_serde=_by_type(str=serdes.String(), float=serdes.Double()),
    )
    with ks.TopologyTestDriver(topology) as driver:
        driver.create_input_topic(SOURCE_TOPIC_1, serdes.Long(), serdes.String()).pipe_input(
            ks.TestRecord(42, "anyString"), timestamp=datetime.now(UTC))
        result1 = read_record(driver, SINK_TOPIC_1, serdes.Long(), serdes.String())
        assert (result1.key, result1.value) == (42, "anyString")

        driver.create_input_topic(SOURCE_TOPIC_2, serdes.Integer(), serdes.Double()).pipe_input(
            ks.TestRecord(73, 3.14), timestamp=datetime.now(UTC))
        result2 = read_record(driver, SINK_TOPIC_1, serdes.Integer(), serdes.Double())
        assert (result2.key, result2.value) == (73, 3.14)


class _HeaderSpy(serdes.Bytes):
    def __init__(self) -> None:
        super().__init__()
        self.serialized_with_headers = False
        self.deserialized_with_headers = False

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        self.serialized_with_headers |= headers is not None
        return super().serialize(topic, data)

    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        self.deserialized_with_headers |= headers is not None
        return super().deserialize(topic, data)


def test_should_pass_record_headers_into_serializers_and_deserializers(config):
    # shouldPassRecordHeadersIntoSerializersAndDeserializers
    key_in, value_in, key_out, value_out = (_HeaderSpy() for _ in range(4))
    with ks.TopologyTestDriver(source_sink_topology(), config) as driver:
        driver.create_input_topic(SOURCE_TOPIC_1, key_in, value_in).pipe_input(TEST_RECORD1)
        driver.create_output_topic(SINK_TOPIC_1, key_out, value_out).read_record()
    assert key_in.serialized_with_headers
    assert value_in.serialized_with_headers
    assert key_out.deserialized_with_headers
    assert value_out.deserialized_with_headers


def test_should_use_sink_specific_serializers():
    # shouldUseSinkSpecificSerializers
    topology = ks.Topology()
    topology.add_source("source-1", SOURCE_TOPIC_1, key_serde=serdes.Long(),
                        value_serde=serdes.String())
    topology.add_source("source-2", SOURCE_TOPIC_2, key_serde=serdes.Integer(),
                        value_serde=serdes.Double())
    topology.add_sink("sink-1", SINK_TOPIC_1, "source-1", key_serde=serdes.Long(),
                      value_serde=serdes.String())
    topology.add_sink("sink-2", SINK_TOPIC_2, "source-2", key_serde=serdes.Integer(),
                      value_serde=serdes.Double())
    with ks.TopologyTestDriver(topology) as driver:
        driver.create_input_topic(SOURCE_TOPIC_1, serdes.Long(), serdes.String()).pipe_input(
            ks.TestRecord(42, "anyString"), timestamp=datetime.now(UTC))
        result1 = read_record(driver, SINK_TOPIC_1, serdes.Long(), serdes.String())
        assert (result1.key, result1.value) == (42, "anyString")

        driver.create_input_topic(SOURCE_TOPIC_2, serdes.Integer(), serdes.Double()).pipe_input(
            ks.TestRecord(73, 3.14), timestamp=datetime.now(UTC))
        result2 = read_record(driver, SINK_TOPIC_2, serdes.Integer(), serdes.Double())
        assert (result2.key, result2.value) == (73, 3.14)


def test_should_forward_records_from_subtopology_to_subtopology(config):
    # shouldForwardRecordsFromSubtopologyToSubtopology
    with ks.TopologyTestDriver(two_subtopologies(), config) as driver:
        pipe_record(driver, SOURCE_TOPIC_1, TEST_RECORD1)
        output = read_record(driver, SINK_TOPIC_1)
        assert (output.key, output.value) == (KEY1, VALUE1)
        output = read_record(driver, SINK_TOPIC_2)
        assert (output.key, output.value) == (KEY1, VALUE1)


def test_should_populate_global_store(config):
    # shouldPopulateGlobalStore
    with ks.TopologyTestDriver(global_store_topology(SOURCE_TOPIC_1), config) as driver:
        global_store = driver.get_key_value_store(f"{SOURCE_TOPIC_1}-globalStore")
        assert global_store is not None
        assert driver.get_all_state_stores().get(f"{SOURCE_TOPIC_1}-globalStore") is not None
        pipe_record(driver, SOURCE_TOPIC_1, TEST_RECORD1)
        assert global_store.get(TEST_RECORD1.key) == TEST_RECORD1.value


def test_should_punctuate_on_streams_time(config):
    # shouldPunctuateOnStreamsTime
    punctuator = MockPunctuator()
    topology = single_processor_topology([], 10, ks.PunctuationType.STREAM_TIME, punctuator)
    expected: list[int] = []
    with ks.TopologyTestDriver(topology, config) as driver:
        for timestamp, fires in [(42, True), (42, False), (51, True), (52, False), (61, True),
                                 (65, False), (71, True), (72, False), (95, True),
                                 (101, True), (102, False)]:
            if fires:
                expected.append(timestamp)
            pipe_record(driver, SOURCE_TOPIC_1, ks.TestRecord(KEY1, VALUE1, timestamp))
            assert punctuator.punctuated_at == expected


def test_should_punctuate_on_wall_clock_time(config):
    # shouldPunctuateOnWallClockTime
    punctuator = MockPunctuator()
    topology = single_processor_topology([], 10, ks.PunctuationType.WALL_CLOCK_TIME, punctuator)
    expected: list[int] = []
    with ks.TopologyTestDriver(topology, config, datetime.fromtimestamp(0, UTC)) as driver:
        for advance, fires_at in [(5, None), (9, 14), (1, None), (20, 35), (5, 40)]:
            if fires_at is not None:
                expected.append(fires_at)
            driver.advance_wall_clock_time(timedelta(milliseconds=advance))
            assert punctuator.punctuated_at == expected


def _all_stores_topology(with_processor: bool) -> ks.Topology:
    topology = source_sink_topology()
    if with_processor:
        topology.add_processor("processor", MockProcessorSupplier([]), "source")
    topology.add_state_store(
        ks.Stores.key_value_store_builder(
            ks.Stores.in_memory_key_value_store("store"), serdes.Bytes(), serdes.Bytes()),
        *(["processor"] if with_processor else []),
    )
    topology.add_global_store(
        ks.Stores.key_value_store_builder(
            ks.Stores.in_memory_key_value_store("globalStore"), serdes.Bytes(), serdes.Bytes()
        ).with_logging_disabled(),
        "sourceProcessorName", "globalTopicName", "globalProcessorName", VoidProcessor,
        key_serde=serdes.Bytes(), value_serde=serdes.Bytes(),
    )
    return topology


def test_should_return_all_stores(config):
    # shouldReturnAllStores
    with ks.TopologyTestDriver(_all_stores_topology(True), config) as driver:
        stores = driver.get_all_state_stores()
        assert set(stores) == {"store", "globalStore"}
        assert all(store is not None for store in stores.values())


def _add_stores(topology: ks.Topology, persistent: bool) -> None:
    kv = ks.Stores.persistent_key_value_store if persistent else \
        ks.Stores.in_memory_key_value_store
    ts = ks.Stores.persistent_timestamped_key_value_store if persistent else \
        ks.Stores.in_memory_key_value_store
    topology.add_state_store(
        ks.Stores.key_value_store_builder(kv("keyValueStore"), serdes.Bytes(), serdes.Bytes()),
        "processor")
    topology.add_state_store(
        ks.Stores.timestamped_key_value_store_builder(
            ts("keyValueTimestampStore"), serdes.Bytes(), serdes.Bytes()),
        "processor")
    window = ks.Stores.persistent_window_store if persistent else \
        ks.Stores.in_memory_window_store
    ts_window = ks.Stores.persistent_timestamped_window_store if persistent else \
        ks.Stores.in_memory_window_store
    session = ks.Stores.persistent_session_store if persistent else \
        ks.Stores.in_memory_session_store
    topology.add_state_store(
        ks.Stores.window_store_builder(
            window("windowStore", 1000, 100, False), serdes.Bytes(), serdes.Bytes()),
        "processor")
    topology.add_state_store(
        ks.Stores.timestamped_window_store_builder(
            ts_window("windowTimestampStore", 1000, 100, False), serdes.Bytes(), serdes.Bytes()),
        "processor")
    topology.add_state_store(
        ks.Stores.session_store_builder(
            session("sessionStore", 1000), serdes.Bytes(), serdes.Bytes()),
        "processor")
    topology.add_global_store(
        ks.Stores.key_value_store_builder(
            kv("globalKeyValueStore"), serdes.Bytes(), serdes.Bytes()).with_logging_disabled(),
        "sourceDummy1", "topicDummy1", "processorDummy1", VoidProcessor,
        key_serde=serdes.Bytes(), value_serde=serdes.Bytes())
    topology.add_global_store(
        ks.Stores.timestamped_key_value_store_builder(
            ts("globalKeyValueTimestampStore"), serdes.Bytes(), serdes.Bytes()
        ).with_logging_disabled(),
        "sourceDummy2", "topicDummy2", "processorDummy2", VoidProcessor,
        key_serde=serdes.Bytes(), value_serde=serdes.Bytes())
    if persistent:  # versioned stores have no in-memory kind (nor in Java)
        def versioned(name: str) -> Any:
            return ks.Stores.versioned_key_value_store_builder(
                ks.Stores.persistent_versioned_key_value_store(name, 1000), serdes.Bytes(),
                serdes.Bytes())

        topology.add_state_store(versioned("keyValueVersionedStore"), "processor")
        topology.add_global_store(
            versioned("globalKeyValueVersionedStore").with_logging_disabled(),
            "sourceDummy3", "topicDummy3", "processorDummy3", VoidProcessor,
            key_serde=serdes.Bytes(), value_serde=serdes.Bytes())


def _check_versioned_store_types(driver: ks.TopologyTestDriver) -> None:
    for name in ("keyValueVersionedStore", "globalKeyValueVersionedStore"):
        assert driver.get_key_value_store(name) is None
        assert driver.get_timestamped_key_value_store(name) is None
        assert driver.get_versioned_key_value_store(name) is not None
        assert driver.get_window_store(name) is None
        assert driver.get_timestamped_window_store(name) is None
        assert driver.get_session_store(name) is None


def _check_store_types(driver: ks.TopologyTestDriver) -> None:
    for plain, timestamped in [("keyValueStore", "keyValueTimestampStore"),
                               ("globalKeyValueStore", "globalKeyValueTimestampStore")]:
        assert driver.get_key_value_store(plain) is not None
        assert driver.get_timestamped_key_value_store(plain) is None
        assert driver.get_versioned_key_value_store(plain) is None
        assert driver.get_window_store(plain) is None
        assert driver.get_timestamped_window_store(plain) is None
        assert driver.get_session_store(plain) is None

        assert driver.get_key_value_store(timestamped) is not None
        assert driver.get_timestamped_key_value_store(timestamped) is not None
        assert driver.get_versioned_key_value_store(timestamped) is None
        assert driver.get_window_store(timestamped) is None
        assert driver.get_timestamped_window_store(timestamped) is None
        assert driver.get_session_store(timestamped) is None

    assert driver.get_key_value_store("windowStore") is None
    assert driver.get_timestamped_key_value_store("windowStore") is None
    assert driver.get_versioned_key_value_store("windowStore") is None
    assert driver.get_window_store("windowStore") is not None
    assert driver.get_timestamped_window_store("windowStore") is None
    assert driver.get_session_store("windowStore") is None

    assert driver.get_key_value_store("windowTimestampStore") is None
    assert driver.get_timestamped_key_value_store("windowTimestampStore") is None
    assert driver.get_versioned_key_value_store("windowTimestampStore") is None
    assert driver.get_window_store("windowTimestampStore") is not None
    assert driver.get_timestamped_window_store("windowTimestampStore") is not None
    assert driver.get_session_store("windowTimestampStore") is None

    assert driver.get_key_value_store("sessionStore") is None
    assert driver.get_timestamped_key_value_store("sessionStore") is None
    assert driver.get_versioned_key_value_store("sessionStore") is None
    assert driver.get_window_store("sessionStore") is None
    assert driver.get_timestamped_window_store("sessionStore") is None
    assert driver.get_session_store("sessionStore") is not None


@pytest.mark.parametrize("persistent", [True, False], ids=["persistent", "in_memory"])
def test_should_return_correct_store_type_only(config, persistent):
    # shouldReturnCorrectPersistentStoreTypeOnly / shouldReturnCorrectInMemoryStoreTypeOnly
    topology = single_processor_topology([])
    _add_stores(topology, persistent)
    with ks.TopologyTestDriver(topology, config) as driver:
        _check_store_types(driver)
        if persistent:
            _check_versioned_store_types(driver)


@pytest.mark.parametrize("persistent", [True, False], ids=["persistent", "in_memory"])
def test_should_throw_if_built_in_store_is_accessed_with_untyped_method(config, persistent):
    # shouldThrowIfInMemoryBuiltInStoreIsAccessedWithUntypedMethod /
    # shouldThrowIfPersistentBuiltInStoreIsAccessedWithUntypedMethod
    topology = single_processor_topology([])
    _add_stores(topology, persistent)
    with ks.TopologyTestDriver(topology, config) as driver:
        for name, kind, method in [
            ("keyValueStore", "key-value", "get_key_value_store"),
            ("keyValueTimestampStore", "timestamped key-value",
             "get_timestamped_key_value_store"),
            ("windowStore", "window", "get_window_store"),
            ("windowTimestampStore", "timestamped window", "get_timestamped_window_store"),
            ("sessionStore", "session", "get_session_store"),
            ("globalKeyValueStore", "key-value", "get_key_value_store"),
            ("globalKeyValueTimestampStore", "timestamped key-value",
             "get_timestamped_key_value_store"),
            *([("keyValueVersionedStore", "versioned key-value",
                "get_versioned_key_value_store"),
               ("globalKeyValueVersionedStore", "versioned key-value",
                "get_versioned_key_value_store")] if persistent else []),
        ]:
            with pytest.raises(ks.StoreError) as info:
                driver.get_state_store(name)
            assert str(info.value) == \
                f"Store {name} is a {kind} store and should be accessed via `{method}()`"


class _CustomStore(ks.StateStore):
    """A store of no built-in kind: ``get_state_store`` hands it out."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._open = False

    @property
    def name(self) -> str:
        return self._name

    @property
    def persistent(self) -> bool:
        return False

    @property
    def is_open(self) -> bool:
        return self._open

    def init(self, context: Any) -> None:
        self._open = True

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self._open = False

    def snapshot(self) -> object:
        return None

    def restore_snapshot(self, snapshot: object) -> None:
        pass

    def restore_batch(self, records: Any) -> None:
        pass


def test_get_state_store_returns_custom_stores(config):
    # the other half of getStateStore: stores of no built-in type are returned
    class Builder:
        name = "custom"
        logging_enabled = False
        log_config: dict[str, str] = {}

        def build(self) -> _CustomStore:
            return _CustomStore("custom")

    topology = single_processor_topology([])
    topology.add_state_store(Builder(), "processor")
    with ks.TopologyTestDriver(topology, config) as driver:
        store = driver.get_state_store("custom")
        assert isinstance(store, _CustomStore)
        assert driver.get_key_value_store("custom") is None
        assert driver.get_state_store("no-such-store") is None


def test_should_return_all_stores_names(config):
    # shouldReturnAllStoresNames
    with ks.TopologyTestDriver(_all_stores_topology(False), config) as driver:
        assert set(driver.get_all_state_stores()) == {"store", "globalStore"}


class CustomMaxAggregator(ks.Processor):
    def init(self, context: ks.ProcessorContext) -> None:
        self.context = context
        context.schedule(timedelta(minutes=1), ks.PunctuationType.WALL_CLOCK_TIME,
                         self.flush_store)
        context.schedule(timedelta(seconds=10), ks.PunctuationType.STREAM_TIME,
                         self.flush_store)
        self.store = context.get_state_store("aggStore")

    def process(self, record: ks.Record) -> None:
        old = self.store.get(record.key)
        if old is None or record.value > old:
            self.store.put(record.key, record.value)

    def flush_store(self, timestamp: int) -> None:
        with self.store.all() as entries:
            for key, value in entries:
                self.context.forward(ks.Record(key, value, timestamp))


class Aggregation(NamedTuple):
    driver: ks.TopologyTestDriver
    store: Any

    def pipe(self, key: str, value: int, time: int) -> None:
        self.driver.create_input_topic("input-topic", serdes.String(), serdes.Long()).pipe_input(
            ks.TestRecord(key, value, time))

    def read(self) -> ks.KeyValue:
        rec = read_record(self.driver, "result-topic", serdes.String(), serdes.Long())
        return ks.KeyValue(rec.key, rec.value)

    def is_empty(self) -> bool:
        return self.driver.create_output_topic("result-topic").is_empty()


@pytest.fixture
def aggregation(config):
    driver = _aggregation_driver(config, ks.Stores.in_memory_key_value_store("aggStore"))
    yield Aggregation(driver, driver.get_key_value_store("aggStore"))
    driver.close()


def _aggregation_driver(config: dict[str, Any], supplier: Any) -> ks.TopologyTestDriver:
    topology = ks.Topology()
    topology.add_source("sourceProcessor", "input-topic")
    topology.add_processor("aggregator", CustomMaxAggregator, "sourceProcessor")
    topology.add_state_store(
        ks.Stores.key_value_store_builder(supplier, serdes.String(), serdes.Long()), "aggregator")
    topology.add_sink("sinkProcessor", "result-topic", "aggregator")
    config.update({"default.key.serde": "string", "default.value.serde": "long"})
    driver = ks.TopologyTestDriver(topology, config)
    driver.get_key_value_store("aggStore").put("a", 21)
    return driver


def test_should_flush_store_for_first_input(aggregation):
    # shouldFlushStoreForFirstInput
    aggregation.pipe("a", 1, 9999)
    assert aggregation.read() == ("a", 21)
    assert aggregation.is_empty()


def test_should_not_update_store_for_smaller_value(aggregation):
    # shouldNotUpdateStoreForSmallerValue
    aggregation.pipe("a", 1, 9999)
    assert aggregation.store.get("a") == 21
    assert aggregation.read() == ("a", 21)
    assert aggregation.is_empty()


def test_should_not_update_store_for_larger_value(aggregation):
    # shouldNotUpdateStoreForLargerValue
    aggregation.pipe("a", 42, 9999)
    assert aggregation.store.get("a") == 42
    assert aggregation.read() == ("a", 42)
    assert aggregation.is_empty()


def test_should_update_store_for_new_key(aggregation):
    # shouldUpdateStoreForNewKey
    aggregation.pipe("b", 21, 9999)
    assert aggregation.store.get("b") == 21
    assert aggregation.read() == ("a", 21)
    assert aggregation.read() == ("b", 21)
    assert aggregation.is_empty()


def test_should_punctuate_if_even_time_advances(aggregation):
    # shouldPunctuateIfEvenTimeAdvances
    aggregation.pipe("a", 1, 9999)
    assert aggregation.read() == ("a", 21)
    aggregation.pipe("a", 1, 9999)
    assert aggregation.is_empty()
    aggregation.pipe("a", 1, 10000)
    assert aggregation.read() == ("a", 21)
    assert aggregation.is_empty()


def test_should_punctuate_if_wall_clock_time_advances(aggregation):
    # shouldPunctuateIfWallClockTimeAdvances
    aggregation.driver.advance_wall_clock_time(timedelta(milliseconds=60000))
    assert aggregation.read() == ("a", 21)
    assert aggregation.is_empty()


def test_should_allow_pre_populating_states_stores_with_caching_enabled(config):
    # shouldAllowPrePopulatingStatesStoresWithCachingEnabled
    topology = ks.Topology()
    topology.add_source("sourceProcessor", "input-topic")
    topology.add_processor("aggregator", CustomMaxAggregator, "sourceProcessor")
    topology.add_state_store(
        ks.Stores.key_value_store_builder(
            ks.Stores.in_memory_key_value_store("aggStore"), serdes.String(), serdes.Long()
        ).with_caching_enabled(),
        "aggregator")
    with ks.TopologyTestDriver(topology, config) as driver:
        store = driver.get_key_value_store("aggStore")
        store.put("a", 21)
        assert store.get("a") == 21


class StorePut(ks.Processor):
    def init(self, context: ks.ProcessorContext) -> None:
        self.store = context.get_state_store("storeProcessorStore")

    def process(self, record: ks.Record) -> None:
        self.store.put(record.key, record.value)


def test_should_clean_up_persistent_state_stores_on_close(tmp_path):
    # shouldCleanUpPersistentStateStoresOnClose
    topology = ks.Topology()
    topology.add_source("sourceProcessor", "input-topic")
    topology.add_processor("storeProcessor", StorePut, "sourceProcessor")
    topology.add_state_store(
        ks.Stores.key_value_store_builder(
            ks.Stores.persistent_key_value_store("storeProcessorStore"),
            serdes.String(), serdes.Long()),
        "storeProcessor")
    config = {
        "application.id": "test-TopologyTestDriver-cleanup",
        "state.dir": str(tmp_path),
        "default.key.serde": "string",
        "default.value.serde": "long",
    }
    with ks.TopologyTestDriver(topology, config) as driver:
        assert driver.get_key_value_store("storeProcessorStore").get("a") is None
        driver.create_input_topic("input-topic", serdes.String(), serdes.Long()).pipe_input(
            ks.TestRecord("a", 1), timestamp=datetime.now(UTC))
        assert driver.get_key_value_store("storeProcessorStore").get("a") == 1
    with ks.TopologyTestDriver(topology, config) as driver:
        # closing the prior driver cleaned up this store and its value
        assert driver.get_key_value_store("storeProcessorStore").get("a") is None


def test_should_feed_store_from_global_k_table(config):
    # shouldFeedStoreFromGlobalKTable
    builder = ks.StreamsBuilder()
    builder.global_table("topic", ks.Consumed.with_(serdes.String(), serdes.String()),
                         ks.Materialized.as_("globalStore"))
    with ks.TopologyTestDriver(builder.build(), config) as driver:
        global_store = driver.get_key_value_store("globalStore")
        assert global_store is not None
        assert driver.get_all_state_stores().get("globalStore") is not None
        driver.create_input_topic("topic", serdes.String(), serdes.String()).pipe_input(
            ks.TestRecord("k1", "value1"), timestamp=datetime.now(UTC))
        assert global_store.get("k1") == "value1"


def test_should_process_from_sources_that_match_multiple_pattern(config):
    # shouldProcessFromSourcesThatMatchMultiplePattern
    made: list[MockProcessor] = []
    topology = multiple_source_topology(
        made, re.compile(r"source-topic-\d"), re.compile(r"source-topic-[A-Z]"))
    record2 = ks.TestRecord(KEY2, VALUE2, TIMESTAMP2)
    with ks.TopologyTestDriver(topology, config) as driver:
        processed1, processed2 = made[0].processed_records, made[1].processed_records
        pipe_record(driver, SOURCE_TOPIC_1, TEST_RECORD1)
        assert len(processed1) == 1
        assert len(processed2) == 0
        assert processed1[0] == TTDTestRecord.of(SOURCE_TOPIC_1, TEST_RECORD1, 0)

        pipe_record(driver, "source-topic-Z", record2)
        assert len(processed1) == 1
        assert len(processed2) == 1
        assert processed2[0] == TTDTestRecord.of("source-topic-Z", record2, 0)


def test_should_process_from_source_that_match_pattern(config):
    # shouldProcessFromSourceThatMatchPattern
    topology = ks.Topology()
    topology.add_source("source", re.compile(r"source-topic-\d"))
    topology.add_sink("sink", SINK_TOPIC_1, "source")
    with ks.TopologyTestDriver(topology, config) as driver:
        pipe_record(driver, SOURCE_TOPIC_1, TEST_RECORD1)
        output = read_record(driver, SINK_TOPIC_1)
        assert (output.key, output.value) == (KEY1, VALUE1)


def test_should_throw_pattern_not_valid_for_topic_name_exception(config):
    # shouldThrowPatternNotValidForTopicNameException
    topology = ks.Topology()
    topology.add_source("source", r"source-topic-\d")
    topology.add_sink("sink", SINK_TOPIC_1, "source")
    with ks.TopologyTestDriver(topology, config) as driver:
        with pytest.raises(ks.TopologyError) as info:
            pipe_record(driver, SOURCE_TOPIC_1, TEST_RECORD1)
        assert str(info.value) == (
            "Invalid topology: Topology add source of type String for topic: "
            r"source-topic-\d cannot contain regex pattern for input record topic: "
            "source-topic-1 and hence cannot process the message."
        )
        assert "re.compile" in info.value.__notes__[0]


def test_should_not_create_state_directory_for_stateless_topology(config):
    # shouldNotCreateStateDirectoryForStatelessTopology
    driver = _aggregation_driver(config, ks.Stores.in_memory_key_value_store("aggStore"))
    try:
        assert not (Path(config["state.dir"]) / config["application.id"]).exists()
    finally:
        driver.close()


def test_should_create_state_directory_for_stateful_topology(config):
    # shouldCreateStateDirectoryForStatefulTopology
    driver = _aggregation_driver(config, ks.Stores.persistent_key_value_store("aggStore"))
    try:
        app_dir = Path(config["state.dir"]) / config["application.id"]
        assert app_dir.is_dir()
        assert (app_dir / str(ks.TaskId(0, 0))).exists()
    finally:
        driver.close()


class Recursive(ks.Processor):
    def __init__(self, to_global: bool = False) -> None:
        self.to_global = to_global

    def init(self, context: ks.ProcessorContext) -> None:
        self.context = context

    def process(self, record: ks.Record) -> None:
        if not record.value.startswith("recurse-"):
            self.context.forward(record.with_value("recurse-" + record.value), "recursiveSink")
        self.context.forward(record, "sink")
        if self.to_global:
            self.context.forward(record, "globalSink")


def test_should_enqueue_later_outputs_after_earlier_ones():
    # shouldEnqueueLaterOutputsAfterEarlierOnes
    string = serdes.String()
    topology = ks.Topology()
    topology.add_source("source", "input", key_serde=string, value_serde=string)
    topology.add_processor("recursiveProcessor", Recursive, "source")
    topology.add_sink("recursiveSink", "input", "recursiveProcessor", key_serde=string,
                      value_serde=string)
    topology.add_sink("sink", "output", "recursiveProcessor", key_serde=string,
                      value_serde=string)
    with ks.TopologyTestDriver(topology) as driver:
        inp = driver.create_input_topic("input", string, string)
        out = driver.create_output_topic("output", string, string)
        # the output first echoes the input, then prints it with "recurse-" prepended
        inp.pipe_input("B", "beta")
        assert out.read_key_values_to_list() == [("B", "beta"), ("B", "recurse-beta")]


def test_should_apply_global_updates_correctly_in_recursive_topologies():
    # shouldApplyGlobalUpdatesCorrectlyInRecursiveTopologies
    string = serdes.String()
    topology = ks.Topology()
    topology.add_source("source", "input", key_serde=string, value_serde=string)
    topology.add_global_store(
        ks.Stores.key_value_store_builder(
            ks.Stores.in_memory_key_value_store("global-store"), string, string
        ).with_logging_disabled(),
        "globalSource", "global-topic", "globalProcessor", lambda: GlobalPut("global-store"),
        key_serde=string, value_serde=string,
    )
    topology.add_processor("recursiveProcessor", lambda: Recursive(to_global=True), "source")
    for sink, topic in [("recursiveSink", "input"), ("sink", "output"),
                        ("globalSink", "global-topic")]:
        topology.add_sink(sink, topic, "recursiveProcessor", key_serde=string,
                          value_serde=string)
    with ks.TopologyTestDriver(topology) as driver:
        inp = driver.create_input_topic("input", string, string)
        global_topic = driver.create_output_topic("global-topic", string, string)
        inp.pipe_input("A", "alpha")
        # the global store reflects the last update
        store = driver.get_key_value_store("global-store")
        assert store is not None
        assert store.get("A") == "recurse-alpha"
        # and both events went to the topic
        assert global_topic.read_key_values_to_list() == [("A", "alpha"), ("A", "recurse-alpha")]


def test_should_respect_task_idling():
    # shouldRespectTaskIdling
    string = serdes.String()
    topology = ks.Topology()
    topology.add_source("source1", "input1", key_serde=string, value_serde=string)
    topology.add_source("source2", "input2", key_serde=string, value_serde=string)
    topology.add_sink("sink", "output", "source1", "source2", key_serde=string,
                      value_serde=string)
    # the wall clock does not move by itself in the driver, so with an idle time set the
    # driver cannot take every queued record as processable
    with ks.TopologyTestDriver(topology, {"max.task.idle.ms": "1000"}) as driver:
        in1 = driver.create_input_topic("input1", string, string)
        in2 = driver.create_input_topic("input2", string, string)
        out = driver.create_output_topic("output", string, string)

        in1.pipe_input("A", "alpha")
        driver.advance_wall_clock_time(timedelta(milliseconds=1))
        # only one input has records, and only one ms went by
        assert out.read_key_values_to_list() == []

        in2.pipe_input("B", "beta")
        # both inputs have records: A (the earlier) goes; then only one input has records
        # again and idling holds B back
        assert out.read_key_values_to_list() == [("A", "alpha")]

        driver.advance_wall_clock_time(timedelta(seconds=1))
        # the idle time has passed: B goes
        assert out.read_key_values_to_list() == [("B", "beta")]


# -- beyond the Java file: behaviours its helpers and Kafka's driver imply ---------------------


def test_source_and_default_timestamp_extractors(config):
    # the source's extractor wins; otherwise default.timestamp.extractor; pattern topics too;
    # an object with Java's extract(record, partition_time) works as a function does
    class FromValue:
        def extract(self, record: Any, partition_time: int) -> int:
            return int(record.value)

    topology = ks.Topology()
    topology.add_source("own", "own", key_serde="string", value_serde="string",
                        timestamp_extractor=lambda record, partition_time: 7)
    topology.add_source("dflt", "dflt", key_serde="string", value_serde="string")
    topology.add_source("pat", re.compile(r"p-\d"), key_serde="string", value_serde="string")
    topology.add_sink("sink", "out", "own", "dflt", "pat", key_serde="string",
                      value_serde="string")
    config = {**config, "default.timestamp.extractor": FromValue()}
    with ks.TopologyTestDriver(topology, config) as driver:
        out = driver.create_output_topic("out")
        driver.create_input_topic("own").pipe_input("k", "100", 1)
        driver.create_input_topic("dflt").pipe_input("k", "200", 1)
        driver.create_input_topic("p-1").pipe_input("k", "300", 1)
        assert [r.timestamp for r in out.read_records_to_list()] == [7, 200, 300]


def test_negative_extracted_timestamp_skips_the_record(config):
    # Kafka logs and skips a record whose extracted timestamp is negative
    topology = ks.Topology()
    topology.add_source("s", "in", key_serde="string", value_serde="string",
                        timestamp_extractor=lambda record, partition_time: -1)
    topology.add_sink("sink", "out", "s", key_serde="string", value_serde="string")
    with ks.TopologyTestDriver(topology, config) as driver:
        driver.create_input_topic("in").pipe_input("k", "v", 5)
        assert driver.create_output_topic("out").is_empty()
        assert driver.metrics()["0_0"]["dropped-records-total"] == 1


def test_null_keys_and_values_pass_through(config):
    # tombstones and null keys travel as in Kafka (serdes map None to None)
    topology = ks.Topology()
    topology.add_source("s", "in", key_serde="string", value_serde="long")
    topology.add_sink("sink", "out", "s", key_serde="string", value_serde="long")
    with ks.TopologyTestDriver(topology, config) as driver:
        inp = driver.create_input_topic("in")
        inp.pipe_input(None, None, 1)
        inp.pipe_input("k", None, 2)
        inp.pipe_input(None, 3, 3)
        assert driver.create_output_topic("out").read_records_to_list() == [
            ks.TestRecord(None, None, 1), ks.TestRecord("k", None, 2), ks.TestRecord(None, 3, 3)]


def test_wall_clock_punctuation_only_on_advance_and_stream_time_only_on_records(config):
    # piping never fires wall-clock punctuation; advancing the clock never fires stream-time
    stream, wall = MockPunctuator(), MockPunctuator()

    class Both(ks.Processor):
        def init(self, context: ks.ProcessorContext) -> None:
            context.schedule(10, ks.PunctuationType.STREAM_TIME, stream)
            context.schedule(10, ks.PunctuationType.WALL_CLOCK_TIME, wall)

        def process(self, record: ks.Record) -> None:
            pass

    topology = ks.Topology().add_source("s", "in").add_processor("p", Both, "s")
    with ks.TopologyTestDriver(topology, config, initial_wall_clock_time=100) as driver:
        inp = driver.create_input_topic("in")
        inp.pipe_input(b"k", b"v", 1000)
        assert (stream.punctuated_at, wall.punctuated_at) == ([1000], [])
        driver.advance_wall_clock_time(10)
        assert (stream.punctuated_at, wall.punctuated_at) == ([1000], [110])
        assert driver.wall_clock_time == 110


def test_advance_wall_clock_time_refuses_none_and_negative(config):
    # Java: advanceWallClockTime(null) throws NullPointerException
    with ks.TopologyTestDriver(source_sink_topology(), config) as driver:
        with pytest.raises(TypeError):
            driver.advance_wall_clock_time(None)
        with pytest.raises(ValueError, match="non-negative"):
            driver.advance_wall_clock_time(-1)


def test_drivers_without_application_id_share_no_state(tmp_path):
    # Kafka's driver makes up a random application.id; two drivers on one state.dir do not
    # see (or clean up) each other's stores
    topology = ks.Topology()
    topology.add_source("sourceProcessor", "input-topic")
    topology.add_processor("storeProcessor", StorePut, "sourceProcessor")
    topology.add_state_store(
        ks.Stores.key_value_store_builder(
            ks.Stores.persistent_key_value_store("storeProcessorStore"), "string", "long"),
        "storeProcessor")
    config = {"state.dir": str(tmp_path), "default.key.serde": "string",
              "default.value.serde": "long"}
    with ks.TopologyTestDriver(topology, config) as first, \
            ks.TopologyTestDriver(topology, config) as second:
        first.create_input_topic("input-topic").pipe_input("a", 1, 0)
        assert first.get_key_value_store("storeProcessorStore").get("a") == 1
        assert second.get_key_value_store("storeProcessorStore").get("a") is None
    assert list(tmp_path.iterdir()) == []


def test_task_idling_survives_snapshot_and_restore():
    # beyond Java: a record held back by max.task.idle.ms is held again after restore()
    string = serdes.String()
    topology = ks.Topology()
    topology.add_source("source1", "input1", key_serde=string, value_serde=string)
    topology.add_source("source2", "input2", key_serde=string, value_serde=string)
    topology.add_sink("sink", "output", "source1", "source2", key_serde=string,
                      value_serde=string)
    with ks.TopologyTestDriver(topology, {"max.task.idle.ms": 1000}) as driver:
        in1 = driver.create_input_topic("input1")
        out = driver.create_output_topic("output")
        in1.pipe_input("A", "alpha", 5)
        snap = driver.snapshot()
        driver.advance_wall_clock_time(1000)
        assert out.read_key_values_to_list() == [("A", "alpha")]
        driver.restore(snap)
        assert out.is_empty()
        in1.pipe_input("C", "gamma", 6)
        assert out.is_empty()
        driver.advance_wall_clock_time(1000)
        assert out.read_key_values_to_list() == [("A", "alpha"), ("C", "gamma")]
