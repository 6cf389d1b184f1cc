"""The record collector of a stream thread: serialized task output handed to a Kafka producer.

The collector picks partitions as Kafka's Java producer does (murmur2 of the key bytes, so the
same key lands in the same partition as with Kafka Streams) and applies the production
exception handler to records the broker refuses. Invariant: a record accepted by ``send`` is
either delivered by the next ``flush`` or reported there as an error (raised, or skipped and
counted under ``log_and_continue``); a record the producer refuses at once raises
``ProductionError`` to the sink (whose guard applies the handler); nothing is dropped silently.
"""

from __future__ import annotations

import logging
import weakref
from collections import deque
from collections.abc import Callable
from itertools import islice, repeat
from typing import Any

from kslab.errors import StreamsError
from kslab.processor.partitioner import default_partition, default_partitions
from kslab.runtime._errors import ProductionError
from kslab.state.write_behind import WriteBehindKeyValueStore

__all__ = ["KafkaCollector"]

_HANDLER_IS = "the production exception handler is "
_BATCH_LIMIT = 10_000  # writes held per changelog partition before an early flush

log = logging.getLogger("kslab.runtime")


class KafkaCollector:
    """Sends task output through one producer; ``flush`` surfaces delivery failures."""

    def __init__(self, producer: Any, partition_counts: Callable[[str], int], *,
                 continue_on_error: bool = False,
                 on_error: Callable[[Any, Exception, bool], None] | None = None) -> None:
        self._producer: Any = None
        self._produce: Any = None
        if producer is not None:
            self.bind(producer)
        self._count_of = partition_counts
        self._counts: dict[str, int] = {}
        self._continue = continue_on_error
        self._on_error = on_error
        self.changelogs: set[str] = set()
        self.changelog_sent: dict[tuple[str, int], int] = {}
        # changelogs of key-value stores: every write is held, in order, until the flush
        # (sent after the outputs before it, as one call of the producer per partition)
        self.batched: set[str] = set()
        self._pending: dict[tuple[str, int], list[tuple[Any, Any, Any, int]]] = {}
        # stores holding their writes as objects until the changelogs go out
        # (kslab.state.write_behind); weak, as a closed task's stores are let go
        self._holding: weakref.WeakSet[Any] = weakref.WeakSet()
        self.batch_limit = _BATCH_LIMIT
        # exactly-once: every changelog write waits for the commit, the unbatched ones here in
        # order, so a transaction holds changelog records only while it commits: on a broker
        # that shows aborted records to read_committed restores (Tansu 0.6), a crash
        # mid-transaction then rarely leaves any for the next owner's restore to replay
        self.hold_changelogs = False
        self._held_records: list[tuple[str, Any, Any, int, int, Any]] = []
        self.failures: list[tuple[str, str, Any]] = []  # (message, topic, key)
        self.skipped = 0

    def bind(self, producer: Any) -> None:
        """Send through ``producer`` from now on."""
        self._producer = producer
        self._produce = producer.produce

    def partitions_for(self, topic: str) -> int:
        """How many partitions ``topic`` has (looked up once, then cached)."""
        count = self._counts.get(topic)
        if count is None:
            count = self._counts[topic] = self._count_of(topic)
        return count

    def send(self, topic: str, key: bytes | None, value: bytes | None, headers: Any,
             timestamp: int, partition: Any, sink: str | None) -> None:
        """Produce one record; ``partition`` ``None`` means Kafka's default partitioner."""
        if partition is None:
            if key is None:
                partition = -1
            else:
                count = self._counts.get(topic) or self.partitions_for(topic)
                partition = default_partition(key, count) if count > 1 else 0
        elif not isinstance(partition, int):
            for p in sorted(partition):  # a multicast partitioner
                self.send(topic, key, value, headers, timestamp, p, sink)
            return
        elif topic in self.changelogs:  # the task's own partition: count it for checkpoints
            if self.hold_changelogs:  # in order, until the commit (flush_changelogs)
                self._held_records.append((topic, key, value, partition, timestamp, headers))
                return
            tp = (topic, partition)
            self.changelog_sent[tp] = self.changelog_sent.get(tp, 0) + 1
        self._produce_one(topic, key, value, partition, timestamp, headers)

    def _produce_one(self, topic: str, key: bytes | None, value: bytes | None,
                     partition: int, timestamp: int, headers: Any) -> None:
        """Hand one record to the producer: retried while its local queue is full, raised
        as ``ProductionError`` when it refuses the record at once."""
        hdrs = list(headers) if headers else None
        try:  # positional: confluent-kafka parses keywords at ~0.5 us a call
            self._produce(topic, value, key, partition, None, None, timestamp, hdrs)
        except Exception as exc:
            self._not_taken(exc, topic, key, value, partition, timestamp, hdrs)

    def _not_taken(self, error: Exception, topic: str, key: bytes | None, value: bytes | None,
                   partition: int, timestamp: int, hdrs: list[Any] | None) -> None:
        """A record the producer did not take at once (``error``): retried while its local
        queue is full (``BufferError``), else raised as ``ProductionError``."""
        if isinstance(error, BufferError):
            self._wait_and_retry(topic, key, value, partition, timestamp, hdrs)
            return
        raise _refused(topic, key, error) from error

    def _produce_columns(self, topic: str, keys: list[bytes | None],
                         values: list[bytes | None], partitions: list[int],
                         timestamps: list[int], headers: list[Any] | None) -> None:
        """``_produce_one`` of each record given as columns, in order, the producer called
        in C (no Python frame a record); a record it does
        not take at once goes through ``_not_taken`` and the records after it follow."""
        produce, count, start = self._produce, len(timestamps), 0
        hdrs: Any = repeat(None) if not headers or headers.count(None) == count \
            else [list(header) if header else None for header in headers]
        while start < count:
            rest = iter(timestamps[start:] if start else timestamps)
            try:  # (the columns themselves the first time: no islice between them and map)
                deque(map(produce, repeat(topic), _from(values, start), _from(keys, start),
                          _from(partitions, start), repeat(None), repeat(None), rest,
                          _from(hdrs, start)), 0)
                return
            except Exception as exc:
                # every column's iterator gave the failing record: its place, from the rest
                failed = count - rest.__length_hint__() - 1
                header = None if hdrs.__class__ is repeat else hdrs[failed]
                self._not_taken(exc, topic, keys[failed], values[failed], partitions[failed],
                                timestamps[failed], header)
                start = failed + 1

    def send_columns(self, topic: str, keys: list[bytes | None], values: list[bytes | None],
                     headers: list[Any] | None, timestamps: list[int],
                     partitions: list[int | None] | None) -> None:
        """``send`` of each record given as columns, in order (a batch run's sink records;
        a ``None`` partition: the default partitioner; ``partitions`` ``None``: partition 0),
        with ``send``'s outcomes: the same partitions, retries when the local queue is full,
        refusals raised."""
        if partitions is None:
            partitions = [0] * len(timestamps)
        if topic in self.changelogs:  # (counted per record for checkpoints)
            for record in zip(keys, values, headers or [None] * len(keys), timestamps,
                              partitions, strict=True):
                self.send(topic, *record, None)
            return
        if None in partitions:  # the default partitioner's, where no other chose
            count = self._counts.get(topic) or self.partitions_for(topic)
            defaults = default_partitions(keys, count)
            if partitions.count(None) == len(partitions) and not keys.count(None):
                partitions = defaults  # (every key's: the usual sink)
            else:
                partitions = [(-1 if key is None else default) if partition is None
                              else partition  # (-1: a None key, the producer's choice)
                              for partition, default, key in zip(partitions, defaults, keys,
                                                                 strict=True)]
        self._produce_columns(topic, keys, values, partitions, timestamps,  # type: ignore[arg-type]
                              headers)

    def writer(self, topic: str) -> Callable[..., None] | None:
        """A direct writer for a one-partition topic (sinks skip ``send``'s general path);
        none for a changelog whose writes wait for the commit."""
        if self.partitions_for(topic) != 1 or (self.hold_changelogs and topic in self.changelogs):
            return None
        return _TopicWriter(self, topic, self._produce).append

    def changelog_batch(self, topic: str, partition: int
                        ) -> list[tuple[Any, Any, Any, int]] | None:
        """Where a batched changelog's writes wait for the commit: a list of every write in
        order, ``(key, value, headers, timestamp)`` (the task's context appends them), or
        ``None`` when ``topic`` is not batched.

        Every write, not each key's last: Java's change-logging layer logs every put of a
        store without a cache (with one, the cache's flush already sends each key's last),
        and a versioned store restored from a plain store's changelog needs each version."""
        if topic not in self.batched:
            return None
        pending = self._pending.get((topic, partition))  # cleared in place, never replaced
        if pending is None:
            pending = self._pending[(topic, partition)] = []
        return pending

    def hold(self, store: Any) -> None:
        """Have ``store`` (a ``WriteBehindKeyValueStore``) write its held objects behind before
        each changelog flush, and drop them with the changelogs on an abort."""
        self._holding.add(store)

    def flush_full_changelogs(self, transactional: bool = False) -> None:
        """Send the batched changelog writes early where ``batch_limit`` writes wait or are
        held (the stream thread asks after each polled batch, so a batch may go a batch
        over); outside a transaction only once the records before them are acknowledged, as
        ``flush`` sends them."""
        limit = self.batch_limit
        if len(self._held_records) >= limit or any(
                len(pending) >= limit for pending in self._pending.values()) or (
                self._holding and any(store.held_put_count() >= limit
                                      for store in self._held_stores())):
            if not transactional:
                self._acknowledged(60.0)
            self.flush_changelogs()

    def _acknowledged(self, timeout: float) -> None:
        """Wait until every record sent so far is acknowledged (``StreamsError`` if not)."""
        remaining = self._producer.flush(timeout)
        if remaining:
            msg = f"{remaining} records were not acknowledged within {timeout} s; check the broker"
            raise StreamsError(msg)

    def _held_stores(self) -> list[Any]:
        """The stores still holding writes (a closed one is a plain store again: let go)."""
        stores = [store for store in self._holding if type(store) is WriteBehindKeyValueStore]
        if len(stores) != len(self._holding):
            self._holding = weakref.WeakSet(stores)
        return stores

    def flush_changelogs(self) -> None:
        """Produce every batched changelog write since the previous flush, in order, one
        producer call per changelog partition (held writes are written behind into the
        batches first); a partition's writes are forgotten once all of them were taken."""
        for store in self._held_stores():
            store.write_behind()
        produce_one = self._produce_one
        sent = self.changelog_sent
        held, self._held_records = self._held_records, []
        for topic, key, value, partition, timestamp, headers in held:
            produce_one(topic, key, value, partition, timestamp, headers)
            sent[(topic, partition)] = sent.get((topic, partition), 0) + 1
        for (topic, partition), pending in self._pending.items():
            if not pending:
                continue
            count = len(pending)
            keys, values, headers, timestamps = map(list, zip(*pending, strict=True))
            self._produce_columns(topic, keys, values, [partition] * count, timestamps, headers)
            pending.clear()
            tp = (topic, partition)
            sent[tp] = sent.get(tp, 0) + count

    def drop_changelogs(self) -> None:
        """Forget unsent changelog writes and held ones (their transaction is being aborted)."""
        self._held_records = []
        for pending in self._pending.values():
            pending.clear()
        for store in self._held_stores():
            store.drop_held()

    def _wait_and_retry(self, topic: str, key: Any, value: Any, partition: int,
                        timestamp: int, headers: Any) -> None:
        while True:
            self._producer.poll(0.05)  # the local queue is full: let deliveries drain it
            try:
                self._produce(topic, value, key, partition, None, None, timestamp, headers)
                return
            except BufferError:
                continue

    def delivery_report(self, error: Any, message: Any) -> None:
        """Producer callback (configured to report errors only): the broker refused a record."""
        if error is None:
            return
        topic = message.topic() if message is not None else "?"
        key = message.key() if message is not None else None
        text = f"sending a record to topic '{topic}' failed (key {key!r}): {error}; {_HANDLER_IS}"
        if _never_skipped(error):  # as Java: a fenced or broken producer is no record's fault
            self.failures.append((f"{text[:-len(_HANDLER_IS)]}the producer cannot send any "
                                  "more records, so no production exception handler is asked; "
                                  "restart the application", topic, key))
            return
        if self._continue:  # logged before it is counted: a reader of the count finds the log
            log.warning("%slog_and_continue; skipped", text)
        if self._on_error is not None:  # counts a skipped record, writes the DLQ if any
            self._on_error(message, StreamsError(str(error), topic=topic), self._continue)
        if self._continue:
            self.skipped += 1
            return
        self.failures.append((f"{text}log_and_fail; set default.production.exception.handler="
                              "log_and_continue to skip records the broker refuses", topic, key))

    def check(self) -> None:
        """Raise the first delivery failure seen since the last check."""
        if self.failures:
            (msg, topic, key), self.failures = self.failures[0], []
            raise StreamsError(msg, topic=topic, key=key)

    def flush(self, timeout: float = 60.0) -> None:
        """Wait until every record sent so far is acknowledged, then send the batched
        changelog writes and wait for those too, then raise any failure (at least once).

        The outputs go first so that a crash can never leave a changelog ahead of the records
        its updates produced: a store restored from it would go on from updates whose
        outputs were lost (a word count's 30..34 never sent). Under exactly once the
        transaction makes both one (``flush_changelogs`` before its commit)."""
        if any(self._pending.values()) or any(store.held_writes()
                                              for store in self._held_stores()):
            self._acknowledged(timeout)
        self.flush_changelogs()
        remaining = self._producer.flush(timeout)
        if remaining:
            msg = f"{remaining} records were not acknowledged within {timeout} s; check the broker"
            raise StreamsError(msg)
        self.check()


class _TopicWriter:
    """The direct writer of one one-partition topic: ``append`` takes serialized records (a
    sink encodes them first, with ``core.nodes.codec_writer``)."""

    __slots__ = ("_collector", "_produce", "_topic")

    def __init__(self, collector: KafkaCollector, topic: str, produce: Any) -> None:
        self._collector = collector
        self._topic = topic
        self._produce = produce

    def append(self, key: bytes | None, value: bytes | None, headers: Any, timestamp: int,
               _partition: int) -> None:
        """Produce one serialized record at partition 0."""
        topic = self._topic
        hdrs = list(headers) if headers else None
        try:  # positional: confluent-kafka parses keywords at ~0.5 us a call
            self._produce(topic, value, key, 0, None, None, timestamp, hdrs)
        except Exception as exc:  # the collector's one rule: a full queue waits, else refused
            self._collector._not_taken(exc, topic, key, value, 0, timestamp, hdrs)


def _from(column: Any, start: int) -> Any:
    """``column``'s items from ``start`` on: the column itself from 0 (or a ``repeat``)."""
    return column if not start or column.__class__ is repeat else islice(column, start, None)


# errors of the producer rather than of one record: Java fails the task (TaskMigrated or fatal)
# instead of asking the production handler, which would otherwise skip every later record
_PRODUCER_ERRORS = frozenset({90, -144, 47, 45, 49})  # PRODUCER_FENCED, _FENCED,
# INVALID_PRODUCER_EPOCH, OUT_OF_ORDER_SEQUENCE_NUMBER, INVALID_PRODUCER_ID_MAPPING


def _never_skipped(error: Any) -> bool:
    """Whether a delivery error belongs to the producer (fenced, fatal), not to the record."""
    return error.fatal() or error.code() in _PRODUCER_ERRORS


def _refused(topic: str, key: Any, error: Exception) -> Exception:
    """The producer refused a record at once (too large, unknown partition, ...)."""
    return ProductionError(f"the producer refused the record: {error}", topic=topic, key=key)
