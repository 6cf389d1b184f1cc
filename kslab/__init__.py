"""kslab: a Jupyter-first interactive stream lab with Kafka Streams semantics, in Python."""

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
    "Cancellable",
    "FixedKeyProcessor",
    "FixedKeyProcessorContext",
    "FixedKeyRecord",
    "Header",
    "Headers",
    "KeyValue",
    "KeyValueIterator",
    "KeyValueStore",
    "KslabError",
    "NoSuchElementError",
    "Processor",
    "ProcessorContext",
    "PunctuationType",
    "Record",
    "RecordMetadata",
    "SerdeError",
    "StateStore",
    "StoreBuilder",
    "StoreError",
    "Stores",
    "StreamsError",
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
