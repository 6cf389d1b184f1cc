"""The public surface: ``kslab.__all__`` is exactly the top-level names API.md documents; the
Kafka Streams types API.md does not list live in their home packages (and answer ``ks.Name``)."""

from __future__ import annotations

import importlib
import re
import types
from pathlib import Path

import pytest

import kslab as ks
from kslab import serdes

# The top-level names /work/shared/API.md documents (``ks.X``, or a class its DSL and driver
# sections name), by section.
API_MD = {
    # conventions: errors
    "KslabError", "TopologyError", "SerdeError", "StreamsError", "StoreError",
    # records
    "Record", "FixedKeyRecord", "Headers", "KeyValue", "ValueAndTimestamp", "VersionedRecord",
    "Window", "Windowed", "TestRecord", "TaskId",
    # Processor API and stores
    "Processor", "FixedKeyProcessor", "ProcessorContext", "PunctuationType", "Cancellable",
    "Topology", "TopologyDescription", "Stores",
    # DSL: the builder, the handles, config objects, windows and suppression
    "StreamsBuilder", "KStream", "KTable", "GlobalKTable", "BranchedKStream", "KGroupedStream",
    "KGroupedTable", "TimeWindowedKStream", "SessionWindowedKStream", "CogroupedKStream",
    "Consumed", "Produced", "Grouped", "Materialized", "Joined", "StreamJoined", "TableJoined",
    "Repartitioned", "Named", "Branched", "Printed", "TimeWindows", "SlidingWindows",
    "SessionWindows", "JoinWindows", "Suppressed", "BufferConfig",
    # the test driver
    "TopologyTestDriver", "NoSuchElementError",
    # live runtime
    "KafkaStreams", "LocalBroker",
}

# Kafka Streams' public types that API.md does not list: a user names them to use what API.md
# and the README document (a timestamp extractor for ``add_source``, an emit strategy,
# ``UnlimitedWindows``, a custom exception handler's answer, a custom store) or meets them as
# what documented calls return. They are not in ``kslab.__all__``: each is in its home package's
# ``__all__``, as in Kafka, and reachable as ``ks.Name`` too (README: "Kafka types outside
# API.md"). Reported on issue 20 for API.md's owner.
NOT_IN_API_MD = {
    # processor: timestamp extractors (add_source's timestamp_extractor=), the fixed-key context
    "TimestampExtractor": "kslab.processor", "FailOnInvalidTimestamp": "kslab.processor",
    "LogAndSkipOnInvalidTimestamp": "kslab.processor",
    "UsePartitionTimeOnInvalidTimestamp": "kslab.processor",
    "WallclockTimestampExtractor": "kslab.processor",
    "FixedKeyProcessorContext": "kslab.processor",
    # records: what Headers.last_header returns, and a processor's record metadata
    "Header": "kslab.records", "RecordMetadata": "kslab.records",
    # DSL: EmitStrategy.on_window_close() for emit_strategy(), UnlimitedWindows for windowed_by,
    # a table change's record
    "EmitStrategy": "kslab.dsl", "UnlimitedWindows": "kslab.dsl", "Change": "kslab.dsl",
    # errors: what a custom exception handler gets and answers (KIP-1033), the errors a
    # source's or sink's serde failure raises, the argument errors
    "ErrorHandlerContext": "kslab.errors", "ProcessingHandlerResponse": "kslab.errors",
    "DeserializationHandlerResponse": "kslab.errors",
    "ProductionHandlerResponse": "kslab.errors", "DeserializationError": "kslab.errors",
    "SerializationError": "kslab.errors", "InvalidArgumentError": "kslab.errors",
    "MissingArgumentError": "kslab.errors",
    # state: the store interfaces (custom stores subclass StateStore)
    "StateStore": "kslab.state", "StoreBuilder": "kslab.state", "KeyValueStore": "kslab.state",
    "KeyValueIterator": "kslab.state", "TimestampedKeyValueStore": "kslab.state",
    # the driver's topics
    "TestInputTopic": "kslab.testing", "TestOutputTopic": "kslab.testing",
}

# where API.md lives beside a checkout (it is not in the repository)
API_MD_PATH = Path(__file__).resolve().parents[2] / "shared" / "API.md"


def test_all_is_exactly_the_documented_names():
    assert set(ks.__all__) == API_MD
    assert not API_MD & set(NOT_IN_API_MD)


@pytest.mark.parametrize("name", sorted(NOT_IN_API_MD))
def test_a_kafka_type_outside_api_md_lives_in_its_home_package_and_on_ks(name):
    home = importlib.import_module(NOT_IN_API_MD[name])
    assert name in home.__all__
    assert getattr(ks, name) is getattr(home, name)
    assert name in dir(ks)
    assert name not in ks.__all__


def test_an_unknown_top_level_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="module 'kslab' has no attribute 'KTableX'"):
        ks.KTableX  # noqa: B018


def test_nothing_else_at_the_top_level_is_public():
    public = {name for name, value in vars(ks).items()
              if not name.startswith("_") and not isinstance(value, types.ModuleType)}
    assert public - {"load_ipython_extension"} == set(ks.__all__)  # the %load_ext hook
    for name in ks.__all__:
        assert hasattr(ks, name), name


@pytest.mark.skipif(not API_MD_PATH.is_file(), reason=f"no API.md at {API_MD_PATH}")
def test_api_md_transcription():
    """API_MD is what API.md says: every ``ks.X`` it writes is in API_MD, every API_MD name
    appears in it, and no NOT_IN_API_MD name does."""
    text = API_MD_PATH.read_text(encoding="utf-8")
    written = set(re.findall(r"\bks\.([A-Z]\w*)", text))
    assert written <= API_MD, sorted(written - API_MD)
    words = set(re.findall(r"\b[A-Z]\w*\b", text))
    assert words >= API_MD, sorted(API_MD - words)
    assert not set(NOT_IN_API_MD) & words, sorted(set(NOT_IN_API_MD) & words)


def test_all_is_sorted_and_unique():
    assert list(ks.__all__) == sorted(set(ks.__all__))


SERDES = {
    "Serde", "String", "Bytes", "Long", "Integer", "Short", "Double", "Float", "Boolean",
    "UUID", "Json", "Avro", "TimeWindowed", "SessionWindowed", "from_functions",
}


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
