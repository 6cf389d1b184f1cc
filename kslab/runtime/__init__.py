"""The live runtime: ``KafkaStreams`` on a Kafka broker, and ``LocalBroker`` for development.

Everything here is I/O, clocks and store backends around the engine-agnostic core
(``kslab.core``); invariant: no module in this package re-implements stream time, punctuation
or routing, and only ``broker`` knows that the development broker is Tansu.
"""

from kslab.runtime._iq import (
    HostInfo,
    KeyQueryMetadata,
    StoreQueryParameters,
    TaskMetadata,
    ThreadMetadata,
)
from kslab.runtime._iq_cluster import StreamsMetadata
from kslab.runtime._standby import SuspendReason
from kslab.runtime.broker import LocalBroker
from kslab.runtime.iq_v2 import (
    FailureReason,
    KeyQuery,
    MultiVersionedKeyQuery,
    Position,
    PositionBound,
    QueryResult,
    RangeQuery,
    ResultOrder,
    StateQueryRequest,
    StateQueryResult,
    TimestampedKeyQuery,
    VersionedKeyQuery,
    WindowKeyQuery,
)
from kslab.runtime.streams import KafkaStreams, StreamThreadExceptionResponse

__all__ = [
    "FailureReason",
    "HostInfo",
    "KafkaStreams",
    "KeyQuery",
    "KeyQueryMetadata",
    "LocalBroker",
    "MultiVersionedKeyQuery",
    "Position",
    "PositionBound",
    "QueryResult",
    "RangeQuery",
    "ResultOrder",
    "StateQueryRequest",
    "StateQueryResult",
    "StoreQueryParameters",
    "StreamThreadExceptionResponse",
    "StreamsMetadata",
    "SuspendReason",
    "TaskMetadata",
    "ThreadMetadata",
    "TimestampedKeyQuery",
    "VersionedKeyQuery",
    "WindowKeyQuery",
]
