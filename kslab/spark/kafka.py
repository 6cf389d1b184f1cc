"""The ``kslab-kafka`` Spark data source: Kafka topics read and written from PySpark in Python.

Built on PySpark's Python Data Source API and confluent-kafka, because the JVM Kafka connector
is not needed (and cannot always be installed). Readers give the columns ``key``, ``value``
(binary), ``topic``, ``partition``, ``offset``, ``timestamp`` (ms, long) and ``headers``; writers
take ``key``, ``value`` and optionally ``topic``, ``partition``, ``timestamp``, ``headers``.
Options: ``kafka.bootstrap.servers`` (or ``bootstrap.servers``), ``subscribe`` (topics, comma
separated), ``startingOffsets`` / ``endingOffsets`` (``earliest``, ``latest`` or JSON such as
``{"t": {"0": 23, "1": -2}}`` with -2 = earliest, -1 = latest), ``maxOffsetsPerTrigger``,
``topic`` (writers), and any ``kafka.<client setting>``.

Invariant: each Spark input partition reads exactly one Kafka partition's ``[start, end)`` offset
range, in offset order, and ``latest`` is the true end of the log — found by reading, not by
trusting the broker's high watermark, which some brokers (Tansu) under-report.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterable, Iterator
from typing import Any

from pyspark.sql.datasource import (
    DataSource,
    DataSourceArrowWriter,
    DataSourceReader,
    DataSourceStreamArrowWriter,
    DataSourceStreamReader,
    InputPartition,
    WriterCommitMessage,
)
from pyspark.sql.streaming.datasource import (
    ReadAllAvailable,
    ReadMaxRows,
    SupportsTriggerAvailableNow,
)

from kslab.errors import StreamsError

__all__ = ["FORMAT", "KafkaDataSource", "Producing", "end_offsets", "is_partitioned_scan",
           "log_ends", "read_range", "register"]

FORMAT = "kslab-kafka"
SCHEMA = ("key binary, value binary, topic string, partition int, offset long, timestamp long, "
          "headers array<struct<key:string,value:binary>>")
EARLIEST, LATEST = -2, -1
_ROWS = 10000


def register(spark: Any) -> None:
    """Register the ``kslab-kafka`` format on ``spark`` (needed in every session)."""
    spark.dataSource.register(KafkaDataSource)


def is_partitioned_scan(df: Any) -> bool:
    """True when ``df`` is a plain ``kslab-kafka`` batch scan: a Spark partition per Kafka one."""
    try:
        plan = df._jdf.queryExecution().optimizedPlan().toString()
    except Exception:
        return False
    lines = [line.strip(" +-:") for line in plan.splitlines() if line.strip()]
    scans = [line for line in lines if FORMAT in line or "KafkaDataSource" in line]
    reorders = ("Repartition", "Sort", "Union", "Join", "Aggregate", "Window", "Sample",
                "Deduplicate", "Generate", "Expand", "Limit", "Rebalance")
    return len(scans) == 1 and not any(line.startswith(reorders) for line in lines)


class KafkaPartition(InputPartition):
    """One Kafka partition's ``[start, end)`` offset range (``end`` -1: to the end of the log)."""

    def __init__(self, topic: str, partition: int, start: int, end: int) -> None:
        super().__init__((topic, partition, start, end))
        self.topic, self.partition, self.start, self.end = topic, partition, start, end


class KafkaDataSource(DataSource):
    """``spark.read.format("kslab-kafka")`` and ``readStream``/``write``/``writeStream``."""

    @classmethod
    def name(cls) -> str:
        """The format name."""
        return FORMAT

    def schema(self) -> str:
        """The record columns every reader returns."""
        return SCHEMA

    def reader(self, schema: Any) -> DataSourceReader:
        """A batch reader over ``startingOffsets`` .. ``endingOffsets``."""
        return KafkaBatchReader(dict(self.options))

    def streamReader(self, schema: Any) -> DataSourceStreamReader:  # noqa: N802 - PySpark's name
        """A micro-batch reader with exact offset ranges and ``availableNow`` support."""
        return KafkaStreamReader(dict(self.options))

    def writer(self, schema: Any, overwrite: bool) -> DataSourceArrowWriter:
        """A batch writer producing each row to Kafka."""
        return KafkaArrowWriter(dict(self.options))

    def streamWriter(self, schema: Any, overwrite: bool) -> DataSourceStreamArrowWriter:  # noqa: N802
        """A streaming writer producing each micro-batch to Kafka (at-least-once)."""
        return KafkaStreamArrowWriter(dict(self.options))


# -- client settings --------------------------------------------------------------------------


def client_config(options: dict[str, str]) -> dict[str, Any]:
    """confluent-kafka settings from data source options (``kafka.`` prefix stripped)."""
    lowered = {k.lower(): v for k, v in options.items()}
    config: dict[str, Any] = {}
    for key, value in options.items():
        if key.lower().startswith("kafka."):
            config[key[len("kafka."):]] = value
    servers = lowered.get("kafka.bootstrap.servers") or lowered.get("bootstrap.servers")
    if not servers:
        msg = ("the kslab-kafka source needs the broker address; pass "
               ".option('kafka.bootstrap.servers', 'host:port')")
        raise StreamsError(msg)
    config["bootstrap.servers"] = servers
    return config


def _consumer(options: dict[str, str]) -> Any:
    from confluent_kafka import Consumer

    config = client_config(options)
    config.update({"group.id": f"kslab-spark-{uuid.uuid4().hex[:8]}", "enable.auto.commit": False,
                   "enable.partition.eof": True, "fetch.wait.max.ms": 50})
    return Consumer(config)


def _topics(options: dict[str, str]) -> list[str]:
    lowered = {k.lower(): v for k, v in options.items()}
    topics = [t.strip() for t in (lowered.get("subscribe") or "").split(",") if t.strip()]
    if not topics:
        msg = "the kslab-kafka reader needs topics; pass .option('subscribe', 'topic1,topic2')"
        raise StreamsError(msg)
    return topics


def _partitions(consumer: Any, topics: list[str]) -> list[tuple[str, int]]:
    metadata = consumer.list_topics(timeout=10)
    out = []
    for topic in topics:
        found = metadata.topics.get(topic)
        if found is None or found.error is not None:
            msg = f"topic '{topic}' does not exist on the broker; create it before reading it"
            raise StreamsError(msg, topic=topic)
        out.extend((topic, p) for p in sorted(found.partitions))
    return out


def end_offsets(consumer: Any, partitions: list[tuple[str, int]],
                timeout: float = 20.0) -> dict[tuple[str, int], tuple[int, int]]:
    """``(earliest, true end)`` of each partition: the end is found by reading the last batch."""
    from confluent_kafka import KafkaError, TopicPartition

    marks = {}
    for topic, p in partitions:
        low, high = consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)
        marks[(topic, p)] = (max(low, 0), max(high, 0))
    probe = [(tp, high) for tp, (low, high) in marks.items() if high > low]
    ends = {tp: high for tp, (_, high) in marks.items()}
    if not probe:
        return marks
    consumer.assign([TopicPartition(t, p, high - 1) for (t, p), high in probe])
    pending = {tp for tp, _ in probe}
    deadline = time.monotonic() + timeout
    try:
        while pending and time.monotonic() < deadline:
            # as many events as partitions pending: the call returns when they are there
            # (a larger count would wait out the timeout every time)
            for message in consumer.consume(len(pending), 0.2):
                tp = (message.topic(), message.partition())
                error = message.error()
                if error is not None:
                    if error.code() == KafkaError._PARTITION_EOF:
                        pending.discard(tp)
                        continue
                    msg = f"reading the end of {tp[0]}[{tp[1]}] failed: {error}"
                    raise StreamsError(msg, topic=tp[0])
                ends[tp] = max(ends[tp], message.offset() + 1)
    finally:
        consumer.unassign()
    if pending:
        msg = f"could not find the end of {sorted(pending)} within {timeout} s; check the broker"
        raise StreamsError(msg)
    return {tp: (marks[tp][0], ends[tp]) for tp in marks}


def log_ends(options: dict[str, str],
             partitions: list[tuple[str, int]]) -> dict[tuple[str, int], tuple[int, int]]:
    """``end_offsets`` of ``partitions`` with a consumer made from data source ``options``."""
    consumer = _consumer(options)
    try:
        return end_offsets(consumer, partitions)
    finally:
        consumer.close()


def parse_offsets(spec: str | None, default: str, partitions: list[tuple[str, int]],
                  bounds: dict[tuple[str, int], tuple[int, int]]) -> dict[tuple[str, int], int]:
    """Offsets per partition from ``earliest``, ``latest`` or Spark's per-partition JSON."""
    spec = (spec or default).strip()
    if spec.lower() in ("earliest", "latest"):
        pick = 0 if spec.lower() == "earliest" else 1
        return {tp: bounds[tp][pick] for tp in partitions}
    try:
        given = json.loads(spec)
    except json.JSONDecodeError as exc:
        msg = (f"offsets {spec!r} are neither 'earliest', 'latest' nor JSON like "
               '{"topic": {"0": 23}}; fix the option')
        raise StreamsError(msg) from exc
    out = {}
    for topic, p in partitions:
        value = given.get(topic, {}).get(str(p), EARLIEST if default == "earliest" else LATEST)
        value = int(value)
        out[(topic, p)] = bounds[(topic, p)][0] if value == EARLIEST else \
            bounds[(topic, p)][1] if value == LATEST else value
    return out


# -- reading ----------------------------------------------------------------------------------


def read_range(options: dict[str, str], part: KafkaPartition) -> Iterator[Any]:
    """Arrow batches of one partition's ``[start, end)`` records, in offset order.

    The Python worker's consumer for these options is reused (``_CONSUMERS``): a consumer's
    start (connections, the broker's metadata) costs more than a micro-batch of records.
    """
    import pyarrow as pa
    from confluent_kafka import KafkaError, TopicPartition

    if part.end >= 0 and part.start >= part.end:
        return
    schema = _arrow_schema()
    key = tuple(sorted((k, str(v)) for k, v in options.items()))
    consumer = _CONSUMERS.pop(key, None) or _consumer(options)
    consumer.assign([TopicPartition(part.topic, part.partition, part.start)])
    chunks: list[list[Any]] = []
    rows = 0
    position = part.start
    idle_until = time.monotonic() + 60
    try:
        done = False
        while not done:
            # ask for exactly what is left (up to a chunk): consume() returns as soon as
            # that many have come, rather than waiting out its timeout for more
            wanted = _ROWS if part.end < 0 else max(1, min(_ROWS, part.end - position))
            messages = consumer.consume(wanted, 0.1)
            if not messages and time.monotonic() > idle_until:
                msg = (f"reading {part.topic}[{part.partition}] stalled before offset "
                       f"{part.end}; check the broker")
                raise StreamsError(msg, topic=part.topic)
            kept = []
            for message in messages:
                error = message.error()
                if error is not None:
                    if error.code() == KafkaError._PARTITION_EOF:
                        done = done or part.end < 0 or message.offset() >= part.end
                        continue
                    msg = f"reading {part.topic}[{part.partition}] failed: {error}"
                    raise StreamsError(msg, topic=part.topic)
                offset = message.offset()
                if offset < position:  # (a reused consumer's message from before: never)
                    continue
                if 0 <= part.end <= offset:
                    done = True
                    break
                kept.append(message)
                position = offset + 1
                if 0 <= part.end == position:
                    done = True
                    break
            if kept:
                idle_until = time.monotonic() + 60
                chunks.append(kept)
                rows += len(kept)
            if rows >= _ROWS or (done and rows):
                yield _batch(chunks, schema, pa)
                chunks, rows = [], 0
    except BaseException:
        consumer.close()
        raise
    consumer.unassign()  # (no prefetching while idle)
    _CONSUMERS[key] = consumer


def _batch(chunks: list[list[Any]], schema: Any, pa: Any) -> Any:
    """The messages as one Arrow batch of ``SCHEMA``'s columns, built column by column."""
    messages = [m for chunk in chunks for m in chunk]
    return pa.RecordBatch.from_arrays([
        pa.array([m.key() for m in messages], pa.binary()),
        pa.array([m.value() for m in messages], pa.binary()),
        pa.array([m.topic() for m in messages], pa.string()),
        pa.array([m.partition() for m in messages], pa.int32()),
        pa.array([m.offset() for m in messages], pa.int64()),
        pa.array([m.timestamp()[1] for m in messages], pa.int64()),
        _headers([m.headers() for m in messages], schema.field("headers").type, pa),
    ], schema=schema)


def _headers(headers: list[Any], kind: Any, pa: Any) -> Any:
    """The ``headers`` column (null where a record has none) built from flat key and value
    arrays and offsets: a dict per header handed to ``pa.array`` cost seven times more."""
    if not any(headers):
        return pa.nulls(len(headers), kind)
    keys: list[str] = []
    values: list[bytes] = []
    offsets = [0]
    for pairs in headers:
        for k, v in pairs or ():
            keys.append(k)
            values.append(v)
        offsets.append(len(keys))
    entries = pa.StructArray.from_arrays([pa.array(keys, pa.string()),
                                          pa.array(values, pa.binary())],
                                         fields=list(kind.value_type))
    return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), entries, type=kind,
                                    mask=pa.array([not pairs for pairs in headers]))


# one idle consumer per client configuration in this Python worker (see ``read_range``)
_CONSUMERS: dict[tuple[tuple[str, str], ...], Any] = {}


def _arrow_schema() -> Any:
    import pyarrow as pa

    return pa.schema([
        ("key", pa.binary()), ("value", pa.binary()), ("topic", pa.string()),
        ("partition", pa.int32()), ("offset", pa.int64()), ("timestamp", pa.int64()),
        ("headers", pa.list_(pa.struct([("key", pa.string()), ("value", pa.binary())]))),
    ])


class KafkaBatchReader(DataSourceReader):
    """Reads ``startingOffsets`` (default earliest) .. ``endingOffsets`` (default latest)."""

    def __init__(self, options: dict[str, str]) -> None:
        self.options = options

    def partitions(self) -> list[KafkaPartition]:
        """One input partition per Kafka partition, with its exact offset range."""
        lowered = {k.lower(): v for k, v in self.options.items()}
        consumer = _consumer(self.options)
        try:
            parts = _partitions(consumer, _topics(self.options))
            bounds = end_offsets(consumer, parts)
        finally:
            consumer.close()
        starts = parse_offsets(lowered.get("startingoffsets"), "earliest", parts, bounds)
        ends = parse_offsets(lowered.get("endingoffsets"), "latest", parts, bounds)
        return [KafkaPartition(t, p, starts[(t, p)], ends[(t, p)]) for t, p in parts]

    def read(self, partition: KafkaPartition) -> Iterator[Any]:  # type: ignore[override]
        """The records of one partition's range."""
        return read_range(self.options, partition)


class KafkaStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Micro-batches of exact offset ranges; offsets are ``{"topic": {"partition": offset}}``."""

    def __init__(self, options: dict[str, str]) -> None:
        self.options = options
        lowered = {k.lower(): v for k, v in options.items()}
        self.topics = _topics(options)
        limit = lowered.get("maxoffsetspertrigger")
        self.max_per_trigger = int(limit) if limit else None
        self.starting = lowered.get("startingoffsets")
        self._available_now: dict[tuple[str, int], int] | None = None
        self._client: Any = None  # the consumer ``_bounds`` reuses

    def _bounds(self) -> tuple[list[tuple[str, int]], dict[tuple[str, int], tuple[int, int]]]:
        """The partitions and their (earliest, true end), with the reader's one consumer (kept
        for the query's life: a new one per micro-batch costs its connections each time)."""
        consumer = self._client or _consumer(self.options)
        self._client = None
        try:
            parts = _partitions(consumer, self.topics)
            bounds = end_offsets(consumer, parts)
        except BaseException:
            consumer.close()
            raise
        self._client = consumer
        return parts, bounds

    def initialOffset(self) -> dict:  # noqa: N802 - PySpark's name
        """``startingOffsets`` (default latest, as Spark's Kafka source) per partition."""
        parts, bounds = self._bounds()
        return _nest(parse_offsets(self.starting, "latest", parts, bounds))

    def prepareForTriggerAvailableNow(self) -> None:  # noqa: N802 - PySpark's name
        """Fix the end of an ``availableNow`` run: what the topics hold now."""
        _, bounds = self._bounds()
        self._available_now = {tp: end for tp, (_, end) in bounds.items()}

    def getDefaultReadLimit(self) -> Any:  # noqa: N802 - PySpark's name
        """``maxOffsetsPerTrigger`` as a row limit, else everything available."""
        if self.max_per_trigger:
            return ReadMaxRows(self.max_per_trigger)
        return ReadAllAvailable()

    def latestOffset(self, start: dict, limit: Any) -> dict:  # noqa: N802 - PySpark's name
        """The end of the next micro-batch: the log ends, capped by ``limit`` and availableNow.
        Under availableNow the ends were fixed when the run began: the log is not read again
        (unless a partition has no start yet)."""
        begin = _flat(start)
        fixed = self._available_now
        if fixed is not None and all(tp in begin for tp in fixed):
            ends = {tp: max(end, begin[tp]) for tp, end in fixed.items()}
            if isinstance(limit, ReadMaxRows):
                ends = _cap(begin, ends, {tp: (begin[tp], end) for tp, end in ends.items()},
                            limit.max_rows)
            return _nest(ends)
        parts, bounds = self._bounds()
        ends = {}
        for tp in parts:
            end = bounds[tp][1]
            if self._available_now is not None:
                end = min(end, self._available_now.get(tp, 0))
            ends[tp] = max(end, begin.get(tp, bounds[tp][0]))
        if isinstance(limit, ReadMaxRows):
            ends = _cap(begin, ends, bounds, limit.max_rows)
        return _nest(ends)

    def partitions(self, start: dict, end: dict) -> list[KafkaPartition]:
        """One input partition per Kafka partition with records in ``[start, end)``."""
        begin, stop = _flat(start), _flat(end)
        out = []
        for tp in sorted(stop):
            first = begin.get(tp, 0)
            if stop[tp] > first:
                out.append(KafkaPartition(tp[0], tp[1], first, stop[tp]))
        return out

    def read(self, partition: KafkaPartition) -> Iterator[Any]:  # type: ignore[override]
        """The records of one partition's range."""
        return read_range(self.options, partition)

    def commit(self, end: dict) -> None:
        """Nothing to do: offsets live in Spark's checkpoint, not in a consumer group."""

    def stop(self) -> None:
        """Close the reader's consumer (the query stops)."""
        if self._client is not None:
            self._client.close()
            self._client = None


def _nest(offsets: dict[tuple[str, int], int]) -> dict:
    out: dict[str, dict[str, int]] = {}
    for (topic, p), offset in sorted(offsets.items()):
        out.setdefault(topic, {})[str(p)] = int(offset)
    return out


def _flat(offsets: dict) -> dict[tuple[str, int], int]:
    return {(t, int(p)): int(o) for t, parts in (offsets or {}).items() for p, o in parts.items()}


def _cap(begin: dict[tuple[str, int], int], ends: dict[tuple[str, int], int],
         bounds: dict[tuple[str, int], tuple[int, int]], budget: int) -> dict[tuple[str, int], int]:
    """Spread ``budget`` records over the partitions, round robin, in offset order."""
    pos = {tp: begin.get(tp, bounds[tp][0]) for tp in ends}
    left = budget
    while left > 0:
        moved = False
        for tp in sorted(ends):
            if left and pos[tp] < ends[tp]:
                step = max(1, min(ends[tp] - pos[tp], left // max(1, len(ends))))
                pos[tp] += step
                left -= step
                moved = True
        if not moved:
            break
    return pos


# -- writing ----------------------------------------------------------------------------------


# one idle producer per client configuration in this Python worker: a producer's start (its
# connections, the broker's metadata) costs more than a micro-batch's few thousand rows
_PRODUCERS: dict[tuple[tuple[str, str], ...], Any] = {}


class Producing:
    """Produces rows to Kafka: ``topic`` column or option, ``partition`` column or murmur2.

    Rows come as columns (``key``, ``value``, optionally ``topic``, ``partition``,
    ``timestamp``, ``headers`` as lists of ``{"key", "value"}``): a Spark writer's Arrow
    batches, or a streaming task's own rows (``kslab.spark._streaming``). The worker's producer
    is given back only once every row is acknowledged; one that failed is dropped.
    """

    def __init__(self, options: dict[str, str]) -> None:
        self.options = options
        lowered = {k.lower(): v for k, v in options.items()}
        self.topic = lowered.get("topic")

    def produce(self, iterator: Iterator[Any]) -> int:
        """Produce Arrow batches' rows; the rows produced (all acknowledged)."""
        return self.produce_columns((batch.to_pydict(), batch.num_rows) for batch in iterator)

    def produce_columns(self, batches: Iterable[tuple[dict[str, list[Any]], int]]) -> int:
        """Produce each ``(columns, rows)`` and wait for every acknowledgement; the rows
        produced. ``StreamsError`` when any is not acknowledged (the task's retry writes
        them again: at-least-once)."""
        from confluent_kafka import Producer

        from kslab.processor.partitioner import default_partition

        config = client_config(self.options)
        config.setdefault("linger.ms", 5)
        key = tuple(sorted((k, str(v)) for k, v in config.items()))
        producer = _PRODUCERS.pop(key, None) or Producer(config)
        counts: dict[str, int] = {}
        sent = 0
        errors: list[str] = []

        def report(error: Any, message: Any) -> None:
            if error is not None:
                errors.append(str(error))

        produce = producer.produce
        for cols, n in batches:
            topics = cols.get("topic") or [self.topic] * n
            keys = cols.get("key") or [None] * n
            parts = cols.get("partition") or [None] * n
            stamps = cols.get("timestamp") or [None] * n
            headers = cols.get("headers") or [None] * n
            for topic, value, key, partition, stamp, header in zip(
                    topics, cols["value"], keys, parts, stamps, headers, strict=True):
                if not topic:
                    topic = self.topic
                    if not topic:
                        msg = ("a row has no topic; give the frame a 'topic' column or pass "
                               ".option('topic', name)")
                        raise StreamsError(msg)
                if partition is None:
                    partition = -1  # (librdkafka's partitioner when there is no key)
                    if key is not None:
                        count = counts.get(topic)
                        if count is None:
                            meta = producer.list_topics(topic, timeout=10).topics[topic]
                            count = counts[topic] = max(1, len(meta.partitions))
                        partition = default_partition(key, count)
                pairs = [(h["key"], h["value"]) for h in header] if header else None
                while True:
                    try:
                        produce(topic, value, key, partition, on_delivery=report,
                                timestamp=0 if stamp is None else stamp, headers=pairs)
                        break
                    except BufferError:
                        producer.poll(0.05)
            sent += n
            producer.poll(0)
        remaining = producer.flush(60)
        if remaining or errors:
            producer.purge()
            msg = (f"{remaining} records unacknowledged, errors: {errors[:3]}; the Spark task "
                   "fails and its retry writes the batch again (at-least-once)")
            raise StreamsError(msg)
        _PRODUCERS[key] = producer
        return sent


class KafkaArrowWriter(DataSourceArrowWriter):
    """Batch writer: each Spark task produces its rows and waits for every acknowledgement."""

    def __init__(self, options: dict[str, str]) -> None:
        self._producing = Producing(options)

    def write(self, iterator: Iterator[Any]) -> WriterCommitMessage:
        """Produce the task's rows."""
        self._producing.produce(iterator)
        return WriterCommitMessage()


class KafkaStreamArrowWriter(DataSourceStreamArrowWriter):
    """Streaming writer: at-least-once (a retried micro-batch is produced again)."""

    def __init__(self, options: dict[str, str]) -> None:
        self._producing = Producing(options)

    def write(self, iterator: Iterator[Any]) -> WriterCommitMessage:
        """Produce the task's rows of this micro-batch."""
        self._producing.produce(iterator)
        return WriterCommitMessage()

    def commit(self, messages: list[Any], batchId: int) -> None:  # noqa: N803 - PySpark's name
        """Nothing to do: every row was acknowledged in ``write``."""

    def abort(self, messages: list[Any], batchId: int) -> None:  # noqa: N803 - PySpark's name
        """Nothing to undo: Kafka writes are not transactional here (at-least-once)."""
