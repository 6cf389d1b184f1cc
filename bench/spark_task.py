"""The streaming word count's counting task alone: its own Python per micro-batch, no Spark.

``bench/spark.py --streaming`` times whole micro-batches, which on a shared 2-core machine mostly
measures the neighbours. This runs the counting sub-topology's ``TaskProcessor`` in process, as
a Spark Python worker runs it, over micro-batches of ``--per-batch`` words of one Kafka partition
(from a ``--words`` vocabulary, each row with its writer's sequence header), with Spark's state
handle stood in by dicts (each call counted: in Spark each is a round trip to the JVM), and
reports CPU seconds per micro-batch (``time.process_time``: the task's own work whatever the
load; producing its counts to a LocalBroker included, as the task produces them itself), with
tasks rebuilt every micro-batch and kept open (``kslab.spark.keep.tasks``).
Run ``.venv/bin/python bench/spark_task.py``; ``--profile`` prints cProfile's top entries for
the last kept-open micro-batch.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import statistics
import struct
import sys
import time
from typing import Any

import pandas as pd
from spark import create_topic

import kslab as ks
from kslab import serdes
from kslab.runtime import LocalBroker
from kslab.spark._groups import spread_keys
from kslab.spark._plan import SparkPlan
from kslab.spark._replay import SEQ_HEADER
from kslab.spark._streaming import TaskProcessor
from kslab.spark.kafka import log_ends

S, L = serdes.String(), serdes.Long()
CALLS = [0]  # Spark state calls


class MapState:
    """Spark's ``MapState`` as a dict (keys and values are one-field tuples)."""

    def __init__(self) -> None:
        self.entries: dict[Any, Any] = {}

    def getValue(self, key: tuple) -> tuple | None:  # noqa: N802 - Spark's name
        CALLS[0] += 1
        value = self.entries.get(key[0])
        return None if value is None else (value,)

    def updateValue(self, key: tuple, value: tuple) -> None:  # noqa: N802 - Spark's name
        CALLS[0] += 1
        self.entries[key[0]] = value[0]

    def removeKey(self, key: tuple) -> None:  # noqa: N802 - Spark's name
        CALLS[0] += 1
        self.entries.pop(key[0], None)

    def iterator(self) -> Any:
        CALLS[0] += 1
        return iter([((k,), (v,)) for k, v in self.entries.items()])


class ValueState:
    """Spark's ``ValueState`` as one slot."""

    def __init__(self) -> None:
        self.value: tuple | None = None

    def exists(self) -> bool:
        CALLS[0] += 1
        return self.value is not None

    def get(self) -> tuple | None:
        CALLS[0] += 1
        return self.value

    def update(self, value: tuple) -> None:
        CALLS[0] += 1
        self.value = value


class Handle:
    """The processor handle: the same states for every micro-batch (Spark state persists)."""

    def __init__(self) -> None:
        self.states: dict[str, Any] = {}

    def getMapState(self, name: str, *_schemas: str) -> MapState:  # noqa: N802
        return self.states.setdefault(name, MapState())

    def getValueState(self, name: str, *_schema: str) -> ValueState:  # noqa: N802
        return self.states.setdefault(name, ValueState())


class NoTimers:
    def getCurrentProcessingTimeInMs(self) -> int:  # noqa: N802 - Spark's name
        return -1


def run(keep: bool, batches: int, per_batch: int, words: int, servers: str,
        profile: bool = False) -> tuple[list[float], int]:
    """CPU seconds of each micro-batch (producing its counts to ``servers`` included) and the
    state calls of the last."""
    b = ks.StreamsBuilder()
    (b.stream("lines", ks.Consumed.with_(S, S)).flat_map_values(str.split)
     .group_by(lambda key, word: word, ks.Grouped.with_(S, S))
     .count(materialized=ks.Materialized.as_("counts").with_store_type("in_memory"))
     .to_stream().to("counts", ks.Produced.with_(S, L)))
    topology = b.build()
    [repartition] = [topology.resolve_topic(t, "bench") for t in topology.internal_topics
                     if t.endswith("-repartition")]
    plan = SparkPlan.build(topology, "bench", {"lines": 2, repartition: 2, "counts": 2})
    props = {"application.id": "bench", "bootstrap.servers": servers,
             "kslab.spark.keep.tasks": keep}
    counts = [("counts", p) for p in range(2)]
    written = sum(end for _, end in log_ends({"bootstrap.servers": servers}, counts).values())
    handle, rng, offset, seconds = Handle(), random.Random(1), 0, []
    for n in range(batches):
        chosen = [f"w{rng.randrange(words)}".encode() for _ in range(per_batch)]
        frame = pd.DataFrame({
            "key": chosen, "value": chosen, "topic": repartition, "partition": 0,
            "offset": range(offset, offset + per_batch),
            "timestamp": range(offset, offset + per_batch),
            "headers": [[{"key": SEQ_HEADER, "value": struct.pack(">iiq", 0, 0, offset + i)}]
                        for i in range(per_batch)]})
        offset += per_batch
        groups = spread_keys(2, 2)
        processor = TaskProcessor(plan, plan.stages[1], props, False, None, groups)  # per task
        processor.init(handle)
        CALLS[0] = 0
        profiler = cProfile.Profile() if profile and n == batches - 1 else None
        started = time.process_time()
        if profiler is not None:
            profiler.enable()
        out = list(processor.handleInputRows((groups[0],), iter([frame]), NoTimers()))
        if profiler is not None:
            profiler.disable()
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(20)
        seconds.append(time.process_time() - started)
        assert out == []  # (the task produced its rows itself)
        ends = log_ends({"bootstrap.servers": servers}, counts)
        assert sum(end for _, end in ends.values()) == written + per_batch
        written += per_batch
    return seconds, CALLS[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--batches", type=int, default=12)
    parser.add_argument("--per-batch", type=int, default=5_000, help="words of one partition")
    parser.add_argument("--words", type=int, default=100_000, help="vocabulary size")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)
    print("| tasks | CPU ms per micro-batch (median after the first two) | per 10,000 words | "
          "Spark state calls (last) |\n|---|---:|---:|---:|")
    with LocalBroker() as broker:
        servers = broker.bootstrap_servers
        create_topic(servers, "counts")
        results = [(keep, *run(keep, args.batches, args.per_batch, args.words, servers,
                               args.profile and keep)) for keep in (False, True)]
    for keep, seconds, calls in results:
        ms = 1000 * statistics.median(seconds[2:])
        print(f"| {'kept open' if keep else 'rebuilt'} | {ms:.0f} | "
              f"{ms * 10_000 / args.per_batch:.0f} ms | {calls} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
