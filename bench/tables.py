"""A stream-table join as a user writes it, on the record path and in batch, in one process.

JSON orders keyed by customer id (String) joined with a customers table (String key, JSON
value, default store and record cache) into enriched JSON written to a topic: the table piped
first (``--customers`` rows), then ``--orders`` orders, both through ``pipe_key_value_list``.
Each round runs the record path (``kslab.driver.bulk: False``) and the batch path, in
alternating order, timed with ``time.process_time`` (CPU of this process: the machine is
shared); the medians and their ratio are printed. Both must write the same records (asserted).

Run ``.venv/bin/python bench/tables.py --orders 100000 --runs 5``.
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
from kslab.serdes import Json, String


def make(customers: int, orders: int, seed: int = 4
         ) -> tuple[list[tuple[str, dict[str, Any]]], list[tuple[str, dict[str, Any]]]]:
    """Customers ``{"name", "country", "tier"}`` and orders ``{"id", "amount", "sku"}``
    keyed by customer id (some orders of customers the table does not have)."""
    rng = random.Random(seed)
    countries = ["NL", "DE", "FR", "BE", "ES", "IT", "PL", "SE"]
    table = [(f"cust-{i}", {"name": f"customer {i}", "country": rng.choice(countries),
                            "tier": rng.randint(1, 3)}) for i in range(customers)]
    stream = [(f"cust-{rng.randrange(int(customers * 1.05))}",
               {"id": i, "amount": round(rng.uniform(0, 100), 2), "sku": f"sku-{i % 997}"})
              for i in range(orders)]
    return table, stream


def topology() -> ks.Topology:
    """Orders joined with their customer: the order with the customer's name and country."""
    builder = ks.StreamsBuilder()
    customers = builder.table("customers", ks.Consumed.with_(String(), Json()))
    orders = builder.stream("orders", ks.Consumed.with_(String(), Json()))
    (orders.join(customers, lambda order, customer: {**order, "name": customer["name"],
                                                     "country": customer["country"]})
     .to("enriched", ks.Produced.with_(String(), Json())))
    return builder.build()


def run(bulk: bool, table: list[Any], stream: list[Any]) -> tuple[float, int, Any]:
    """CPU seconds to pipe the orders (the table piped first, untimed), the outputs, and
    the last output (to compare the paths)."""
    with ks.TopologyTestDriver(topology(), {"kslab.driver.bulk": bulk}) as driver:
        driver.create_input_topic("customers", String(), Json()).pipe_key_value_list(table)
        orders = driver.create_input_topic("orders", String(), Json())
        gc.collect()
        start = time.process_time()
        orders.pipe_key_value_list(stream)
        seconds = time.process_time() - start
        out = driver.create_output_topic("enriched", String(), Json()).read_key_values_to_list()
        return seconds, len(out), out[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orders", type=int, default=100_000)
    parser.add_argument("--customers", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    table, stream = make(args.customers, args.orders)
    times: dict[bool, list[float]] = {False: [], True: []}
    outputs: dict[bool, Any] = {}
    for round_ in range(args.runs):
        for bulk in ((False, True) if round_ % 2 == 0 else (True, False)):
            seconds, count, last = run(bulk, table, stream)
            times[bulk].append(seconds)
            outputs[bulk] = (count, last)
    assert outputs[True] == outputs[False], outputs
    record, batch = (statistics.median(times[bulk]) for bulk in (False, True))
    print(f"{args.orders:,} orders joined with {args.customers:,} customers, "
          f"{outputs[True][0]:,} outputs, median CPU of {args.runs} rounds, "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"record path: {args.orders / record:,.0f} rec/s; batch: {args.orders / batch:,.0f} "
          f"rec/s; batch / record {record / batch:.2f}x")


if __name__ == "__main__":
    main()
