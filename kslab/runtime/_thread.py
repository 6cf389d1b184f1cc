"""One stream thread: a consumer in the application's group, a producer, and the tasks it owns.

The thread maps assigned partitions to tasks (sub-topology x partition) built with the core's
``StreamTask``, restores their stores from changelogs, feeds them records and commits. Under
``at_least_once`` a commit flushes stores and the producer, then commits offsets; under
``exactly_once_v2`` it sends the offsets inside the producer's transaction and commits that.
Invariant: offsets are committed only for records whose output (sink and changelog records)
the same commit made durable; a failure before that point commits nothing.

Over 600 lines because the poll, process, commit loop, the rebalance callbacks, restoration and
checkpoints share the thread's consumer, producer and task table; the collector, the state
restoration, the standby tasks, the batch path and the events have modules of their own.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kslab.core.bulk import BulkExecutor
from kslab.core.bulk.split import run_queued
from kslab.core.gc_pause import fewer_collections
from kslab.core.task import StreamTask
from kslab.errors import KslabError, StoreError, StreamsError
from kslab.records import TaskId
from kslab.runtime._batch import RuntimePort, run_polled
from kslab.runtime._clients import close_producer
from kslab.runtime._collector import KafkaCollector
from kslab.runtime._restore import RestoreNotifier
from kslab.runtime._source_reset import apply_source_resets
from kslab.runtime._state import (
    ChangelogReader,
    Checkpoint,
    CommittedMetadata,
    check_local_stores,
    store_type,
    task_dir,
    wipe_store,
)
from kslab.runtime._subscription import Subscription
from kslab.state.cache import resize_thread_cache
from kslab.state.write_behind import hold_writes

if TYPE_CHECKING:
    from kslab.runtime._events import ThreadEvents
    from kslab.runtime.streams import KafkaStreams

__all__ = ["StreamThread", "TaskState"]

log = logging.getLogger("kslab.runtime")

# store kinds whose changelog writes are held, every one in order, until the commit's flush
# (sent after the outputs before them, at least once; plain key-value stores hold their puts
# as objects until then: kslab.state.write_behind); the others send as they write
_BATCHED_KINDS = frozenset({"key_value", "timestamped_key_value"})
# the local copy of the offset metadata last committed (for brokers that drop it)
METADATA_FILE = ".kslab-offset-metadata"


class TaskState:
    """A running task and what the thread tracks for it: offsets, changelogs, checkpoint."""

    __slots__ = ("changelog_base", "changelogs", "checkpoint", "committed", "directory",
                 "metadata", "offsets", "persistent", "restored", "task")

    def __init__(self, task: StreamTask, directory: Path, changelogs: dict[str, str],
                 persistent: set[str]) -> None:
        self.task = task
        self.directory = directory
        self.changelogs = changelogs
        self.persistent = persistent
        self.checkpoint = Checkpoint(directory / ".checkpoint")
        self.metadata = CommittedMetadata(directory / METADATA_FILE)
        self.offsets: dict[tuple[str, int], int] = {}
        self.committed: dict[tuple[str, int], int] = {}
        self.restored = 0
        # changelog end = base + records this thread's producer sent there since the restore
        self.changelog_base: dict[tuple[str, int], int] = {}


class StreamThread(threading.Thread):
    """Runs the poll / process / punctuate / commit loop of one consumer."""

    def __init__(self, streams: KafkaStreams, index: int, events: ThreadEvents) -> None:
        super().__init__(name=streams.thread_name(index), daemon=True)
        self.streams = streams
        self.events = events  # what the thread tells its client
        self.index = index
        self.stopping = False  # remove_stream_thread() asked it to end
        self._cache_size: int | None = None  # a new cache budget to apply (resize_cache)
        # changelog partitions being restored: [start, end (as the broker reports it), position]
        self.restoring: dict[tuple[str, int], list[int]] = {}
        self.eos = streams.eos
        self.tasks: dict[TaskId, TaskState] = {}
        self._route: dict[tuple[str, int], tuple[StreamTask, Any, bool, TaskState]] = {}
        self._halt = threading.Event()
        self.rebalancing = True
        self.failed: BaseException | None = None
        self.consumer: Any = None
        self.subscription: Subscription | None = None
        self.producer: Any = None
        self.collector: KafkaCollector | None = None
        # runs of polled records over the DSL operators' batch forms (kslab.core.bulk)
        self.batches: BulkExecutor | None = None
        self._reader: ChangelogReader | None = None
        self._last_commit = time.monotonic()
        self._last_checkpoint = time.monotonic()
        self._dirty = False
        self.stats = {"commit-total": 0, "commit-latency-avg-ms": 0.0, "commit-latency-max-ms":
                      0.0, "process-total": 0, "poll-total": 0, "restore-total": 0,
                      "process-batched-total": 0}  # kslab's: records run in chunks
        self._commit_time = 0.0
        self.lags: dict[tuple[str, int], int] = {}
        # input partitions whose fetch reached the end (the consumer's end-of-partition event)
        # with no record since: their lag is known to be 0 (Kafka's fetched lag, KIP-695)
        self._caught_up: set[tuple[str, int]] = set()
        # tasks holding records they may not process yet (an empty partition still to fetch)
        self._waiting: set[StreamTask] = set()
        # partitions paused because their task's queue holds more than this (Java's
        # buffered.records.per.partition), resumed once it is down to it again
        self._max_buffered = streams.config.get_int("buffered.records.per.partition", 1000)
        self._full: set[tuple[str, int]] = set()
        self._started_at = time.monotonic()

    # -- lifecycle ------------------------------------------------------------------------------

    def shutdown(self) -> None:
        """Ask the loop to finish its current batch, commit and leave the group."""
        self._halt.set()

    def run(self) -> None:
        """The thread body; failures go to the streams' uncaught exception handling."""
        clean = False
        try:
            self._setup()
            self._loop()
            clean = True
        except BaseException as exc:
            self.failed = exc
            log.error("stream thread %s failed: %s", self.name, exc, exc_info=exc)
        finally:
            self._teardown(clean)
            self.events.finished(self)

    def _setup(self) -> None:
        from confluent_kafka import Consumer, Producer

        streams = self.streams
        producer_conf = streams.producer_config(self.index)
        self.collector = KafkaCollector(
            None, streams.partition_count,
            continue_on_error=streams.production_handler == "continue",
            on_error=self.events.production_error)
        self.collector.hold_changelogs = self.eos
        producer_conf["on_delivery"] = self.collector.delivery_report
        self.producer = Producer(producer_conf)
        self.collector.bind(self.producer)
        if streams.config.get("kslab.runtime.bulk") is not False:
            self.batches = BulkExecutor(RuntimePort(self.collector), partitioned=True)
        if self.eos:
            self.producer.init_transactions(30)
            self.producer.begin_transaction()
        self._reader = ChangelogReader(streams.restore_config())
        consumer_conf = streams.consumer_config(self.index)
        self.consumer = Consumer(consumer_conf)
        self.subscription = Subscription(streams.plan, consumer_conf)
        self.subscription.subscribe(self.consumer, on_assign=self._on_assign,
                                    on_revoke=self._on_revoke, on_lost=self._on_lost)

    def _teardown(self, clean: bool) -> None:
        try:
            if clean and self.tasks:
                self._commit(force=True)
                self._close_tasks(list(self.tasks), clean=True)
        except BaseException as exc:
            log.error("commit on close of %s failed: %s", self.name, exc)
            clean = False
            self.failed = self.failed or exc
        if not clean:
            self._abort()
            self._close_tasks(list(self.tasks), clean=False)
        try:
            self.streams.publish_assignment(self.name, [], closed=True)
        except Exception as exc:  # pragma: no cover - best effort on the way out
            log.warning("unpublishing the assignment of %s: %s", self.name, exc)
        for closer in (self._close_consumer, self._close_producer):
            try:
                closer()
            except Exception as exc:  # pragma: no cover - best effort on the way out
                log.warning("closing a client of %s: %s", self.name, exc)

    def _close_consumer(self) -> None:
        if self.consumer is not None:
            consumer, self.consumer = self.consumer, None
            consumer.close()  # leaves the group (revoke callback commits nothing: no tasks)
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def _close_producer(self) -> None:
        if self.producer is not None:
            producer, self.producer = self.producer, None
            close_producer(producer, 5, f"the producer of {self.name}")

    def _abort(self) -> None:
        if self.eos and self.collector is not None:
            self.collector.drop_changelogs()  # they belong to the aborted transaction
        if self.eos and self.producer is not None:
            try:
                self.producer.abort_transaction(10)
            except Exception as exc:
                log.warning("aborting the transaction of %s: %s", self.name, exc)

    def resize_cache(self, size_bytes: int) -> None:
        """Give this thread's record cache ``size_bytes`` (Java's ``resizeCache``): the thread
        applies it itself, before its next poll, as the cache is not shared across threads."""
        self._cache_size = size_bytes

    def _rewind(self, messages: list[Any]) -> None:
        """Seek each partition back to the first of ``messages``, unprocessed: the next poll
        pauses it and ``resume()`` fetches them again."""
        from confluent_kafka import TopicPartition

        first: dict[tuple[str, int], int] = {}
        for message in messages:
            if message.error() is None:
                first.setdefault((message.topic(), message.partition()), message.offset())
        for (topic, partition), offset in first.items():
            self.consumer.seek(TopicPartition(topic, partition, offset))

    def _apply_cache_size(self) -> None:
        size, self._cache_size = self._cache_size, None
        if size is not None and self.collector is not None:
            resize_thread_cache(self.collector, size)

    # -- the loop -------------------------------------------------------------------------------

    def _loop(self) -> None:
        streams = self.streams
        consumer = self.consumer
        batch = streams.max_poll_records
        timeout = streams.poll_ms / 1000
        interval = streams.commit_interval_ms / 1000
        paused: list[tuple[str, int]] | None = None  # what this thread paused, while paused
        while not self._halt.is_set():
            if streams.is_paused():  # KafkaStreams.pause(): poll on (the group membership
                assigned = consumer.assignment()  # stays), fetch and process nothing
                if paused != [(tp.topic, tp.partition) for tp in assigned]:
                    consumer.pause(assigned)  # (again after a rebalance)
                    paused = [(tp.topic, tp.partition) for tp in assigned]
            elif paused is not None:
                consumer.resume([tp for tp in consumer.assignment()
                                 if (tp.topic, tp.partition) not in self._full])
                paused = None
            self._apply_cache_size()
            # the poll inside the body too: its messages are tracked containers, a thousand a
            # poll, which at the default young threshold set off a collection in every poll
            # (and, every few dozen, a collection of the whole heap) although all of them die
            # with the batch (core.gc_pause)
            with fewer_collections():
                messages = consumer.consume(batch, timeout)
                self.stats["poll-total"] += 1
                if messages and streams.is_paused():  # paused during this poll: its records
                    self._rewind(messages)  # wait for resume(), as Java's paused tasks keep
                    messages = None  # theirs
                if messages:
                    self._process(messages)
                elif self._waiting and paused is None:
                    self._process_waiting()  # an idle deadline may have passed
                messages = None  # freed before the next poll allocates its own
            if paused is None:  # a paused client's punctuators wait, as in Kafka
                self._punctuate_wall_clock()
            now = time.monotonic()
            if now - self._last_commit >= interval or self._commit_requested():
                self._commit()
            self.subscription.refresh(consumer, now)  # type: ignore[union-attr]

    def _process(self, messages: list[Any]) -> None:
        """Feed a polled batch to the tasks, one run of consecutive records of a partition at
        a time: an idle one-input task takes the run as one chunk where the batch executor
        accepts it (``kslab.runtime._batch``), else processes each record at once; other
        tasks queue them (partition order, timestamps) and process afterwards, as far as
        they may (``_drain``).

        A run shares one route lookup and one offset write; the offset written is the one
        after the last record processed, also when a record fails.
        """
        route = self._route
        batches = self.batches
        caught_up = self._caught_up
        queued: set[StreamTask] = set(self._waiting)
        processed = 0
        task: Any = None
        raw: Any = None

        def each(task: Any, queue: Any, state: Any, tp: tuple[str, int], run: list[Any],
                 split: bool = False) -> None:
            """Process ``run`` (records of ``tp``) at once, one by one (``split``: rows the
            batch path left, the ones before them run in batch); the offset written is the
            one after the last record processed, also when a record fails."""
            nonlocal raw, processed
            if split:
                state.offsets[tp] = run[0].offset()
            done = -1  # the offset of the last record processed
            try:
                for message in run:
                    offset = message.offset()
                    raw = (tp[0], tp[1], offset, message.timestamp()[1],
                           message.key(), message.value(), message.headers())
                    task.process_now(raw, queue)
                    if task.stream_time_queue.heap:
                        task.maybe_punctuate_stream_time()
                    done = offset
                    processed += 1
            finally:
                if done >= 0:  # also after a failure: the offset after the last one
                    state.offsets[tp] = done + 1
            raw = None

        try:
            for topic, partition, run in _partition_runs(messages, self._consumer_error):
                tp = (topic, partition)
                caught_up.discard(tp)  # more may follow this run: known again at its end event
                entry = route.get(tp)
                if entry is None:
                    continue  # a partition revoked while its records were in flight
                task, queue, single, state = entry
                if not single or task in queued or task.has_records():
                    for message in run:
                        raw = (topic, partition, message.offset(), message.timestamp()[1],
                               message.key(), message.value(), message.headers())
                        task.add_record(raw)
                    raw = None
                    queued.add(task)
                    state.offsets[tp] = run[-1].offset() + 1
                    processed += len(run)
                    if len(queue) > self._max_buffered:
                        self._pause_full(tp)
                    continue
                if batches is None or len(run) < 2:
                    each(task, queue, state, tp, run)
                    continue
                batched = run_polled(batches, task, topic, partition, run,
                                     partial(each, task, queue, state, tp, split=True))
                state.offsets[tp] = run[-1].offset() + 1
                processed += batched
                self.stats["process-batched-total"] += batched
            for task in queued:
                self._drain(task)
        except KslabError as exc:
            self._fail(task, raw, exc)
        finally:
            self.stats["process-total"] += processed
            self._dirty = True
        self.collector.flush_full_changelogs(self.eos)  # type: ignore[union-attr]

    def _drain(self, task: StreamTask) -> bool:
        """Process ``task``'s queued records while it may: a multi-input task waits while one
        of its partitions is empty and not known to be caught up (Kafka's ``readyToProcess``,
        ``max.task.idle.ms``); it then stays ``_waiting`` for the next poll. True when it
        processed a record."""
        processed = False
        batches = self.batches
        while task.is_processable() and task.process():
            processed = True
            if task.stream_time_queue.heap:
                task.maybe_punctuate_stream_time()
            if batches is not None:
                self._drain_run(batches, task)
        if task.has_records():
            self._waiting.add(task)
        else:
            self._waiting.discard(task)
        if self._full and processed:
            self._resume_drained(task)
        return processed

    def _drain_run(self, batches: Any, task: StreamTask) -> None:
        """After ``task`` took a queued record: the records its partition group takes next
        one after another from that partition (``PartitionGroup.run_after``) as one chunk,
        as a polled run of a one-input task (``run_queued``). Those the record path takes
        over go through ``process_now`` in order; any left after an error go back to the
        queue, as if never taken."""
        found = task.partition_group.run_after()
        if found is None:
            return
        queue, raws = found

        def each(start: int, end: int) -> None:
            """Rows ``[start, end)`` of the run on the record path."""
            index = start
            try:
                for index in range(start, end):  # (a skipped one is no step: no punctuation)
                    if task.process_now(raws[index], queue) and task.stream_time_queue.heap:
                        task.maybe_punctuate_stream_time()
            except BaseException:
                queue.put_back(raws[index + 1:])
                raise

        self.stats["process-batched-total"] += run_queued(batches, task, queue, raws, each)

    def _pause_full(self, tp: tuple[str, int]) -> None:
        """Stop fetching ``tp``: its task's queue holds more than
        ``buffered.records.per.partition`` (a task waiting for another partition)."""
        from confluent_kafka import TopicPartition

        if tp not in self._full:
            self._full.add(tp)
            self.consumer.pause([TopicPartition(*tp)])

    def _resume_drained(self, task: StreamTask, *, every: bool = False) -> None:
        """Fetch again the paused partitions of ``task`` whose queue is down to
        ``buffered.records.per.partition`` (``every``: all of them, the task is closing)."""
        from confluent_kafka import TopicPartition

        drained = [tp for tp, queue in task.queues.items()
                   if tp in self._full and (every or len(queue) <= self._max_buffered)]
        if drained:
            self._full.difference_update(drained)
            if self.consumer is not None:
                self.consumer.resume([TopicPartition(*tp) for tp in drained])

    def _process_waiting(self) -> None:
        """Give the tasks waiting for an empty partition another chance (no records came)."""
        task: Any = None
        try:
            for task in list(self._waiting):
                if self._drain(task):
                    self._dirty = True
        except KslabError as exc:
            self._dirty = True
            self._fail(task, None, exc)

    def _fail(self, task: Any, raw: Any, exc: KslabError) -> None:
        """Raise what the error policy makes of ``exc``, raised processing ``raw`` (``None``:
        a queued record) in ``task``."""
        error = self.streams.errors_policy.failure(self, task, raw, exc)
        if error is exc:
            raise exc
        raise error from exc

    def _fetched_lag(self, tp: tuple[str, int]) -> int | None:
        """What the tasks' partition groups know of ``tp``'s lag beyond their queue: 0 once
        the consumer reported its end with no record since, else unknown."""
        return 0 if tp in self._caught_up else None

    def _consumer_error(self, message: Any) -> None:
        from confluent_kafka import KafkaError

        error = message.error()
        if error.code() == KafkaError._PARTITION_EOF:
            self._caught_up.add((message.topic(), message.partition()))
            return
        if error.fatal():
            msg = f"the consumer of {self.name} failed: {error}"
            raise StreamsError(msg)
        log.warning("consumer of %s: %s", self.name, error)

    def _punctuate_wall_clock(self) -> None:
        for state in self.tasks.values():
            task = state.task
            if (task.wall_clock_queue.heap or task.idle is not None) \
                    and task.maybe_punctuate_wall_clock():
                self._dirty = True

    def _commit_requested(self) -> bool:
        return any(state.task.commit_requested for state in self.tasks.values())

    # -- commits --------------------------------------------------------------------------------

    def _commit(self, force: bool = False) -> None:
        from confluent_kafka import TopicPartition

        self._last_commit = time.monotonic()
        if not self._dirty and not force:
            return
        start = time.perf_counter()
        for state in self.tasks.values():
            state.task.commit()  # flushes record caches: may still send records
        offsets = []
        metadata: list[tuple[TaskState, dict[tuple[str, int], tuple[int, str]]]] = []
        positions = {}
        for task_id, state in self.tasks.items():
            positions[task_id] = position = _resume_offsets(state)
            changed = [tp for tp, o in position.items() if state.committed.get(tp) != o]
            texts = state.task.committable_metadata(changed)
            saved = {tp: (position[tp], text) for tp, text in texts.items()
                     if tp in position}
            offsets += [TopicPartition(t, p, o, metadata=text)
                        for (t, p), (o, text) in saved.items()]
            if saved:
                metadata.append((state, saved))
        collector = self.collector
        assert collector is not None
        if self.eos:
            collector.flush_changelogs()
            collector.check()
            if offsets:
                self.producer.send_offsets_to_transaction(
                    offsets, self.consumer.consumer_group_metadata(), 30)
            self.producer.commit_transaction(60)
            self.producer.begin_transaction()
        else:
            collector.flush()
            if offsets:
                self.consumer.commit(offsets=offsets, asynchronous=False)
        for state, saved in metadata:
            state.metadata.save(saved)
            state.task.commit_done()
        for task_id, state in self.tasks.items():
            state.task.flush()
            state.committed.update(positions[task_id])
        self._dirty = False
        elapsed = (time.perf_counter() - start) * 1000
        stats = self.stats
        stats["commit-total"] += 1
        self._commit_time += elapsed
        stats["commit-latency-avg-ms"] = self._commit_time / stats["commit-total"]
        stats["commit-latency-max-ms"] = max(stats["commit-latency-max-ms"], elapsed)
        self._update_lags()
        if not self.eos and time.monotonic() - self._last_checkpoint >= 10:
            self._last_checkpoint = time.monotonic()
            for state in self.tasks.values():
                self._write_checkpoint(state)

    def _update_lags(self) -> None:
        from confluent_kafka import TopicPartition

        for state in self.tasks.values():
            for (topic, partition), offset in state.offsets.items():
                try:
                    _, high = self.consumer.get_watermark_offsets(
                        TopicPartition(topic, partition), cached=True)
                except Exception:
                    continue
                if high is not None and high >= 0:
                    self.lags[(topic, partition)] = max(high - offset, 0)

    def _write_checkpoint(self, state: TaskState) -> None:
        persistent = {s: t for s, t in state.changelogs.items() if s in state.persistent}
        if not persistent or self._reader is None:
            return
        partition = state.task.id.partition
        sent = self.collector.changelog_sent if self.collector is not None else {}
        offsets = {}
        for topic in persistent.values():
            tp = (topic, partition)
            base = state.changelog_base.get(tp)
            # never past the true end: the count of our own acknowledged writes, else the
            # broker's watermark (exact on Kafka, a lower bound on Tansu)
            offsets[tp] = base + sent.get(tp, 0) if base is not None \
                else self._reader.end_offset(topic, partition)
        state.checkpoint.write(offsets)

    # -- rebalance ------------------------------------------------------------------------------

    def _on_assign(self, consumer: Any, partitions: list[Any]) -> None:
        try:
            if apply_source_resets(consumer, self.streams.topology, partitions):
                consumer.assign(partitions)  # the sources' own reset policies (_source_reset)
            self._assign(partitions)
        except BaseException as exc:
            self.failed = exc
            self._halt.set()
            log.error("assigning tasks to %s failed: %s", self.name, exc, exc_info=exc)
            raise

    def _assign(self, partitions: list[Any]) -> None:
        streams = self.streams
        wanted: dict[TaskId, list[tuple[str, int]]] = defaultdict(list)
        for tp in partitions:
            wanted[streams.plan.task_of(tp.topic, tp.partition)].append((tp.topic, tp.partition))
        for task_id, inputs in sorted(wanted.items()):
            if self._halt.is_set():
                return  # closing: no more tasks (nor restores) for this thread
            self._create_task(task_id, inputs)
        streams.publish_assignment(self.name, [(tp.topic, tp.partition) for tp in partitions],
                                   sort_key=self._sort_key())
        self.rebalancing = False
        self.events.rebalanced()

    def _sort_key(self) -> str:
        """What librdkafka's range assignor orders this member by: its ``group.instance.id``
        when static, else its member id."""
        instance = self.streams.consumer_config(self.index).get("group.instance.id")
        return str(instance) if instance else str(self.consumer.memberid() or "")

    def _create_task(self, task_id: TaskId, inputs: list[tuple[str, int]]) -> None:
        streams = self.streams
        plan = streams.plan
        # a standby of this task here hands over its stores' position (kslab.runtime._standby)
        handoff = streams.standbys.release(task_id) if streams.standbys is not None else None
        group = plan.group(task_id.subtopology)
        directory = task_dir(streams.state_root, task_id)
        changelogs = plan.changelogs_of(task_id.subtopology)
        persistent = {s for s in group.stores
                      if getattr(streams.topology.state_stores.get(s), "persistent", False)}
        state_checkpoint = Checkpoint(directory / ".checkpoint")
        checkpointed = state_checkpoint.read()
        builders = streams.topology.state_stores
        for store in check_local_stores(  # another app's, another type's, a bad checkpoint
                directory, streams.application_id, {s: store_type(builders[s]) for s in persistent},
                state_checkpoint, set(changelogs)):
            wipe_store(directory, store)
            checkpointed.pop((changelogs.get(store), task_id.partition), None)
        if self.eos:
            state_checkpoint.delete()  # from here on, a crash leaves state we must not trust
        starts: dict[tuple[str, int], int] = {}
        snapshots: dict[str, object] = {}
        for store, topic in changelogs.items():
            tp = (topic, task_id.partition)
            if store in persistent and tp in checkpointed:
                starts[tp] = checkpointed[tp]
            elif handoff is not None and store in handoff.snapshots:
                snapshots[store] = handoff.snapshots[store]  # an in-memory standby's contents
                starts[tp] = handoff.positions.get(tp, 0)
            else:
                if store in persistent and self.eos:
                    wipe_store(directory, store)
                starts[tp] = 0
        if self.collector is not None:
            self.collector.changelogs.update(changelogs.values())
        committed = self._committed_metadata(directory, inputs)
        task = self._open_task(task_id, group.nodes, inputs, directory, committed,
                               lambda opened: self._stores_opened(opened, changelogs, snapshots))
        streams.errors_policy.install(task, self)
        state = TaskState(task, directory, changelogs, persistent)
        self.tasks[task_id] = state
        self._restore(state, starts)
        task.fetched_lag = self._fetched_lag
        for topic, partition in inputs:
            queue = task.queue_for(topic, partition)
            self._route[(topic, partition)] = (task, queue, len(inputs) == 1, state)

    def _stores_opened(self, task: StreamTask, changelogs: dict[str, str],
                       snapshots: dict[str, object]) -> None:
        """Before the processors' init: fill in-memory stores from a standby's ``snapshots``,
        hold the key-value changelogs' writes until each commit, and let plain key-value
        stores hold their puts as objects until each changelog flush
        (``kslab.state.write_behind``: the batch sends the same records)."""
        for name, snapshot in snapshots.items():
            task.stores[name].restore_snapshot(snapshot)
        collector = self.collector
        if collector is None:
            return
        collector.batched.update(
            topic for store, topic in changelogs.items()
            if getattr(task.stores.get(store), "store_kind", None) in _BATCHED_KINDS)
        for name, store in task.stores.items():
            topic = changelogs.get(name)
            batch = None if topic is None else collector.changelog_batch(topic,
                                                                          task.id.partition)
            if hold_writes(store, task.context, batch):
                collector.hold(store)

    def _committed_metadata(self, directory: Path, inputs: list[tuple[str, int]]
                            ) -> dict[tuple[str, int], str]:
        """The offset metadata last committed for ``inputs`` (partition time and processor
        metadata), from the broker, else the local copy saved with the same offset."""
        broker = self._committed(inputs, "partition times and processor metadata start empty")
        if not broker:
            return {}
        return CommittedMetadata.resolve(broker, CommittedMetadata(directory / METADATA_FILE)
                                         .read())

    def _committed(self, partitions: list[tuple[str, int]], if_unknown: str
                   ) -> dict[tuple[str, int], tuple[int, str]]:
        """The group's committed offset and metadata of each of ``partitions``; nothing when
        the broker cannot say (logged with ``if_unknown``, what follows from it)."""
        from confluent_kafka import KafkaException, TopicPartition

        if not partitions:
            return {}
        try:
            got = self.consumer.committed([TopicPartition(t, p) for t, p in partitions], 30)
        except KafkaException as exc:
            log.warning("%s could not read the committed offsets of %s (%s): %s", self.name,
                        partitions, exc, if_unknown)
            return {}
        return {(tp.topic, tp.partition): (tp.offset, tp.metadata) for tp in got}

    def _open_task(self, task_id: TaskId, nodes: tuple[str, ...], inputs: list[tuple[str, int]],
                   directory: Path, committed: dict[tuple[str, int], str],
                   on_stores_open: Callable[[StreamTask], None]) -> StreamTask:
        streams = self.streams
        deadline = time.monotonic() + 30
        while True:
            task = StreamTask(
                task_id, streams.topology, nodes, config=streams.config,
                application_id=streams.application_id, collector=self.collector,
                clock=_wall_clock, input_partitions=inputs, state_dir=directory,
                global_stores=streams.global_stores, on_skip=self.events.skipped_record,
            )
            task.on_stores_open = on_stores_open
            try:
                task.init_committed(committed)
                task.initialize()
                return task
            except StoreError:
                # another thread may still hold this task's RocksDB lock: retry, as Kafka does
                try:
                    task.close()
                except Exception:
                    pass
                if time.monotonic() > deadline or self._halt.is_set():
                    raise  # closing: no waiting for the lock
                time.sleep(0.1)

    def _restore(self, state: TaskState, starts: dict[tuple[str, int], int]) -> None:
        """Replay the task's changelogs, headers included (the suppression buffer reads its
        format version from them), telling the restore listener; a stalled partition is
        waited for (``ChangelogReader``) until it moves or the thread is shut down. A source
        topic serving as a changelog (``topology.optimization``) restores up to the
        committed offset only, as Java's: the records after it are processed, not restored."""
        if not starts or self._reader is None:
            return
        sources = [tp for tp in starts if tp in state.task.input_partitions]
        limits = {tp: max(offset, 0) for tp, (offset, _metadata) in self._committed(
            sources, "their stores restore to the end of the topic").items()}
        by_topic = {topic: store for store, topic in state.changelogs.items()}
        task = state.task
        notify = RestoreNotifier(self.streams.restore_listener, by_topic, task.restore_listeners)
        reported: dict[tuple[str, int], int] = {}  # each partition's end, as the broker says
        for topic, partition in starts:
            try:
                reported[(topic, partition)] = self._reader.end_offset(topic, partition)
            except Exception:  # the broker cannot say now: the progress shows no total
                reported[(topic, partition)] = -1
            if (topic, partition) in limits:  # (a source topic ends at its committed offset)
                reported[(topic, partition)] = limits[(topic, partition)]
        for tp, start in starts.items():  # [start, end, position] for metrics() and monitors
            self.restoring[tp] = [start, max(reported[tp], start), start]
        notify.start(starts, lambda topic, partition: reported[(topic, partition)])

        def apply(topic: str, partition: int, batch: list[tuple[Any, ...]]) -> None:
            task.restore_changelog(by_topic[topic], batch)
            notify.batch(topic, partition, batch[-1].offset, len(batch))
            entry = self.restoring.get((topic, partition))
            if entry is not None:  # Tansu under-reports the end: never past 100%
                entry[2] = batch[-1].offset + 1
                entry[1] = max(entry[1], entry[2])

        def progress(_topic: str, _partition: int, count: int) -> None:
            state.restored += count
            self.stats["restore-total"] += count

        def waiting(topic: str, partition: int, offset: int, waited_s: float) -> None:
            notify.waiting(topic, partition, offset, waited_s)
            if self.eos:
                self._settle_own_commits()

        started = time.perf_counter()
        try:
            ends = self._reader.restore(starts, apply, progress, with_headers=True,
                                        halt=self._halt, on_wait=waiting, limits=limits)
        finally:
            for tp in starts:
                self.restoring.pop(tp, None)
        if not self._halt.is_set():
            notify.end(starts)
        sent = self.collector.changelog_sent if self.collector is not None else {}
        for tp, end in ends.items():
            state.changelog_base[tp] = end - sent.get(tp, 0)
        if state.restored:
            log.info("task %s restored %d records in %.0f ms", task.id, state.restored,
                     (time.perf_counter() - started) * 1000)

    def _settle_own_commits(self) -> None:
        """A restore waits under exactly-once (each stall warning): commit a transaction of one
        record to the control topic, which instances ignore (only SHUTDOWN_APPLICATION counts).

        Tansu 0.6 settles a committed transaction only once every transaction overlapping it on
        a partition has ended too, and one that never overlaps the last to end stays unsettled
        until its producer ends another (``bench/unstable_commit.py``); ``read_committed``
        readers stop before an unsettled transaction's records. After a rebalance threads
        waited so, inside the rebalance callback, on their own last commit: a restore that
        never ended, a group that never settled. A transaction of its own settles the earlier
        ones once nothing overlapping them is open (hence at each warning). On Kafka, where a
        commit is settled when it returns, this is one record per warning while another
        producer's transaction is open.
        """
        producer = self.producer
        if producer is None:
            return
        try:
            producer.produce(self.streams.control_topic, b"kslab-settle",
                             self.name.encode())
            producer.commit_transaction(30)
            producer.begin_transaction()
        except Exception as exc:
            log.warning("%s: a transaction to let the broker settle its earlier ones failed "
                        "(%s); they are settled when the broker settles them", self.name, exc)

    def _on_revoke(self, consumer: Any, partitions: list[Any]) -> None:
        self.rebalancing = True
        self.events.rebalancing()
        if not self.tasks:
            return
        try:
            self._commit(force=True)
        except BaseException as exc:
            self.failed = exc
            self._halt.set()
            self._abort()
            self._close_tasks(list(self.tasks), clean=False)
            return
        self._close_tasks(list(self.tasks), clean=True)

    def _on_lost(self, consumer: Any, partitions: list[Any]) -> None:
        self.rebalancing = True
        self.events.rebalancing()
        self._abort()
        if self.eos and self.producer is not None:
            self.producer.begin_transaction()
        self._close_tasks(list(self.tasks), clean=False)

    def _close_tasks(self, task_ids: list[TaskId], *, clean: bool) -> None:
        if not clean and not self.eos and self.collector is not None:
            try:  # at least once: what the stores hold goes out, as unbatched writes would
                self.collector.flush_changelogs()
            except Exception as exc:
                log.warning("sending the changelog writes of %s: %s", self.name, exc)
        for task_id in task_ids:
            state = self.tasks.pop(task_id, None)
            if state is None:
                continue
            self._waiting.discard(state.task)  # its queued records are fetched again
            if self._full:
                self._resume_drained(state.task, every=True)
            for tp in state.task.input_partitions:
                self._route.pop(tp, None)
                self._caught_up.discard(tp)
            if self.batches is not None:
                self.batches.forget(state.task)
            try:
                if clean:
                    state.task.flush()
                    self._write_checkpoint(state)
                state.task.close()
            except Exception as exc:
                log.warning("closing task %s: %s", task_id, exc)
            if not clean and self.eos:
                for store in state.persistent:  # uncommitted writes: rebuild from the changelog
                    wipe_store(state.directory, store)
                state.checkpoint.delete()
            if self.streams.standbys is not None:
                self.streams.standbys.unclaim(task_id)

    # -- metrics --------------------------------------------------------------------------------

    def metrics(self) -> dict[str, Any]:
        """Thread and task metrics (read from any thread: no client call here)."""
        elapsed = max(time.monotonic() - self._started_at, 1e-9)
        out: dict[str, Any] = dict(self.stats)
        out["process-rate"] = self.stats["process-total"] / elapsed
        tasks = {}
        for task_id, state in list(self.tasks.items()):
            task = state.task
            entry: dict[str, Any] = dict(task.metrics.as_dict())
            entry["restore-total"] = state.restored
            lags = {f"{t}-{p}": lag for (t, p), lag in list(self.lags.items())
                    if (t, p) in state.offsets}
            entry["records-lag"] = lags
            # kslab's: records the task holds, waiting for another partition or processing
            entry["buffered-records"] = sum(len(queue) for queue in task.queues.values())
            tasks[str(task_id)] = entry
        out["tasks"] = tasks
        # kslab's: partitions not fetched while their task holds over
        # buffered.records.per.partition of their records
        out["paused-partitions"] = sorted(f"{t}-{p}" for t, p in list(self._full))
        reader, now = self._reader, time.monotonic()  # a restore waiting for its changelog:
        waiting = dict(reader.waiting) if reader is not None else {}
        out["restore-waiting-ms"] = {f"{t}-{p}": int((now - since) * 1000)
                                     for (t, p), since in waiting.items()}
        out["restoring"] = {f"{t}-{p}": {"restored": position - start, "total": end - start}
                            for (t, p), (start, end, position) in list(self.restoring.items())}
        return out


def _partition_runs(messages: list[Any], on_error: Callable[[Any], None]
                    ) -> Iterator[tuple[str, int, list[Any]]]:
    """The runs of consecutive records of one partition in a polled batch, as ``(topic,
    partition, messages)``; a consumer event between records (an error, or a partition's
    end) goes to ``on_error`` as its message (which raises a fatal error), in its place: after
    the run before it was taken, before the run after it."""
    kind = type(messages[0])  # confluent_kafka.Message: its methods mapped in C
    errors = list(map(kind.error, messages))
    if not any(errors):
        yield from _runs(messages, kind)
        return
    start = 0  # the usual case: a partition's records, then its end event
    for index in [i for i, error in enumerate(errors) if error is not None]:
        if index > start:
            yield from _runs(messages[start:index], kind)
        on_error(messages[index])
        start = index + 1
    if start < len(messages):
        yield from _runs(messages[start:], kind)


def _runs(messages: list[Any], kind: type) -> Iterator[tuple[str, int, list[Any]]]:
    """``_partition_runs`` of records alone."""
    partitions = list(map(kind.partition, messages))
    topics = list(map(kind.topic, messages))
    count = len(messages)
    if partitions.count(partitions[0]) == count and topics.count(topics[0]) == count:
        yield topics[0], partitions[0], messages  # one partition: the usual poll
        return
    run: list[Any] = []
    current: tuple[str, int] | None = None
    for message, topic, partition in zip(messages, topics, partitions, strict=True):
        if current is None or current[1] != partition or current[0] != topic:
            if run:
                yield current[0], current[1], run  # type: ignore[index]
            run, current = [], (topic, partition)
        run.append(message)
    if run:
        yield current[0], current[1], run  # type: ignore[index]


def _resume_offsets(state: TaskState) -> dict[tuple[str, int], int]:
    """Where each input partition of ``state``'s task resumes: the first record its queue
    still holds (a task waiting for another partition keeps some), else the one after the
    last record it took (Kafka commits the head record's offset, or the consumer's
    position)."""
    offsets = state.offsets
    queues = state.task.queues
    if len(queues) < 2:
        return offsets  # a one-input task leaves nothing queued between polls
    resume = dict(offsets)
    for tp, queue in queues.items():
        first = queue.first_offset()
        if first is not None:
            resume[tp] = first
    return resume


def _wall_clock() -> int:
    return int(time.time() * 1000)
