"""Batch replay: a whole topology over Spark DataFrames, one core task per sub-topology partition.

Each stage reads its inputs as one Spark partition per Kafka partition in offset (or timestamp)
order and runs the core's task over it with ``mapInArrow``; a topic written by one stage and read
by another (a repartition topic) is a Spark shuffle by the partition Kafka's murmur2 partitioner
picked, sorted within each partition by (mark, writing task, write sequence): a writer's mark is
the highest timestamp it had written so far, so each writer's records keep the order it wrote
them in, as Kafka keeps them (a record out of order in time stays late), and several writers of
one partition are merged by how far each had got in time. Sub-topologies that feed each other
(a foreign-key join) are one stage run in one Spark task, fed every input record of the cycle
in one sequence (``_run_cycle``, ``kslab.spark._cycle``). Invariant: every record reaches its
task in an order Kafka could have given it, the test driver's order where one task writes each
partition, so the outputs then equal the driver's record for record; Spark only moves bytes
between tasks.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Iterator, Mapping
from typing import Any

import pandas as pd  # module level: pandas_udf resolves the type hints below by name

from kslab.config import StreamsConfig
from kslab.core.gc_pause import fewer_collections
from kslab.errors import StreamsError
from kslab.spark._plan import SparkPlan, Stage
from kslab.spark._task import TaskRunner, batch_rows, output_schema
from kslab.spark._workers import check_workers, settle_worker_heap
from kslab.topology.topology import Topology

__all__ = ["FED_COLUMNS", "bulk_stats", "run_batch", "stage_function"]

DEFAULT_APPLICATION_ID = "kslab-spark"
_HEADERS = "array<struct<key:string,value:binary>>"
# Between stages a topic travels as its index (``_q`` in, ``_t`` out), not its name: the names
# of internal topics are long, and every byte of a row is shuffled, sorted and converted.
# The records run_batch's tasks were fed, and of them run in batch chunks, per SparkContext
# (accumulators the workers add to as each task closes)
_STATS: weakref.WeakKeyDictionary[Any, tuple[Any, Any]] = weakref.WeakKeyDictionary()


def run_batch(topology: Any, inputs: Mapping[str, Any], *, config: Mapping[str, Any] | None = None,
              partitions: Mapping[str, int] | None = None, decode: bool | str = False,
              schemas: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """Replay ``topology`` over Spark DataFrames; return each sink topic's records as a DataFrame.

    ``inputs`` maps every source topic to a DataFrame with ``key`` and ``value``, ``timestamp``
    (ms or a Spark timestamp) and optionally ``partition``, ``offset`` and ``headers``; a key
    or value column is binary (the record's bytes), a string (its UTF-8 text) or any other
    Spark type, which the topic's source serde writes (``kslab.spark.encode``).
    ``partitions`` gives topics' partition counts (default: ``max(partition) + 1`` of a frame
    with that column, else 1). Output frames have ``topic, partition, key, value, timestamp,
    headers`` and ``task, seq``: the writing task's partition and its write sequence, which
    order one task's records of a topic. Keys and values are binary unless ``decode`` is
    ``True`` (typed columns, decoded with the sink's serdes by ``kslab.spark.decode``) or
    ``"both"`` (typed, and the bytes as ``raw_key``/``raw_value``); ``schemas`` gives the
    Spark type of a topic's ``"key"`` or ``"value"`` (``{"counts": {"value": "long"}}``).
    Raises ``SparkUnavailableError`` when Spark's Python workers cannot import this kslab
    (checked once per SparkContext and worker Python).
    """
    if decode not in (False, True, "both"):
        msg = f"run_batch's decode is False, True or 'both'; got {decode!r}"
        raise StreamsError(msg)
    if schemas and not decode:
        msg = (f"run_batch got schemas for {', '.join(sorted(schemas))} without decode; pass "
               "decode=True (or 'both') to get typed output columns")
        raise StreamsError(msg)
    from kslab.spark.session import require_pyspark

    require_pyspark()
    if hasattr(topology, "build") and not isinstance(topology, Topology):
        topology = topology.build(dict(config or {}))
    if not isinstance(topology, Topology):
        msg = f"run_batch needs a ks.Topology or a StreamsBuilder; got {type(topology).__name__}"
        raise StreamsError(msg)
    props = dict(config or {})
    streams_config = StreamsConfig(props)
    streams_config.check_support("spark")
    application_id = streams_config.get("application.id") or DEFAULT_APPLICATION_ID
    frames = dict(inputs)
    _check_global_inputs(topology, frames)
    counts = {t: _partition_count(t, df, partitions) for t, df in frames.items()}
    counts.update({t: n for t, n in (partitions or {}).items() if t not in counts})
    plan = SparkPlan.build(topology, application_id, counts)
    _check_inputs(plan, frames)
    frames = {t: _typed_input(topology, t, df, props, application_id)
              for t, df in frames.items()}
    if frames:  # before any kslab task is planned: they run in Spark's Python workers
        check_workers(next(iter(frames.values())).sparkSession)
    global_records = _global_records(plan, frames, counts)
    topics: dict[str, Any] = {}  # topic -> frame of records sent to it (stage output rows)
    sinks: set[str] = set()
    for stage in plan.stages:
        sources = [_source_frame(frames[t], t, i, counts[t]) if t in frames
                   else _internal_frame(topics[t], i)
                   for i, t in enumerate(stage.source_topics)]
        output = _run_cycle(plan, stage, sources, props, global_records) if stage.members \
            else _run_stage(plan, stage, sources, props, frames, global_records)
        consumers = list(stage.sink_topics)
        if len(consumers) > 1:
            from pyspark import StorageLevel

            output = output.persist(StorageLevel.MEMORY_AND_DISK)  # each topic reads it once
        for index, topic in enumerate(consumers):
            topics[topic] = output if len(consumers) == 1 else output.where(
                output["_t"] == index)
            sinks.add(topic)
    out = {t: _named(topics[t], t) for t in sorted(sinks)
           if not plan.readers(t) or not plan.is_internal(t)}
    if decode:
        _check_schemas(schemas or {}, out)
        out = {t: _decoded(topology, t, df, props, application_id, (schemas or {}).get(t, {}),
                           decode == "both") for t, df in out.items()}
    return out


def _typed_input(topology: Topology, topic: str, df: Any, props: dict[str, Any],
                 application_id: str) -> Any:
    """A frame whose typed key or value columns the topic's source serdes have written."""
    from pyspark.sql import types as st

    from kslab.spark.typed import encoded_frame, source_serdes

    types = [f.dataType for f in df.schema.fields if f.name in ("key", "value")]
    if all(isinstance(t, st.BinaryType | st.StringType | st.NullType) for t in types):
        return df
    key_serde, value_serde = source_serdes(topology, topic, props, application_id)
    return encoded_frame(df, key_serde, value_serde, topic)


def _check_schemas(schemas: Mapping[str, Mapping[str, Any]], out: Mapping[str, Any]) -> None:
    for topic, given in schemas.items():
        if topic not in out:
            msg = (f"run_batch got schemas for topic '{topic}', which the topology does not "
                   f"output (outputs: {', '.join(sorted(out)) or 'none'})")
            raise StreamsError(msg, topic=topic)
        wrong = sorted(set(given) - {"key", "value"})
        if wrong:
            msg = (f"run_batch's schemas for topic '{topic}' name {wrong[0]!r}; give "
                   "{'key': type, 'value': type}")
            raise StreamsError(msg, topic=topic)


def _decoded(topology: Topology, topic: str, df: Any, props: dict[str, Any],
             application_id: str, given: Mapping[str, Any], keep_raw: bool) -> Any:
    """A result frame with typed key and value columns, decoded with the sink's serdes."""
    from kslab.spark.typed import decoded_frame, sink_serdes

    key_serde, value_serde = sink_serdes(topology, topic, props, application_id)
    return decoded_frame(df, key_serde, value_serde, topic, given.get("key"),
                         given.get("value"), keep_raw)


def bulk_stats(spark: Any) -> dict[str, int]:
    """How many input records ``run_batch``'s tasks on ``spark``'s SparkContext processed so
    far (``records``), and how many of them ran in batch chunks over the DSL operators' batch
    forms (``bulk_records``; the rest went record by record). Counted as Spark tasks finish,
    so a frame computed twice counts twice; zeros for a Spark Connect session."""
    found = _accumulators(spark)
    if found is None:
        return {"records": 0, "bulk_records": 0}
    return {"records": int(found[0].value), "bulk_records": int(found[1].value)}


def _accumulators(spark: Any) -> tuple[Any, Any] | None:
    """The SparkContext's (records, bulk records) accumulators; ``None`` without one."""
    try:
        context = spark.sparkContext
    except Exception:  # Spark Connect: no accumulators
        return None
    found = _STATS.get(context)
    if found is None:
        found = _STATS[context] = (context.accumulator(0), context.accumulator(0))
    return found


def _named(output: Any, topic: str) -> Any:
    """Stage output rows of one topic as a result frame, with the topic's name."""
    from pyspark.sql import functions as sf

    return output.select(sf.lit(topic).alias("topic"), "partition", "key", "value", "timestamp",
                         sf.from_json("headers", _HEADERS).alias("headers"), "task", "seq")


def _partition_count(topic: str, df: Any, given: Mapping[str, int] | None) -> int:
    if given and topic in given:
        return int(given[topic])
    if "partition" in df.columns:
        from pyspark.sql import functions as sf

        top = df.agg(sf.max("partition")).first()[0]
        return 1 if top is None else int(top) + 1
    return 1


def _check_inputs(plan: SparkPlan, frames: Mapping[str, Any]) -> None:
    written = {t for s in plan.stages for t in s.sink_topics}
    for stage in plan.stages:
        for topic in stage.source_topics:
            if topic not in frames and topic not in written:
                given = ", ".join(sorted(frames)) or "none"
                msg = (f"sub-topology {stage.id} reads topic '{topic}' but inputs has no frame "
                       f"for it (given: {given}); pass inputs={{'{topic}': df, ...}}")
                raise StreamsError(msg, topic=topic)
    for topic, df in frames.items():
        missing = [c for c in ("key", "value", "timestamp") if c not in df.columns]
        if missing:
            msg = (f"the frame for topic '{topic}' has no column {missing[0]!r} (it has "
                   f"{', '.join(df.columns)}); give it key, value and timestamp columns")
            raise StreamsError(msg, topic=topic)


def _check_global_inputs(topology: Topology, frames: Mapping[str, Any]) -> None:
    """Every global store's topic has a frame: batch replay fills global stores from it."""
    for name, spec in topology.global_stores.items():
        if spec.topic not in frames:
            given = ", ".join(sorted(frames)) or "none"
            msg = (f"global store '{name}' reads topic '{spec.topic}' but inputs has no frame "
                   f"for it (given: {given}); pass inputs={{'{spec.topic}': df, ...}} with "
                   "the global table's records")
            raise StreamsError(msg, topic=spec.topic)


def _source_frame(df: Any, topic: str, queue: int, count: int) -> Any:
    """A user frame in the stage schema: binary key/value, ms timestamps, a partition."""
    from pyspark.sql import functions as sf
    from pyspark.sql import types as st

    fields = {f.name: f.dataType for f in df.schema.fields}
    key = sf.col("key").cast("binary") if not isinstance(fields["key"], st.BinaryType) \
        else sf.col("key")
    value = sf.col("value").cast("binary") if not isinstance(fields["value"], st.BinaryType) \
        else sf.col("value")
    ts_type = fields["timestamp"]
    timestamp = (sf.unix_micros(sf.col("timestamp").cast("timestamp")) / 1000).cast("long") \
        if isinstance(ts_type, st.TimestampType | st.TimestampNTZType | st.DateType) \
        else sf.col("timestamp").cast("long")
    # headers travel between stages as JSON text: nested columns are slow to convert
    headers = sf.to_json(sf.col("headers").cast(_HEADERS)) if "headers" in fields \
        else sf.lit(None).cast("string")
    row_id = sf.monotonically_increasing_id()
    if "partition" in fields:
        partition = sf.col("partition").cast("int")
    elif count == 1:
        partition = sf.lit(0)
    else:
        partition = _murmur2_partition(key, count)
    if "offset" in fields:
        o1, o2, offset = sf.col("offset").cast("long"), sf.lit(0).cast("long"), \
            sf.col("offset").cast("long")
    else:  # no offsets: timestamp order, ties in frame order
        o1, o2, offset = timestamp, row_id, sf.lit(-1).cast("long")
    return df.select(
        sf.lit(queue).alias("_q"), partition.alias("partition"),
        offset.alias("offset"), o1.alias("o1"), o2.alias("o2"), sf.lit(0).cast("long").alias("o3"),
        timestamp.alias("timestamp"), key.alias("key"), value.alias("value"),
        headers.alias("headers"),
    )


def _murmur2_partition(key: Any, count: int) -> Any:
    """A column: Kafka's default partition of the ``key`` column's bytes (round robin by row
    for no key)."""
    from pyspark.sql import functions as sf

    @sf.pandas_udf("int")  # type: ignore[misc, untyped-decorator]
    def partition_of(keys: pd.Series) -> pd.Series:
        from kslab.processor.partitioner import default_partition

        return pd.Series([-1 if k is None else default_partition(bytes(k), count)
                          for k in keys], dtype="int32")

    picked = partition_of(key)
    spread = sf.pmod(sf.monotonically_increasing_id(), sf.lit(count)).cast("int")
    return sf.when(picked < 0, spread).otherwise(picked)


def _global_records(plan: SparkPlan, frames: Mapping[str, Any],
                    counts: Mapping[str, int]) -> Any:
    """Every record of the global stores' topics, each partition's in offset (or timestamp)
    order, collected once and sent to every task (a broadcast variable where the session has
    a SparkContext): each task fills its global stores from them before it processes anything,
    as Kafka Streams bootstraps global stores at start. ``None`` without global stores."""
    if not plan.global_topics:
        return None
    records: list[tuple[Any, ...]] = []
    for topic in plan.global_topics:
        rows = _source_frame(frames[topic], topic, 0, counts[topic]) \
            .orderBy("partition", "o1", "o2", "o3").collect()
        positions: dict[int, int] = {}
        for row in rows:
            partition, offset = row["partition"], row["offset"]
            if offset < 0:  # no offsets given: the position in its partition
                offset = positions.get(partition, 0)
                positions[partition] = offset + 1
            key, value = row["key"], row["value"]  # (Spark's rows hold bytearrays)
            records.append((topic, partition, offset, row["timestamp"],
                            None if key is None else bytes(key),
                            None if value is None else bytes(value), row["headers"]))
    spark = next(iter(frames.values())).sparkSession
    try:
        return spark.sparkContext.broadcast(records)
    except Exception:  # Spark Connect: no SparkContext, the records travel with each task
        return records


def _value(global_records: Any) -> list[tuple[Any, ...]] | None:
    """The global records a task fills its global stores from (a broadcast's value)."""
    if global_records is None or isinstance(global_records, list):
        return global_records
    return global_records.value  # type: ignore[no-any-return]


def _internal_frame(output: Any, queue: int) -> Any:
    """Stage output rows of a topic as a later stage's input, ordered by (mark, task, sequence):
    each writing task's order kept, several writers merged by their marks (``RowCollector``)."""
    from pyspark.sql import functions as sf

    return output.select(
        sf.lit(queue).alias("_q"), "partition", sf.lit(-1).cast("long").alias("offset"),
        sf.col("mark").alias("o1"), sf.col("task").cast("long").alias("o2"),
        sf.col("seq").alias("o3"), "timestamp", "key", "value", "headers",
    )


def _run_stage(plan: SparkPlan, stage: Stage, sources: list[Any], props: dict[str, Any],
               frames: Mapping[str, Any], global_records: Any = None) -> Any:
    """One stage: route each Kafka partition to its own Spark partition, sort, run the tasks."""
    from pyspark.sql import functions as sf

    inputs = sources[0]
    for extra in sources[1:]:
        inputs = inputs.unionByName(extra)
    if not (len(sources) == 1 and stage.source_topics[0] in frames
            and _one_spark_partition_per_kafka_partition(frames[stage.source_topics[0]])):
        spark = inputs.sparkSession
        routes = route_values(spark, stage.tasks)
        route = sf.element_at(sf.create_map(*[sf.lit(x) for p, r in enumerate(routes)
                                            for x in (p, r)]), sf.col("partition"))
        inputs = inputs.repartition(stage.tasks, route) \
            .sortWithinPartitions("partition", "_q", "o1", "o2", "o3")
    run = stage_function(plan, stage, props, _accumulators(inputs.sparkSession), global_records)
    return inputs.select(*FED_COLUMNS).mapInArrow(run, _spark_schema())


def _run_cycle(plan: SparkPlan, stage: Stage, sources: list[Any], props: dict[str, Any],
               global_records: Any = None) -> Any:
    """A cycle's stage: all its inputs in one Spark partition, in the order its records are
    piped into the cycle one at a time (``CycleRunner``).

    That order is the one a task takes its buffered partitions in, over all the cycle's input
    partitions: the partition whose next record has the smallest timestamp first (ties: the
    topic's name, then the partition), each partition in its own order. Taking the smallest
    head is sorting by (the highest timestamp of the record's partition up to it, topic,
    partition, place): a late record's partition was taken last, and still is, until its
    late record is through.
    """
    from pyspark.sql import Window
    from pyspark.sql import functions as sf

    inputs = sources[0]
    for extra in sources[1:]:
        inputs = inputs.unionByName(extra)
    upto = Window.partitionBy("_q", "partition").orderBy("o1", "o2", "o3") \
        .rowsBetween(Window.unboundedPreceding, Window.currentRow)
    inputs = inputs.withColumn("_m", sf.max("timestamp").over(upto)).repartition(1) \
        .sortWithinPartitions("_m", "_q", "partition", "o1", "o2", "o3")
    run = _cycle_function(plan, stage, props, _accumulators(inputs.sparkSession),
                          global_records)
    return inputs.select(*FED_COLUMNS).mapInArrow(run, _spark_schema())


def _cycle_function(plan: SparkPlan, stage: Stage, props: dict[str, Any],
                    stats: tuple[Any, Any] | None = None, global_records: Any = None) -> Any:
    from kslab.spark._cycle import CycleRunner

    topology, app_id = plan.topology, plan.application_id
    counts = dict(plan.partitions)
    sink_ids = {t: i for i, t in enumerate(stage.sink_topics)}
    topics = list(stage.source_topics)
    started = int(time.time() * 1000)

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        settle_worker_heap()
        with fewer_collections():
            yield from cycle(batches)

    def cycle(batches: Iterator[Any]) -> Iterator[Any]:
        runner = CycleRunner(topology, props, app_id, stage.members, counts, stage.sink_topics,
                             lambda: started, sink_ids, _value(global_records))
        limit = batch_rows()
        try:
            for batch in batches:
                cols = [batch.column(name).to_pylist() for name in FED_COLUMNS]
                for q, p, offset, timestamp, key, value, headers in zip(*cols, strict=True):
                    runner.pipe(topics[q], p, offset, timestamp, key, value, headers)
                    if len(runner.collector) >= limit:
                        yield runner.collector.drain()
            yield from runner.output()
            _count(runner, stats)
        finally:
            runner.close()

    return run


def stage_function(plan: SparkPlan, stage: Stage, props: dict[str, Any],
                    stats: tuple[Any, Any] | None = None, global_records: Any = None) -> Any:
    """The function ``mapInArrow`` runs for ``stage`` in a Python worker: Arrow batches of
    ``FED_COLUMNS`` in (one Kafka partition's rows after another's, each in its order), a
    ``TaskRunner`` per partition, its output rows out as Arrow batches."""
    topology, app_id = plan.topology, plan.application_id
    counts = dict(plan.partitions)
    keep = set(stage.sink_topics)
    sink_ids = {t: i for i, t in enumerate(stage.sink_topics)}
    topics = list(stage.source_topics)
    nodes = list(stage.nodes)
    started = int(time.time() * 1000)

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        settle_worker_heap()
        with fewer_collections():
            yield from tasks(batches)

    def tasks(batches: Iterator[Any]) -> Iterator[Any]:
        runner: TaskRunner | None = None
        current = -1
        offsets: dict[tuple[str, int], int] = {}
        limit = batch_rows()
        try:
            for cols in _fed_columns(batches, len(topics) > 1):
                parts = cols["partition"]
                n = len(cols["timestamp"])
                start = 0
                while start < n:
                    if isinstance(parts, int):  # one Kafka partition (usual)
                        p, end = parts, n
                    else:
                        p, end = parts[start], start
                        while end < n and parts[end] == p:
                            end += 1
                    if p != current:
                        if runner is not None:
                            runner.drain_queued()
                            yield from runner.output()
                            _count(runner, stats)
                            runner.close()
                        inputs = [(t, p) for t in topics if p < counts.get(t, 1)]
                        runner = TaskRunner(topology, props, app_id, stage.id, nodes, p,
                                            inputs, counts, keep, lambda: started,
                                            topic_ids=sink_ids,
                                            global_records=_value(global_records))
                        current = p
                    run_cols = cols if start == 0 and end == n else {
                        name: column if column is None or isinstance(column, int)
                        else column[start:end] for name, column in cols.items()}
                    got = run_cols["offset"]
                    if len(topics) == 1:
                        names = [topics[0]] * (end - start)
                    else:
                        names = [topics[q] for q in run_cols["_q"]]
                    if got is None:  # none given (an internal topic): positions
                        tp = (topics[0], p)
                        first = offsets.get(tp, 0)
                        got = list(range(first, first + end - start))
                        offsets[tp] = first + len(got)
                    elif got and min(got) < 0:
                        got = list(got)
                        for i, off in enumerate(got):
                            if off < 0:  # no offset given: the position in its partition
                                tp = (names[i], p)
                                got[i] = offsets.get(tp, 0)
                                offsets[tp] = got[i] + 1
                    runner.feed(names, p, got, run_cols["timestamp"], run_cols["key"],
                                run_cols["value"], run_cols["headers"])
                    if len(runner.collector) >= limit:
                        yield runner.collector.drain()
                    start = end
            if runner is not None:
                runner.drain_queued()
                yield from runner.output()
                _count(runner, stats)
        finally:
            if runner is not None:
                runner.close()

    return run


def _fed_columns(batches: Iterator[Any], several_topics: bool) -> Iterator[dict[str, Any]]:
    """The fed rows as Python columns, Spark's Arrow batches (``maxRecordsPerBatch``, 10,000
    rows by default) joined into chunks of at least ``CHUNK_ROWS``: a task's batch forms do
    work per chunk for each distinct key (its cache entries, its store's finals), so larger
    chunks do less of it; the rows and their order are the same.

    ``partition`` is one int when every row of the chunk has the same (the usual case, one
    Kafka partition per Spark task); ``offset`` is ``None`` when no row has one (an internal
    topic: the task numbers them), ``headers`` all ``None`` when no row has any, and ``_q``
    is only read for a stage of several topics.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    pending: list[Any] = []
    rows = 0
    for batch in batches:
        if batch.num_rows == 0:
            continue
        pending.append(batch)
        rows += batch.num_rows
        if rows < CHUNK_ROWS:
            continue
        table, pending, rows = pa.Table.from_batches(pending), [], 0
        yield _columns_of(table, several_topics, pc)
    if pending:
        yield _columns_of(pa.Table.from_batches(pending), several_topics, pc)


def _columns_of(table: Any, several_topics: bool, pc: Any) -> dict[str, Any]:
    """``_fed_columns``' dict for one chunk."""
    n = table.num_rows
    low, high = pc.min_max(table.column("partition")).values()
    partition: Any = low.as_py() if low == high else table.column("partition").to_pylist()
    offset = table.column("offset")
    headers = table.column("headers")
    return {
        "_q": table.column("_q").to_pylist() if several_topics else None,
        "partition": partition,
        "offset": None if pc.max(offset).as_py() < 0 and not several_topics
        else offset.to_pylist(),
        "timestamp": table.column("timestamp").to_pylist(),
        "key": table.column("key").to_pylist(),
        "value": table.column("value").to_pylist(),
        "headers": [None] * n if headers.null_count == n else headers.to_pylist(),
    }


# a task is fed chunks of at least this many rows (``_fed_columns``)
CHUNK_ROWS = 65536


# the input columns a task is fed (the sort columns o1, o2, o3 stay in the JVM)
FED_COLUMNS = ("_q", "partition", "offset", "timestamp", "key", "value", "headers")


def _count(runner: Any, stats: tuple[Any, Any] | None) -> None:
    """Add a finished task's records to the ``bulk_stats`` accumulators (a ``TaskRunner`` or
    a ``CycleRunner``: ``fed`` and ``bulk_records``)."""
    if stats is not None:
        stats[0].add(runner.fed)
        stats[1].add(runner.bulk_records)


def _spark_schema() -> Any:
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(output_schema(topic_ids=True))


_ROUTES: dict[int, list[int]] = {}


def route_values(spark: Any, count: int) -> list[int]:
    """For each partition p < ``count``, an int that Spark's hash partitioning sends to p.

    ``repartition(count, col)`` puts a row in ``pmod(murmur3(col), count)``, which is not the
    identity on 0..count-1 (two Kafka partitions could share a Spark task and leave a core
    idle); routing by these values gives every Kafka partition a Spark partition of its own.
    """
    found = _ROUTES.get(count)
    if found is None:
        from pyspark.sql import functions as sf

        rows = spark.range(0, 64 * count + 64).select(
            sf.col("id").cast("int").alias("v"),
            sf.pmod(sf.hash(sf.col("id").cast("int")), sf.lit(count)).alias("p"),
        ).collect()
        first: dict[int, int] = {}
        for row in rows:
            first.setdefault(row["p"], row["v"])
        found = _ROUTES[count] = [first.get(p, p) for p in range(count)]
    return found


def _one_spark_partition_per_kafka_partition(df: Any) -> bool:
    """True for a plain kslab-kafka scan: it reads one Kafka partition per Spark partition."""
    from kslab.spark.kafka import is_partitioned_scan

    return is_partitioned_scan(df)
