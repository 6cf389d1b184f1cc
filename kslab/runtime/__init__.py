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
from kslab.runtime._standby import SuspendReason
from kslab.runtime.broker import LocalBroker
from kslab.runtime.streams import KafkaStreams, StreamThreadExceptionResponse

__all__ = [
    "HostInfo",
    "KafkaStreams",
    "KeyQueryMetadata",
    "LocalBroker",
    "StoreQueryParameters",
    "StreamThreadExceptionResponse",
    "SuspendReason",
    "TaskMetadata",
    "ThreadMetadata",
]
