"""A tumbling-window count in the test driver beside a plain loop and Bytewax, in one run.

All count records per key (1,000 keys) in 60 s tumbling windows and emit the running count of
the record's window on every update (no suppression). The driver runs with the store's record
cache disabled (how Kafka Streams users get every update) and with the default cache (which the
driver, like Java's, flushes and forwards after every record), the records piped as
``TestRecord``s and as a pandas DataFrame. Run
``python bench/windows.py --records 200000 --runs 5``; the printed table goes into
bench/README.md.
"""

from __future__ import annotations

import argparse
import random
import struct
from collections.abc import Callable

from _harness import interleaved  # bench/ is the script's directory

import kslab as ks
from kslab import serdes

S, L = serdes.String(), serdes.Long()
SIZE = 60_000
WINDOWED = serdes.TimeWindowed(S, SIZE)


def make_records(n: int, seed: int = 1) -> list[tuple[str, str, int]]:
    """``n`` (key, value, timestamp) records over 1,000 keys, 1 ms apart."""
    rng = random.Random(seed)
    keys = [f"k{i}" for i in range(1000)]
    return [(rng.choice(keys), "x", i) for i in range(n)]


def topology(cache: bool = False) -> ks.Topology:
    """stream -> group_by_key -> windowed_by(60 s) -> count -> to_stream -> to."""
    b = ks.StreamsBuilder()
    store = ks.Materialized.as_("counts").with_store_type("in_memory")
    if not cache:
        store = store.with_caching_disabled()
    (b.stream("events", ks.Consumed.with_(S, S))
     .group_by_key()
     .windowed_by(ks.TimeWindows.of_size_with_no_grace(SIZE))
     .count(store)
     .to_stream()
     .to("counts", ks.Produced.with_(WINDOWED, L)))
    return b.build()


def run_driver(records: list[tuple[str, str, int]], cache: bool = False,
               bulk: bool = True, frame: bool = False) -> int:
    """Pipe every record through the windowed count in the driver and read the updates back.

    The records go in as ``TestRecord``s (``pipe_record_list``), or with ``frame`` as a pandas
    DataFrame made from them (``pipe_dataframe``); either is built in the timed call.
    ``bulk=False`` turns the driver's bulk path off: every record goes through every node.
    """
    with ks.TopologyTestDriver(topology(cache), {"kslab.driver.bulk": bulk}) as driver:
        topic = driver.create_input_topic("events", S, S)
        if frame:
            import pandas as pd

            topic.pipe_dataframe(pd.DataFrame(records, columns=["key", "value", "timestamp"]))
        else:
            topic.pipe_record_list([ks.TestRecord(k, v, ts) for k, v, ts in records])
        return len(driver.create_output_topic("counts", WINDOWED, L).read_key_values_to_list())


def run_loop(records: list[tuple[str, str, int]]) -> int:
    """The same counts in plain Python, serializing the windowed key and count of each update."""
    counts: dict[tuple[str, int], int] = {}
    out = []
    ser_s, ser_l = S.serialize, L.serialize
    pack = struct.Struct(">q").pack
    for key, _value, ts in records:
        start = ts - ts % SIZE
        n = counts.get((key, start), 0) + 1
        counts[(key, start)] = n
        out.append((ser_s("counts", key) + pack(start), ser_l("counts", n)))
    return len(out)


def run_bytewax(records: list[tuple[str, str, int]]) -> int:
    """The same running count per key and window as a Bytewax dataflow (``run_main``)."""
    import bytewax.operators as op
    from bytewax.dataflow import Dataflow
    from bytewax.testing import TestingSink, TestingSource, run_main

    out: list[tuple[str, int]] = []
    flow = Dataflow("windows")
    # batch_size=1000: Bytewax at its best (its default of 1 is 3.9x slower here)
    stream = op.input("in", flow, TestingSource(records, batch_size=1000))
    keyed = op.key_on("key", stream, lambda r: f"{r[0]}@{r[2] - r[2] % SIZE}")

    def count(state: int | None, _record: tuple[str, str, int]) -> tuple[int, int]:
        n = (state or 0) + 1
        return n, n

    op.output("out", op.stateful_map("count", keyed, count), TestingSink(out))
    run_main(flow)
    return len(out)


def main() -> None:
    """Time the three contestants and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    records = make_records(args.records)
    fns: list[tuple[str, Callable[[], int]]] = [
        ("windowed count in TopologyTestDriver, cache disabled", lambda: run_driver(records)),
        ("windowed count in TopologyTestDriver, default record cache",
         lambda: run_driver(records, cache=True)),
        ("same, cache disabled, records as a pandas DataFrame (pipe_dataframe)",
         lambda: run_driver(records, frame=True)),
        ("same, default record cache, records as a pandas DataFrame",
         lambda: run_driver(records, cache=True, frame=True)),
        ("same, cache disabled, record path (kslab.driver.bulk=false)",
         lambda: run_driver(records, bulk=False)),
        ("same, default record cache, record path",
         lambda: run_driver(records, cache=True, bulk=False)),
        ("plain loop", lambda: run_loop(records)),
    ]
    try:
        import bytewax  # noqa: F401
        fns.append(("Bytewax run_main (batch_size=1000)", lambda: run_bytewax(records)))
    except ImportError:
        print("bytewax is not installed; its row is skipped")
    results = interleaved(args.runs, *(fn for _, fn in fns))
    print("| contestant | rec/s | outputs |")
    print("|---|---:|---:|")
    for (label, _), (seconds, count) in zip(fns, results, strict=True):
        print(f"| {label} | {args.records / seconds:,.0f} | {count:,} |")


if __name__ == "__main__":
    main()
