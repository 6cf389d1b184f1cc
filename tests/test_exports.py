"""The public surface: what API.md promises at the top level is exported, and nothing private."""

from __future__ import annotations

import kslab as ks
from kslab import serdes

PROMISED = {
    # records and errors
    "Record", "FixedKeyRecord", "Headers", "KeyValue", "TestRecord", "ValueAndTimestamp",
    "VersionedRecord", "Window", "Windowed", "TaskId", "KslabError", "TopologyError",
    "SerdeError", "StreamsError", "StoreError", "NoSuchElementError",
    # Processor API
    "Processor", "FixedKeyProcessor", "ProcessorContext", "PunctuationType", "Cancellable",
    "Topology", "TopologyDescription", "Stores",
    # Java's built-in timestamp extractors
    "TimestampExtractor", "FailOnInvalidTimestamp", "LogAndSkipOnInvalidTimestamp",
    "UsePartitionTimeOnInvalidTimestamp", "WallclockTimestampExtractor",
    # the test driver
    "TopologyTestDriver", "TestInputTopic", "TestOutputTopic",
}

SERDES = {
    "Serde", "String", "Bytes", "Long", "Integer", "Short", "Double", "Float", "Boolean",
    "UUID", "Json", "Avro", "TimeWindowed", "SessionWindowed", "from_functions",
}


def test_top_level_exports_cover_the_contract():
    assert PROMISED.issubset(ks.__all__)
    for name in ks.__all__:
        assert hasattr(ks, name), name
        assert not name.startswith("_")


def test_all_is_sorted_and_unique():
    assert list(ks.__all__) == sorted(set(ks.__all__))


def test_serdes_module_exports():
    assert SERDES.issubset(serdes.__all__)
    assert serdes.Long().serialize("t", 1) == bytes.fromhex("0000000000000001")
    assert serdes.Integer().serialize("t", -1) == bytes.fromhex("ffffffff")


def test_processor_module_exports_the_timestamp_extractors():
    from kslab import processor

    assert list(processor.__all__) == sorted(set(processor.__all__))
    for name in ("TimestampExtractor", "FailOnInvalidTimestamp", "LogAndSkipOnInvalidTimestamp",
                 "UsePartitionTimeOnInvalidTimestamp", "WallclockTimestampExtractor"):
        assert name in processor.__all__
        assert getattr(processor, name) is getattr(ks, name)
