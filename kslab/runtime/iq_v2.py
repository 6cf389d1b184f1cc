"""Typed interactive queries in the style of Kafka's IQv2 (KIP-796): ``KafkaStreams.query``.

A ``StateQueryRequest`` names a store, a query and optionally the partitions, a position bound
and whether only active tasks may answer; the result has one ``QueryResult`` per partition this
instance holds, each a success carrying its value and the store's position, or a failure with
a reason (``FailureReason``). Queries: ``KeyQuery`` (a value), ``TimestampedKeyQuery`` (a
``ValueAndTimestamp``), ``RangeQuery`` (key-values, sorted), ``WindowKeyQuery`` (a key's
windows in a start-time range), ``VersionedKeyQuery`` (a ``VersionedRecord``, latest or as
of a time) and ``MultiVersionedKeyQuery`` (the ``VersionedRecord``s valid in a time range).

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

from kslab.errors import InvalidArgumentError, MissingArgumentError, StoreError

if TYPE_CHECKING:
    from kslab.runtime.streams import KafkaStreams

__all__ = [
    "FailureReason", "KeyQuery", "MultiVersionedKeyQuery", "Position", "PositionBound",
    "QueryResult", "RangeQuery", "ResultOrder", "StateQueryRequest", "StateQueryResult",
    "TimestampedKeyQuery", "VersionedKeyQuery", "WindowKeyQuery", "run_query",
]


class FailureReason(enum.Enum):
    """Why a partition's query failed (Kafka's ``FailureReason``)."""

    NOT_ACTIVE = "NOT_ACTIVE"
    NOT_PRESENT = "NOT_PRESENT"
    NOT_UP_TO_BOUND = "NOT_UP_TO_BOUND"
    UNKNOWN_QUERY_TYPE = "UNKNOWN_QUERY_TYPE"
    STORE_EXCEPTION = "STORE_EXCEPTION"


class Position:
    """Offsets by topic and partition: what a store has seen, or a bound to reach.

    Mutable, as Java's: ``with_component`` and ``merge`` change it in place (each offset only
    moves forward) and return it; ``copy()`` is independent of it. Equal by content, and never
    a dict key or set member (Java's ``hashCode`` throws for the same reason).
    """

    __slots__ = ("_offsets",)
    __hash__ = None  # type: ignore[assignment]  # mutable: not a hash key

    def __init__(self, offsets: Mapping[str, Mapping[int, int]] | None = None) -> None:
        self._offsets: dict[str, dict[int, int]] = {
            t: dict(parts) for t, parts in (offsets or {}).items()}

    @classmethod
    def from_map(cls, offsets: Mapping[str, Mapping[int, int]] | None) -> Position:
        """``{topic: {partition: offset}}``, copied (``None``: empty)."""
        return cls(offsets)

    @classmethod
    def empty_position(cls) -> Position:
        """No offsets."""
        return cls()

    @property
    def offsets(self) -> dict[str, dict[int, int]]:
        """A copy of ``{topic: {partition: offset}}``."""
        return {t: dict(parts) for t, parts in self._offsets.items()}

    def with_component(self, topic: str, partition: int, offset: int) -> Position:
        """Raise ``topic``'s ``partition`` to ``offset`` (a lower offset changes nothing);
        returns this position."""
        parts = self._offsets.setdefault(topic, {})
        prior = parts.get(partition)
        if prior is None or offset > prior:
            parts[partition] = offset
        return self

    def merge(self, other: Position | None) -> Position:
        """Take every higher offset of ``other`` (``None``: nothing) into this position;
        returns this position."""
        if other is not None:
            for topic, parts in other.offsets.items():
                for partition, offset in parts.items():
                    self.with_component(topic, partition, offset)
        return self

    def copy(self) -> Position:
        """An independent copy."""
        return Position(self._offsets)

    def get_topics(self) -> frozenset[str]:
        """The topics this position has offsets of."""
        return frozenset(self._offsets)

    def get_partition_positions(self, topic: str) -> dict[int, int]:
        """``{partition: offset}`` of ``topic`` (a copy; empty for a topic it lacks)."""
        return dict(self._offsets.get(topic, {}))

    def is_empty(self) -> bool:
        """Whether it has no topic."""
        return not self._offsets

    def reaches(self, bound: Position, partition: int) -> bool:
        """Whether this position of a store's ``partition`` has reached ``bound``: for each
        topic ``bound`` gives an offset of that partition, an offset at least as high (Kafka's
        ``StoreQueryUtils.isPermitted``; a partition not seen yet has not reached it)."""
        for topic, parts in bound.offsets.items():
            if partition in parts:
                seen = self._offsets.get(topic, {}).get(partition)
                if seen is None or seen < parts[partition]:
                    return False
        return True

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and self._offsets == other.offsets

    def __repr__(self) -> str:
        return f"Position{{position={self._offsets}}}"


class PositionBound:
    """How fresh a result must be: ``unbounded()`` or ``at(position)`` (a copy of it, so
    changing the position later does not move the bound). Unbounded is the empty position."""

    __slots__ = ("position",)
    __hash__ = None  # type: ignore[assignment]  # holds a mutable Position

    def __init__(self, position: Position | None = None) -> None:
        self.position = Position() if position is None else position.copy()

    @classmethod
    def unbounded(cls) -> PositionBound:
        """Any state answers."""
        return cls(None)

    @classmethod
    def at(cls, position: Position) -> PositionBound:
        """Only a store that has reached ``position``."""
        return cls(position)

    def is_unbounded(self) -> bool:
        """Whether any state answers (the bound's position is empty)."""
        return self.position.is_empty()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PositionBound) and self.position == other.position

    def __repr__(self) -> str:
        return f"PositionBound{{position={self.position}}}"


@dataclass(frozen=True)
class KeyQuery:
    """The value of a key of a key-value store (plain, even in a timestamped store)."""

    key: Any

    @classmethod
    def with_key(cls, key: Any) -> KeyQuery:
        return cls(_required_key(key, "KeyQuery", "the key should not be null"))


@dataclass(frozen=True)
class TimestampedKeyQuery:
    """The ``ValueAndTimestamp`` of a key of a timestamped key-value store."""

    key: Any

    @classmethod
    def with_key(cls, key: Any) -> TimestampedKeyQuery:
        return cls(_required_key(key, "TimestampedKeyQuery", "the key should not be null"))


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
        return cls(_required_key(key, "VersionedKeyQuery", "key cannot be null."))

    def as_of(self, timestamp: int) -> VersionedKeyQuery:
        """The version valid at ``timestamp`` (ms) instead of the latest."""
        if timestamp is None:
            msg = ("VersionedKeyQuery.as_of: asOf timestamp cannot be null.; pass a time in ms, "
                   "or leave as_of out for the latest version")
            raise MissingArgumentError(msg)
        return replace(self, as_of_timestamp=timestamp)


class ResultOrder(enum.Enum):
    """The order of a ``MultiVersionedKeyQuery``'s versions (Java's ``ResultOrder``; ``ANY``
    gives them newest first, as Java's store does)."""

    ANY = "ANY"
    ASCENDING = "ASCENDING"
    DESCENDING = "DESCENDING"


@dataclass(frozen=True)
class MultiVersionedKeyQuery:
    """A key's versions in a versioned store that were valid at some time in
    ``[from_time, to_time]`` (ms; ``None``: open), as a list of ``VersionedRecord``."""

    key: Any
    from_time_ms: int | None = None
    to_time_ms: int | None = None
    order: ResultOrder = ResultOrder.ANY

    @classmethod
    def with_key(cls, key: Any) -> MultiVersionedKeyQuery:
        return cls(_required_key(key, "MultiVersionedKeyQuery", "key cannot be null."))

    def from_time(self, timestamp: int | None) -> MultiVersionedKeyQuery:
        """Versions still valid at or after ``timestamp`` (``None``: no lower bound)."""
        return replace(self, from_time_ms=timestamp)

    def to_time(self, timestamp: int | None) -> MultiVersionedKeyQuery:
        """Versions that began at or before ``timestamp`` (``None``: no upper bound)."""
        return replace(self, to_time_ms=timestamp)

    def with_ascending_timestamps(self) -> MultiVersionedKeyQuery:
        return replace(self, order=ResultOrder.ASCENDING)

    def with_descending_timestamps(self) -> MultiVersionedKeyQuery:
        return replace(self, order=ResultOrder.DESCENDING)


def _required_key(key: Any, query: str, java_message: str) -> Any:
    """``key``, which a query cannot be built without (Java's ``requireNonNull``)."""
    if key is None:
        msg = f"{query}.with_key: {java_message}; pass the key to look up"
        raise MissingArgumentError(msg)
    return key


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

    @classmethod
    def for_result(cls, result: Any) -> QueryResult:
        """A success holding ``result`` (``None`` too: a key that is not there)."""
        return cls(result)

    @classmethod
    def for_failure(cls, reason: FailureReason, message: str) -> QueryResult:
        """A failure for ``reason``, explained by ``message``."""
        return cls(failure=reason, failure_message=message)

    @classmethod
    def for_unknown_query_type(cls, query: Any, store: Any) -> QueryResult:
        """The failure of a store that cannot run ``query``, in Java's words."""
        return cls.for_failure(
            FailureReason.UNKNOWN_QUERY_TYPE,
            f"This store ({type(store).__qualname__}) doesn't know how to execute the given "
            f"query ({query}). Contact the store maintainer if you need support for a new "
            "query type.")

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


@dataclass
class StateQueryResult:
    """Every partition's ``QueryResult`` this instance could answer for, or the one result of
    a global store."""

    partition_results: dict[int, QueryResult] = field(default_factory=dict)
    global_result: QueryResult | None = None

    def add_result(self, partition: int, result: QueryResult) -> None:
        """Set ``partition``'s result."""
        self.partition_results[partition] = result

    def set_global_result(self, result: QueryResult) -> None:
        """Set the result of a global store's query."""
        self.global_result = result

    def get_partition_results(self) -> dict[int, QueryResult]:
        return dict(self.partition_results)

    def get_global_result(self) -> QueryResult | None:
        return self.global_result

    def get_only_partition_result(self) -> QueryResult | None:
        """The one successful partition result that holds a value, or ``None`` when none does
        (Java's ``getOnlyPartitionResult``: a key query over every partition finds its key in
        one); ``InvalidArgumentError`` when several do."""
        found = [r for r in self.partition_results.values()
                 if r.is_success() and r.result is not None]
        if len(found) > 1:
            msg = (f"The query did not return exactly one partition result: partitions "
                   f"{sorted(p for p, r in self.partition_results.items() if r in found)} "
                   "answered; narrow the request with with_partitions()")
            raise InvalidArgumentError(msg)
        return found[0] if found else None

    def get_position(self) -> Position:
        """The global result's position, else every partition's positions merged."""
        if self.global_result is not None:
            return self.global_result.position or Position()
        merged = Position()
        for result in self.partition_results.values():
            merged.merge(result.position)
        return merged


def run_query(streams: KafkaStreams, request: StateQueryRequest) -> StateQueryResult:
    """``KafkaStreams.query``: run ``request`` on this instance's tasks of its store.

    As Java's: an unknown store, a client not started yet and a stopped one raise
    ``StoreError``; a global store gets a global ``UNKNOWN_QUERY_TYPE`` result; under
    ``require_active()`` a standby, or an active task whose thread is not running, fails with
    ``NOT_ACTIVE`` and the position bound is not checked; a requested partition no task here
    holds is ``NOT_PRESENT``.
    """
    name, topology = request.store_name, streams.topology
    if name not in topology.state_stores and name not in topology.global_stores:
        msg = (f"Cannot get state store {name} because no such store is registered in the "
               f"topology (stores: {sorted(topology.state_stores) or 'none'}); check the name")
        raise StoreError(msg)
    _check_queryable(streams)
    result = StateQueryResult()
    if name in topology.global_stores:  # Java's KAFKA-13523
        result.set_global_result(QueryResult.for_failure(
            FailureReason.UNKNOWN_QUERY_TYPE, "Global stores do not yet support the "
            "KafkaStreams#query API. Use KafkaStreams#store instead."))
        return result
    active = {tid: task for tid, task in streams.local_tasks().items() if name in task.stores}
    thread_state = {task.task_id: thread.thread_state
                    for thread in streams.metadata_for_local_threads()
                    for task in thread.active_tasks}
    standby = {} if streams.standbys is None else dict(streams.standbys.stores(name))
    positions = streams.task_positions()
    for task_id in sorted(active, key=lambda t: t.partition):
        if request.partitions is None or task_id.partition in request.partitions:
            result.add_result(task_id.partition, _answer(
                request, active[task_id].stores[name], _position(positions.get(task_id)),
                task_id.partition, thread_state.get(task_id, "RUNNING"), active=True))
    for task_id in sorted(standby, key=lambda t: t.partition):
        partition = task_id.partition
        if (request.partitions is None or partition in request.partitions) \
                and partition not in result.partition_results:
            result.add_result(partition, _answer(  # a standby has no input position
                request, standby[task_id], None, partition, "RUNNING", active=False))
    for partition in sorted((request.partitions or set()) - set(result.partition_results)):
        result.add_result(partition, QueryResult.for_failure(
            FailureReason.NOT_PRESENT,
            "The requested partition was not present at the time of the query."))
    return result


def _check_queryable(streams: KafkaStreams) -> None:
    """Refuse a query of a client that has not started, or has stopped (Java's
    ``StreamsNotStartedException`` and ``StreamsStoppedException``)."""
    state = streams.state.name
    if state == "CREATED":
        msg = ("KafkaStreams has not been started, you can retry after calling start(); "
               "start it and wait for RUNNING")
        raise StoreError(msg)
    if state in ("PENDING_SHUTDOWN", "NOT_RUNNING", "PENDING_ERROR", "ERROR"):
        msg = (f"KafkaStreams has been stopped ({state}). This instance can no longer serve "
               "queries; query a running instance, or make a new KafkaStreams")
        raise StoreError(msg)


def _position(offsets: Mapping[tuple[str, int], int] | None) -> Position:
    out: dict[str, dict[int, int]] = {}
    for (topic, partition), next_offset in (offsets or {}).items():
        out.setdefault(topic, {})[partition] = next_offset - 1
    return Position(out)


def _answer(request: StateQueryRequest, store: Any, position: Position | None,
            partition: int, thread_state: str, *, active: bool) -> QueryResult:
    """One partition's result, in Java's order: a running active task when required, a query
    the store knows, the position bound (not under ``require_active``), then the store."""
    if request.active_only and (thread_state != "RUNNING" or not active):
        return QueryResult.for_failure(
            FailureReason.NOT_ACTIVE,
            f"Query requires a running active task, but partition was in state "
            f"{thread_state} and was {'active' if active else 'not active'}.")
    query, kind = request.query, getattr(store, "store_kind", "")
    runner = _runner(query, kind)
    if runner is None:
        return replace(QueryResult.for_unknown_query_type(query, store), position=position)
    bound = PositionBound.unbounded() if request.active_only else request.bound
    if not bound.is_unbounded() and (position is None
                                     or not position.reaches(bound.position, partition)):
        return QueryResult(position=position, failure=FailureReason.NOT_UP_TO_BOUND,
                           failure_message=f"For store partition {partition}, the current "
                           f"position {position} is not yet up to the bound {bound}")
    try:
        return QueryResult(runner(store, query, kind.startswith("timestamped")), position)
    except Exception as exc:  # a store error is the partition's failure, not the caller's
        return QueryResult(position=position, failure=FailureReason.STORE_EXCEPTION,
                           failure_message=f"{type(exc).__name__}: {exc}")


def _runner(query: Any, kind: str) -> Any:
    """The function that runs ``query`` on a store of ``kind``, or ``None`` when that store
    cannot run it."""
    if isinstance(query, KeyQuery) and kind.endswith("key_value") \
            and not kind.startswith("versioned"):
        return _key
    if isinstance(query, TimestampedKeyQuery) and kind == "timestamped_key_value":
        return lambda store, q, _ts: store.get(q.key)
    if isinstance(query, RangeQuery) and kind.endswith("key_value") \
            and not kind.startswith("versioned"):
        return _range
    if isinstance(query, WindowKeyQuery) and kind.endswith("window"):
        return _windows
    if isinstance(query, VersionedKeyQuery) and kind == "versioned_key_value":
        return lambda store, q, _ts: store.get(q.key, q.as_of_timestamp)
    if isinstance(query, MultiVersionedKeyQuery) and kind == "versioned_key_value":
        return lambda store, q, _ts: store.versions(
            q.key, q.from_time_ms, q.to_time_ms, ascending=q.order is ResultOrder.ASCENDING)
    return None


def _key(store: Any, query: KeyQuery, timestamped: bool) -> Any:
    found = store.get(query.key)
    return getattr(found, "value", found) if timestamped else found


def _range(store: Any, query: RangeQuery, timestamped: bool) -> list[tuple[Any, Any]]:
    with store.range(query.lower, query.upper) as entries:
        return [(kv.key, kv.value.value if timestamped else kv.value) for kv in entries]


def _windows(store: Any, query: WindowKeyQuery, timestamped: bool) -> list[tuple[Any, Any]]:
    with store.fetch(query.key, query.time_from, query.time_to) as entries:
        return [(kv.key, kv.value.value if timestamped else kv.value) for kv in entries]
