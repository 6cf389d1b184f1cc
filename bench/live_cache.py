"""W2 live with a full record cache: the stream thread's CPU per line, three ways in one run.

bench/idiomatic.py's W2 (a word count of JSON lines) on a ``ks.LocalBroker``, one input
partition, ``KafkaStreams`` with its record cache on (the default ``statestore.cache.max.bytes``
unless ``--cache-bytes``) over a vocabulary larger than the cache holds (``--vocabulary``), so
the cache fills with dirty entries between commits and a put then evicts one, flushing the
count's namespace mid-chunk. Three configurations take turns run by run on the same input:

- ``split``: the batch path, each polled run split at such a flush (``kslab.core.bulk.split``);
- ``unsplit``: the batch path as it was before the split (``MAX_SPLITS`` 0: a chunk whose put
  would flush goes record by record from its start);
- ``record``: the record path (``kslab.runtime.bulk`` false).

Each figure is the stream thread's CPU time (``time.thread_time``, load-independent) until it
has processed every line and every repartitioned word, as lines per CPU-second (median of the
runs), with the rows its batch path took. Usage: ``.venv/bin/python bench/live_cache.py
--lines 20000 --vocabulary 200000 --cache-bytes 1048576 --runs 3``.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as dt
import os
import pstats
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import idiomatic as idi  # bench/ is the script's directory
import runtime as rt

import kslab as ks
from kslab.core.bulk import split
from kslab.runtime._thread import StreamThread

MODES = ("split", "unsplit", "record")


def _threads(streams: Any) -> list[dict[str, Any]]:
    return list(streams.metrics()["threads"].values())


def run_once(bootstrap: str, mode: str, rows: list[tuple[bytes, bytes]], words: int,
             cache_bytes: int | None, tag: str, profile: str | None = None,
             commit_ms: int = 1000) -> tuple[float, int]:
    """The stream thread's CPU seconds to process every line and word, and the rows its
    batch path took; ``profile``: a cProfile of the stream thread written there."""
    src, dst = rt._prepare(bootstrap, tag, rows)  # (bench/idiomatic_live.py's too)
    state = Path(tempfile.mkdtemp(prefix=f"bench-{tag}-"))
    config: dict[str, Any] = {
        "application.id": f"app-{tag}", "bootstrap.servers": bootstrap,
        "state.dir": str(state), "commit.interval.ms": commit_ms,
        "consumer.session.timeout.ms": 6000, "consumer.heartbeat.interval.ms": 500,
        "kslab.runtime.bulk": mode != "record"}
    if cache_bytes is not None:
        config["statestore.cache.max.bytes"] = cache_bytes
    cpu: list[float] = []
    loop, splits = StreamThread._loop, split.MAX_SPLITS

    def timed(self: Any) -> None:
        prof = cProfile.Profile() if profile else None
        start = time.thread_time()
        try:
            loop(self) if prof is None else prof.runcall(loop, self)
        finally:
            cpu.append(time.thread_time() - start)
            if prof is not None:
                prof.dump_stats(profile)

    # the stream thread enters its loop after start() returns: timed until close
    StreamThread._loop = timed  # type: ignore[method-assign]
    split.MAX_SPLITS = 0 if mode == "unsplit" else splits
    streams = ks.KafkaStreams(idi.topology_w2(src, dst), config)
    try:
        streams.start()
        deadline = time.monotonic() + 600
        while sum(t["process-total"] for t in _threads(streams)) < len(rows) + words:
            if time.monotonic() > deadline:
                msg = f"{mode}: not done in 600 s"
                raise RuntimeError(msg)
            time.sleep(0.2)
        batched = sum(t["process-batched-total"] for t in _threads(streams))
    finally:
        streams.close()
        StreamThread._loop = loop  # type: ignore[method-assign]
        split.MAX_SPLITS = splits
        shutil.rmtree(state, ignore_errors=True)
    return cpu[0], batched


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--vocabulary", type=int, default=200_000)
    parser.add_argument("--cache-bytes", type=int, help="statestore.cache.max.bytes (10 MiB)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--commit-ms", type=int, default=1000,
                        help="commit.interval.ms (Kafka's default at least once: 30000)")
    parser.add_argument("--profile", choices=MODES, help="print a cProfile of one run instead")
    args = parser.parse_args()
    pairs = idi.make_w2(args.lines, vocabulary=args.vocabulary)
    rows = idi.serialized(pairs)
    words = sum(len(value["line"].split()) for _, value in pairs)
    cpu: dict[str, list[float]] = {mode: [] for mode in MODES}
    batched: dict[str, int] = {}
    with ks.LocalBroker() as broker:
        if args.profile:
            path = tempfile.mktemp(suffix=".prof")
            run_once(broker.bootstrap_servers, args.profile, rows, words, args.cache_bytes,
                     f"profile-{args.profile}", path, args.commit_ms)
            pstats.Stats(path).sort_stats("cumulative").print_stats(40)
            return
        for run in range(args.runs):
            for mode in MODES:
                seconds, batched[mode] = run_once(broker.bootstrap_servers, mode, rows, words,
                                                  args.cache_bytes, f"{mode}-{run}",
                                                  commit_ms=args.commit_ms)
                cpu[mode].append(seconds)
                print(f"run {run} {mode}: {seconds:.2f} CPU-s, {batched[mode]:,} rows in "
                      "batch", flush=True)
    cache = "10 MiB" if args.cache_bytes is None else f"{args.cache_bytes:,} bytes"
    print(f"\nW2 live, {args.lines:,} lines ({words:,} words), vocabulary "
          f"{args.vocabulary:,}, cache {cache}, at least once, commit {args.commit_ms:,} ms; "
          f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, load {os.getloadavg()[0]:.1f}")
    base = statistics.median(cpu["record"])
    for mode in MODES:
        median = statistics.median(cpu[mode])
        print(f"  {mode:8} {args.lines / median:9,.0f} lines per CPU-second "
              f"({base / median:.2f}x the record path), {batched[mode]:,} of "
              f"{len(rows) + words:,} rows in batch")


if __name__ == "__main__":
    main()
