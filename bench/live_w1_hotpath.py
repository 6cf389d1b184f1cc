"""W1's processing cost in the live stream thread beside the raw loop's, on the same messages.

``bench/idiomatic_live.py`` times W1 against a broker, where rates move +-20% and more with the
broker's load on the two cores. This harness holds everything else still: no broker, the same
pre-built ``confluent_kafka.Message`` batches of bench/idiomatic.py's W1 orders (1,000 a batch,
as a poll returns, one partition), each pass producing into a producer's local queue (its
broker address refuses connections, so it keeps everything). kslab runs them through
``StreamThread._process`` of a thread holding one W1 task (``KafkaCollector``, the batch path's
``RuntimePort``), inside ``core.gc_pause.fewer_collections`` as the thread's loop runs it; the
raw loop runs bench/idiomatic_live.py's ``raw_w1``. Neither includes the poll nor the commit.

Thread CPU per record moves a lot on these VMs; for steady numbers count instructions, one pass
being ``--passes 3`` minus ``--passes 1``, halved:
``valgrind --tool=cachegrind --cache-sim=no .venv/bin/python bench/live_w1_hotpath.py kslab
--passes 3`` (and ``--passes 1``; the same for ``raw``).

Usage: python bench/live_w1_hotpath.py {raw,kslab} [--passes 5] [--records 20000]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import idiomatic as idi  # bench/ is the script's directory
import idiomatic_live as il
from confluent_kafka import Message, Producer

BATCH = 1000
TIMESTAMP = 1_700_000_000_000  # one for all: every pass is in order for stream time
PRODUCER = {"bootstrap.servers": "127.0.0.1:9", "linger.ms": 5, "enable.idempotence": True,
            "reconnect.backoff.ms": 10_000, "reconnect.backoff.max.ms": 10_000,
            "queue.buffering.max.messages": 2_000_000, "queue.buffering.max.kbytes": 2_000_000,
            "delivery.report.only.error": True, "log_level": 0}


def batches(n: int) -> list[list[Any]]:
    """``n`` W1 orders as consumed messages of ``in`` partition 0, a list per poll."""
    rows = idi.serialized(idi.make_w1(n))
    return [[Message(topic="in", partition=0, offset=i + j, key=key, value=value,
                     timestamp=(0, TIMESTAMP))
             for j, (key, value) in enumerate(rows[i:i + BATCH])]
            for i in range(0, n, BATCH)]


def kslab_body(producer: Any) -> Any:
    """A stream thread's ``_process`` over one W1 task (``in`` -> ``out``), per batch."""
    from kslab.config import StreamsConfig
    from kslab.core.bulk import BulkExecutor
    from kslab.core.gc_pause import fewer_collections
    from kslab.core.task import StreamTask
    from kslab.records import TaskId
    from kslab.runtime._batch import RuntimePort
    from kslab.runtime._collector import KafkaCollector
    from kslab.runtime._thread import StreamThread, TaskState

    topology = idi.topology_w1("in", "out")
    collector = KafkaCollector(producer, lambda topic: 1)
    task = StreamTask(TaskId(0, 0), topology, list(topology.nodes),
                      config=StreamsConfig({"application.id": "hot", "bootstrap.servers": "-"}),
                      application_id="hot", collector=collector,
                      clock=lambda: int(time.time() * 1000), input_partitions=[("in", 0)],
                      state_dir=Path(tempfile.mkdtemp(prefix="bench-hot-w1-")))
    task.initialize()
    thread = StreamThread.__new__(StreamThread)  # the loop's state, without its clients
    state = TaskState(task, Path(tempfile.mkdtemp(prefix="bench-hot-w1-")), {}, set())
    thread._route = {("in", 0): (task, task.queue_for("in", 0), True, state)}
    thread.batches = BulkExecutor(RuntimePort(collector), partitioned=True)
    thread.stats = {"process-total": 0, "process-batched-total": 0}
    thread.collector, thread.eos, thread._dirty = collector, False, False

    def body(batch: list[Any]) -> None:
        with fewer_collections():
            thread._process(batch)

    body.executor = thread.batches  # type: ignore[attr-defined]
    return body


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("who", choices=("raw", "kslab"))
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--records", type=int, default=20_000)
    opts = parser.parse_args()
    work = batches(opts.records)
    producer = Producer(PRODUCER)
    if opts.who == "raw":
        def body(batch: list[Any]) -> None:
            il.raw_w1(batch, producer, "out", {})
    else:
        body = kslab_body(producer)
    body(work[0])  # warm: the plan compiled, the first allocations made
    start = time.thread_time()
    for _ in range(opts.passes):
        for batch in work:
            body(batch)
    took = time.thread_time() - start
    if opts.who == "kslab":  # every batch ran as a chunk (else this times the record path)
        assert body.executor.chunks == opts.passes * len(work) + 1, body.executor.chunks
    print(f"{opts.who}: {opts.passes} passes of {opts.records:,} W1 records, "
          f"{took / opts.passes / opts.records * 1e6:.2f} us/rec thread CPU (load "
          f"{os.getloadavg()[0]:.1f})", flush=True)
    os._exit(0)  # the producer would wait for its broker


if __name__ == "__main__":
    sys.exit(main())
