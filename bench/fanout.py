"""A fan-out program written as a user would, record path against batch path in one process.

JSON orders (String keys) go through a ``peek`` (an audit list), ``split`` by amount into a
``big`` branch (``map_values`` adding ``amount_x2``) and a ``small`` one, a ``filter`` to a
topic named per record by a topic extractor, and a ``foreach``; default caches, user lambdas.
The same records are piped into the driver with ``kslab.driver.bulk`` off (the record path,
which is what these shapes ran before batch fan-outs) and on, alternating, ``time.process_time``
around the pipe; the best round of each is printed with their ratio, and both runs' outputs
must agree.

Run ``.venv/bin/python bench/fanout.py [--records 100000] [--runs 3]``.
"""

from __future__ import annotations

import argparse
import gc
import random
import time
from typing import Any

import kslab as ks
from kslab.serdes import Json, String

S, J = String(), Json()


def topology(audit: list[int]) -> ks.Topology:
    """The program: peek, split, map_values, a topic extractor, foreach."""
    b = ks.StreamsBuilder()
    orders = (b.stream("orders", ks.Consumed.with_(S, J))
              .peek(lambda k, v: audit.append(v["id"])))
    branches = (orders.split(ks.Named.as_("o-"))
                .branch(lambda k, v: v["amount"] > 50, ks.Branched.as_("big"))
                .default_branch(ks.Branched.as_("small")))
    (branches["o-big"].map_values(lambda v: {**v, "amount_x2": v["amount"] * 2})
     .to("big", ks.Produced.with_(S, J)))
    branches["o-small"].to("small", ks.Produced.with_(S, J))
    (orders.filter(lambda k, v: v["kind"] == "a")
     .to(lambda k, v, ctx: "kind-" + v["kind"], ks.Produced.with_(S, J)))
    orders.foreach(lambda k, v: None)
    return b.build()


def run(rows: list[ks.TestRecord], bulk: bool) -> tuple[float, int, dict[str, int]]:
    """Records per CPU second, chunks run in batch, records per output topic."""
    audit: list[int] = []
    with ks.TopologyTestDriver(topology(audit), {"kslab.driver.bulk": bulk}) as driver:
        topic = driver.create_input_topic("orders", S, J)
        gc.collect()
        start = time.process_time()
        topic.pipe_record_list(rows)
        elapsed = time.process_time() - start
        chunks = driver.bulk_stats()["chunks"]
        sizes = {name: log.total for name, log in sorted(driver.output_logs().items())}
    assert audit == [row.value["id"] for row in rows]
    return len(rows) / elapsed, chunks, sizes


def main() -> None:
    """Print the rates of both paths and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(7)
    rows = [ks.TestRecord(f"c{rng.randrange(1000)}",
                          {"id": i, "amount": rng.randrange(100), "kind": rng.choice("abc")},
                          i) for i in range(args.records)]
    best: dict[bool, Any] = {}
    for _ in range(args.runs):
        for bulk in (False, True):
            rate, chunks, sizes = run(rows, bulk)
            if bulk not in best or rate > best[bulk][0]:
                best[bulk] = (rate, chunks, sizes)
    assert best[True][2] == best[False][2]
    print(f"record path {best[False][0]:,.0f} rec/s, batch path {best[True][0]:,.0f} rec/s "
          f"({best[True][1]} chunks): {best[True][0] / best[False][0]:.2f}x")


if __name__ == "__main__":
    main()
