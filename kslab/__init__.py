"""kslab: a Jupyter-first interactive stream lab with Kafka Streams semantics, in Python."""

# the notebook's renderer draws Topology, StreamsBuilder and the DSL handles in Jupyter
from kslab import notebook as _notebook  # noqa: F401
from kslab.dsl import (
    Branched,
    BranchedKStream,
    BufferConfig,
    CogroupedKStream,
    Consumed,
    GlobalKTable,
    Grouped,
    Joined,
    JoinWindows,
    KGroupedStream,
    KGroupedTable,
    KStream,
    KTable,
    Materialized,
    Named,
    Printed,
    Produced,
    Repartitioned,
    SessionWindowedKStream,
    SessionWindows,
    SlidingWindows,
    StreamJoined,
    StreamsBuilder,
    Suppressed,
    TableJoined,
    TimeWindowedKStream,
    TimeWindows,
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
    Processor,
    ProcessorContext,
    PunctuationType,
)
from kslab.records import (
    FixedKeyRecord,
    Headers,
    KeyValue,
    Record,
    TaskId,
    TestRecord,
    ValueAndTimestamp,
    VersionedRecord,
    Window,
    Windowed,
)
from kslab.runtime import KafkaStreams, LocalBroker
from kslab.state import (
    Stores,
)
from kslab.testing import TopologyTestDriver
from kslab.topology import Topology, TopologyDescription

__version__ = "0.1.0"

# exactly the top-level names /work/shared/API.md documents (tests/test_exports.py checks it)
__all__ = [
    "Branched",
    "BranchedKStream",
    "BufferConfig",
    "Cancellable",
    "CogroupedKStream",
    "Consumed",
    "FixedKeyProcessor",
    "FixedKeyRecord",
    "GlobalKTable",
    "Grouped",
    "Headers",
    "JoinWindows",
    "Joined",
    "KGroupedStream",
    "KGroupedTable",
    "KStream",
    "KTable",
    "KafkaStreams",
    "KeyValue",
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
    "Repartitioned",
    "SerdeError",
    "SessionWindowedKStream",
    "SessionWindows",
    "SlidingWindows",
    "StoreError",
    "Stores",
    "StreamJoined",
    "StreamsBuilder",
    "StreamsError",
    "Suppressed",
    "TableJoined",
    "TaskId",
    "TestRecord",
    "TimeWindowedKStream",
    "TimeWindows",
    "Topology",
    "TopologyDescription",
    "TopologyError",
    "TopologyTestDriver",
    "ValueAndTimestamp",
    "VersionedRecord",
    "Window",
    "Windowed",
]

# Kafka Streams' other public types, which API.md does not list: each lives in its own package's
# ``__all__`` (as in Kafka: a timestamp extractor in ``kslab.processor``, a store interface in
# ``kslab.state``, a handler's answer in ``kslab.errors``) and is also reachable as ``ks.Name``
# for code written against Kafka's examples; README's "Kafka types outside API.md" lists them
_HOMES: dict[str, tuple[str, ...]] = {
    "kslab.processor": ("FailOnInvalidTimestamp", "FixedKeyProcessorContext",
                        "LogAndSkipOnInvalidTimestamp", "TimestampExtractor",
                        "UsePartitionTimeOnInvalidTimestamp", "WallclockTimestampExtractor"),
    "kslab.records": ("Header", "RecordMetadata"),
    "kslab.dsl": ("Change", "EmitStrategy", "UnlimitedWindows"),
    "kslab.errors": ("DeserializationError", "DeserializationHandlerResponse",
                     "ErrorHandlerContext", "InvalidArgumentError",
                     "MissingArgumentError", "ProcessingHandlerResponse",
                     "ProductionHandlerResponse", "SerializationError"),
    "kslab.state": ("KeyValueIterator", "KeyValueStore", "StateStore", "StoreBuilder",
                    "TimestampedKeyValueStore"),
    "kslab.testing": ("TestInputTopic", "TestOutputTopic"),
}
_HOME_OF = {name: home for home, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> object:
    """``ks.TimestampExtractor`` and the other Kafka types outside ``__all__``, from their home."""
    home = _HOME_OF.get(name)
    if home is None:
        msg = f"module 'kslab' has no attribute {name!r}"
        raise AttributeError(msg)
    import importlib

    return getattr(importlib.import_module(home), name)


def __dir__() -> list[str]:
    """What completion offers: the module's names and the Kafka types reachable through it."""
    return sorted({*globals(), *_HOME_OF})


def load_ipython_extension(ipython: object) -> None:
    """``%load_ext kslab``: rich display, the ``%kslab`` magic and widgets (``kslab.notebook``)."""
    from kslab.notebook import load_ipython_extension as load

    load(ipython)
