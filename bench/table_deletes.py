"""A table aggregation with deletes as a user writes it, on the record path and in batch.

Customer rows (String key, JSON value ``{"name", "region"}``) piped into a table with the
default store and record cache, 10% of the updates deleting a customer (a ``None`` value),
counted per region (``table(...).group_by(lambda k, v: (v["region"], v)).count()``) and written
to a topic, on one partition: the table's cache and the count's are in one task. Each round
runs the record path (``kslab.driver.bulk: False``) and the batch path, in alternating order,
timed with ``time.process_time`` (CPU of this process: the machine is shared); the medians and
their ratio are printed. Both must write the same records (asserted).

Run ``.venv/bin/python bench/table_deletes.py --updates 100000 --runs 5``.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import time
from typing import Any

import kslab as ks
from kslab.serdes import Json, Long, String


def make(updates: int, customers: int, seed: int = 4) -> list[tuple[str, Any]]:
    """``updates`` rows of ``customers`` customers, one in ten a delete (``None``)."""
    rng = random.Random(seed)
    regions = ["emea", "apac", "amer", "latam", "nordics", "benelux"]
    return [(f"cust-{rng.randrange(customers)}",
             None if rng.random() < 0.1 else {"name": f"customer {i}",
                                              "region": rng.choice(regions)})
            for i in range(updates)]


def topology() -> ks.Topology:
    """Customers per region."""
    builder = ks.StreamsBuilder()
    (builder.table("customers", ks.Consumed.with_(String(), Json()))
     .group_by(lambda k, v: (v["region"], v))
     .count()
     .to_stream()
     .to("per-region", ks.Produced.with_(String(), Long())))
    return builder.build()


def run(bulk: bool, rows: list[Any]) -> tuple[float, int, Any, int]:
    """CPU seconds to pipe the rows, the outputs, the last output and the chunks run in
    batch (to compare the paths)."""
    with ks.TopologyTestDriver(topology(), {"kslab.driver.bulk": bulk}) as driver:
        customers = driver.create_input_topic("customers", String(), Json())
        gc.collect()
        start = time.process_time()
        customers.pipe_key_value_list(rows)
        seconds = time.process_time() - start
        out = driver.create_output_topic("per-region", String(), Long()).read_records_to_list()
        chunks = driver.bulk_stats()["chunks"]
        return seconds, len(out), (out[-1].key, out[-1].value, out[-1].timestamp), chunks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=100_000)
    parser.add_argument("--customers", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    rows = make(args.updates, args.customers)
    times: dict[bool, list[float]] = {False: [], True: []}
    outputs: dict[bool, Any] = {}
    chunks = 0
    for round_ in range(args.runs):
        for bulk in ((False, True) if round_ % 2 == 0 else (True, False)):
            seconds, count, last, ran = run(bulk, rows)
            times[bulk].append(seconds)
            outputs[bulk] = (count, last)
            chunks = max(chunks, ran)
    assert outputs[True] == outputs[False], outputs
    record, batch = (statistics.median(times[bulk]) for bulk in (False, True))
    print(f"{args.updates:,} updates of {args.customers:,} customers (10% deletes), "
          f"{outputs[True][0]:,} outputs, {chunks} chunks in batch, median CPU of "
          f"{args.runs} rounds, load average {os.getloadavg()[0]:.2f}")
    print(f"record path: {args.updates / record:,.0f} rec/s ({record:.2f} s); batch: "
          f"{args.updates / batch:,.0f} rec/s ({batch:.2f} s); batch / record "
          f"{record / batch:.2f}x")


if __name__ == "__main__":
    main()
