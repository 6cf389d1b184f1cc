"""Foreign-key table joins (KIP-213), lowered exactly as Kafka's ``doJoinOnForeignKey``.

Each left row subscribes to its foreign key through the subscription-registration topic (keyed
by the foreign key); the right side keeps the subscriptions in a store, answers through the
subscription-response topic (keyed by the primary key), and the left side joins the answer with
its current value. Invariant: an answer is used only when the hash of the left value it was made
for equals the hash of the left row's current value, so stale answers of an update race never
reach the output.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from kslab.dsl._change import Change
from kslab.dsl._fk_wire import (
    Instruction,
    SubscriptionResponseWrapper,
    SubscriptionResponseWrapperSerde,
    SubscriptionWrapper,
    SubscriptionWrapperSerde,
    murmur3_hash128,
    upgrade_from_v0,
)
from kslab.dsl._graph import (
    ProcessorGraphNode,
    SinkGraphNode,
    StateStoreNode,
    StreamSourceNode,
    TableProcessorNode,
)
from kslab.dsl._naming import resolve_config, resolve_materialized, suffix_or_generate
from kslab.dsl._processors import require_callable, skip_record
from kslab.dsl._stores import store_factory
from kslab.dsl._table_processors import TableSource
from kslab.dsl.config import Consumed, Materialized, Named, internal
from kslab.dsl.joined import TableJoined
from kslab.errors import InvalidArgumentError
from kslab.processor import Processor, ProcessorContext
from kslab.records import Record, ValueAndTimestamp
from kslab.serdes import Bytes
from kslab.serdes import resolve as resolve_serde
from kslab.state import Stores

__all__ = ["foreign_key_join"]

log = logging.getLogger("kslab.dsl")

DELETE_KEY_NO_PROPAGATE = Instruction.DELETE_KEY_NO_PROPAGATE
DELETE_KEY_AND_PROPAGATE = Instruction.DELETE_KEY_AND_PROPAGATE
PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE = Instruction.PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE
PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE = Instruction.PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE

_PREFIX = "KTABLE-FK-JOIN-"


def foreign_key_join(this: Any, other: Any, foreign_key_extractor: Callable[..., Any],
                     joiner: Callable[[Any, Any], Any], table_joined: Any = None,
                     materialized: Any = None, *, left: bool, op: str,
                     name: str | None = None, with_key: bool = False) -> Any:
    """``KTable.join/left_join(other, foreign_key_extractor, joiner, table_joined, ...)``."""
    from kslab.dsl.ktable import KTable

    require_callable(foreign_key_extractor, "foreign_key_extractor", op)
    require_callable(joiner, "joiner", op)
    if isinstance(table_joined, Named):
        table_joined = TableJoined.as_(table_joined.name)  # type: ignore[arg-type]
    if isinstance(table_joined, Materialized) and materialized is None:
        table_joined, materialized = None, table_joined
    tj = internal(resolve_config(TableJoined, table_joined, op, name=name))
    m = resolve_materialized(materialized, op) or Materialized.with_(None, None)
    b = this.builder
    other.enable_sending_old_values(True)
    this.enable_sending_old_values(True)
    user = tj.name

    def named(suffix: str, prefix: str) -> str:
        return suffix_or_generate(b, user, suffix, prefix)

    sub_topic = named("-subscription-registration",
                      _PREFIX + "SUBSCRIPTION-REGISTRATION-") + "-topic"
    b.internal_topics[sub_topic] = None
    fk_serde, pk_serde = other.key_serde, this.key_serde
    send = ProcessorGraphNode(
        named("-subscription-registration-processor", _PREFIX + "SUBSCRIPTION-REGISTRATION-"),
        _Send(foreign_key_extractor, with_key, left, fk_serde, pk_serde, this.value_serde,
              sub_topic))
    b.add_node(this.node, send)
    sub_partitioner = None
    if tj.other_partitioner is not None:
        other_partitioner = tj.other_partitioner

        def sub_partitioner(topic: str, key: Any, value: Any, n: int) -> Any:
            return _single_partition(other_partitioner(topic, key, None, n), topic)

    sink = SinkGraphNode(named("-subscription-registration-sink", "KTABLE-SINK-"), sub_topic,
                         fk_serde, _subscription_serde(), sub_partitioner)
    b.add_node(send, sink)
    source = StreamSourceNode(named("-subscription-registration-source", "KTABLE-SOURCE-"),
                              [sub_topic], Consumed.with_(fk_serde, _subscription_serde()))
    b.add_node(sink, source)
    b.copartition(other.source_nodes | {source.name})
    store_name = named("-subscription-store", _PREFIX + "SUBSCRIPTION-STATE-STORE-")
    b.add_node(b.root, StateStoreNode(_subscription_store(b, store_name), store_name))
    receive = ProcessorGraphNode(
        named("-subscription-receive", _PREFIX + "SUBSCRIPTION-PROCESSOR-"),
        _Receive(store_name, fk_serde, pk_serde, sub_topic), store_names=[store_name])
    b.add_node(source, receive)
    foreign_getters = other.value_getter_supplier()
    join_foreign = ProcessorGraphNode(
        named("-subscription-join-foreign", _PREFIX + "SUBSCRIPTION-PROCESSOR-"),
        _SubscriptionJoin(foreign_getters, pk_serde, sub_topic),
        store_names=foreign_getters.store_names())
    b.add_node(receive, join_foreign)
    foreign_join = ProcessorGraphNode(
        named("-foreign-join-subscription", _PREFIX + "SUBSCRIPTION-PROCESSOR-"),
        _ForeignTableJoin(store_name, fk_serde, pk_serde, sub_topic),
        store_names=[store_name])
    b.add_node(other.node, foreign_join)
    response_topic = named("-subscription-response",
                           _PREFIX + "SUBSCRIPTION-RESPONSE-") + "-topic"
    b.internal_topics[response_topic] = None
    if tj.partitioner is not None:
        partitioner = tj.partitioner

        def response_partitioner(topic: str, key: Any, value: Any, n: int) -> Any:
            return _single_partition(partitioner(topic, key, None, n), topic)
    else:
        def response_partitioner(topic: str, key: Any, value: Any, n: int) -> Any:
            return value.primary_partition

    response_serde = SubscriptionResponseWrapperSerde(other.value_serde)
    response_sink = SinkGraphNode(named("-subscription-response-sink", "KTABLE-SINK-"),
                                  response_topic, pk_serde, response_serde,
                                  response_partitioner)
    b.add_node([join_foreign, foreign_join], response_sink)
    response_source = StreamSourceNode(
        named("-subscription-response-source", "KTABLE-SOURCE-"), [response_topic],
        Consumed.with_(pk_serde, response_serde))
    b.add_node(response_sink, response_source)
    result_sources = this.source_nodes | {response_source.name}
    b.copartition(result_sources)
    primary_getters = this.value_getter_supplier()
    resolver = ProcessorGraphNode(
        named("-subscription-response-resolver",
              _PREFIX + "SUBSCRIPTION-RESPONSE-RESOLVER-PROCESSOR-"),
        _ResponseJoin(primary_getters, this.value_serde, joiner, left, sub_topic),
        store_names=primary_getters.store_names())
    b.add_node(response_source, resolver)
    result_name = named("-result", _PREFIX + "OUTPUT-")
    mat = b.materialize(m, _PREFIX + "OUTPUT-")
    if mat.key_serde is None:
        mat.key_serde = this.key_serde
    supplier = TableSource(mat.store_name, mat.queryable_store_name)
    result = TableProcessorNode(result_name, supplier, store_factory=store_factory(mat))
    b.add_node(resolver, result)
    return KTable(b, result_name, this.key_serde, mat.value_serde, result_sources,
                  mat.store_name, supplier, result)


def _subscription_store(builder: Any, name: str) -> Callable[[], Any]:
    """The subscription store's builder, made at build() (default.dsl.store is known then)."""

    def build() -> Any:
        if builder.default_store_type == "in_memory":
            supplier = Stores.in_memory_key_value_store(name)
        else:
            supplier = Stores.persistent_timestamped_key_value_store(name)
        return Stores.timestamped_key_value_store_builder(
            supplier, Bytes(), _subscription_serde()
        ).with_caching_disabled()

    return build


def _subscription_serde() -> SubscriptionWrapperSerde:
    """The subscription topic's and store's value serde; the processors (de)serialize the
    primary key themselves (with Java's ``-pk`` pseudo topic), so it travels as raw bytes."""
    return SubscriptionWrapperSerde("", Bytes())


def _hash(data: bytes | None) -> tuple[int, int] | None:
    return None if data is None else murmur3_hash128(data)


def _serde(context: ProcessorContext, spec: Any, *, is_key: bool) -> Any:
    if spec is None:
        return context.default_key_serde if is_key else context.default_value_serde  # type: ignore[attr-defined]
    return resolve_serde(spec, is_key=is_key)


def _combined(fk_bytes: bytes) -> bytes:
    """Java's ``CombinedKeySchema.prefixBytes``: the 4-byte length of the foreign key, then it."""
    return len(fk_bytes).to_bytes(4, "big") + fk_bytes


def _skip_out_of_order(context: ProcessorContext) -> None:
    """Java drops out-of-order updates of a versioned table from a foreign-key join, counted."""
    log.info("Skipping out-of-order record from versioned table while performing table-table "
             "join.")
    dropped = getattr(context, "record_dropped", None)
    if dropped is not None:
        dropped()


def _drop_stale_response(context: ProcessorContext, expected: Any, actual: Any) -> None:
    """An answer for an older value of the row is dropped and counted, as Java's (TRACE log)."""
    log.debug("Dropping FK-join response due to hash mismatch. Expected %s. Actual %s",
              expected, actual)
    dropped = getattr(context, "record_dropped", None)
    if dropped is not None:
        dropped()


# -- processors -------------------------------------------------------------------------------


class _FkSupplier:
    kind: type

    def __call__(self) -> Processor:
        return self.kind(self)


class _Send(_FkSupplier):
    def __init__(self, extractor: Callable[..., Any], with_key: bool, left: bool,
                 fk_serde: Any, pk_serde: Any, value_serde: Any, topic: str) -> None:
        self.extractor, self.with_key, self.left = extractor, with_key, left
        self.fk_serde, self.pk_serde, self.value_serde = fk_serde, pk_serde, value_serde
        self.topic = topic
        self.kind = _SendProcessor


class _SendProcessor(Processor):
    def __init__(self, s: _Send) -> None:
        self.s = s

    def init(self, context: ProcessorContext) -> None:
        self.ctx = context
        self.topic = f"{context.application_id}-{self.s.topic}"  # Java's pseudo topics
        self.fk = _serde(context, self.s.fk_serde, is_key=True)
        self.pk = _serde(context, self.s.pk_serde, is_key=True)
        self.values = _serde(context, self.s.value_serde, is_key=False)
        self.v0 = upgrade_from_v0(context.app_configs().get("upgrade.from"))

    def _fk(self, key: Any, value: Any) -> Any:
        return self.s.extractor(key, value) if self.s.with_key else self.s.extractor(value)

    def process(self, record: Record) -> None:
        key, change = record.key, record.value
        if not change.is_latest:  # only versioned tables send these (KIP-914)
            _skip_out_of_order(self.ctx)
            return
        new_fk = None if change.new_value is None else self._fk(key, change.new_value)
        old = change.old_value
        fk_topic = self.topic + "-fk"
        if self.s.left:
            if old is not None:
                old_fk = self._fk(key, old)
                if old_fk is not None and self.fk.serialize(fk_topic, new_fk) != \
                        self.fk.serialize(fk_topic, old_fk):
                    self._send(record, old_fk, DELETE_KEY_AND_PROPAGATE)
                self._send(record, new_fk, PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE)
            elif change.new_value is not None:
                self._send(record, new_fk, PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE)
            return
        if old is not None:
            old_fk = self._fk(key, old)
            if old_fk is None:
                skip_record(self.ctx, "null foreign key")
                return
            if change.new_value is None:
                self._send(record, old_fk, DELETE_KEY_AND_PROPAGATE)
                return
            if new_fk is None:
                skip_record(self.ctx, "null foreign key")
                return
            if self.fk.serialize(fk_topic, new_fk) != self.fk.serialize(fk_topic, old_fk):
                self._send(record, old_fk, DELETE_KEY_NO_PROPAGATE)
            self._send(record, new_fk, PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE)
        elif change.new_value is not None:
            if new_fk is None:
                skip_record(self.ctx, "null foreign key")
                return
            self._send(record, new_fk, PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE)

    def _send(self, record: Record, foreign_key: Any, instruction: int) -> None:
        change = record.value
        value_bytes = None if change.new_value is None else self.values.serialize(
            self.topic + "-vh", change.new_value)
        metadata = self.ctx.record_metadata()
        pk_bytes = self.pk.serialize(self.topic + "-pk", record.key)
        if self.v0:  # upgrade.from < 3.4: Java writes v0 subscriptions (no partition)
            wrapper = SubscriptionWrapper(_hash(value_bytes), instruction, pk_bytes, version=0)
        else:
            partition = metadata.partition if metadata is not None else None
            wrapper = SubscriptionWrapper(_hash(value_bytes), instruction, pk_bytes, partition)
        self.ctx.forward(record.with_key(foreign_key).with_value(wrapper))


class _Receive(_FkSupplier):
    def __init__(self, store_name: str, fk_serde: Any, pk_serde: Any, topic: str) -> None:
        self.store_name, self.fk_serde, self.pk_serde, self.topic = (store_name, fk_serde,
                                                                     pk_serde, topic)
        self.kind = _ReceiveProcessor


class _ReceiveProcessor(Processor):
    def __init__(self, s: _Receive) -> None:
        self.s = s

    def init(self, context: ProcessorContext) -> None:
        self.ctx = context
        self.topic = f"{context.application_id}-{self.s.topic}"  # Java's pseudo topics
        self.store = context.get_state_store(self.s.store_name)
        self.fk = _serde(context, self.s.fk_serde, is_key=True)

    def process(self, record: Record) -> None:
        key, sub = record.key, record.value
        if key is None and sub.instruction != PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE:
            skip_record(self.ctx, "null foreign key")
            return
        new = ValueAndTimestamp(sub, record.timestamp)
        if key is None:
            change = Change(new, None)
        else:
            combined = _combined(self.fk.serialize(self.topic + "-fk", key)) + sub.primary_key
            old = self.store.get(combined)
            if sub.instruction in (DELETE_KEY_AND_PROPAGATE, DELETE_KEY_NO_PROPAGATE):
                self.store.delete(combined)
            else:
                self.store.put(combined, new)
            change = Change(new, old)
        self.ctx.forward(Record((key, sub.primary_key), change, record.timestamp,
                                record.raw_headers))


class _SubscriptionJoin(_FkSupplier):
    def __init__(self, getters: Any, pk_serde: Any, topic: str) -> None:
        self.getters, self.pk_serde, self.topic = getters, pk_serde, topic
        self.kind = _SubscriptionJoinProcessor


class _SubscriptionJoinProcessor(Processor):
    def __init__(self, s: _SubscriptionJoin) -> None:
        self.s = s
        self.getter = s.getters.get()

    def init(self, context: ProcessorContext) -> None:
        self.ctx = context
        self.topic = f"{context.application_id}-{self.s.topic}"  # Java's pseudo topics
        self.getter.init(context)
        self.pk = _serde(context, self.s.pk_serde, is_key=True)

    def process(self, record: Record) -> None:
        foreign_key, pk_bytes = record.key
        stamped_sub = record.value.new_value
        sub = stamped_sub.value
        foreign = None if foreign_key is None else self.getter.get(foreign_key)
        timestamp = stamped_sub.timestamp if foreign is None else max(stamped_sub.timestamp,
                                                                      foreign.timestamp)
        if sub.instruction == DELETE_KEY_NO_PROPAGATE:
            return
        if sub.instruction == PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE and foreign is None:
            return
        value = None
        if sub.instruction != DELETE_KEY_AND_PROPAGATE and foreign is not None:
            value = foreign.value
        primary_key = self.pk.deserialize(self.topic + "-pk", pk_bytes)
        response = SubscriptionResponseWrapper(sub.hash, value, sub.primary_partition)
        self.ctx.forward(Record(primary_key, response, timestamp, record.raw_headers))


class _ForeignTableJoin(_FkSupplier):
    def __init__(self, store_name: str, fk_serde: Any, pk_serde: Any, topic: str) -> None:
        self.store_name, self.fk_serde, self.pk_serde = store_name, fk_serde, pk_serde
        self.topic = topic
        self.kind = _ForeignTableJoinProcessor


class _ForeignTableJoinProcessor(Processor):
    def __init__(self, s: _ForeignTableJoin) -> None:
        self.s = s

    def init(self, context: ProcessorContext) -> None:
        self.ctx = context
        self.topic = f"{context.application_id}-{self.s.topic}"  # Java's pseudo topics
        self.store = context.get_state_store(self.s.store_name)
        self.fk = _serde(context, self.s.fk_serde, is_key=True)
        self.pk = _serde(context, self.s.pk_serde, is_key=True)

    def process(self, record: Record) -> None:
        if record.key is None:
            skip_record(self.ctx, "null key")
            return
        if not record.value.is_latest:  # only versioned tables send these (KIP-914)
            _skip_out_of_order(self.ctx)
            return
        prefix = _combined(self.fk.serialize(self.topic + "-fk", record.key))
        value = record.value.new_value
        with self.store.range(prefix, None) as entries:
            matches = []
            for combined, stamped in entries:
                if not combined.startswith(prefix):
                    break
                matches.append((combined[len(prefix):], stamped.value))
        for pk_bytes, sub in matches:
            primary_key = self.pk.deserialize(self.topic + "-pk", pk_bytes)
            self.ctx.forward(record.with_key(primary_key).with_value(
                SubscriptionResponseWrapper(sub.hash, value, sub.primary_partition)))


class _ResponseJoin(_FkSupplier):
    def __init__(self, getters: Any, value_serde: Any, joiner: Callable[[Any, Any], Any],
                 left: bool, topic: str) -> None:
        self.getters, self.value_serde = getters, value_serde
        self.joiner, self.left, self.topic = joiner, left, topic
        self.kind = _ResponseJoinProcessor


class _ResponseJoinProcessor(Processor):
    def __init__(self, s: _ResponseJoin) -> None:
        self.s = s
        self.getter = s.getters.get()

    def init(self, context: ProcessorContext) -> None:
        self.ctx = context
        self.topic = f"{context.application_id}-{self.s.topic}"  # Java's pseudo topics
        self.getter.init(context)
        self.values = _serde(context, self.s.value_serde, is_key=False)

    def process(self, record: Record) -> None:
        response = record.value
        current = self.getter.get(record.key)
        current_hash = None if current is None else _hash(
            self.values.serialize(self.topic + "-vh", current.value))
        if current_hash != response.original_value_hash:
            _drop_stale_response(self.ctx, response.original_value_hash, current_hash)
            return
        foreign = response.foreign_value
        if foreign is None and (not self.s.left or current is None):
            result = None
        else:
            result = self.s.joiner(None if current is None else current.value, foreign)
        self.ctx.forward(record.with_value(result))


def _single_partition(partitions: Any, topic: str) -> Any:
    """A ``TableJoined`` partitioner's answer, which must name one partition (or none, for the
    default): a subscription or response sent to several partitions would join twice (Java's
    ``KTableImpl.getPartition``)."""
    if partitions is None or isinstance(partitions, int):
        return partitions
    if len(partitions) != 1:
        msg = (
            "The partitions returned by StreamPartitioner#partitions method when used for FK "
            f"join should be a singleton set; the TableJoined partitioner gave "
            f"{sorted(partitions)} for topic '{topic}': return one partition"
        )
        raise InvalidArgumentError(msg)
    return partitions
