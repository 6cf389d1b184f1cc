"""The semantics report: how each node of a topology runs on Spark, and where that differs from
Kafka Streams, so a user knows before promoting a topology.

Invariant: the report is derived from the same plan the engine runs (``unsupported`` and the
sub-topology grouping), so a node the report calls supported is one ``run_batch`` and ``start``
accept, and a node it refuses is refused by both with the same reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kslab.spark._plan import cycles, loop_topics, streaming_unsupported, unsupported
from kslab.spark._workers import check_active_workers
from kslab.topology._nodes import ProcessorNode, SinkNode, SourceNode
from kslab.topology._subtopologies import subtopologies
from kslab.topology.topology import Topology

__all__ = ["NodeSemantics", "SemanticsReport", "explain"]

_TASK = ("runs inside the core's StreamTask for its partition, unchanged: same records, same "
         "order, same stream time")
_STORE_BATCH = ("stores are local to the task (in memory or RocksDB in a scratch directory), "
                "start empty and are dropped when the replay ends; no changelog is written")
_STORE_STREAM = ("stores are a write-behind cache over Spark state (MapState), flushed once per "
                 "micro-batch and checkpointed with the query: a micro-batch reads only the keys "
                 "it looks up, and a whole store only when it scans (ranges, windows, sessions); "
                 "no changelog topic is written")
_PUNCTUATION = ("stream-time punctuation is the core's (after each record); wall-clock "
                "punctuation never fires in batch replay and fires on Spark processing-time "
                "timers between micro-batches in streaming")
_SOURCE_BATCH = ("one Spark partition per Kafka partition, in offset order (timestamp order "
                 "when the frame has no offset column); a plain kslab-kafka scan needs no "
                 "shuffle")
_SOURCE_STREAM = ("kslab-kafka stream reader: exact offset ranges per micro-batch, offsets in "
                  "the checkpoint; grouped by partition into one stateful task")
_SOURCE_DIFF = ("records of several input partitions of one task are merged by head timestamp "
                "as if all were buffered: max.task.idle.ms and buffered.records.per.partition "
                "do not apply")
_GLOBAL_BATCH = ("the global task, filled in every Spark task from the global topic's frame "
                 "before it processes anything (as Kafka Streams bootstraps global stores)")
_GLOBAL_STREAM = ("the global task, one per Spark Python worker: bootstrapped from the global "
                  "topic, then read from Kafka to the topic's end before each task's "
                  "micro-batch (as Kafka Streams' global thread keeps up)")
_GLOBAL_DIFF = ("global stores are not in Spark state: a new Python worker bootstraps them "
                "again from the topic; a record reaches them between micro-batches, never "
                "inside one")
_SHUFFLE = ("a Spark shuffle by the partition the writing sink picked (murmur2 of the key "
            "bytes); each writing task's order kept, several writers merged by (mark, writing "
            "task, sequence), a task's mark the highest timestamp it had written so far")
_SHUFFLE_DIFF = ("Kafka interleaves several writing tasks by arrival time at the broker; Spark "
                 "by how far each had got in time (its mark), then task")
_CYCLE = ("with sub-topologies {ids}, which feed each other in a cycle (as a foreign-key "
          "join's do), in one Spark task on one core: the cycle's input records one at a "
          "time, smallest next timestamp first, each run through all the cycle's tasks as the "
          "test driver runs them, what one sends to another handed over in process")
_CYCLE_STREAM = ("with sub-topologies {ids}, which feed each other in a cycle, in one query "
                 "whose one transformWithStateInPandas group holds all the cycle's tasks (one "
                 "core): each micro-batch's records piped one at a time, smallest next "
                 "timestamp first, as in batch replay; what one task sends to another is "
                 "handed over in process, never written to Kafka")
_CYCLE_DIFF = ("Kafka Streams runs a cycle's tasks in parallel, so what each side has seen when "
               "a subscription or response arrives depends on timing; Spark gives the test "
               "driver's order, each input record through the whole cycle before the next")
_SINK_BATCH = "rows of the topic's result frame, with the partition Kafka's producer would pick"
_SINK_STREAM = ("produced to Kafka by the Arrow stream writer: at-least-once (a micro-batch "
                "retried after a failure is written again)")
_SINK_DIFF = ("at-least-once only: processing.guarantee=exactly_once_v2 is not available; "
              "null keys go round robin per task (Kafka's sticky partitioner differs)")


@dataclass(frozen=True)
class NodeSemantics:
    """How one node runs on Spark: in batch, in streaming, and what differs from Kafka."""

    node: str
    kind: str
    subtopology: int | None
    supported: bool
    batch: str
    streaming: str
    differences: str


class SemanticsReport:
    """Per-node semantics of a topology on Spark; ``str()`` prints it, ``rows`` holds it."""

    def __init__(self, rows: list[NodeSemantics]) -> None:
        self.rows = rows

    @property
    def supported(self) -> bool:
        """True when every node runs on Spark."""
        return all(r.supported for r in self.rows)

    def __iter__(self) -> Any:
        return iter(self.rows)

    def __getitem__(self, node: str) -> NodeSemantics:
        for row in self.rows:
            if row.node == node:
                return row
        msg = f"no node '{node}' in this report; nodes: {[r.node for r in self.rows]}"
        raise KeyError(msg)

    def to_pandas(self) -> Any:
        """The report as a pandas frame, one row per node."""
        import pandas as pd

        return pd.DataFrame([r.__dict__ for r in self.rows])

    def __str__(self) -> str:
        lines = ["Spark semantics " + ("(every node supported)" if self.supported
                                       else "(NOT every node supported)")]
        for r in self.rows:
            where = "global" if r.subtopology is None else f"sub-topology {r.subtopology}"
            lines.append(f"{r.node} [{r.kind}, {where}]{'' if r.supported else ' UNSUPPORTED'}")
            lines.append(f"  batch:     {r.batch}")
            lines.append(f"  streaming: {r.streaming}")
            if r.differences:
                lines.append(f"  differs:   {r.differences}")
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        head = ("| node | kind | batch | streaming | differs from Kafka Streams |\n"
                "|---|---|---|---|---|")
        body = [f"| {r.node} | {r.kind} | {r.batch} | {r.streaming} | {r.differences} |"
                for r in self.rows]
        return "\n".join([head, *body])


def explain(topology: Any) -> SemanticsReport:
    """How each node of ``topology`` runs on Spark and any difference from Kafka Streams.

    With a SparkSession active, first checks that its Python workers import this kslab (once
    per SparkContext and worker Python) and raises ``SparkUnavailableError`` if they do not;
    without one it runs no Spark at all.

    >>> import kslab as ks
    >>> topo = ks.Topology().add_source("src", "in").add_sink("out", "out", "src")
    >>> report = explain(topo)
    >>> report.supported, report["out"].kind
    (True, 'sink')
    """
    if hasattr(topology, "build") and not isinstance(topology, Topology):
        topology = topology.build()
    check_active_workers()
    refused = dict(unsupported(topology))
    no_streaming = dict(streaming_unsupported(topology))
    group_of = {n: g.id for g in subtopologies(topology) for n in g.nodes}
    read = {t for n in topology.nodes.values() if isinstance(n, SourceNode) for t in n.topics}
    written = {n.topic for n in topology.nodes.values()
               if isinstance(n, SinkNode) and n.topic is not None}
    between = read & written
    cycle_of, loop_of = {}, {}
    for members in cycles([g for g in subtopologies(topology) if not g.is_global]):
        ids = ", ".join(str(m.id) for m in members)
        for member in members:
            for node_name in member.nodes:
                cycle_of[node_name] = ids
                loop_of[node_name] = set(loop_topics(members))
    rows = []
    for name, node in topology.nodes.items():
        gid = None if node.is_global else group_of.get(name)
        if name in refused:
            rows.append(NodeSemantics(name, _kind(node), gid, False, "not supported",
                                      "not supported", refused[name]))
            continue
        if node.is_global:
            row = NodeSemantics(name, _kind(node), None, True, _GLOBAL_BATCH, _GLOBAL_STREAM,
                                _GLOBAL_DIFF)
        else:
            row = _describe(name, node, gid, between)
        if name in cycle_of:
            cycle = _CYCLE.format(ids=cycle_of[name])
            whole = isinstance(node, SourceNode) or _loop_node(node, loop_of[name])
            streaming = _CYCLE_STREAM.format(ids=cycle_of[name])
            row = NodeSemantics(row.node, row.kind, row.subtopology, row.supported,
                                cycle if whole else f"{row.batch}; {cycle}",
                                streaming if whole else f"{row.streaming}; {streaming}",
                                _CYCLE_DIFF if isinstance(node, SourceNode) else row.differences)
        if name in no_streaming:
            row = NodeSemantics(row.node, row.kind, row.subtopology, row.supported, row.batch,
                                f"not supported: {no_streaming[name]}", row.differences)
        rows.append(row)
    return SemanticsReport(rows)


def _loop_node(node: Any, loop: set[str]) -> bool:
    """Whether ``node`` is a sink writing a topic of its cycle (handed over in process)."""
    return isinstance(node, SinkNode) and node.topic in loop


def _kind(node: Any) -> str:
    if isinstance(node, SourceNode):
        return "source"
    if isinstance(node, SinkNode):
        return "sink"
    return "processor"


def _describe(name: str, node: Any, gid: int | None, between: set[str]) -> NodeSemantics:
    if isinstance(node, SourceNode):
        if set(node.topics) & between:
            return NodeSemantics(name, "source", gid, True, _SHUFFLE,
                                 "read back from Kafka by the kslab-kafka stream reader",
                                 _SHUFFLE_DIFF)
        return NodeSemantics(name, "source", gid, True, _SOURCE_BATCH, _SOURCE_STREAM,
                             _SOURCE_DIFF)
    if isinstance(node, SinkNode):
        batch = _SHUFFLE if node.topic in between else _SINK_BATCH
        if node.partitioner is not None:
            batch += "; the sink's own partitioner picks the partition"
        return NodeSemantics(name, "sink", gid, True, batch, _SINK_STREAM, _SINK_DIFF)
    assert isinstance(node, ProcessorNode)
    stores = list(node.stores)
    batch = _TASK + (f"; {_STORE_BATCH} ({', '.join(stores)})" if stores else "")
    streaming = _TASK + (f"; {_STORE_STREAM} ({', '.join(stores)})" if stores else "")
    differences = (_PUNCTUATION + "; in streaming, processor instances are rebuilt each "
                   "micro-batch, so state a processor keeps in plain attributes does not carry "
                   "over (keep it in stores); the DSL's window, suppress and join processors' "
                   "observed stream time does, so a late record stays late across "
                   "micro-batches")
    return NodeSemantics(name, "processor", gid, True, batch, streaming, differences)
