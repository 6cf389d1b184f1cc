"""Live joins: the stream thread's CPU per record, the batch path against the record path.

A join's task reads two partitions (one of each topic); the stream thread queues their records
and its partition group takes them in timestamp order, each run it takes one after another
from one partition going to the batch forms as one chunk (``PartitionGroup.run_after``). Two
programs as users write them (String keys, JSON values, default stores and record cache,
lambdas), on a ``ks.LocalBroker``, 2 partitions per topic, all input on the broker first:

- ``table``: orders (``--orders``, keys over ``--customers`` customers) joined with a
  customers table (``--customers`` records at timestamp 10), the joiner adding the name;
- ``stream``: page views joined with clicks of the same user within 20 ms (``--orders`` of
  each, 200 users).

Each program runs with the batch path and record by record (``kslab.runtime.bulk`` false) in
turns, ``--runs`` times; the figure is the stream thread's CPU time (``time.thread_time``)
until it has taken every record, as records per CPU-second (median), and the rows its batch
path took. Usage: ``.venv/bin/python bench/live_joins.py --orders 100000 --runs 3``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

import kslab as ks
from kslab import serdes
from kslab.processor.partitioner import default_partition
from kslab.runtime._thread import StreamThread

JSON_IN = ks.Consumed.with_(serdes.String(), serdes.Json())
JSON_OUT = ks.Produced.with_(serdes.String(), serdes.Json())


def table_join(left: str, right: str, sink: str) -> ks.StreamsBuilder:
    """Orders (``left``) enriched with their customer's name from a table (``right``)."""
    builder = ks.StreamsBuilder()
    customers = builder.table(right, JSON_IN)
    (builder.stream(left, JSON_IN)
     .join(customers, lambda order, customer: {**order, "name": customer["name"]})
     .to(sink, JSON_OUT))
    return builder


def stream_join(left: str, right: str, sink: str) -> ks.StreamsBuilder:
    """Views (``left``) joined with the same user's clicks (``right``) within 20 ms."""
    builder = ks.StreamsBuilder()
    views, clicks = builder.stream(left, JSON_IN), builder.stream(right, JSON_IN)
    (views.join(clicks, lambda view, click: {**view, **click},
                ks.JoinWindows.of_time_difference_and_grace(20, 1_000),
                ks.StreamJoined.with_(serdes.String(), serdes.Json(), serdes.Json()))
     .to(sink, JSON_OUT))
    return builder


def inputs(program: str, orders: int, customers: int
           ) -> tuple[list[tuple[bytes, bytes, int]], list[tuple[bytes, bytes, int]]]:
    """The left and right topics' records ``(key, value, timestamp)``."""
    rnd = random.Random(1)
    if program == "table":
        right = [(f"c{i}".encode(), json.dumps({"name": f"n{i}", "tier": i % 3}).encode(), 10)
                 for i in range(customers)]
        left = [(f"c{rnd.randrange(customers)}".encode(),
                 json.dumps({"id": i, "amount": rnd.randrange(100)}).encode(), 1_000 + i)
                for i in range(orders)]
        return left, right
    left = [(f"u{rnd.randrange(200)}".encode(), json.dumps({"page": i}).encode(), 1_000 + i)
            for i in range(orders)]
    right = [(f"u{rnd.randrange(200)}".encode(), json.dumps({"click": i}).encode(),
              1_000 + i + rnd.randrange(30)) for i in range(orders)]
    return left, right


def _produce(bootstrap: str, topic: str, rows: list[tuple[bytes, bytes, int]]) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20})
    for n, (key, value, timestamp) in enumerate(rows):
        producer.produce(topic, value, key, partition=default_partition(key, 2),
                         timestamp=timestamp)
        if n % 50_000 == 0:
            producer.flush()
    producer.flush()


def run_once(bootstrap: str, program: str, left: str, right: str, total: int, bulk: bool,
             tag: str) -> tuple[float, int]:
    """The stream thread's CPU seconds to take all ``total`` records, and the rows it ran
    in batch."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    sink = f"out-{tag}"
    for future in admin.create_topics([NewTopic(sink, 2, 1)]).values():
        future.result(10)
    state = Path(tempfile.mkdtemp(prefix=f"bench-{tag}-"))
    config = {"application.id": f"app-{tag}", "bootstrap.servers": bootstrap,
              "state.dir": str(state), "consumer.session.timeout.ms": 6000,
              "consumer.heartbeat.interval.ms": 500, "kslab.runtime.bulk": bulk}
    builder = (table_join if program == "table" else stream_join)(left, right, sink)
    cpu: list[float] = []
    loop = StreamThread._loop

    def timed(self: Any) -> None:
        start = time.thread_time()
        try:
            loop(self)
        finally:
            cpu.append(time.thread_time() - start)

    StreamThread._loop = timed  # type: ignore[method-assign]
    streams = ks.KafkaStreams(builder, config)
    try:
        streams.start()
        deadline = time.monotonic() + 600
        while True:
            threads = list(streams.metrics()["threads"].values())
            if sum(thread["process-total"] for thread in threads) >= total:
                break
            if time.monotonic() > deadline:
                msg = f"{tag}: not done in 600 s"
                raise RuntimeError(msg)
            time.sleep(0.1)
        batched = sum(thread["process-batched-total"] for thread in threads)
    finally:
        streams.close()
        StreamThread._loop = loop  # type: ignore[method-assign]
        shutil.rmtree(state, ignore_errors=True)
    return cpu[0], batched


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--orders", type=int, default=100_000)
    parser.add_argument("--customers", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", choices=("table", "stream"))
    args = parser.parse_args()
    programs = [args.only] if args.only else ["table", "stream"]
    with ks.LocalBroker() as broker:
        bootstrap = broker.bootstrap_servers
        admin = AdminClient({"bootstrap.servers": bootstrap})
        report = []
        for program in programs:
            left_rows, right_rows = inputs(program, args.orders, args.customers)
            left, right = f"{program}-left", f"{program}-right"
            for topic, rows in ((right, right_rows), (left, left_rows)):
                for future in admin.create_topics([NewTopic(topic, 2, 1)]).values():
                    future.result(10)
                _produce(bootstrap, topic, rows)
            total = len(left_rows) + len(right_rows)
            cpu: dict[bool, list[float]] = {True: [], False: []}
            batched = 0
            for run in range(args.runs):
                for bulk in (True, False) if run % 2 == 0 else (False, True):
                    seconds, rows_in_batch = run_once(bootstrap, program, left, right, total,
                                                      bulk, f"{program}-{bulk}-{run}")
                    cpu[bulk].append(seconds)
                    batched = max(batched, rows_in_batch)
                    print(f"{program} run {run} bulk={bulk}: {seconds:.2f} CPU-s, "
                          f"{rows_in_batch:,} rows in batch", flush=True)
            rates = {bulk: total / statistics.median(cpu[bulk]) for bulk in cpu}
            report.append(f"  {program:6} {rates[False]:9,.0f} -> {rates[True]:9,.0f} records "
                          f"per CPU-second ({rates[True] / rates[False]:.2f}x), {batched:,} of "
                          f"{total:,} in batch")
    print(f"\nlive joins, {args.orders:,} orders, {args.customers:,} customers, 2 partitions; "
          f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, load {os.getloadavg()[0]:.1f}; "
          "record path -> batch path:")
    print("\n".join(report))


if __name__ == "__main__":
    main()
