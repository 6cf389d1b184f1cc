"""TopologyTestDriver: the real execution core over in-memory topics and a mocked wall clock.

Like Kafka's driver it processes each piped record at once, checks stream-time punctuation and
commits after every record, loops records sent to internal (or any source) topics back in,
and fires wall-clock punctuation only on ``advance_wall_clock_time``. With every topic at one
partition it runs the whole topology as task 0_0, exactly as Kafka's driver does; with
``partitions=`` it runs one task per sub-topology and partition, as the live runtime does.
Beyond Java: ``history``, ``snapshot``/``restore``, ``replay``, ``trace`` and DataFrames.

Over 600 lines because ``TopologyTestDriver`` is one public object (pipes, reads, stores,
clocks, history, as Kafka's); its topics, layout, collector and logs have modules of their own.
"""

from __future__ import annotations

import heapq
import itertools
import operator
import os
import shutil
import tempfile
import uuid
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from kslab.config import REPLAY_DEFAULTS, StreamsConfig
from kslab.core.bulk import BulkExecutor
from kslab.core.bulk.sinks import Written
from kslab.core.error_policy import ErrorPolicy
from kslab.core.gc_pause import collections_off
from kslab.core.global_task import GLOBAL_TASK
from kslab.core.task import StreamTask
from kslab.core.tracing import TraceLog, Tracer, TracingContext
from kslab.core.turns import run_turns
from kslab.errors import InvalidArgumentError, KslabError, MissingArgumentError, StoreError
from kslab.processor.partitioner import default_partitions
from kslab.records import TaskId, TestRecord
from kslab.serdes import resolve as resolve_serde
from kslab.state.buffer import ChangelogRecord
from kslab.testing import progress
from kslab.testing._collector import DriverCollector
from kslab.testing._layout import TaskLayout
from kslab.testing._log import RecordLog
from kslab.testing.frames import frame_kind, frame_rows, to_millis
from kslab.testing.output_topic import check_topic_name
from kslab.testing.topics import TestInputTopic, TestOutputTopic
from kslab.topology._nodes import SinkNode
from kslab.topology.topology import Topology

__all__ = ["HistoryStep", "Snapshot", "TopologyTestDriver"]

DEFAULT_APPLICATION_ID = "topology-test-driver"
# the driver's own state directory (no ``state.dir`` given) is thrown away at ``close``: it goes
# to a RAM-backed tmpfs when there is one with room, because RocksDB syncs to disk as it creates
# a database (measured here: ~10-40 ms a store on the disk, ~2 ms in /dev/shm)
_MEMORY_DIR = "/dev/shm"
_MEMORY_ROOM = 2 << 30  # bytes free in it, at least


def _scratch_parent() -> str | None:
    """Where the driver makes its own state directory: ``/dev/shm`` when it is a writable
    directory with at least 2 GiB free, else ``None`` (the system's temp directory)."""
    try:
        room = os.statvfs(_MEMORY_DIR)
    except OSError:
        return None
    if room.f_bavail * room.f_frsize < _MEMORY_ROOM or not os.access(_MEMORY_DIR, os.W_OK):
        return None
    return _MEMORY_DIR


_PROGRESS_STEP = 4096  # rows between progress updates of run and replay
_RESTORE_CHUNK = 32768  # changelog records restored between progress updates
_CLOCK = -2  # the partition that marks a wall-clock advance in the history log
_PARTITION = operator.itemgetter(4)  # of a (key, value, headers, timestamp, partition) row
# called with each new driver; kslab.export adds one while it runs a notebook
CREATED_HOOKS: list[Any] = []


class HistoryStep(NamedTuple):
    """One thing driven into the driver: a piped record or a wall-clock advance."""

    kind: str  # "record" | "wall_clock"
    topic: str | None
    key: bytes | None
    value: bytes | None
    headers: Any
    timestamp: int
    partition: int | None


class Snapshot(NamedTuple):
    """Everything ``restore`` needs to roll a driver back."""

    history_length: int
    wall_clock: int
    tasks: dict[TaskId, Any]
    outputs: dict[str, tuple[int, int]]
    offsets: dict[tuple[str, int], int]
    round_robin: dict[str, int]
    trace_length: int


class TopologyTestDriver:
    """Drives a topology with records and time, in process, with no broker.

    >>> import kslab as ks
    >>> topo = ks.Topology().add_source("src", "in").add_sink("out", "out", "src")
    >>> with ks.TopologyTestDriver(topo) as driver:
    ...     driver.create_input_topic("in").pipe_input("k", "v", 5)
    ...     driver.create_output_topic("out").read_key_value()
    KeyValue(key='k', value='v')
    """

    def __init__(
        self,
        topology: Any,
        config: Mapping[str, Any] | None = None,
        initial_wall_clock_time: Any = 0,
        *,
        partitions: Mapping[str, int] | None = None,
        trace: bool = False,
    ) -> None:
        if hasattr(topology, "build") and not isinstance(topology, Topology):
            topology = topology.build(config)
        if not isinstance(topology, Topology):
            msg = f"TopologyTestDriver needs a ks.Topology; got {type(topology).__name__}"
            raise KslabError(msg)
        self._topology = topology
        self._config_props = dict(config or {})
        # as Kafka's driver: no wall-clock throttle on emit-final windows and outer joins
        self.config = StreamsConfig({**REPLAY_DEFAULTS, **self._config_props})
        self.config.check_support("driver")  # only what no engine can honour; see KEY_SUPPORT
        self.application_id = self.config.get("application.id") or DEFAULT_APPLICATION_ID
        self._initial_wall_clock = to_millis(initial_wall_clock_time) or 0
        self._wall_clock = self._initial_wall_clock
        self._trace_enabled = trace
        self._tracer = Tracer() if trace else None
        # records with their topic; clock advances as partition _CLOCK with the ms as timestamp
        self._history = RecordLog(with_topics=True)
        self._offsets: dict[tuple[str, int], int] = defaultdict(int)
        self._closed = False
        self._settled = True  # no task holds a queued record: piped records may skip queues
        self._own_state_dir: Path | None = None
        state_dir = self.config.get("state.dir")
        if state_dir is None:
            self._own_state_dir = Path(tempfile.mkdtemp(prefix="kslab-driver-",
                                                        dir=_scratch_parent()))
            state_dir = self._own_state_dir
        # as Kafka's driver, close() cleans this directory up: each driver starts empty. Kafka
        # makes up a random application.id when none is set; the default id here is fixed (it
        # names internal topics), so such drivers get a directory of their own instead.
        app_dir = self.application_id
        if self._own_state_dir is None and not self.config.get("application.id"):
            app_dir = f"{app_dir}-{uuid.uuid4().hex[:12]}"
        self._state_root = Path(state_dir) / app_dir

        _validate(topology)
        self._errors = ErrorPolicy(self.config)  # processing/production handlers and the DLQ
        self._global_stores: dict[str, Any] = {}
        self._layout = TaskLayout(topology, self.application_id, partitions, self._task)
        self._collector = DriverCollector(self._layout)
        self._layout.build()
        self._initialize_tasks()
        layout = self._layout
        # task idling may hold records back, so it needs the queues of the general path
        self._fast: dict[str, StreamTask] = (
            {topic: task for (topic, _), task in layout.task_for.items()}
            if layout.java_mode and len(layout.tasks) == 1
            and all(t.max_idle_ms <= 0 for t in layout.tasks.values()) else {}
        )
        # bulk pipes run whole chunks over columns when the topology allows it (kslab.core.bulk;
        # a global table's topic is piped record by record into the global task)
        bulk = (self._tracer is None and not self._guarded
                and self.config.get("kslab.driver.bulk") is not False)
        self._bulk: BulkExecutor | None = (
            BulkExecutor(_DriverPort(self)) if self._fast and bulk else None)
        # several partitions: chunks run task by task when nothing is read back (see
        # _pipe_partitioned), under the conditions of the general path (no idling)
        self._partitioned: BulkExecutor | None = (
            BulkExecutor(_DriverPort(self), partitioned=True)
            if bulk and not self._fast and not layout.java_mode
            and all(t.max_idle_ms <= 0 for t in layout.tasks.values()) else None)
        for observe in CREATED_HOOKS:  # kslab export records the notebook's driver sessions
            observe(self)

    # -- construction -------------------------------------------------------------------------

    def _task(self, task_id: TaskId, nodes: list[str], inputs: list[tuple[str, int]]) -> StreamTask:
        tracer = self._tracer
        factory = (lambda t: TracingContext(t, tracer)) if tracer is not None else None
        kwargs: dict[str, Any] = {"context_factory": factory} if factory else {}
        if self._errors.dlq_topic is not None:  # skipped unreadable records go to the DLQ
            kwargs["on_skip"] = lambda raw, exc: self._errors.dead_letter(self._dead_letter,
                                                                          raw, exc)
        return StreamTask(
            task_id,
            self._topology,
            nodes,
            config=self.config,
            application_id=self.application_id,
            collector=self._collector,
            clock=self._clock,
            input_partitions=inputs,
            state_dir=self._state_root / str(task_id),
            global_stores=self._global_stores,
            **kwargs,
        )

    def _initialize_tasks(self) -> None:
        layout = self._layout
        if layout.global_task is not None:  # global stores are filled before anything reads them
            layout.global_task.initialize()
            self._global_stores.update(layout.global_task.stores)
        # sinks ask the collector for direct writers when they initialize: loop-back first
        self._collector.loopback = set(layout.read_topics())
        self._guarded = False  # an error handler or the DLQ wraps some node
        for task in layout.tasks.values():
            task.initialize()
            if self._errors.install(task, self._dead_letter) is not None:  # None: defaults
                self._guarded = True

    def _dead_letter(self, key: Any, value: Any, headers: Any, timestamp: int) -> None:
        """Write a DLQ record as Java's driver does: through the collector, to an output."""
        self._collector.send(self._errors.dlq_topic, key, value, headers, timestamp, None, None)

    @property
    def tasks(self) -> dict[TaskId, StreamTask]:
        """The stream tasks by id (one, 0_0, unless ``partitions=`` asked for more)."""
        return self._layout.tasks

    def _clock(self) -> int:
        return self._wall_clock

    # -- topics -------------------------------------------------------------------------------

    @property
    def topology(self) -> Topology:
        """The topology this driver runs."""
        return self._topology

    @property
    def given_config(self) -> dict[str, Any]:
        """The config as passed to the driver (a copy; ``config`` adds the defaults)."""
        return dict(self._config_props)

    @property
    def initial_wall_clock_time(self) -> int:
        """The wall clock the driver started at (ms)."""
        return self._initial_wall_clock

    @property
    def given_partitions(self) -> dict[str, Any]:
        """The ``partitions=`` the driver was made with (a copy)."""
        return self._layout.partitions_as_given()

    @property
    def closed(self) -> bool:
        """Whether ``close()`` was called."""
        return self._closed

    @property
    def history_length(self) -> int:
        """How many steps ``history`` holds, without building it."""
        return self._history.total

    def partition_count(self, topic: str) -> int:
        """How many partitions ``topic`` has in this driver (1 unless configured)."""
        return self._layout.partition_count(topic)

    def create_input_topic(
        self,
        name: str,
        key_serde: Any = None,
        value_serde: Any = None,
        start_timestamp: Any = 0,
        auto_advance: Any = 0,
    ) -> TestInputTopic:
        """An input topic; serdes default to those of the source reading ``name``.

        As in Kafka, a topic the topology does not read is refused when a record is piped.
        """
        check_topic_name(name, "create_input_topic")
        source = self._layout.source_node(name)
        return TestInputTopic(
            self,
            name,
            self._serde(key_serde, source.key_serde if source else None, "default.key.serde"),
            self._serde(value_serde, source.value_serde if source else None,
                        "default.value.serde"),
            start_timestamp,
            auto_advance,
        )

    def create_output_topic(
        self, name: str, key_serde: Any = None, value_serde: Any = None
    ) -> TestOutputTopic:
        """An output topic; serdes default to those of the sink writing ``name``."""
        check_topic_name(name, "create_output_topic")
        sink = next(
            (n for n in self._topology.nodes.values() if isinstance(n, SinkNode)
             and n.topic is not None
             and self._topology.resolve_topic(n.topic, self.application_id) == name),
            None,
        )
        return TestOutputTopic(
            self,
            name,
            self._serde(key_serde, sink.key_serde if sink else None, "default.key.serde"),
            self._serde(value_serde, sink.value_serde if sink else None, "default.value.serde"),
        )

    def _serde(self, given: Any, node_serde: Any, config_key: str) -> Any:
        is_key = config_key == "default.key.serde"
        for candidate in (given, node_serde):
            if candidate is not None:
                return resolve_serde(candidate, is_key=is_key)
        return resolve_serde(self.config.get(config_key), is_key=is_key)

    def output_log(self, topic: str) -> RecordLog:
        """The log of every record written to ``topic`` (as bytes): what its
        ``TestOutputTopic`` reads (an empty log, kept, when nothing was written yet)."""
        return self._collector.outputs[topic]

    def output_logs(self) -> dict[str, RecordLog]:
        """Every output log by topic, internal and changelog topics included: the topics
        written to, and those an output topic was asked for."""
        return dict(self._collector.outputs)

    def produced_topic_names(self) -> set[str]:
        """Every topic the topology has written to, internal and changelog topics included."""
        return {topic for topic, log in self._collector.outputs.items() if log.total}

    # -- driving ------------------------------------------------------------------------------

    def pipe_raw(self, topic: str, key: bytes | None, value: bytes | None, headers: Any,
                 timestamp: int, partition: int | None) -> None:
        """Pipe one serialized record (what ``TestInputTopic`` pipes after its serdes);
        ``partition`` ``None``: the default partitioner's."""
        if self._closed:
            self._check_open()
        task = self._fast.get(topic)
        if task is not None and not partition and self._settled:
            # the common case: one idle task reads this topic, so process the record at once
            self._process_fast(task, topic, key, value, headers, timestamp)
            return
        task, partition, joined = self._layout.route(topic, key, partition)
        if joined:
            self._collector.loopback.add(topic)
        self._history.append(key, value, headers, timestamp, partition, topic)
        if self._tracer is not None:
            self._tracer.step = self._history.total - 1
        if task is self._layout.global_task:
            self._process_global(topic, key, value, headers, timestamp)
            return
        self._enqueue(task, topic, partition, key, value, headers, timestamp)
        self._complete_all_work()

    def _process_fast(self, task: StreamTask, topic: str, key: bytes | None,
                      value: bytes | None, headers: Any, timestamp: int) -> None:
        """One piped record of an idle task's topic, processed at once on the record path:
        the batch forms' work per chunk costs more than one record's (W1 piped a record at
        a time took 105 us a record as 1-row chunks, 27 on the record path), as the live
        runtime and Spark leave a run of one to the record path. A list piped at once goes
        to the batch path (``pipe_raw_rows``, ``pipe_raw_columns``)."""
        with collections_off():
            self._pipe_fast(task, topic, [(key, value, headers, timestamp, None)], bulk=False)

    def pipe_raw_rows(self, topic: str, rows: list[tuple[Any, ...]],
                      task: StreamTask | None = None) -> None:
        """Pipe serialized ``(key, value, headers, timestamp, partition)`` rows in order.

        The hot loop of the driver: while one idle task reads ``topic`` each record is processed
        at once (no queue), punctuated and committed, exactly as the general path would.
        """
        task = task or self._fast.get(topic)
        if task is None or self._closed:
            if task is None and self._pipe_partitioned(
                    topic, tuple(map(list, zip(*rows, strict=True)))):
                return
            self._pipe_each(topic, rows)
            return
        with collections_off():
            self._pipe_fast(task, topic, rows)

    def _pipe_each(self, topic: str, rows: list[tuple[Any, ...]]) -> None:
        """Pipe rows one at a time through the general path."""
        for key, value, headers, timestamp, partition in rows:
            self.pipe_raw(topic, key, value, headers, timestamp, partition)

    def _pipe_partitioned(self, topic: str, columns: tuple[list[Any], ...],
                          objects: Written | None = None) -> bool:
        """Rows of a topic several tasks read, given as columns ``(keys, values, headers,
        timestamps, partitions)``, run task by task through the batch forms
        (``BulkExecutor.run_partitioned``) when every record would be processed at once by
        its own idle task and nothing these tasks write is read back by a task (the executor
        checks its sinks): then each row's work is its task's alone, and its outputs follow
        the rows' order. ``False``, with nothing changed (no round-robin partition taken),
        when not."""
        executor = self._partitioned
        if executor is None or self._closed or not self._settled or not columns:
            return False
        layout = self._layout
        if topic in layout.global_topics:
            return False
        count = layout.partition_count(topic)
        keys, _, _, _, given = columns
        if given.count(None) == len(given):  # the default partitioner's, each key hashed once
            try:
                routed = default_partitions(keys, count)
            except TypeError:
                return False  # (a serde's bytearray keys: record by record)
        elif all(partition is not None and 0 <= partition < count for partition in given):
            routed = given
        else:
            return False  # a mix, or out of range (the record path raises the error)
        groups = _places_by_partition(routed)
        if groups is None:
            return False  # a None key's round-robin partition: record by record
        tasks = {partition: layout.task_for.get((topic, partition)) for partition in groups}
        if any(task is None or task.has_records() for task in tasks.values()):
            return False
        with collections_off():
            if not executor.run_partitioned(topic, columns, [
                    (tasks[partition], places) for partition, places in groups.items()],
                                            objects):
                return False
        keys, values, headers, timestamps, _ = columns
        self._history.extend_columns(keys, values, headers, timestamps, routed, topic)
        return True

    def pipe_raw_columns(self, topic: str, columns: tuple[list[Any], ...],
                         objects: Written | None = None) -> None:
        """``pipe_raw_rows`` of rows given as columns ``(keys, values, headers, timestamps,
        partitions)`` (every partition ``None``): straight to the bulk path when it takes
        them (no rows made), else as rows. ``objects``: what the fields were serialized
        from (``Written``: the bulk path's sources may take them instead of decoding)."""
        task = self._fast.get(topic)
        if task is None and self._pipe_partitioned(topic, columns, objects):
            return
        if task is None or self._closed or not self._settled or self._bulk is None:
            rows = list(zip(*columns, strict=True))
            if task is None or self._closed:
                self._pipe_each(topic, rows)
            else:
                self.pipe_raw_rows(topic, rows, task)
            return
        with collections_off():
            if self._bulk.run_columns(task, topic, columns, None, 0, objects):
                self._after_bulk(topic, columns)
                return
            self._pipe_fast(task, topic, list(zip(*columns, strict=True)), bulk=False)

    def _pipe_fast(self, task: StreamTask, topic: str, rows: list[tuple[Any, ...]],
                   bulk: bool = True) -> None:
        """Rows of an idle task's topic: through the bulk path when it takes them (``bulk``:
        not yet asked), else each processed at once."""
        if not self._settled or any(map(_PARTITION, rows)):
            for key, value, headers, timestamp, partition in rows:
                self.pipe_raw(topic, key, value, headers, timestamp, partition)
            return
        columns = None if self._bulk is None or not bulk else self._bulk.run(task, topic, rows)
        if columns is not None:
            self._after_bulk(topic, columns)
            return
        tp = (topic, 0)
        history = self._history
        first = history.total
        history.extend(rows, topic)  # one call per chunk; cut back below if a record fails
        queue = task.queue_for(topic, 0)
        self._settled = False  # until the chunk is through: a failure leaves work queued
        self._pipe_rows_now(task, queue, tp, rows, first)
        self._settled = True

    def _pipe_rows_now(self, task: StreamTask, queue: Any, tp: tuple[str, int],
                       rows: list[tuple[Any, ...]], first: int) -> None:
        """``_pipe_fast``'s loop done by the core's ``process_rows``: each record processed,
        punctuated and committed at once, and what it sent to the task's own topics looped
        back before the next (the topic's offset is set first, as the next input's). A traced
        driver's tracer gets each record's step before it runs."""
        offsets = self._offsets
        offset = offsets[tp]
        tracer = self._tracer
        before = None
        if tracer is not None:
            def before(index: int) -> None:
                tracer.step = first + index

        def on_sent() -> None:
            offsets[tp] = offset + task.processed_rows + 1  # after the row being processed
            self._loop_back(task)
            if task.has_records():
                self._complete_all_work()
            self._settled = False

        try:
            task.process_rows(queue, offset, rows, commit_each=True, on_sent=on_sent,
                              before=before)
        except BaseException:
            done = task.processed_rows
            offsets[tp] = offset + done + 1
            self._history.truncate((first + done + 1, 0))
            raise
        offsets[tp] = offset + len(rows)

    def _after_bulk(self, topic: str, columns: tuple[list[Any], ...]) -> None:
        """Record a chunk the bulk path ran (it processed and committed every record)."""
        keys, values, headers, timestamps, _ = columns  # partition 0 (see _pipe_fast)
        self._history.extend_columns(keys, values, headers, timestamps, None, topic)
        self._settled = True

    def _enqueue(self, task: StreamTask, topic: str, partition: int, key: Any, value: Any,
                 headers: Any, timestamp: int) -> None:
        tp = (topic, partition)
        offset = self._offsets[tp]
        self._offsets[tp] = offset + 1
        task.add_record((topic, partition, offset, timestamp, key, value, headers))

    def _process_global(self, topic: str, key: Any, value: Any, headers: Any,
                        timestamp: int) -> None:
        task = self._layout.global_task
        assert task is not None
        self._enqueue(task, topic, 0, key, value, headers, timestamp)
        while task.has_records():
            task.process()
        task.commit()

    def _capture(self) -> None:
        pending = self._collector.pending
        while pending:
            topic, partition, key, value, headers, timestamp = pending.popleft()
            if topic in self._layout.global_topics:
                self._process_global(topic, key, value, headers, timestamp)
                continue
            task = self._layout.task_for.get((topic, partition))
            if task is not None:
                self._enqueue(task, topic, partition, key, value, headers, timestamp)

    def _loop_back(self, task: StreamTask) -> None:
        """Process what the idle single task sent to topics it reads, each record at once.

        While every pending record goes to one partition of ``task`` (and none to a global
        topic), Kafka's driver would queue them there and take them in that order, each
        followed by punctuation, a commit and a capture of what it sent: that is done here
        without the queue. Anything else is queued by ``_capture`` for the partition group.
        """
        collector = self._collector
        pending = collector.pending
        queues = task.queues
        if not self._fast or task.has_records():
            self._capture()
            return
        global_topics = self._layout.global_topics
        offsets = self._offsets
        process_now = task.process_now
        punctuation = task.stream_time_queue.heap
        caches = task.cached_stores  # commit() only flushes these and clears commit_requested
        while pending:
            topic, partition, key, value, headers, timestamp = pending[0]
            tp = (topic, partition)
            queue = queues.get(tp)
            if queue is None or collector.mixed or topic in global_topics:
                self._capture()
                return
            pending.popleft()
            offset = offsets[tp]
            offsets[tp] = offset + 1
            if process_now((topic, partition, offset, timestamp, key, value, headers), queue) \
                    and punctuation:
                task.maybe_punctuate_stream_time()
            if caches or task.commit_requested:  # else commit() would change nothing
                task.commit()

    def _complete_all_work(self) -> None:
        """Process until no task has a record it may process (``max.task.idle.ms`` may keep
        some queued until the wall clock moves or the empty partitions get records)."""
        self._settled = False
        self._capture()
        tasks = list(self.tasks.values())
        if len(tasks) == 1:
            task = tasks[0]
            while task.has_records() and task.is_processable():
                if task.process():
                    task.maybe_punctuate_stream_time()
                task.commit()
                if self._collector.pending:
                    self._loop_back(task)
            self._settled = not task.has_records()
            return
        run_turns(tasks, self._capture)
        self._settled = not any(task.has_records() for task in tasks)

    def advance_wall_clock_time(self, advance: Any) -> None:
        """Move the mocked wall clock forward; fires the wall-clock punctuations that are due."""
        self._check_open()
        if advance is None:
            msg = "advance_wall_clock_time needs a duration (ms or timedelta); got None"
            raise MissingArgumentError(msg)
        ms = to_millis(advance)
        if ms is None or ms < 0:
            msg = f"advance {advance!r} must be a non-negative duration (ms or timedelta)"
            raise InvalidArgumentError(msg)
        self._history.append(None, None, None, ms, _CLOCK, "")
        if self._tracer is not None:
            self._tracer.step = self._history.total - 1
        self._wall_clock += ms
        for task in self.tasks.values():
            task.maybe_punctuate_wall_clock()
            task.commit()
        self._complete_all_work()

    @property
    def wall_clock_time(self) -> int:
        """The mocked wall clock (ms)."""
        return self._wall_clock

    def run(self, inputs: Mapping[str, Any], *, include_internal: bool = False,
            **columns: Any) -> dict[str, Any]:
        """Pipe several frames merged in timestamp order; return every output topic as a frame.

        Frames merge as Kafka merges partitions: each frame is read in its own row order and
        the next row piped is the frame head with the smallest timestamp (earlier frame on a
        tie), so a late row stays late. A row without a timestamp counts as its frame's previous
        timestamp. ``columns`` are passed to ``pipe_dataframe`` (``key=``, ``value=``, ...).
        A long run shows its progress (``kslab.testing.progress``); interrupted (the kernel's
        stop button), the rows piped so far stay processed and the driver usable.
        """
        kind = "pandas"
        frames: list[list[tuple[int, str, tuple[Any, ...]]]] = []
        topics: dict[str, TestInputTopic] = {}
        for n, (topic, df) in enumerate(inputs.items()):
            kind = frame_kind(df) if n == 0 else kind
            topics[topic] = self.create_input_topic(topic)
            partition = columns.get("partition")
            if partition is None and "partition" in df.columns and \
                    self.partition_count(topic) > 1:
                partition = "partition"
            rows = frame_rows(
                df,
                key=columns.get("key", "key"),
                value=columns.get("value", "value"),
                timestamp=columns.get("timestamp", "timestamp"),
                headers=columns.get("headers"),
                partition=partition,
            )
            frame, ts = [], -1
            for row in rows:
                ts = row[2] if row[2] is not None else ts
                frame.append((ts, topic, row))
            frames.append(frame)
        # heapq.merge yields the smallest head of each frame without sorting within a frame
        merged = heapq.merge(*frames, key=lambda r: r[0])
        bar = progress.reporter(sum(map(len, frames)), f"running {', '.join(topics)}")
        done = 0
        try:
            for done, (_, topic, (k, v, ts, h, p)) in enumerate(merged, 1):
                topics[topic].pipe_row(k, v, ts, h, p)
                if not done % _PROGRESS_STEP:
                    bar.update(_PROGRESS_STEP)
            bar.update(done % _PROGRESS_STEP)
        finally:
            bar.close()
        result: dict[str, Any] = {}
        for topic in sorted(self._collector.outputs):
            if not include_internal and self.is_internal_topic(topic):
                continue
            out = self.create_output_topic(topic)
            result[topic] = out.to_polars() if kind == "polars" else out.to_pandas()
        return result

    def is_internal_topic(self, topic: str) -> bool:
        """Whether ``topic`` (its full name) is one the topology made: a changelog, a
        repartition or another internal topic of this application."""
        prefix = f"{self.application_id}-"
        if not topic.startswith(prefix):
            return False  # FK joins' subscription topics end in "-topic", hence the lookup
        return topic.endswith(("-changelog", "-repartition")) or \
            topic[len(prefix):] in self._topology.internal_topics

    # -- stores -------------------------------------------------------------------------------

    def get_all_state_stores(self) -> dict[str, Any]:
        """Every store of the topology by name, global ones included, of any kind.

        A store no processor uses is listed with ``None``, as in Kafka's driver.
        """
        names = dict.fromkeys(self._topology.state_stores)
        names.update(dict.fromkeys(self._topology.global_stores))
        names.update(dict.fromkeys(self._global_stores))
        for task in self.tasks.values():
            names.update(dict.fromkeys(task.stores))
        return {name: self._find_store(name) for name in names}

    def get_state_store(self, name: str) -> Any:
        """A store of a custom kind by name, or ``None`` when there is no such store.

        As in Kafka, a built-in store kind is refused here with the getter to use instead
        (``get_key_value_store``, ``get_timestamped_key_value_store``, ...), because those
        hand out the view the store's kind needs.
        """
        store = self._find_store(name)
        if store is not None:
            _refuse_built_in(name, store)
        return store

    def _find_store(self, name: str, plain: bool = False) -> Any:
        """The store ``name`` of any kind, or ``None``; partitioned stores merged into one
        read-only view (Java's ``CompositeReadOnly...Store``). ``plain``: a timestamped store
        seen without its timestamps (Java's facade)."""
        store = self._global_stores.get(name)
        found = [store] if store is not None else \
            [task.stores[name] for task in self.tasks.values() if name in task.stores]
        if not found:
            return None
        kind = getattr(found[0], "store_kind", None)
        if plain and kind in ("timestamped_key_value", "timestamped_window"):
            found = [s.plain_view() if hasattr(s, "plain_view") else s for s in found]
            kind = kind.removeprefix("timestamped_")
        if len(found) == 1:
            return found[0]
        from kslab.state.composite import CompositeStoreView
        from kslab.state.composite_windows import ReadOnlySessionView, ReadOnlyWindowView

        if kind in ("window", "timestamped_window"):
            return ReadOnlyWindowView(name, found)
        if kind == "session":
            return ReadOnlySessionView(name, found)
        return CompositeStoreView(name, found)

    def _typed(self, name: str, kind: str) -> Any:
        store = self._find_store(name)
        if store is None:
            return None
        store_kind = getattr(store, "store_kind", None)
        if store_kind == "timestamped_" + kind:  # Java hands out a facade without timestamps
            return self._find_store(name, plain=True)
        if store_kind != kind:
            return None
        return store

    def get_key_value_store(self, name: str) -> Any:
        """A key-value store (timestamped stores seen without their timestamps), or ``None``."""
        return self._typed(name, "key_value")

    def get_timestamped_key_value_store(self, name: str) -> Any:
        """A timestamped key-value store, or ``None``."""
        return self._typed(name, "timestamped_key_value")

    def get_versioned_key_value_store(self, name: str) -> Any:
        """A versioned key-value store, or ``None``."""
        return self._typed(name, "versioned_key_value")

    def get_window_store(self, name: str) -> Any:
        """A window store, or ``None``."""
        return self._typed(name, "window")

    def get_timestamped_window_store(self, name: str) -> Any:
        """A timestamped window store, or ``None``."""
        return self._typed(name, "timestamped_window")

    def get_session_store(self, name: str) -> Any:
        """A session store, or ``None``."""
        return self._typed(name, "session")

    def restore_from_changelog(self, store_name: str, records: Any) -> int:
        """Fill a store from changelog records, as a restarted instance would, before driving.

        ``records`` are ``TestRecord``s read from a changelog topic, ``ChangelogRecord``s (routed
        by their partition) or ``(key_bytes, value_bytes, timestamp)`` triples (with several
        partitions, the partition as a fourth element). A ``TestRecord`` keeps its headers (the
        suppression buffer reads its format version from them); its key and value are serialized
        with the store's serdes, except ``bytes`` for a store whose changelog holds its own
        binary layout (window, session, buffer and join stores), which pass through unchanged.
        A long restore shows its progress (``kslab.testing.progress``); interrupted, the store
        holds the records restored so far (restore it again from the start, as Kafka would).
        """
        owners = [t for t in self.tasks.values() if store_name in t.stores]
        if not owners:
            known = sorted(self.get_all_state_stores()) or "none"
            msg = f"no store '{store_name}' in this topology (stores: {known}); check the name"
            raise KslabError(msg)
        store = owners[0].stores[store_name]
        topic = getattr(store, "changelog_topic", store_name)
        by_partition: dict[int, list[tuple[Any, ...]]] = defaultdict(list)
        for rec in records:
            if isinstance(rec, TestRecord):
                batch = by_partition[0]
                batch.append(_test_record_changelog(store, topic, rec, len(batch)))
            elif isinstance(rec, ChangelogRecord):
                by_partition[rec.partition].append(rec)
            else:
                partition = rec[3] if len(rec) > 3 else 0
                by_partition[partition].append(tuple(rec[:3]))
        restored = 0
        batches = [(task, by_partition.get(task.id.partition, [])) for task in owners]
        bar = progress.reporter(sum(len(batch) for _, batch in batches), f"restoring {store_name}")
        try:  # in chunks, for the progress bar (restoring is writing each record in order)
            for task, batch in batches:
                for start in range(0, max(len(batch), 1), _RESTORE_CHUNK):
                    done = task.restore_changelog(store_name,
                                                  batch[start:start + _RESTORE_CHUNK])
                    restored += done
                    bar.update(done)
        finally:
            bar.close()
        return restored

    # -- history, snapshots, replay, trace --------------------------------------------------

    @property
    def history(self) -> list[HistoryStep]:
        """Everything driven in so far, in order (records as bytes, and clock advances)."""
        log = self._history
        return [_history_step(log, i) for i in range(log.total)]

    @property
    def trace(self) -> TraceLog:
        """What each driven record did (``trace=True`` only)."""
        if self._tracer is None:
            msg = "tracing is off; create the driver with TopologyTestDriver(..., trace=True)"
            raise KslabError(msg)
        return self._tracer.events

    def snapshot(self) -> Snapshot:
        """Capture state, stream time, wall clock, queued output and history position."""
        self._check_open()
        tasks = {tid: task.snapshot() for tid, task in self.tasks.items()}
        if self._layout.global_task is not None:
            tasks[GLOBAL_TASK] = self._layout.global_task.snapshot()
        return Snapshot(
            self._history.total,
            self._wall_clock,
            tasks,
            {t: log.mark() for t, log in self._collector.outputs.items()},
            dict(self._offsets),
            dict(self._layout.round_robin),
            len(self._tracer.events) if self._tracer else 0,
        )

    def restore(self, snapshot: Snapshot) -> None:
        """Roll everything back to ``snapshot``; history is cut back to that point.

        State in stores, stream time, punctuation schedules, offsets and output queues roll
        back; plain attributes of processor objects do not (use ``replay`` for those).
        """
        self._check_open()
        for tid, task_snapshot in snapshot.tasks.items():
            task = self._layout.global_task if tid == GLOBAL_TASK else self.tasks[tid]
            assert task is not None
            task.restore(task_snapshot)
        self._wall_clock = snapshot.wall_clock
        for topic, log in self._collector.outputs.items():
            log.truncate(snapshot.outputs.get(topic, (0, 0)))
        self._offsets = defaultdict(int, snapshot.offsets)
        self._layout.round_robin = defaultdict(int, snapshot.round_robin)
        self._history.truncate((snapshot.history_length, 0))
        if self._tracer is not None:
            del self._tracer.events[snapshot.trace_length:]
        # records task idling held back at the snapshot are queued again
        self._settled = not any(task.has_records() for task in self.tasks.values())

    def replay(self, topology: Any = None, until: int | None = None) -> TopologyTestDriver:
        """A new driver that re-runs this history (on ``topology`` if given) up to ``until``.

        A long replay shows its progress (``kslab.testing.progress``); interrupted, the new
        driver is closed and this one is as it was."""
        driver = TopologyTestDriver(
            topology if topology is not None else self._topology,
            self._config_props,
            self._initial_wall_clock,
            partitions=self._layout.partitions_as_given(),
            trace=self._trace_enabled,
        )
        log = self._history
        end = log.total if until is None else min(until, log.total)
        bar = progress.reporter(end, "replaying")
        try:
            for index in range(end):
                key, value, headers, timestamp, partition = log.record(index)
                if partition == _CLOCK:
                    driver.advance_wall_clock_time(timestamp)
                else:
                    driver.pipe_raw(log.topic(index), key, value, headers,  # type: ignore[arg-type]
                                    timestamp, partition)
                if not (index + 1) % _PROGRESS_STEP:
                    bar.update(_PROGRESS_STEP)
            bar.update(end % _PROGRESS_STEP)
        except BaseException:  # interrupted: this driver is untouched, the half-made one goes
            driver.close()
            raise
        finally:
            bar.close()
        return driver

    # -- lifecycle ----------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            msg = "this TopologyTestDriver is closed; create a new one (or use replay())"
            raise KslabError(msg)

    def bulk_stats(self) -> dict[str, int]:
        """How the bulk path did so far: the chunks of piped records it ran over the operators'
        batch forms (``chunks``) and those it declined, run record by record instead
        (``declined``). What shows a topology takes the faster path, as the runtime's
        ``process-batched-total`` metric and ``kslab.spark.bulk_stats`` do; zeros when the path
        is off (``kslab.driver.bulk``, ``trace=True``) or cannot apply (task idling)."""
        executor = self._bulk or self._partitioned  # (one of them at most: one task or several)
        if executor is None:
            return {"chunks": 0, "declined": 0}
        return {"chunks": executor.chunks, "declined": executor.declined}

    def metrics(self) -> dict[str, dict[str, Any]]:
        """Per task (``"0_0"``): Kafka's task metrics by name (``process-total``,
        ``dropped-records-total``, ``punctuate-total``, ``record-lateness-avg``/``-max``), and
        the node-level metrics of processors and stores under their names (e.g. a windowed
        aggregation's ``window-aggregate-final-emit-total``)."""
        out = {str(tid): task.metrics.as_dict() for tid, task in self.tasks.items()}
        if self._layout.global_task is not None:
            out["global"] = self._layout.global_task.metrics.as_dict()
        return out

    def close(self) -> None:
        """Close every task and store; remove the driver's temporary state directory."""
        if self._closed:
            return
        self._closed = True
        try:
            for task in itertools.chain(self.tasks.values(), [self._layout.global_task]):
                if task is not None:
                    task.close()
        finally:
            shutil.rmtree(self._own_state_dir or self._state_root, ignore_errors=True)

    def __enter__(self) -> TopologyTestDriver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (f"<TopologyTestDriver app={self.application_id!r} tasks={len(self.tasks)} "
                f"history={self._history.total}>")


class _DriverPort:
    """What the bulk executor sees of the driver: its offsets and topic logs."""

    def __init__(self, driver: TopologyTestDriver) -> None:
        self._driver = driver
        self._ranks: dict[int, int] | None = None

    @property
    def offsets(self) -> dict[tuple[str, int], int]:
        """The next offset of every topic partition."""
        return self._driver._offsets

    def log(self, topic: str) -> RecordLog:
        """The log of ``topic``."""
        return self._driver._collector.outputs[topic]

    def appends_only(self, topic: str) -> bool:
        """True when a write to ``topic`` only appends to its log (no task reads it back), as
        the collector's send does then."""
        return topic not in self._driver._collector.loopback

    def reads_back(self, topic: str) -> bool:
        """True when ``topic``'s log hands its output topics the objects a sink wrote it
        from (``RecordLog``'s read-back runs): a topic no task reads back."""
        return topic not in self._driver._collector.loopback

    def reader(self, topic: str, partition: int) -> StreamTask | None:
        """The task that reads ``topic``'s ``partition`` (``None`` for a global topic)."""
        if topic in self._driver._layout.global_topics:
            return None
        return self._driver._layout.task_for.get((topic, partition))

    def rank(self, task: StreamTask) -> int:
        """``task``'s place in the order ``_complete_all_work`` gives each task a turn."""
        ranks = self._ranks
        if ranks is None:  # (the driver's tasks are made once, with the driver)
            ranks = self._ranks = {id(task): rank for rank, task in
                                   enumerate(self._driver.tasks.values())}
        return ranks[id(task)]

    def partitions(self, topic: str, keys: list[bytes | None]) -> list[int] | None:
        """The default partitioner's partition of each serialized key on ``topic``; ``None``
        for a ``None`` key on a topic of several partitions (round robin)."""
        partitions = default_partitions(keys, self._driver._layout.partition_count(topic))
        return None if None in partitions else partitions  # type: ignore[return-value]


def _history_step(log: RecordLog, index: int) -> HistoryStep:
    key, value, headers, timestamp, partition = log.record(index)
    if partition == _CLOCK:
        return HistoryStep("wall_clock", None, None, None, None, timestamp, None)
    return HistoryStep("record", log.topic(index), key, value, headers, timestamp, partition)


def _validate(topology: Topology) -> None:
    """The wiring checks; an empty topology is allowed, as Kafka's driver allows it (piping
    into it then fails with the unknown topic)."""
    from kslab.topology._subtopologies import check_wiring

    check_wiring(topology)


_GETTER_BY_KIND = {
    "key_value": ("key-value", "get_key_value_store"),
    "timestamped_key_value": ("timestamped key-value", "get_timestamped_key_value_store"),
    "versioned_key_value": ("versioned key-value", "get_versioned_key_value_store"),
    "window": ("window", "get_window_store"),
    "timestamped_window": ("timestamped window", "get_timestamped_window_store"),
    "session": ("session", "get_session_store"),
}


def _refuse_built_in(name: str, store: Any) -> None:
    found = _GETTER_BY_KIND.get(getattr(store, "store_kind", None))  # type: ignore[arg-type]
    if found is not None:
        kind, getter = found
        msg = f"Store {name} is a {kind} store and should be accessed via `{getter}()`"
        raise StoreError(msg)


def _test_record_changelog(store: Any, topic: str, rec: TestRecord,
                           offset: int) -> ChangelogRecord:
    """A ``TestRecord`` from a changelog topic as the record a restore reads (partition 0)."""
    raw = getattr(store, "raw_changelog", False)  # the store's own layout, not its serdes'
    key = _changelog_bytes(rec.key, store.key_serde, topic, raw)
    value = _changelog_bytes(rec.value, store.value_serde, topic, raw)
    return ChangelogRecord(key, value, rec.timestamp, rec.headers, topic, 0, offset)


def _changelog_bytes(data: Any, serde: Any, topic: str, raw: bool) -> bytes | None:
    """``data`` as changelog bytes: bytes as they are for a raw-layout store, else serialized."""
    if data is None:
        return None
    if raw and isinstance(data, bytes | bytearray | memoryview):
        return bytes(data)
    return serde.serialize(topic, data)


def _places_by_partition(routed: list[int | None]) -> dict[int, Any] | None:
    """Each partition of ``routed`` (a chunk's partition per row) with its rows' places, in
    order (a list, or for long chunks a numpy array: a stable sort in numpy, the executor
    takes the arrays as they are), partitions in order of their first row; ``None`` where a
    row has none (``None``: a null key's round-robin partition)."""
    if len(routed) < 64:
        if None in routed:
            return None
        groups: dict[int, Any] = {}
        for place, partition in enumerate(routed):
            groups.setdefault(partition, []).append(place)
        return groups
    import numpy as np

    try:
        partitions = np.fromiter(routed, np.int64, len(routed))
    except TypeError:
        return None
    # (16-bit partitions where they fit: numpy's stable sort of them is a counting sort)
    order = np.argsort(partitions.astype(np.int16) if partitions.max() < 1 << 15
                       else partitions, kind="stable")
    ordered = partitions[order]
    cuts = (np.flatnonzero(np.diff(ordered)) + 1).tolist()
    spans = sorted(zip([0, *cuts], [*cuts, len(routed)], strict=True),
                   key=lambda span: int(order[span[0]]))  # by first row
    return {int(ordered[start]): order[start:end] for start, end in spans}

