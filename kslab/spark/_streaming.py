"""Streaming on Spark: one Structured Streaming query per sub-topology, Kafka in and Kafka out.

Each query reads its sub-topology's topics with the ``kslab-kafka`` stream reader, groups the
micro-batch by Kafka partition — one group is one Kafka Streams task — and runs the core's task
in ``transformWithStateInPandas`` with its stores on Spark state (``kslab.spark._state``); the
task produces its sink and repartition records to Kafka itself (``TaskProcessor.send_rows``)
before its micro-batch ends, and the query's own output is empty (Spark's ``noop`` sink).
Invariant: a task sees its records in offset order per partition and its stores, stream time
and punctuation schedules as Spark checkpointed them after the previous micro-batch; source
offsets and state restart from the same checkpoint, so a restart neither loses nor re-counts
input. Global stores are kept up per Python worker, read from their topics to the end before
each task runs (``kslab.spark._global``). The Kafka writes are at-least-once (a micro-batch
retried after a crash is written again); between sub-topologies the reading task drops such
replayed rows by their writer's sequence (``kslab.spark._replay``), so a repartition topic's
duplicates are not counted twice. Sub-topologies that feed each other (a foreign-key join) are
one query whose one group holds all their tasks (``CycleProcessor``), run as batch replay runs
them. A task's Python worker keeps it open for the group's next micro-batch while Spark state
says it is current (``kslab.spark._warm``), so a micro-batch reads nothing back from Spark
state.

Over 600 lines: the two stateful processors (a task per group, a cycle's tasks in one group)
share the query plumbing and the state layout here.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Mapping
from itertools import compress
from pathlib import Path
from typing import Any

import pandas as pd
from pyspark.sql.streaming.stateful_processor import StatefulProcessor

from kslab.config import StreamsConfig
from kslab.errors import StreamsError, TopologyError
from kslab.spark._global import global_feed
from kslab.spark._groups import spread_keys, state_partitions
from kslab.spark._plan import SparkPlan, Stage, streaming_unsupported, unsupported
from kslab.spark._replay import drop_replays, seen_marks, stamp
from kslab.spark._restarts import restarts_allowed, warn_restart, worker_start_failure
from kslab.spark._state import (
    KEY_SCHEMA,
    META_SCHEMA,
    VALUE_SCHEMA,
    TaskClocks,
    attach_spark_state,
)
from kslab.spark._task import TaskRunner
from kslab.spark._warm import keep, new_token, take
from kslab.spark._workers import check_workers
from kslab.spark.kafka import Producing
from kslab.topology.topology import Topology

__all__ = ["SparkStreams", "start"]

# a task produces its rows to Kafka itself (``send_rows``): the query's own output is empty
_OUTPUT = "produced long"


class SparkStreams:
    """The streaming queries of one application on Spark, one per sub-topology."""

    def __init__(self, spark: Any, plan: SparkPlan, props: dict[str, Any],
                 checkpoint_location: str, trigger: Mapping[str, Any] | None,
                 source_options: Mapping[str, str] | None = None,
                 preload_state: bool | None = None) -> None:
        self.spark = spark
        self._preload = preload_state
        self._source_options = dict(source_options or {})
        self.plan = plan
        self._props = props
        self._checkpoint = checkpoint_location
        self._trigger = dict(trigger or {})
        self.queries: list[Any] = []
        self._stage_of: list[Stage] = []  # each query's stage, to restart it
        self._restarts_allowed = restarts_allowed(props)
        self.restarts: dict[int, int] = {}  # stage id -> restarts after a slow worker start
        self._next = 0

    @property
    def _sequential(self) -> bool:
        return bool(self._trigger.get("availableNow") or self._trigger.get("once"))

    def _start_next(self) -> Any:
        stage = self.plan.stages[self._next]
        self._next += 1
        query = self._start(stage)
        self.queries.append(query)
        self._stage_of.append(stage)
        return query

    def _start(self, stage: Stage) -> Any:
        return _start_stage(self.spark, self.plan, stage, self._props, self._checkpoint,
                            self._trigger, self._source_options, self._preload)

    def start(self) -> SparkStreams:
        """Start the queries; with ``availableNow`` only the first (the rest follow in order)."""
        if self._sequential:
            self._start_next()
        else:
            while self._next < len(self.plan.stages):
                self._start_next()
        return self

    def await_termination(self, timeout: float | None = None) -> bool:
        """Wait for the queries; with ``availableNow`` run each sub-topology to the end in turn.
        A query that fails only because a Python worker started too slowly is restarted from
        its checkpoint (``kslab.spark._restarts``, ``kslab.spark.query.restarts``)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            for index in range(len(self.queries)):
                if self._await(index, deadline) is False:
                    return False
            if self._next >= len(self.plan.stages):
                return True
            self._start_next()

    def _await(self, index: int, deadline: float | None) -> bool | None:
        """Wait for query ``index``, restarting it from its checkpoint while it fails only
        because a Python worker started too slowly (``kslab.spark._restarts``)."""
        while True:
            # Spark refuses a timeout of 0: past the deadline, one last millisecond's look
            left = None if deadline is None else max(0.001, deadline - time.monotonic())
            query = self.queries[index]
            try:
                return query.awaitTermination() if left is None else \
                    query.awaitTermination(left)
            except Exception as error:
                stage = self._stage_of[index]
                done = self.restarts.get(stage.id, 0)
                if not worker_start_failure(error) or done >= self._restarts_allowed:
                    raise
                self.restarts[stage.id] = done + 1
                warn_restart(str(query.name), done + 1, self._restarts_allowed, error)
                self.queries[index] = self._start(stage)

    def read_output(self, topic: str, *, key_type: Any = None, value_type: Any = None,
                    keep_raw: bool = False, starting_offsets: str = "earliest") -> Any:
        """A streaming frame of the records the application writes to ``topic``, read back
        from Kafka with typed ``key``/``value`` columns decoded with its sink's serdes (as
        ``kslab.spark.decode`` decodes them): what ``writeStream.foreachBatch(fn)`` hands
        ``fn``. ``key_type``/``value_type`` set a column's Spark type; a ``Json`` or user
        serde without one gets the type inferred from the topic's records now (a batch read of
        up to ``SAMPLE_ROWS``), a string of JSON text when it has none."""
        from kslab.spark.typed import decoded_frame, sink_serdes

        if not any(topic in stage.sink_topics for stage in self.plan.stages):
            written = sorted({t for stage in self.plan.stages for t in stage.sink_topics})
            msg = (f"the application writes no topic '{topic}' (it writes "
                   f"{', '.join(written) or 'none'}); read one of those")
            raise StreamsError(msg, topic=topic)
        servers = str(StreamsConfig(self._props).get("bootstrap.servers"))

        def reader(read: Any) -> Any:
            return (read.format("kslab-kafka").option("kafka.bootstrap.servers", servers)
                    .option("subscribe", topic))

        stream = reader(self.spark.readStream).option("startingOffsets", starting_offsets)
        key_serde, value_serde = sink_serdes(self.plan.topology, topic, self._props,
                                             self.plan.application_id)
        return decoded_frame(stream.load(), key_serde, value_serde, topic, key_type,
                             value_type, keep_raw, sample=reader(self.spark.read).load())

    def stop(self) -> None:
        """Stop every query (each resumes from its checkpoint when started again)."""
        for query in self.queries:
            with contextlib.suppress(Exception):
                query.stop()

    def __enter__(self) -> SparkStreams:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start(topology: Any, config: Mapping[str, Any], *, checkpoint_location: str | Path,
          trigger: Mapping[str, Any] | None = None, spark: Any = None,
          max_offsets_per_trigger: int | None = None,
          preload_state: bool | None = None) -> SparkStreams:
    """Run ``topology`` as streaming queries, one per sub-topology (one per cycle of
    sub-topologies that feed each other), from Kafka to Kafka.

    ``config`` needs ``application.id`` and ``bootstrap.servers``; ``trigger`` is passed to
    ``DataStreamWriter.trigger`` (e.g. ``{"availableNow": True}``); state and offsets live under
    ``checkpoint_location``, one directory per sub-topology; ``max_offsets_per_trigger`` caps
    the records of one micro-batch (the source's ``maxOffsetsPerTrigger``). A micro-batch reads
    from Spark state only the store keys it looks up (a scan reads the whole store), or a whole
    store at once when it holds no more entries than the micro-batch has records;
    ``preload_state=True`` always reads every store whole, ``False`` never does unless it
    scans (both for comparison). Raises ``SparkUnavailableError`` before creating any topic
    when Spark's Python workers cannot import this kslab.
    """
    from kslab.core.topic_admin import create_topics, existing_topics
    from kslab.core.topic_plan import TopicPlan
    from kslab.spark.session import require_pyspark, session

    require_pyspark()
    props = dict(config)
    if hasattr(topology, "build") and not isinstance(topology, Topology):
        topology = topology.build(props)
    refused = unsupported(topology)
    if refused:  # before the broker is asked anything
        node, why = refused[0]
        msg = f"node '{node}' cannot run on Spark: {why}"
        raise TopologyError(msg)
    refused = streaming_unsupported(topology)
    if refused:
        node, why = refused[0]
        msg = f"node '{node}' cannot run in Spark streaming: {why}"
        raise TopologyError(msg)
    streams_config = StreamsConfig(props)
    streams_config.check_support("spark")
    app_id = streams_config.get("application.id")
    servers = streams_config.get("bootstrap.servers")
    if not app_id or not servers:
        msg = ("kslab.spark.start needs 'application.id' and 'bootstrap.servers' in config; "
               "add them")
        raise StreamsError(msg)
    spark = spark or _active() or session()
    check_workers(spark)  # before the broker is changed: every task runs in a Python worker
    from confluent_kafka.admin import AdminClient

    admin = AdminClient({"bootstrap.servers": servers})
    existing = existing_topics(admin)
    topics = TopicPlan.build(topology, app_id, existing, streams_config)
    create_topics(admin, {t: (topics.partitions[t], cfg) for t, cfg in topics.internal.items()
                          if t not in _changelogs(topology, app_id)})
    plan = SparkPlan.build(topology, app_id, {**existing, **topics.partitions})
    for topic in plan.global_topics:
        if topic not in existing:
            msg = (f"global store topic '{topic}' does not exist on the broker; create it "
                   "(and fill it) before starting: each task reads global stores from it")
            raise StreamsError(msg, topic=topic)
    for stage in plan.stages:
        for topic in stage.sink_topics:
            if topic not in plan.partitions:
                msg = (f"output topic '{topic}' does not exist on the broker; create it before "
                       "starting (its partition count decides where each key goes)")
                raise StreamsError(msg, topic=topic)
    from kslab.spark.kafka import register

    register(spark)
    limit = {"maxOffsetsPerTrigger": str(max_offsets_per_trigger)} \
        if max_offsets_per_trigger else {}
    return SparkStreams(spark, plan, props, str(checkpoint_location), trigger, limit,
                        preload_state).start()


def _active() -> Any:
    from pyspark.sql import SparkSession

    return SparkSession.getActiveSession()


def _changelogs(topology: Topology, app_id: str) -> set[str]:
    return {t for name in topology.state_stores
            if (t := topology.changelog_topic_for(name, app_id)) is not None}


def _start_stage(spark: Any, plan: SparkPlan, stage: Stage, props: dict[str, Any],
                 checkpoint: str, trigger: Mapping[str, Any],
                 source_options: Mapping[str, str], preload: bool | None = None) -> Any:
    servers = StreamsConfig(props).get("bootstrap.servers")
    reset = str(props.get("auto.offset.reset") or props.get("consumer.auto.offset.reset")
                or "earliest")
    reader = (spark.readStream.format("kslab-kafka")
              .option("kafka.bootstrap.servers", servers)
              .option("subscribe", ",".join(stage.source_topics))
              .option("startingOffsets", reset))
    for key, value in source_options.items():
        reader = reader.option(key, value)
    # Spark runs a no-data micro-batch after every batch of a processing-time stateful query,
    # so availableNow would never end: timers only when a processor punctuates on the wall
    # clock and the trigger is open-ended.
    timers = any(_uses_wall_clock(plan, member, props) for member in stage.members or [stage]) \
        and not (trigger.get("availableNow") or trigger.get("once"))
    from pyspark.sql import functions as sf

    shuffle = state_partitions(checkpoint, stage)
    if stage.members:  # a cycle: all its tasks in one group, as batch replay runs them
        processor: StatefulProcessor = CycleProcessor(plan, stage, props, timers, preload)
        grouped = reader.load().withColumn("_cycle", sf.lit(0)).groupBy("_cycle")
    else:
        groups = spread_keys(stage.tasks, shuffle)
        processor = TaskProcessor(plan, stage, props, timers, preload, groups)
        grouped = reader.load().withColumn(
            "_task", sf.element_at(sf.array(*map(sf.lit, groups)), sf.col("partition") + 1)
        ).groupBy("_task")
    output = grouped.transformWithStateInPandas(processor, _OUTPUT, "Append",
                                                "ProcessingTime" if timers else "None")
    writer = (output.writeStream.format("noop")
              .option("checkpointLocation", f"{checkpoint}/subtopology-{stage.id}")
              .queryName(f"{plan.application_id}-subtopology-{stage.id}")
              .outputMode("append"))
    if trigger:
        writer = writer.trigger(**trigger)
    # the query takes the session's shuffle partitions when it starts (and keeps them in its
    # checkpoint): one state partition per group, so each group is a Spark task of its own
    key = "spark.sql.shuffle.partitions"
    before = spark.conf.get(key)
    spark.conf.set(key, str(shuffle))
    try:
        return writer.start()
    finally:
        spark.conf.set(key, before)


def _uses_wall_clock(plan: SparkPlan, stage: Stage, props: dict[str, Any]) -> bool:
    """Whether the stage's processors schedule wall-clock punctuation (probed on the driver)."""
    inputs = [(t, 0) for t in stage.source_topics]
    runner = TaskRunner(plan.topology, props, plan.application_id, stage.id, stage.nodes, 0,
                        inputs, plan.partitions, (), lambda: 0,
                        global_records=[] if plan.global_topics else None)  # (empty)
    try:
        return len(runner.task.wall_clock_queue) > 0
    finally:
        runner.close()


class TaskProcessor(StatefulProcessor):
    """One Kafka Streams task per group (a Kafka partition), rebuilt each micro-batch."""

    def __init__(self, plan: SparkPlan, stage: Stage, props: dict[str, Any],
                 timers: bool, preload: bool | None = None,
                 groups: list[int] | None = None) -> None:
        # each task's group key (``spread_keys``), by partition, and back
        self.partition_of = {key: task for task, key in enumerate(groups or [])}
        self.timers = timers
        self.preload = preload
        self.topology = plan.topology
        self.app_id = plan.application_id
        self.counts = dict(plan.partitions)
        self.stage = stage
        self.props = props
        # topics one sub-topology writes and another reads: replayed rows dropped (_replay)
        self.sequenced_out = [t for t in stage.sink_topics if plan.readers(t)]
        written = {t for s in plan.stages for t in s.sink_topics}
        self.sequenced_in = [t for t in stage.source_topics if t in written]
        self.servers = str(StreamsConfig(props).get("bootstrap.servers"))
        self.producing = Producing({"kafka.bootstrap.servers": self.servers})
        self.has_global = bool(plan.global_topics)
        self.keep_open = StreamsConfig(props).get("kslab.spark.keep.tasks") is not False
        # what a kept task was built from: a query restarted in the same session with another
        # topology or config (a notebook cell edited and run again) never takes one
        self.definition = _definition(plan.topology, props, stage) if self.keep_open else ""

    def init(self, handle: Any) -> None:
        """Declare the state: one MapState per store, one ValueState for the clocks."""
        self.handle = handle
        self.stores = {name: handle.getMapState(f"store_{name}", KEY_SCHEMA, VALUE_SCHEMA)
                       for name in self.stage.stores}
        self.clocks = TaskClocks(handle.getValueState("clocks", META_SCHEMA))

    def handleInputRows(self, key: Any, rows: Iterator[pd.DataFrame],  # noqa: N802
                        timerValues: Any) -> Iterator[pd.DataFrame]:  # noqa: N803
        """Process this partition's records of the micro-batch in offset order."""
        frame = pd.concat(list(rows), ignore_index=True)
        if len(self.stage.source_topics) > 1:
            order = {t: i for i, t in enumerate(self.stage.source_topics)}
            frame = frame.assign(_q=frame["topic"].map(order)).sort_values(
                ["_q", "offset"], kind="stable")
        else:
            frame = frame.sort_values("offset", kind="stable")
        partition = self.partition_of[int(key[0])]
        opened = self._open(partition, _now(timerValues), len(frame))

        def feed() -> None:
            topics, _, offsets, timestamps, keys, values, headers = fresh_rows(
                frame, self.sequenced_in, opened.seen)
            opened.runner.feed(topics, partition, offsets, timestamps, keys, values, headers)
            opened.runner.drain_queued()

        self._run(opened, feed)
        yield from ()  # (the rows went to Kafka from the task: ``send_rows``)

    def handleExpiredTimer(self, key: Any, timerValues: Any,  # noqa: N802, N803
                           expiredTimerInfo: Any) -> Iterator[pd.DataFrame]:  # noqa: N803
        """A wall-clock punctuation is due and no record came: punctuate now."""
        self._run(self._open(self.partition_of[int(key[0])], _now(timerValues)))
        yield from ()

    def _run(self, opened: OpenTask, feed: Any = None) -> None:
        """``feed()`` the opened task (records, or nothing when a timer punctuates), then end
        its micro-batch (its rows produced); on any error the task is closed (not kept for the
        next micro-batch)."""
        try:
            if feed is not None:
                feed()
            self._finish(opened)
        except BaseException:
            opened.close()
            raise

    def _open(self, partition: int, now: int, records: int = 0) -> OpenTask:
        """The group's task at the end of the last micro-batch: the one this worker kept open
        if Spark state says it is current (``kslab.spark._warm``), else built from the state."""
        saved = self.clocks.load()
        key = (self.app_id, self.stage.id, partition, self.definition)
        opened = take(key, None if saved is None else saved.get("token")) \
            if self.keep_open else None
        if opened is not None:
            if self.has_global:  # the kept task reads the worker's feed: catch it up too
                global_feed(self.topology, self.props, self.app_id, self.counts, self.servers)
            opened.clock[0] = now
            for name, backend in opened.backends.items():
                backend.rebind(self.stores[name])
            return opened
        inputs = [(t, partition) for t in self.stage.source_topics
                  if partition < self.counts.get(t, 1)]
        clock = [now]
        shared = None
        if self.has_global:  # the worker's global stores, caught up to the topics' ends
            shared = global_feed(self.topology, self.props, self.app_id, self.counts,
                                 self.servers).task
        runner = TaskRunner(self.topology, self.props, self.app_id, self.stage.id,
                            self.stage.nodes, partition, inputs, self.counts,
                            self.stage.sink_topics, lambda: clock[0], shared_global=shared)
        try:
            runner.collector.seq = 0 if saved is None else saved.get("sent", 0)
            backends = attach_spark_state(runner.task, self.stores, preload=self.preload,
                                          sizes=None if saved is None else saved.get("sizes", {}),
                                          records=records,
                                          runs=None if saved is None else saved.get("runs"))
            self.clocks.restore(runner.task, saved)
        except BaseException:
            runner.close()
            raise
        return OpenTask(key, runner, dict(zip(runner.task.stores, backends, strict=True)),
                        clock, seen_marks(saved))

    def _finish(self, opened: OpenTask) -> None:
        """End the micro-batch: punctuate, commit, write the stores and clocks back to Spark
        state (with a new token, keeping the task open under it), set the timer, produce the
        rows (``send_rows``)."""
        runner = opened.runner
        task = runner.task
        task.maybe_punctuate_wall_clock()
        task.commit()
        if self.keep_open:  # start the next micro-batch with an empty record cache, as a
            for store in task.cached_stores:  # rebuilt task does (key-value stores)
                forget = getattr(store, "forget_clean", None)
                if forget is not None:
                    forget()
        backends = list(opened.backends.values())
        for backend in backends:
            backend.write_back()
        columns = runner.collector.columns
        stamp(columns, self.sequenced_out, self.stage.id, task.id.partition)
        token = new_token()
        self.clocks.save(task, backends, {"sent": runner.collector.seq, "seen": opened.seen,
                                          "token": token})
        if self.timers:
            for timer in list(self.handle.listTimers()):
                self.handle.deleteTimer(timer)
            due = task.wall_clock_queue.next_time()
            if due is not None:
                self.handle.registerTimer(int(due))
        if columns["seq"]:
            self.send_rows(columns)
        runner.collector.clear()
        if self.keep_open:
            keep(opened.key, token, opened)
        else:
            opened.close()

    def send_rows(self, columns: dict[str, list[Any]]) -> None:
        """Produce the micro-batch's rows (``OUTPUT_FIELDS`` columns, each row's partition
        chosen) to Kafka from this Python worker and wait for every acknowledgement, before
        Spark commits the micro-batch's state and offsets: at-least-once, as a Spark sink
        would give, without handing the rows through the JVM to a writer's Python worker."""
        self.producing.produce_columns([(columns, len(columns["seq"]))])

    def close(self) -> None:
        """Nothing to release: a micro-batch's task is kept open in its worker or closed."""


class OpenTask:
    """A group's core task between two points of its micro-batches: its runner, its stores'
    backends by store name, the clock its runner reads and its replay marks."""

    def __init__(self, key: tuple[Any, ...], runner: TaskRunner, backends: dict[str, Any],
                 clock: list[int], seen: dict[str, int]) -> None:
        self.key = key
        self.runner = runner
        self.backends = backends
        self.clock = clock
        self.seen = seen

    def close(self) -> None:
        """Close the task and remove its scratch directory."""
        self.runner.close()


def fresh_rows(frame: pd.DataFrame, sequenced: list[str],
               seen: dict[str, int]) -> list[list[Any]]:
    """The columns (topic, partition, offset, timestamp, key, value, headers) of ``frame``'s
    rows in its order (each partition's in offset order), the rows a writer replayed to a
    ``sequenced`` topic dropped and the sequence header stripped (``kslab.spark._replay``: the
    one rule of both processors)."""
    columns = [frame[c].tolist() for c in
               ("topic", "partition", "offset", "timestamp", "key", "value", "headers")]
    if sequenced:
        keep, columns[6] = drop_replays(columns[0], columns[1], columns[6], sequenced, seen)
        if not all(keep):
            columns = [list(compress(c, keep)) for c in columns]
    return columns


class CycleProcessor(TaskProcessor):
    """The tasks of a cycle of sub-topologies (a foreign-key join), all in one group and run as
    batch replay runs them (``CycleRunner``), rebuilt each micro-batch on Spark state: one
    MapState per task and store, one clocks ValueState per task. A micro-batch ends with no
    record in flight; the records handed over in process never reach Kafka, so their offsets
    (what ``context.offset()`` shows for them) count from 0 again in each micro-batch. Rows a
    writer replayed to its inputs are dropped and its own writes to topics another sub-topology
    reads are stamped with the cycle's write sequence, by the task processor's one rule
    (``kslab.spark._replay``), so an FK join after a crash counts nothing twice. It shares
    ``TaskProcessor``'s settings (its constructor) and replaces its state and runs; it keeps
    no task open between micro-batches (``kslab.spark._warm``: only a task per group does)."""

    def init(self, handle: Any) -> None:
        """Declare the state of every task of the cycle, named by its id."""
        self.handle = handle
        self.stores: dict[str, dict[str, Any]] = {}
        self.clocks: dict[str, TaskClocks] = {}
        for member in self.stage.members:
            for partition in range(member.tasks):
                task = f"{member.id}_{partition}"
                self.stores[task] = {name: handle.getMapState(f"store_{task}_{name}",
                                                              KEY_SCHEMA, VALUE_SCHEMA)
                                     for name in member.stores}
                self.clocks[task] = TaskClocks(handle.getValueState(f"clocks_{task}",
                                                                    META_SCHEMA))

    def handleInputRows(self, key: Any, rows: Iterator[pd.DataFrame],  # noqa: N802
                        timerValues: Any) -> Iterator[pd.DataFrame]:  # noqa: N803
        """Pipe the micro-batch's records into the cycle one at a time, the partition with the
        smallest next timestamp first (ties: topic name, then partition), as batch replay;
        rows a writer replayed are dropped first (``fresh_rows``)."""
        frame = pd.concat(list(rows), ignore_index=True)
        runner, backends, seen = self._open(_now(timerValues), len(frame))
        try:
            frame = frame.sort_values(["topic", "partition", "offset"], kind="stable")
            frame = pd.DataFrame(dict(zip(
                ("topic", "partition", "offset", "timestamp", "key", "value", "headers"),
                fresh_rows(frame, self.sequenced_in, seen), strict=True)))
            if len(frame):
                frame = frame.assign(
                    _m=frame.groupby(["topic", "partition"])["timestamp"].cummax())
                frame = frame.sort_values(["_m", "topic", "partition", "offset"],
                                          kind="stable")
                for topic, partition, offset, timestamp, k, v, headers in zip(
                        frame["topic"].tolist(), frame["partition"].tolist(),
                        frame["offset"].tolist(), frame["timestamp"].tolist(),
                        frame["key"].tolist(), frame["value"].tolist(),
                        frame["headers"].tolist(), strict=True):
                    runner.pipe(topic, int(partition), int(offset), int(timestamp), k, v,
                                headers)
            yield from self._finish_cycle(runner, backends, seen)
        finally:
            runner.close()

    def handleExpiredTimer(self, key: Any, timerValues: Any,  # noqa: N802, N803
                           expiredTimerInfo: Any) -> Iterator[pd.DataFrame]:  # noqa: N803
        """A wall-clock punctuation is due and no record came: punctuate now."""
        runner, backends, seen = self._open(_now(timerValues))
        try:
            yield from self._finish_cycle(runner, backends, seen)
        finally:
            runner.close()

    def _open(self, now: int, records: int = 0  # type: ignore[override]
              ) -> tuple[Any, dict[str, list[Any]], dict[str, int]]:
        """The cycle's tasks built on Spark state, their backends by task, and the replay
        marks (the cycle's write sequence and marks are kept with its first task's clocks)."""
        from kslab.spark._cycle import CycleRunner

        clock = [now]
        runner = CycleRunner(self.topology, self.props, self.app_id, self.stage.members,
                             self.counts, self.stage.sink_topics, lambda: clock[0])
        backends = {}
        seen: dict[str, int] = {}
        try:
            for i, task in enumerate(runner.tasks):
                name = str(task.id)
                saved = self.clocks[name].load()
                if i == 0:
                    runner.collector.seq = 0 if saved is None else saved.get("sent", 0)
                    seen = seen_marks(saved)
                backends[name] = attach_spark_state(
                    task, self.stores[name], preload=self.preload,
                    sizes=None if saved is None else saved.get("sizes", {}), records=records,
                    runs=None if saved is None else saved.get("runs"))
                self.clocks[name].restore(task, saved)
        except BaseException:
            runner.close()
            raise
        return runner, backends, seen

    def _finish_cycle(self, runner: Any, backends: dict[str, list[Any]],
                      seen: dict[str, int]) -> Iterator[pd.DataFrame]:
        runner.punctuate_wall_clock()
        columns = runner.collector.columns
        # the cycle's writes are one sequence (its collector's): one writer, task 0
        stamp(columns, self.sequenced_out, self.stage.id, 0)
        due = []
        for i, task in enumerate(runner.tasks):
            name = str(task.id)
            for backend in backends[name]:
                backend.write_back()
            extra = {"sent": runner.collector.seq, "seen": seen} if i == 0 else None
            self.clocks[name].save(task, backends[name], extra)
            if (time_due := task.wall_clock_queue.next_time()) is not None:
                due.append(time_due)
        if self.timers:
            for timer in list(self.handle.listTimers()):
                self.handle.deleteTimer(timer)
            if due:
                self.handle.registerTimer(int(min(due)))
        if columns["seq"]:
            self.send_rows(columns)
        yield from ()

    def close(self) -> None:
        """Nothing to release: each micro-batch's tasks are closed when it ends."""


def _definition(topology: Topology, props: dict[str, Any], stage: Stage) -> str:
    """A digest of what a stage's tasks are built from, as Spark ships it (cloudpickle: a
    function defined in a notebook goes by value, so an edited one changes it)."""
    import hashlib

    from pyspark import cloudpickle

    return hashlib.sha256(cloudpickle.dumps((topology, props, stage))).hexdigest()


def _now(timer_values: Any) -> int:
    """Spark's processing time of the batch, or the wall clock when the query has no timers."""
    now = timer_values.getCurrentProcessingTimeInMs()
    return now if now >= 0 else int(time.time() * 1000)
