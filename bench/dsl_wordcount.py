"""The DSL word count in the test driver beside a plain loop and Bytewax, measured in one run.

All three count words of the same lines (8 words each from a 5,000-word vocabulary) and emit the
running count of every word. Run ``python bench/dsl_wordcount.py --lines 20000 --runs 3``; the
printed table goes into bench/README.md.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable

from _harness import interleaved  # bench/ is the script's directory

import kslab as ks
from kslab import serdes

S, L = serdes.String(), serdes.Long()


def make_lines(n: int, seed: int = 1) -> list[str]:
    """``n`` lines of 8 words from a 5,000-word vocabulary."""
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(5000)]
    return [" ".join(rng.choice(vocab) for _ in range(8)) for _ in range(n)]


def dsl_topology(cache: bool = True) -> ks.Topology:
    """flat_map_values -> group_by(word) -> count -> to_stream -> to, as in seed 004."""
    store = ks.Materialized.as_("counts").with_store_type("in_memory")
    if not cache:
        store = store.with_caching_disabled()
    b = ks.StreamsBuilder()
    (b.stream("lines", ks.Consumed.with_(S, S))
     .flat_map_values(str.split)
     .group_by(lambda key, word: word, ks.Grouped.with_(S, S))
     .count(materialized=store)
     .to_stream()
     .to("counts", ks.Produced.with_(S, L)))
    return b.build()


def run_dsl(lines: list[str], bulk: bool = True, cache: bool = True) -> int:
    """Pipe every line through the DSL word count in the driver and read the updates back.

    ``bulk=False`` turns the driver's bulk path off: every record goes through every node.
    """
    with ks.TopologyTestDriver(dsl_topology(cache), {"kslab.driver.bulk": bulk}) as driver:
        driver.create_input_topic("lines", S, S).pipe_value_list(lines)
        return len(driver.create_output_topic("counts", S, L).read_key_values_to_list())


def run_loop(lines: list[str]) -> int:
    """The same running count in plain Python, serializing words and counts as the topics do."""
    counts: dict[str, int] = {}
    out = []
    ser_s, ser_l = S.serialize, L.serialize
    for line in lines:
        for word in line.split():
            n = counts.get(word, 0) + 1
            counts[word] = n
            out.append((ser_s("counts", word), ser_l("counts", n)))
    return len(out)


def run_bytewax(lines: list[str]) -> int:
    """The same running count as a Bytewax dataflow run with ``run_main``."""
    import bytewax.operators as op
    from bytewax.dataflow import Dataflow
    from bytewax.testing import TestingSink, TestingSource, run_main

    out: list[tuple[str, int]] = []
    flow = Dataflow("wordcount")
    # batch_size=1000: Bytewax at its best (its default of 1 is 1.7x slower here)
    source = TestingSource(lines, batch_size=1000)
    words = op.flat_map("split", op.input("in", flow, source), str.split)
    keyed = op.key_on("key", words, lambda word: word)

    def count(state: int | None, _word: str) -> tuple[int, int]:
        n = (state or 0) + 1
        return n, n

    op.output("out", op.stateful_map("count", keyed, count), TestingSink(out))
    run_main(flow)
    return len(out)


def main() -> None:
    """Time the three contestants and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lines", type=int, default=20000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    lines = make_lines(args.lines)
    fns: list[tuple[str, Callable[[], int]]] = [
        ("DSL in TopologyTestDriver, default record cache (bulk path)", lambda: run_dsl(lines)),
        ("same, record path (kslab.driver.bulk=false)", lambda: run_dsl(lines, bulk=False)),
        ("DSL in TopologyTestDriver, cache disabled (bulk path)",
         lambda: run_dsl(lines, cache=False)),
        ("same, cache disabled, record path", lambda: run_dsl(lines, bulk=False, cache=False)),
        ("plain loop", lambda: run_loop(lines)),
    ]
    try:
        import bytewax  # noqa: F401
        fns.append(("Bytewax run_main (batch_size=1000)", lambda: run_bytewax(lines)))
    except ImportError:
        print("bytewax is not installed; its row is skipped")
    results = interleaved(args.runs, *(fn for _, fn in fns))
    print("| contestant | lines/s | outputs |")
    print("|---|---:|---:|")
    for (label, _), (seconds, count) in zip(fns, results, strict=True):
        print(f"| {label} | {args.lines / seconds:,.0f} | {count:,} |")


if __name__ == "__main__":
    main()
