"""Typed interactive queries in the style of Kafka's IQv2 (KIP-796): ``KafkaStreams.query``.

A ``StateQueryRequest`` names a store, a query and optionally the partitions, a position bound
and whether only active tasks may answer; the result has one ``QueryResult`` per partition this
instance holds, each a success carrying its value and the store's position, or a failure with
a reason (``FailureReason``). Queries: ``KeyQuery`` (a value), ``TimestampedKeyQuery`` (a
``ValueAndTimestamp``), ``RangeQuery`` (key-values, sorted), ``WindowKeyQuery`` (a key's
windows in a start-time range) and ``VersionedKeyQuery`` (a ``VersionedRecord``, latest or as
of a time).

A store's **position** is, per input partition its task reads, the offset of the last record
the task processed, as Kafka's ``Position`` records; ``with_position_bound(PositionBound.at(p))``
answers a partition only once its position has reached ``p``'s offset of that partition on
every topic ``p`` names (else ``NOT_UP_TO_BOUND``), so a caller that wrote a record at offset
``o`` reads a result that includes it. A bound names input partitions of the store's own
sub-topology: a store behind a repartition sees the repartition topic's offsets, as in Kafka.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from kslab.errors import StoreError

if TYPE_CHECKING:
    from kslab.runtime.streams import KafkaStreams

__all__ = [
    "FailureReason", "KeyQuery", "Position", "PositionBound", "QueryResult", "RangeQuery",
    "StateQueryRequest", "StateQueryResult", "TimestampedKeyQuery", "VersionedKeyQuery",
    "WindowKeyQuery", "run_query",
]


class FailureReason(enum.Enum):
    """Why a partition's query failed (Kafka's ``FailureReason``)."""

    NOT_ACTIVE = "NOT_ACTIVE"
    NOT_PRESENT = "NOT_PRESENT"
    NOT_UP_TO_BOUND = "NOT_UP_TO_BOUND"
    UNKNOWN_QUERY_TYPE = "UNKNOWN_QUERY_TYPE"
    STORE_EXCEPTION = "STORE_EXCEPTION"


@dataclass(frozen=True)
class Position:
    """Offsets by topic and partition: what a store has seen, or a bound to reach."""

    offsets: Mapping[str, Mapping[int, int]] = field(default_factory=dict)

    @classmethod
    def from_map(cls, offsets: Mapping[str, Mapping[int, int]]) -> Position:
        """``{topic: {partition: offset}}``."""
        return cls({t: dict(parts) for t, parts in offsets.items()})

    @classmethod
    def empty_position(cls) -> Position:
        """No offsets."""
        return cls({})

    def get_partition_positions(self, topic: str) -> dict[int, int]:
        """``{partition: offset}`` of ``topic``."""
        return dict(self.offsets.get(topic, {}))

    def reaches(self, bound: Position, partition: int) -> bool:
        """Whether this position of a store's ``partition`` has reached ``bound``: for each
        topic ``bound`` gives an offset of that partition, an offset at least as high (Kafka's
        ``StoreQueryUtils.isPermitted``; a partition not seen yet has not reached it)."""
        for topic, parts in bound.offsets.items():
            if partition in parts:
                seen = self.offsets.get(topic, {}).get(partition)
                if seen is None or seen < parts[partition]:
                    return False
        return True


@dataclass(frozen=True)
class PositionBound:
    """How fresh a result must be: ``unbounded()`` or ``at(position)``."""

    position: Position | None = None

    @classmethod
    def unbounded(cls) -> PositionBound:
        """Any state answers."""
        return cls(None)

    @classmethod
    def at(cls, position: Position) -> PositionBound:
        """Only a store that has reached ``position``."""
        return cls(position)


@dataclass(frozen=True)
class KeyQuery:
    """The value of a key of a key-value store (plain, even in a timestamped store)."""

    key: Any

    @classmethod
    def with_key(cls, key: Any) -> KeyQuery:
        return cls(key)


@dataclass(frozen=True)
class TimestampedKeyQuery:
    """The ``ValueAndTimestamp`` of a key of a timestamped key-value store."""

    key: Any

    @classmethod
    def with_key(cls, key: Any) -> TimestampedKeyQuery:
        return cls(key)


@dataclass(frozen=True)
class RangeQuery:
    """Key-values between two keys (inclusive; ``None`` is open)."""

    lower: Any = None
    upper: Any = None

    @classmethod
    def with_range(cls, lower: Any, upper: Any) -> RangeQuery:
        return cls(lower, upper)

    @classmethod
    def with_no_bounds(cls) -> RangeQuery:
        return cls()


@dataclass(frozen=True)
class WindowKeyQuery:
    """A key's windows whose start lies in ``[time_from, time_to]``, as (start, value)."""

    key: Any
    time_from: int
    time_to: int

    @classmethod
    def with_key_and_window_start_range(cls, key: Any, time_from: int, time_to: int
                                        ) -> WindowKeyQuery:
        return cls(key, time_from, time_to)


@dataclass(frozen=True)
class VersionedKeyQuery:
    """A key's ``VersionedRecord`` in a versioned store: the latest, or ``as_of`` a time."""

    key: Any
    as_of_timestamp: int | None = None

    @classmethod
    def with_key(cls, key: Any) -> VersionedKeyQuery:
        return cls(key)

    def as_of(self, timestamp: int) -> VersionedKeyQuery:
        return replace(self, as_of_timestamp=timestamp)


@dataclass(frozen=True)
class StateQueryRequest:
    """A query of one store (Kafka's ``StateQueryRequest``)."""

    store_name: str
    query: Any = None
    partitions: frozenset[int] | None = None
    bound: PositionBound = field(default_factory=PositionBound.unbounded)
    active_only: bool = False

    @classmethod
    def in_store(cls, name: str) -> StateQueryRequest:
        return cls(name)

    def with_query(self, query: Any) -> StateQueryRequest:
        return replace(self, query=query)

    def with_partitions(self, partitions: Iterable[int]) -> StateQueryRequest:
        return replace(self, partitions=frozenset(partitions))

    def with_all_partitions(self) -> StateQueryRequest:
        return replace(self, partitions=None)

    def with_position_bound(self, bound: PositionBound) -> StateQueryRequest:
        return replace(self, bound=bound)

    def require_active(self) -> StateQueryRequest:
        return replace(self, active_only=True)


@dataclass(frozen=True)
class QueryResult:
    """One partition's answer: a result and the store's position, or a failure."""

    result: Any = None
    position: Position | None = None
    failure: FailureReason | None = None
    failure_message: str = ""

    def is_success(self) -> bool:
        return self.failure is None

    def is_failure(self) -> bool:
        return self.failure is not None

    def get_result(self) -> Any:
        """The result; a failure raises ``StoreError`` with its reason."""
        if self.failure is not None:
            msg = f"the query failed ({self.failure.value}): {self.failure_message}"
            raise StoreError(msg)
        return self.result

    def get_failure_reason(self) -> FailureReason | None:
        return self.failure

    def get_failure_message(self) -> str:
        return self.failure_message

    def get_position(self) -> Position | None:
        return self.position


@dataclass(frozen=True)
class StateQueryResult:
    """Every partition's ``QueryResult`` this instance could answer for."""

    partition_results: dict[int, QueryResult]

    def get_partition_results(self) -> dict[int, QueryResult]:
        return dict(self.partition_results)

    def get_only_partition_result(self) -> QueryResult:
        """The one partition's result; ``StoreError`` unless exactly one answered."""
        answered = [r for r in self.partition_results.values() if r.is_success()]
        if len(answered) != 1:
            msg = (f"expected one partition's result, got {len(answered)} successes of "
                   f"{sorted(self.partition_results)}; narrow the request with_partitions()")
            raise StoreError(msg)
        return answered[0]

    def get_position(self) -> Position:
        """The positions of every answering partition, merged."""
        merged: dict[str, dict[int, int]] = {}
        for result in self.partition_results.values():
            if result.position is not None:
                for topic, parts in result.position.offsets.items():
                    merged.setdefault(topic, {}).update(parts)
        return Position(merged)


def run_query(streams: KafkaStreams, request: StateQueryRequest) -> StateQueryResult:
    """``KafkaStreams.query``: run ``request`` on this instance's tasks of its store."""
    name = request.store_name
    if name not in streams.topology.state_stores:
        msg = (f"store '{name}' is not in this topology (stores: "
               f"{sorted(streams.topology.state_stores) or 'none'}); check the name")
        raise StoreError(msg)
    active = {tid: task for tid, task in streams.local_tasks().items() if name in task.stores}
    standby = {} if request.active_only or streams.standbys is None else dict(
        streams.standbys.stores(name))
    positions = streams.task_positions()
    results: dict[int, QueryResult] = {}
    for partition in sorted({t.partition for t in active} | {t.partition for t in standby}):
        if request.partitions is not None and partition not in request.partitions:
            continue
        task_id = next((t for t in active if t.partition == partition), None)
        if task_id is None:
            tid = next(t for t in standby if t.partition == partition)
            store, position = standby[tid], None  # a standby has no input position
        else:
            store, position = active[task_id].stores[name], _position(positions.get(task_id))
        results[partition] = _answer(request, store, position, partition)
    if request.partitions is not None:
        for partition in sorted(request.partitions - set(results)):
            results[partition] = QueryResult(
                failure=FailureReason.NOT_PRESENT,
                failure_message=f"partition {partition} of store '{name}' has no task here")
    return StateQueryResult(results)


def _position(offsets: Mapping[tuple[str, int], int] | None) -> Position:
    out: dict[str, dict[int, int]] = {}
    for (topic, partition), next_offset in (offsets or {}).items():
        out.setdefault(topic, {})[partition] = next_offset - 1
    return Position(out)


def _answer(request: StateQueryRequest, store: Any, position: Position | None,
            partition: int) -> QueryResult:
    bound = request.bound.position
    if bound is not None and (position is None or not position.reaches(bound, partition)):
        return QueryResult(position=position, failure=FailureReason.NOT_UP_TO_BOUND,
                           failure_message=f"the store is at {position}, not yet at {bound}")
    query, kind = request.query, getattr(store, "store_kind", "")
    try:
        if isinstance(query, KeyQuery) and kind.endswith("key_value"):
            found = store.get(query.key)
            result = getattr(found, "value", found) if kind.startswith("timestamped") else found
        elif isinstance(query, TimestampedKeyQuery) and kind == "timestamped_key_value":
            result = store.get(query.key)
        elif isinstance(query, RangeQuery) and kind.endswith("key_value") \
                and not kind.startswith("versioned"):
            with store.range(query.lower, query.upper) as entries:
                result = [(kv.key, getattr(kv.value, "value", kv.value)
                           if kind.startswith("timestamped") else kv.value) for kv in entries]
        elif isinstance(query, WindowKeyQuery) and kind.endswith("window"):
            with store.fetch(query.key, query.time_from, query.time_to) as entries:
                result = [(kv.key, getattr(kv.value, "value", kv.value)
                           if kind.startswith("timestamped") else kv.value) for kv in entries]
        elif isinstance(query, VersionedKeyQuery) and kind == "versioned_key_value":
            result = store.get(query.key, query.as_of_timestamp)
        else:
            return QueryResult(position=position, failure=FailureReason.UNKNOWN_QUERY_TYPE,
                               failure_message=f"{type(query).__name__} cannot run on a "
                                               f"{kind or 'custom'} store")
    except Exception as exc:  # a store error is the partition's failure, not the caller's
        return QueryResult(position=position, failure=FailureReason.STORE_EXCEPTION,
                           failure_message=f"{type(exc).__name__}: {exc}")
    return QueryResult(result, position)
