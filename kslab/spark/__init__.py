"""The Spark engine: the same built topology run on Apache Spark through PySpark.

Spark supplies only I/O, ordering, state storage and clocks; every record goes through the
core's ``StreamTask`` (stream time, punctuation, routing and serdes are the core's own).
Invariant: batch replay (``run_batch``) equals the test driver's output record for record
where one task writes each repartition partition.

Guarantees. ``run_batch`` is deterministic: each task reads its partitions in offset order and a
repartition topic keeps each writing task's order, several writers merged by (mark, writing
task, sequence), a task's mark being the highest timestamp it had written so far. ``start``
restarts state and source offsets from one checkpoint, so no input is lost or counted twice;
its Kafka sink is at-least-once (a micro-batch retried after a crash is written again; a
sub-topology reading such a replay drops the rows it already processed), and
``exactly_once_v2`` is not available.

What differs from the native runtime (``kslab.KafkaStreams``): no changelog topics (Spark's
checkpoint holds state); processors are rebuilt each micro-batch, so only stores carry state;
a task's partitions are merged by head timestamp as if all were buffered (no
``max.task.idle.ms``); wall-clock punctuation never fires in batch, and in streaming fires on
Spark processing-time timers between micro-batches (not under ``availableNow``); pattern
sources and topic-name extractors are refused (``explain`` names them). Global stores are
filled in every batch task from their topics' frames before it processes anything (as Kafka
Streams bootstraps them); in streaming each Python worker keeps them and reads their topics to
the end before each task's micro-batch (as Kafka Streams' global thread keeps up). Sub-topologies
that feed each other (a foreign-key join) run together, all their tasks in one Spark task (one
state group in streaming), each input record through the whole cycle before the next, as the
test driver runs them: exact, on one core.

Typed columns (``kslab.spark.typed``): ``run_batch(..., decode=True)``, ``decode`` and
``SparkStreams.read_output`` give keys and values as Spark columns of the sink serdes' types;
typed input columns are written by the source serdes (``encode``) before the replay.
"""

from typing import Any

from kslab.spark.explain import NodeSemantics, SemanticsReport, explain
from kslab.spark.session import SparkUnavailableError, session
from kslab.spark.typed import decode, encode

__all__ = [
    "NodeSemantics",
    "SemanticsReport",
    "SparkStreams",
    "SparkUnavailableError",
    "bulk_stats",
    "decode",
    "encode",
    "explain",
    "run_batch",
    "session",
    "start",
]


def __getattr__(name: str) -> Any:
    # streaming imports pyspark at module level: load it on first use, so that
    # ``import kslab.spark`` (and explain) work without the spark extra
    if name in ("start", "SparkStreams"):
        from kslab.spark.session import require_pyspark

        require_pyspark()
        from kslab.spark import _streaming

        return getattr(_streaming, name)
    # batch replay imports pandas: every Python process Spark starts for the data source
    # (``kslab.spark.kafka``: a streaming query's source runner, each planning call) imports
    # this package, and pandas was two fifths of its import time
    if name in ("run_batch", "bulk_stats"):
        from kslab.spark import _batch

        return getattr(_batch, name)
    msg = f"module 'kslab.spark' has no attribute '{name}'"
    raise AttributeError(msg)
