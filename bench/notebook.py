"""Notebook benchmarks: drawing a 50-node topology with each renderer, and a live preview.

Goals (issue 4): the built-in renderer draws 50 nodes in under 200 ms, and a preview over a
10,000-row sample shows in under 1 s. Run ``.venv/bin/python bench/notebook.py`` and paste the
printed table into bench/README.md.
"""

from __future__ import annotations

import argparse
import gc
import platform
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import pandas as pd

import kslab as ks
from kslab.notebook import render
from kslab.notebook.preview import preview_for


def median_ms(runs: int, fn: Callable[[], Any]) -> float:
    """Median wall time of ``fn`` in milliseconds over ``runs`` calls."""
    times = []
    for _ in range(runs):
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def fifty_nodes() -> ks.Topology:
    """Three sub-topologies, stores, repartition and changelog topics: 50 drawn nodes."""
    builder = ks.StreamsBuilder()
    stream = builder.stream("clicks")
    for i in range(26):
        stream = stream.map_values(lambda v, i=i: v) if i % 3 else stream.filter(lambda k, v: 1)
    counts = stream.group_by(lambda k, v: v).count(materialized="per-page")
    users = builder.table("users", materialized="users-store")
    joined = counts.join(users, lambda c, u: (c, u))
    joined.to_stream().map_values(lambda v: v).to("enriched")
    stream.to("cleaned")
    topology = builder.build()
    return topology


def word_count(rows: int) -> tuple[ks.StreamsBuilder, dict[str, Any]]:
    """A word-count builder with a ``rows``-line sample attached."""
    vocabulary = [f"w{i}" for i in range(500)]
    lines = [" ".join(vocabulary[(i * 7 + j) % 500] for j in range(8)) for i in range(rows)]
    sample = pd.DataFrame({"key": [None] * rows, "value": lines, "timestamp": range(rows)})
    builder = ks.StreamsBuilder()
    source = builder.stream("lines", sample=sample)
    words = source.flat_map_values(str.split)
    counts = words.group_by(lambda k, v: v).count(materialized="counts")
    rare = words.filter(lambda k, v: v == "w499")
    counts.to_stream().to("out")
    return builder, {"words": words, "counts": counts, "rare": rare}


def main() -> int:
    """Print the results table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--rows", type=int, default=10_000)
    args = parser.parse_args()
    topology = fifty_nodes()
    drawn = len(ks.topology.rendering.to_rendered(topology).nodes)
    print(f"Python {platform.python_version()}, {platform.machine()}; {drawn} drawn nodes, "
          f"{args.rows:,}-row sample, median of {args.runs} runs\n")
    print("| what | ms | goal |\n|---|---:|---:|")
    for name in render.RENDERERS:
        if name in ("dot", "graphviz-pure") and not render.find_program(name):
            print(f"| draw, {name} | not installed | |")
            continue
        drawing = render.draw(topology, renderer=name)
        assert drawing.renderer == name and drawing.note is None, drawing.note
        ms = median_ms(args.runs, lambda name=name: render.draw(topology, renderer=name))
        goal = "200" if name == "builtin" else ""
        print(f"| draw 50 nodes, {name} | {ms:.1f} | {goal} |")
    for handle, label in (("words", "preview of a busy node (first 10 rows)"),
                          ("counts", "preview of a table after a repartition"),
                          ("rare", "preview of a rare node (drives until 1 s or the end)")):
        def cold(handle: str = handle) -> None:
            builder, handles = word_count(args.rows)  # a new builder: nothing cached
            preview_for(builder, handles[handle].name)

        ms = median_ms(max(3, args.runs // 2), cold)
        print(f"| {label} | {ms:.1f} | 1000 |")
    builder, handles = word_count(args.rows)
    start = time.perf_counter()
    preview = preview_for(builder, handles["rare"].name, rows=10**9, seconds=60)
    full = (time.perf_counter() - start) * 1000
    print(f"| drive all {preview.driven:,} sample rows (no time budget) | {full:.0f} | |")
    setup = median_ms(3, lambda: word_count(args.rows))
    print(f"| (building the builder and its sample, included above) | {setup:.1f} | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
