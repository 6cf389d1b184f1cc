"""The topology's global task in a Spark Python worker: built empty, then fed the global
topics' records, as Kafka Streams' global thread fills the global stores before any stream
task runs (``filled_global_task``: a batch replay's tasks; ``kslab.spark._global``: a
streaming worker's, kept up between micro-batches)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from kslab.config import StreamsConfig
from kslab.core.global_task import GLOBAL_TASK, NoOutput, global_nodes
from kslab.core.task import StreamTask
from kslab.spark._headers import record_headers
from kslab.topology.topology import Topology

__all__ = ["feed_global", "filled_global_task", "global_task"]


def filled_global_task(topology: Topology, config: StreamsConfig, application_id: str,
                       clock: Callable[[], int], records: list[tuple[Any, ...]],
                       partition_counts: dict[str, int], state_dir: Path) -> StreamTask:
    """The topology's global task with its stores filled from ``records`` (``(topic,
    partition, offset, timestamp, key bytes, value bytes, headers JSON)``, each partition's
    in offset order), as Kafka Streams fills them from the global topics before any stream
    task processes a record; its processors (a ``GlobalKTable``'s, or ``add_global_store``'s
    own) run over them as on every engine."""
    task = global_task(topology, config, application_id, clock, partition_counts, state_dir)
    feed_global(task, records)
    return task


def global_task(topology: Topology, config: StreamsConfig, application_id: str,
                clock: Callable[[], int], partition_counts: dict[str, int],
                state_dir: Path) -> StreamTask:
    """The topology's global task, initialized, its stores empty: it reads every partition of
    the global stores' topics."""
    topics = sorted({spec.topic for spec in topology.global_stores.values()})
    inputs = [(t, p) for t in topics for p in range(partition_counts.get(t, 1))]
    state_dir.mkdir(parents=True, exist_ok=True)
    task = StreamTask(GLOBAL_TASK, topology, global_nodes(topology), config=config,
                      application_id=application_id, collector=NoOutput(),  # type: ignore[arg-type]
                      clock=clock, input_partitions=inputs, state_dir=state_dir,
                      global_stores={})
    task.initialize()
    return task


def feed_global(task: StreamTask, records: Iterable[tuple[Any, ...]]) -> None:
    """Run the global ``task`` over ``records`` (as ``filled_global_task`` takes them; headers
    as JSON text or a list of ``{"key", "value"}``) and commit: its stores then hold them."""
    for topic, partition, offset, timestamp, key, value, headers in records:
        task.add_record((topic, partition, offset, timestamp, key, value,
                         record_headers(headers)))
    while task.process():
        pass
    task.commit()
    task.flush()
