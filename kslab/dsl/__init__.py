"""The KStream / KTable DSL: a builder of graph nodes lowered onto the Processor API.

``StreamsBuilder`` hands out ``KStream`` / ``KTable`` / ``GlobalKTable`` handles; their
operators add graph nodes that ``build()`` writes into a ``kslab.Topology`` with Kafka Streams'
names, so every engine runs DSL programs through the same core.
"""

from kslab.dsl._change import Change
from kslab.dsl.builder import StreamsBuilder
from kslab.dsl.cogrouped import CogroupedKStream
from kslab.dsl.config import (
    Branched,
    Consumed,
    Grouped,
    Materialized,
    Named,
    Printed,
    Produced,
    Repartitioned,
)
from kslab.dsl.grouped import KGroupedStream, KGroupedTable
from kslab.dsl.joined import Joined, StreamJoined, TableJoined
from kslab.dsl.kstream import BranchedKStream, KStream
from kslab.dsl.ktable import GlobalKTable, KTable
from kslab.dsl.suppress import BufferConfig, Suppressed
from kslab.dsl.windowed import SessionWindowedKStream, TimeWindowedKStream
from kslab.dsl.windows import (
    EmitStrategy,
    JoinWindows,
    SessionWindows,
    SlidingWindows,
    TimeWindows,
    UnlimitedWindows,
)

__all__ = [
    "Branched",
    "BranchedKStream",
    "BufferConfig",
    "Change",
    "CogroupedKStream",
    "Consumed",
    "EmitStrategy",
    "GlobalKTable",
    "Grouped",
    "JoinWindows",
    "Joined",
    "KGroupedStream",
    "KGroupedTable",
    "KStream",
    "KTable",
    "Materialized",
    "Named",
    "Printed",
    "Produced",
    "Repartitioned",
    "SessionWindowedKStream",
    "SessionWindows",
    "SlidingWindows",
    "StreamJoined",
    "StreamsBuilder",
    "Suppressed",
    "TableJoined",
    "TimeWindowedKStream",
    "TimeWindows",
    "UnlimitedWindows",
]
