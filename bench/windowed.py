"""A session- or sliding-window count as a user writes it, on the record path and in batch, in
one process.

``bench/record_path.py``'s **session** program (String keys, JSON values, a session count with
a 5 s gap and 1 s grace over the default RocksDB session store and record cache, its updates
mapped to JSON by a lambda after ``to_stream``), or its **sliding** one (``--program sliding``:
a sliding-window count, 10 s difference, 1 s grace) over ``--records`` events of 1,000 users
1 ms apart, piped with ``pipe_record_list``. Each round runs the record path
(``kslab.driver.bulk: False``) and the batch path, in alternating order, timed with
``time.process_time`` (CPU of this process: the machine is shared); the medians, their ratio
and the load average are printed. Both must write the same records (asserted). ``--cache
off`` and ``--store in_memory`` measure the other forms; ``--cache-bytes N`` sets
``statestore.cache.max.bytes`` (default: Kafka's 10 MiB) so that the users' sessions or windows
outgrow the cache (its evictions; the batch path's chunks declined are printed, not refused).

Run ``.venv/bin/python bench/windowed.py --records 50000 --runs 5 [--program sliding]``.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import time
from typing import Any

import kslab as ks
from bench.record_path import SEC, events
from kslab.serdes import Json, String

S, J = String(), Json()


def topology(program: str, store: str, cache: bool) -> ks.Topology:
    """``record_path.session_count`` (or ``sliding_count``) with the store type and record
    cache chosen."""
    mat = ks.Materialized.as_("windows").with_store_type(store)
    if not cache:
        mat = mat.with_caching_disabled()
    windows = (ks.SessionWindows.of_inactivity_gap_and_grace(5 * SEC, SEC)
               if program == "session"
               else ks.SlidingWindows.of_time_difference_and_grace(10 * SEC, SEC))
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, J))
     .group_by_key()
     .windowed_by(windows)
     .count(mat)
     .to_stream()
     .map(lambda wk, n: (wk.key, {"start": wk.window.start, "end": wk.window.end, "n": n}))
     .to("out", ks.Produced.with_(S, J)))
    return b.build()


def run(bulk: bool, records: list[Any], program: str, store: str, cache: bool,
        cache_bytes: int | None = None) -> tuple[float, int, Any, dict[str, int]]:
    """CPU seconds to pipe the records, the outputs, the last output, and the batch path's
    chunks run and declined (every chunk in batch asserted unless ``cache_bytes`` is set)."""
    config: dict[str, Any] = {"kslab.driver.bulk": bulk}
    if cache_bytes is not None:
        config["statestore.cache.max.bytes"] = cache_bytes
    with ks.TopologyTestDriver(topology(program, store, cache), config) as driver:
        topic = driver.create_input_topic("in", S, J)
        gc.collect()
        start = time.process_time()
        topic.pipe_record_list(records)
        seconds = time.process_time() - start
        out = driver.create_output_topic("out", S, J).read_records_to_list()
        stats = driver.bulk_stats()
        assert cache_bytes is not None or not stats["declined"], stats
        return seconds, len(out), (out[-1].key, out[-1].value, out[-1].timestamp), stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--program", default="session", choices=["session", "sliding"])
    parser.add_argument("--store", default="persistent", choices=["persistent", "in_memory"])
    parser.add_argument("--cache", default="on", choices=["on", "off"])
    parser.add_argument("--cache-bytes", type=int, default=None)
    args = parser.parse_args()
    records = events(args.records, 1_000, 1, 13)
    cache = args.cache == "on"
    times: dict[bool, list[float]] = {False: [], True: []}
    seen: dict[bool, Any] = {}
    batch_stats: dict[str, int] = {}
    for round_ in range(args.runs):
        for bulk in ((False, True) if round_ % 2 == 0 else (True, False)):
            seconds, outputs, last, stats = run(bulk, records, args.program, args.store,
                                                cache, args.cache_bytes)
            times[bulk].append(seconds)
            seen[bulk] = (outputs, last)
            if bulk:
                batch_stats = stats
    assert seen[False] == seen[True], seen
    record, batch = statistics.median(times[False]), statistics.median(times[True])
    print(f"{args.program}: {args.records} records, {seen[True][0]} outputs, "
          f"store {args.store}, "
          f"cache {args.cache} ({args.cache_bytes or 'default'} bytes), median of "
          f"{args.runs} alternating rounds (CPU s); batch path chunks {batch_stats}")
    print(f"record path {record:.3f} s ({args.records / record:,.0f} rec/s), "
          f"batch path {batch:.3f} s ({args.records / batch:,.0f} rec/s), "
          f"record/batch {record / batch:.2f}x; load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
