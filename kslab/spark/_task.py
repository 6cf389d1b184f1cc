"""One core task run inside a Spark Python worker: Arrow rows in, the task's sends out as rows.

``TaskRunner`` builds the core's ``StreamTask`` for one (sub-topology, partition), feeds it raw
records and collects what it sends into Arrow batches; ``RowCollector`` is its
``RecordCollector``. Invariant: the runner adds only I/O — stream time, punctuation, routing and
serialization are the core's — and it drives the task exactly as the test driver does: each
record processed, stream-time punctuation checked and the task committed before the next.

Each run of rows fed for a one-input task goes first to the core's ``BulkExecutor``
(``kslab.core.bulk``, off with ``kslab.spark.bulk: False``), which runs the DSL operators' batch
forms over it as one chunk or declines (then the rows go record by record, as above); a task
reading several partitions queues its rows and takes them in timestamp order, each run it
takes one after another from one partition a chunk too (``drain_queued``). The
executor sees the runner through ``SparkPort``: the rows' offsets, a commit after every record
(as here), sinks' columns appended to the ``RowCollector`` as its ``send`` would append them
(partition, ``task`` and ``seq`` alike), and changelogs' columns handed to the collector in
one call, which drops them as its ``send`` drops a changelog record on the record path.
"""

from __future__ import annotations

import shutil
import tempfile
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from itertools import repeat
from pathlib import Path
from typing import Any

from kslab.config import REPLAY_DEFAULTS, StreamsConfig
from kslab.core.bulk import BulkExecutor
from kslab.core.bulk.port import CollectorPort
from kslab.core.bulk.split import run_queued
from kslab.core.task import StreamTask
from kslab.errors import StreamsError
from kslab.processor.partitioner import (
    default_partition,
    default_partition_column,
    default_partitions,
)
from kslab.records import TaskId
from kslab.spark._global_task import filled_global_task
from kslab.spark._headers import headers_json, record_headers
from kslab.topology.topology import Topology

__all__ = ["OUTPUT_FIELDS", "CycleCollector", "RowCollector", "SparkPort", "TaskRunner",
           "output_schema"]

OUTPUT_FIELDS = ("topic", "partition", "key", "value", "timestamp", "headers", "task", "seq")
# batch replay's rows carry one more column: each row's ``mark``, the highest timestamp its
# task had written to its topic so far (a later stage merges several writers' rows by it, see
# RowCollector)
_REPLAY_FIELDS = (*OUTPUT_FIELDS, "mark")
_BATCH_ROWS = 65536
_NO_MARK = -(2**63)  # the mark before a task's first write to a topic


def output_schema(topic_ids: bool = False) -> Any:
    """The Arrow schema of task output rows (a record sent to a topic, and who sent it).

    With ``topic_ids`` (batch replay) the first column is ``_t``, the topic's index among the
    kept topics, and headers are JSON text (``[{"key": k, "value": base64}]``): nested Arrow
    columns cost Spark several times more to convert than flat ones.
    """
    import pyarrow as pa

    return pa.schema([
        ("_t", pa.int32()) if topic_ids else ("topic", pa.string()),
        ("partition", pa.int32()),
        ("key", pa.binary()),
        ("value", pa.binary()),
        ("timestamp", pa.int64()),
        ("headers", pa.string() if topic_ids else
         pa.list_(pa.struct([("key", pa.string()), ("value", pa.binary())]))),
        ("task", pa.int32()),
        ("seq", pa.int64()),
        *([("mark", pa.int64())] if topic_ids else []),
    ])


class RowCollector:
    """The core's ``RecordCollector`` for Spark: keeps sends to ``keep`` topics as columns.

    Partitions are picked as the test driver picks them: a sink's partitioner, else murmur2 of
    the key bytes, else (no key) round robin per topic. Sends to other topics (changelogs in
    batch replay) are dropped: Spark holds or discards the state itself.

    With ``topic_ids`` (batch replay) each row also gets its ``mark``: the highest timestamp
    this task had written to the row's topic up to and including it. Marks never fall along a
    task's writes to a topic, so a later stage that sorts one partition's rows by (mark, task,
    seq) keeps every writer's order (as Kafka keeps it), merges several writers by how far each
    had got in time, and with one writer gives exactly its write order, as the test driver
    hands them over. Per topic, not per task: a batch run appends a chunk's records topic by
    topic, so only each topic's own order is the record path's (``seq`` across topics is not).

    In batch replay a chunk's columns (``extend``) become Arrow arrays at once, kept in order
    with the rows ``send`` lists (``drain`` joins them): a sink's key column is converted once
    for its partitions and its rows (``partitions_of``), a ``group_by``'s value column is its
    key column, and the constant and counting columns are never Python lists.
    """

    def __init__(self, partition_counts: dict[str, int], keep: Iterable[str], task: int,
                 topic_ids: dict[str, int] | None = None) -> None:
        self._ids = topic_ids
        self._counts = partition_counts
        self._keep = set(keep)
        self._task = task
        self._round_robin: dict[str, int] = {}
        self.seq = 0
        self._fields = OUTPUT_FIELDS if topic_ids is None else _REPLAY_FIELDS
        self._marks: dict[str, int] = {}  # topic -> highest timestamp written to it so far
        self.columns: dict[str, list[Any]] = {name: [] for name in self._fields}
        self._batches: list[Any] = []  # batch replay: the rows before ``columns``', in order
        self._batched = 0  # the rows in ``_batches``
        # the last ``partitions_of`` in batch replay: (keys, their Arrow column, partitions,
        # their numpy array), for the ``extend`` of the same key column that follows it
        self._held: tuple[Any, Any, Any, Any] | None = None

    def partitions_for(self, topic: str) -> int:
        """The partition count the plan gave ``topic`` (1 when it names none)."""
        return self._counts.get(topic, 1)

    def send(self, topic: str, key: bytes | None, value: bytes | None, headers: Any,
             timestamp: int, partition: Any, sink: str | None) -> None:
        """Keep one record for ``topic`` with the partition Kafka's producer would pick."""
        if topic not in self._keep:
            return
        count = self._counts.get(topic, 1)
        if partition is None:
            if count == 1:
                partition = 0
            elif key is None:
                n = self._round_robin.get(topic, 0)
                self._round_robin[topic] = n + 1
                partition = n % count
            else:
                partition = default_partition(key, count)
        elif not isinstance(partition, int):
            for p in sorted(partition):  # a multicast partitioner
                self.send(topic, key, value, headers, timestamp, p, sink)
            return
        if not 0 <= partition < count:
            msg = (f"sink '{sink}' chose partition {partition} of topic '{topic}', which has "
                   f"{count} partition(s); return a partition in range from the partitioner")
            raise StreamsError(msg, node=sink)
        self._append(topic, partition, key, value, headers, timestamp)

    def writer(self, topic: str) -> Callable[..., None] | None:
        """A direct append for a kept one-partition topic (sinks skip ``send``)."""
        if topic not in self._keep or self._counts.get(topic, 1) != 1:
            return None

        def write(key: bytes | None, value: bytes | None, headers: Any, timestamp: int,
                  _partition: int) -> None:
            self._append(topic, 0, key, value, headers, timestamp)

        return write

    def keeps(self, topic: str) -> bool:
        """True when sends to ``topic`` are kept (a sink topic of the stage)."""
        return topic in self._keep

    def partitions_of(self, topic: str, keys: list[bytes | None]) -> list[int] | None:
        """The partition ``send`` picks for each serialized key with a sink's default
        partitioner; ``None`` for a ``None`` key on a topic of several partitions (round
        robin: the caller declines). In batch replay the keys become the Arrow column the
        ``extend`` of these keys then takes, and each distinct key is hashed once."""
        count = self._counts.get(topic, 1)
        if self._ids is None:
            found = default_partitions(keys, count)
            return None if None in found else found  # type: ignore[return-value]
        import numpy as np
        import pyarrow as pa

        column = pa.array(keys, pa.binary())
        if count == 1:
            numbers = np.zeros(len(keys), np.int32)
        elif column.null_count:
            return None
        else:
            encoded = column.dictionary_encode()
            chosen = default_partition_column(encoded.dictionary.to_pylist(), count)
            numbers = chosen.astype(np.int32)[encoded.indices.to_numpy()]
        partitions: list[int] = numbers.tolist()
        self._held = (keys, column, partitions, numbers)
        return partitions

    def extend(self, topic: str, keys: list[Any], values: list[Any], headers: list[Any] | None,
               timestamps: list[int], partitions: list[int | None] | None = None) -> None:
        """Keep records for ``topic`` at once, each as ``_append`` keeps one (``partitions``:
        each record's, in range; ``None``: partition 0); dropped unless ``keeps(topic)``."""
        if topic not in self._keep or not timestamps:
            return
        if self._ids is not None:  # batch replay: Arrow arrays at once
            self._add_batch(self._arrow_rows(topic, keys, values, headers, timestamps,
                                             partitions))
            return
        n = len(timestamps)
        c = self.columns
        c["topic"].extend(repeat(topic, n))
        if partitions is None:
            c["partition"].extend(repeat(0, n))
        elif partitions.count(None):
            c["partition"].extend(0 if p is None else p for p in partitions)
        else:
            c["partition"].extend(partitions)
        c["key"].extend(keys)
        c["value"].extend(values)
        c["timestamp"].extend(timestamps)
        if headers is None or headers.count(None) == n:
            c["headers"].extend(repeat(None, n))
        else:
            c["headers"].extend(None if not h else [{"key": k, "value": v} for k, v in h]
                                for h in headers)
        c["task"].extend(repeat(self._task, n))
        c["seq"].extend(range(self.seq, self.seq + n))
        self.seq += n

    def _arrow_rows(self, topic: str, keys: list[Any], values: list[Any],
                    headers: list[Any] | None, timestamps: list[int],
                    partitions: list[int | None] | None) -> Any:
        """``extend``'s records as one Arrow record batch of batch replay's rows."""
        import numpy as np
        import pyarrow as pa

        n = len(timestamps)
        held, self._held = self._held, None
        same = held is not None and held[0] is keys  # the keys ``partitions_of`` converted
        key_column = held[1] if same else pa.array(keys, pa.binary())  # type: ignore[index]
        value_column = key_column if values is keys else pa.array(values, pa.binary())
        if partitions is None:
            partition_column = _repeated(0, n)
        elif same and held[2] is partitions:  # type: ignore[index]
            partition_column = pa.array(held[3])  # type: ignore[index]
        else:
            partition_column = pa.array([0 if p is None else p for p in partitions], pa.int32())
        times = np.fromiter(timestamps, np.int64, n)
        marks = _marks(times, self._marks.get(topic, _NO_MARK))
        self._marks[topic] = int(marks[-1])
        time_column = pa.array(times)
        if headers is None or headers.count(None) == n:
            header_column = pa.nulls(n, pa.string())
        else:
            header_column = pa.array([None if not h else headers_json(h) for h in headers],
                                     pa.string())
        seq = pa.array(np.arange(self.seq, self.seq + n, dtype=np.int64))
        self.seq += n
        return pa.RecordBatch.from_arrays(
            [_repeated(self._ids[topic], n), partition_column, key_column,  # type: ignore[index]
             value_column, time_column, header_column, _repeated(self._task, n), seq,
             time_column if marks is times else pa.array(marks)],
            schema=output_schema(topic_ids=True))

    def _add_batch(self, batch: Any) -> None:
        """Keep ``batch``'s rows after those kept so far."""
        if self.columns["seq"]:
            listed = self._listed()
            self._batches.append(listed)
            self._batched += listed.num_rows
        self._batches.append(batch)
        self._batched += batch.num_rows

    def _append(self, topic: str, partition: int, key: bytes | None, value: bytes | None,
                headers: Any, timestamp: int) -> None:
        c = self.columns
        c["topic"].append(topic if self._ids is None else self._ids[topic])
        c["partition"].append(partition)
        c["key"].append(key)
        c["value"].append(value)
        c["timestamp"].append(timestamp)
        if not headers:
            c["headers"].append(None)
        elif self._ids is not None:
            c["headers"].append(headers_json(headers))
        else:
            c["headers"].append([{"key": k, "value": v} for k, v in headers])
        c["task"].append(self._task)
        c["seq"].append(self.seq)
        self.seq += 1
        if self._ids is not None:
            mark = self._marks.get(topic, _NO_MARK)
            if timestamp > mark:
                self._marks[topic] = mark = timestamp
            c["mark"].append(mark)

    def __len__(self) -> int:
        return len(self.columns["seq"]) + self._batched

    def clear(self) -> None:
        """Forget the kept rows (the caller took them); ``seq`` counts on."""
        self.columns = {name: [] for name in self._fields}
        self._batches, self._batched = [], 0

    def drain(self) -> Any:
        """The kept rows as one Arrow record batch; the collector starts empty again."""
        import pyarrow as pa

        if self.columns["seq"] or not self._batches:
            self._batches.append(self._listed())
        batches, self._batches, self._batched = self._batches, [], 0
        if len(batches) == 1:
            return batches[0]
        return pa.Table.from_batches(batches).combine_chunks().to_batches()[0]

    def _listed(self) -> Any:
        """The rows in ``columns`` as an Arrow record batch; ``columns`` start empty again."""
        import numpy as np
        import pyarrow as pa

        schema = output_schema(self._ids is not None)
        c = self.columns
        n = len(c["seq"])
        arrays = []
        for name, field in zip(self._fields, schema, strict=True):
            column = c[name]
            if name == "seq" and n:  # consecutive: each kept row takes the next
                array = pa.array(np.arange(column[0], column[0] + n, dtype=np.int64))
            elif name == "headers" and column.count(None) == n:  # (the usual case)
                array = pa.nulls(n, field.type)
            elif name == "task" and n and column.count(column[0]) == n:  # one writing task
                array = pa.repeat(pa.scalar(column[0], field.type), n)
            else:
                array = pa.array(column, type=field.type)
            arrays.append(array)
        self.columns = {name: [] for name in self._fields}
        return pa.RecordBatch.from_arrays(arrays, schema=schema)


class CycleCollector(RowCollector):
    """The one ``RecordCollector`` of all the tasks of a cycle run together (``CycleRunner``),
    as the test driver has one for all its tasks: sends to ``loop`` topics (those the cycle's
    tasks read) queue in ``pending`` for the runner to hand to their reader, sends to ``keep``
    topics become rows, each row with ``task`` the writing task's partition (``writing``).

    The cycle's writes are one sequence: ``seq`` counts across all its tasks, and each row's
    ``mark`` is its ``seq``, so a later stage sorting one partition's rows by (mark, task, seq)
    takes them in the order they were written, whichever task wrote them, as the driver hands
    them over; a result frame's rows of one partition sorted by ``seq`` are in that order too.
    """

    def __init__(self, partition_counts: dict[str, int], keep: Iterable[str],
                 loop: Iterable[str], topic_ids: dict[str, int] | None = None) -> None:
        self._out = set(keep)
        self._loop = set(loop)
        super().__init__(partition_counts, self._out | self._loop, 0, topic_ids)
        self.pending: deque[tuple[str, int, Any, Any, Any, int]] = deque()

    def writing(self, partition: int) -> None:
        """Mark the rows that follow as written by the task of ``partition``."""
        self._task = partition

    def keeps(self, topic: str) -> bool:
        """True when sends to ``topic`` become rows."""
        return topic in self._out

    def writer(self, topic: str) -> Callable[..., None] | None:
        """No direct append for a loop topic: its sends are queued by ``send``."""
        return None if topic in self._loop else super().writer(topic)

    def extend(self, topic: str, keys: list[Any], values: list[Any], headers: list[Any] | None,
               timestamps: list[int], partitions: list[int | None] | None = None) -> None:
        """Refused: a cycle's tasks run record by record (no bulk executor feeds them)."""
        msg = "a cycle's tasks run record by record; nothing appends columns to its collector"
        raise AssertionError(msg)

    def _append(self, topic: str, partition: int, key: bytes | None, value: bytes | None,
                headers: Any, timestamp: int) -> None:
        if topic in self._loop:
            self.pending.append((topic, partition, key, value, headers, timestamp))
        if topic in self._out:
            super()._append(topic, partition, key, value, headers, timestamp)
            if "mark" in self.columns:  # (batch replay's rows)
                self.columns["mark"][-1] = self.columns["seq"][-1]


class SparkPort(CollectorPort):
    """What the bulk executor sees of a task runner (``kslab.core.bulk.EnginePort``): Spark
    drives a task as the test driver does, committing after every record; each chunk brings
    its rows' offsets, and sink records go to the ``RowCollector``."""

    def __init__(self, collector: RowCollector) -> None:
        super().__init__(collector.extend)
        self._collector = collector

    def appends_only(self, topic: str) -> bool:
        """True: no task of this runner reads back what it writes. Kept topics' columns
        become rows; a dropped topic's (a changelog: Spark holds or discards the state
        itself) go to ``RowCollector.extend``, which drops them as ``send`` drops a record,
        instead of one ``log_change`` call per store write."""
        return True

    def partitions(self, topic: str, keys: list[bytes | None]) -> list[int] | None:
        """The partition ``RowCollector.send`` picks for each serialized key with a sink's
        default partitioner; ``None`` (declined) for a ``None`` key on a topic of several
        partitions, which takes the next round-robin partition."""
        return self._collector.partitions_of(topic, keys)


class TaskRunner:
    """Builds and drives the core task of one (sub-topology, partition) over raw records.

    Its global stores are a global task it fills from ``global_records`` (and closes), or
    ``shared_global``'s, which the caller keeps (streaming: one per Python worker).
    """

    def __init__(self, topology: Topology, props: dict[str, Any], application_id: str,
                 subtopology: int, nodes: Iterable[str], partition: int,
                 inputs: list[tuple[str, int]], partition_counts: dict[str, int],
                 keep: Iterable[str], clock: Callable[[], int],
                 store_hook: Callable[[StreamTask], None] | None = None,
                 topic_ids: dict[str, int] | None = None,
                 global_records: list[tuple[Any, ...]] | None = None,
                 shared_global: StreamTask | None = None) -> None:
        self.collector = RowCollector(partition_counts, keep, partition, topic_ids)
        self._state_dir = Path(tempfile.mkdtemp(prefix=f"kslab-spark-{subtopology}_{partition}-"))
        config = StreamsConfig({**REPLAY_DEFAULTS, **props})
        self.global_task: StreamTask | None = None  # owned: closed with the runner
        if global_records is not None:  # before this task is built: its processors read them
            self.global_task = filled_global_task(topology, config, application_id, clock,
                                                  global_records, partition_counts,
                                                  self._state_dir / "global")
        self.task = StreamTask(
            TaskId(subtopology, partition), topology, nodes,
            config=config, application_id=application_id,
            collector=self.collector, clock=clock, input_partitions=inputs,
            state_dir=self._state_dir,
            global_stores=shared_global.stores if shared_global is not None
            else None if self.global_task is None else self.global_task.stores,
        )
        if store_hook is not None:
            store_hook(self.task)
        self.task.initialize()
        self._single = len(inputs) == 1
        self._queue = self.task.queue_for(*inputs[0]) if self._single else None
        # runs of one input partition over the DSL operators' batch forms (kslab.core.bulk):
        # a fed run of a one-input task; what a task of several takes one after another
        # from one of them (``drain_queued``)
        self.bulk: BulkExecutor | None = (
            BulkExecutor(SparkPort(self.collector), partitioned=True)
            if self.task.config.get("kslab.spark.bulk") is not False else None)
        self.fed = 0  # records fed
        self.bulk_records = 0  # of which run in chunks

    def feed(self, topics: list[str], partition: int, offsets: list[int], timestamps: list[int],
             keys: list[Any], values: list[Any], headers: list[Any]) -> None:
        """Process (one input partition) or queue (several) the given raw records in order."""
        task = self.task
        self.fed += len(offsets)
        if not self._single:
            add = task.add_record
            for i in range(len(offsets)):
                add((topics[i], partition, offsets[i], timestamps[i], keys[i], values[i],
                     record_headers(headers[i])))
            return
        topic = topics[0] if topics else None
        if self.bulk is not None and len(offsets) > 1 and self._feed_bulk(
                topic, partition, offsets, timestamps, keys, values, headers):
            return
        process_now, queue = task.process_now, self._queue
        heap = task.stream_time_queue.heap
        commit = task.commit
        for i in range(len(offsets)):
            raw = (topic, partition, offsets[i], timestamps[i], keys[i], values[i],
                   record_headers(headers[i]))
            if process_now(raw, queue) and heap:
                task.maybe_punctuate_stream_time()
            commit()

    def _feed_bulk(self, topic: Any, partition: int, offsets: list[int],
                   timestamps: list[int], keys: list[Any], values: list[Any],
                   headers: list[Any]) -> bool:
        """Run the rows as one chunk of the task; ``False``, nothing changed: declined."""
        bulk = self.bulk
        assert bulk is not None
        if bulk.plan(self.task, topic) is None:
            bulk.declined += 1
            return False
        if not isinstance(headers, list) or headers.count(None) != len(headers):
            headers = list(map(record_headers, headers))  # (numpy arrays in streaming)
        if not bulk.run_columns(self.task, topic, (keys, values, headers, timestamps, None),
                                offsets, partition):
            return False
        self.bulk_records += len(offsets)
        return True

    def drain_queued(self) -> None:
        """Process what ``feed`` queued, smallest head timestamp first (the core's choice):
        after each record taken, the run the task takes next one after another from the
        same partition (``PartitionGroup.run_after``) as one chunk where the batch path
        takes it, else record by record."""
        task = self.task
        bulk = self.bulk
        while task.has_records():
            if task.process():
                task.maybe_punctuate_stream_time()
            task.commit()
            if bulk is not None:
                self._drain_run()

    def _drain_run(self) -> None:
        """The run after the record ``drain_queued`` took (see there): ``run_queued``, its
        record path each record as ``process`` takes it (a skipped one is no step)."""
        task = self.task
        found = task.partition_group.run_after()
        if found is None:
            return
        queue, raws = found

        def each(start: int, end: int) -> None:
            for raw in raws[start:end]:
                if task.process_now(raw, queue):
                    task.maybe_punctuate_stream_time()
                    task.commit()

        self.bulk_records += run_queued(self.bulk, task, queue, raws, each)

    def output(self) -> Iterator[Any]:
        """The collected output as Arrow batches (nothing when there is none)."""
        if len(self.collector):
            yield self.collector.drain()

    def close(self) -> None:
        """Close the task (and its global stores) and remove its scratch state directory."""
        try:
            if self.bulk is not None:
                self.bulk.forget(self.task)
            self.task.close()
            if self.global_task is not None:
                self.global_task.close()
        finally:
            shutil.rmtree(self._state_dir, ignore_errors=True)


def _marks(timestamps: Any, mark: int) -> Any:
    """Each of ``timestamps``' mark (a numpy ``int64`` array, not empty): the highest of
    ``mark`` and the timestamps up to it; ``timestamps`` itself when they never fall and
    start at ``mark`` or above (the usual case)."""
    import numpy as np

    if timestamps[0] >= mark and bool((timestamps[1:] >= timestamps[:-1]).all()):
        return timestamps
    marks = np.maximum.accumulate(timestamps)
    return np.maximum(marks, mark, out=marks)


def _repeated(value: int, n: int) -> Any:
    """An Arrow ``int32`` column of ``n`` times ``value``."""
    import pyarrow as pa

    return pa.repeat(pa.scalar(value, pa.int32()), n)


def batch_rows() -> int:
    """How many output rows the runner collects before handing Spark a batch."""
    return _BATCH_ROWS


