"""kslab: a Jupyter-first interactive stream lab with Kafka Streams semantics, in Python."""

from kslab.dsl import (
    Branched,
    BranchedKStream,
    Change,
    CogroupedKStream,
    Consumed,
    GlobalKTable,
    Grouped,
    Joined,
    KGroupedStream,
    KGroupedTable,
    KStream,
    KTable,
    Materialized,
    Named,
    Printed,
    Produced,
    Repartitioned,
    StreamJoined,
    StreamsBuilder,
    TableJoined,
)
from kslab.errors import (
    KslabError,
    NoSuchElementError,
    SerdeError,
    StoreError,
    StreamsError,
    TopologyError,
)
from kslab.processor import (
    Cancellable,
    FixedKeyProcessor,
    FixedKeyProcessorContext,
    Processor,
    ProcessorContext,
    PunctuationType,
)
from kslab.records import (
    FixedKeyRecord,
    Header,
    Headers,
    KeyValue,
    Record,
    RecordMetadata,
    TaskId,
    TestRecord,
    ValueAndTimestamp,
    VersionedRecord,
    Window,
    Windowed,
)
from kslab.runtime import KafkaStreams, LocalBroker
from kslab.state import (
    KeyValueIterator,
    KeyValueStore,
    StateStore,
    StoreBuilder,
    Stores,
    TimestampedKeyValueStore,
)
from kslab.testing import TestInputTopic, TestOutputTopic, TopologyTestDriver
from kslab.topology import Topology, TopologyDescription

__version__ = "0.1.0"

__all__ = [
    "Branched",
    "BranchedKStream",
    "Cancellable",
    "Change",
    "CogroupedKStream",
    "Consumed",
    "FixedKeyProcessor",
    "FixedKeyProcessorContext",
    "FixedKeyRecord",
    "GlobalKTable",
    "Grouped",
    "Header",
    "Headers",
    "Joined",
    "KGroupedStream",
    "KGroupedTable",
    "KStream",
    "KTable",
    "KafkaStreams",
    "KeyValue",
    "KeyValueIterator",
    "KeyValueStore",
    "KslabError",
    "LocalBroker",
    "Materialized",
    "Named",
    "NoSuchElementError",
    "Printed",
    "Processor",
    "ProcessorContext",
    "Produced",
    "PunctuationType",
    "Record",
    "RecordMetadata",
    "Repartitioned",
    "SerdeError",
    "StateStore",
    "StoreBuilder",
    "StoreError",
    "Stores",
    "StreamJoined",
    "StreamsBuilder",
    "StreamsError",
    "TableJoined",
    "TaskId",
    "TestInputTopic",
    "TestOutputTopic",
    "TestRecord",
    "TimestampedKeyValueStore",
    "Topology",
    "TopologyDescription",
    "TopologyError",
    "TopologyTestDriver",
    "ValueAndTimestamp",
    "VersionedRecord",
    "Window",
    "Windowed",
]


def load_ipython_extension(ipython: object) -> None:
    """``%load_ext kslab``: rich display, the ``%kslab`` magic and widgets (``kslab.notebook``)."""
    from kslab.notebook import load_ipython_extension as load

    load(ipython)
