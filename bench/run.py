"""Benchmark harness: kslab's engines beside hand-written baselines, measured in one run.

Every row is a ratio against a baseline timed in the same process on the same data, so the
table reads the same on a faster or slower machine. Run ``make bench`` (or
``python bench/run.py --records 200000``) and paste the printed table into bench/README.md.
"""

from __future__ import annotations

import argparse
import platform
import re
import sys

from _harness import interleaved  # bench/ is the script's directory

import kslab as ks
from kslab import serdes

# -- W0: pass-through of JSON records ------------------------------------------------------------


def make_orders(n: int) -> list[tuple[str, dict, int]]:
    """``n`` keyed JSON orders with increasing timestamps."""
    return [(f"o{i % 1000}", {"id": i, "amount": i % 97, "country": "NL"}, i) for i in range(n)]


class PassThrough(ks.Processor):
    """Forwards every record unchanged."""

    def init(self, context):
        self.forward = context.forward

    def process(self, record):
        self.forward(record)


def passthrough_driver(records: list[tuple[str, dict, int]]) -> int:
    """Pipe through source → PassThrough → sink in the driver and read everything back."""
    topo = ks.Topology()
    topo.add_source("src", "in", key_serde=serdes.String(), value_serde=serdes.Json())
    topo.add_processor("pass", PassThrough, "src")
    topo.add_sink("out", "out", "pass", key_serde=serdes.String(), value_serde=serdes.Json())
    with ks.TopologyTestDriver(topo) as driver:
        inp = driver.create_input_topic("in")
        inp.pipe_key_value_list(((key, value) for key, value, _ in records), 0, 1)
        return len(driver.create_output_topic("out").read_key_values_to_list())


def passthrough_loop(records: list[tuple[str, dict, int]]) -> int:
    """The same work by hand: serialize in, deserialize, serialize out, deserialize to read."""
    ks_ser, ks_de = serdes.String().serialize, serdes.String().deserialize
    vs_ser, vs_de = serdes.Json().serialize, serdes.Json().deserialize
    topic_in, topic_out = "in", "out"
    stored = []
    for key, value, ts in records:
        kb, vb = ks_ser(topic_in, key), vs_ser(topic_in, value)  # the producer's side
        k, v = ks_de(topic_in, kb), vs_de(topic_in, vb)  # the source
        stored.append((ks_ser(topic_out, k), vs_ser(topic_out, v), ts))  # the sink
    return len([(ks_de(topic_out, kb), vs_de(topic_out, vb)) for kb, vb, _ in stored])


# -- W2: Processor-API word count ------------------------------------------------------------------


def make_lines(n: int, vocabulary: int = 5000, words: int = 8) -> list[str]:
    """``n`` lines of ``words`` words drawn deterministically from a vocabulary."""
    vocab = [f"w{i}" for i in range(vocabulary)]
    return [" ".join(vocab[(i * 7919 + j * 104729) % vocabulary] for j in range(words))
            for i in range(n)]


_SPLIT = re.compile(r"\W+")


class WordCount(ks.Processor):
    """Counts words in store `counts` and forwards each word's running count."""

    def init(self, context):
        self.forward = context.forward
        self.store = context.get_state_store("counts")

    def process(self, record):
        store = self.store
        for word in _SPLIT.split(record.value.lower()):
            n = (store.get(word) or 0) + 1
            store.put(word, n)
            self.forward(ks.Record(word, n, record.timestamp))


def _drive_word_count(processor: type[ks.Processor], lines: list[str]) -> int:
    """``processor`` over an in-memory, unlogged "counts" store in the driver, lines 1 ms
    apart; every output read back."""
    topo = ks.Topology()
    topo.add_source("src", "lines", key_serde=serdes.String(), value_serde=serdes.String())
    topo.add_processor("count", processor, "src")
    topo.add_state_store(
        ks.Stores.key_value_store_builder(
            ks.Stores.in_memory_key_value_store("counts"), serdes.String(), serdes.Long()
        ).with_logging_disabled(),
        "count",
    )
    topo.add_sink("out", "counts", "count", key_serde=serdes.String(), value_serde=serdes.Long())
    with ks.TopologyTestDriver(topo) as driver:
        driver.create_input_topic("lines").pipe_value_list(lines, 0, 1)
        return len(driver.create_output_topic("counts").read_key_values_to_list())


def wordcount_driver(lines: list[str]) -> int:
    """Word count in the driver with an in-memory, unlogged store; read every update back."""
    return _drive_word_count(WordCount, lines)


def wordcount_loop(lines: list[str]) -> int:
    """The same work by hand, with the same serdes at the same boundaries and a bytes store."""
    s_ser, s_de = serdes.String().serialize, serdes.String().deserialize
    l_ser, l_de = serdes.Long().serialize, serdes.Long().deserialize
    store: dict[bytes, bytes] = {}
    stored = []
    for i, line in enumerate(lines):
        value = s_de("lines", s_ser("lines", line))
        for word in _SPLIT.split(value.lower()):
            kb = s_ser("counts", word)
            old = store.get(kb)
            n = (0 if old is None else l_de("counts", old)) + 1
            store[kb] = l_ser("counts", n)
            stored.append((s_ser("counts", word), l_ser("counts", n), i))
    return len([(s_de("counts", kb), l_de("counts", vb)) for kb, vb, _ in stored])


# -- W2b: seed 001's WordCountProcessor: counts in a store, emitted by a stream-time punctuation ---


class PunctuatedWordCount(ks.Processor):
    """Seed 001: count words; every 1000 ms of stream time forward the whole store in order."""

    def init(self, context):
        self.forward = context.forward
        self.store = context.get_state_store("counts")
        context.schedule(1000, ks.PunctuationType.STREAM_TIME, self.punctuate)

    def punctuate(self, timestamp):
        forward = self.forward
        with self.store.all() as entries:
            for word, count in entries:
                forward(ks.Record(word, count, timestamp))

    def process(self, record):
        store = self.store
        for word in _SPLIT.split(record.value.lower()):
            store.put(word, (store.get(word) or 0) + 1)


def punctuated_driver(lines: list[str]) -> int:
    """Seed 001's word count in the driver: 1 ms between lines, so a punctuation every 1000."""
    return _drive_word_count(PunctuatedWordCount, lines)


def punctuated_loop(lines: list[str]) -> int:
    """The same by hand: a sorted scan of the serialized keys at every 1000 ms boundary."""
    s_ser, s_de = serdes.String().serialize, serdes.String().deserialize
    l_ser, l_de = serdes.Long().serialize, serdes.Long().deserialize
    store: dict[bytes, bytes] = {}
    stored = []
    next_punctuation = 0
    for i, line in enumerate(lines):
        value = s_de("lines", s_ser("lines", line))
        for word in _SPLIT.split(value.lower()):
            kb = s_ser("counts", word)
            old = store.get(kb)
            store[kb] = l_ser("counts", (0 if old is None else l_de("counts", old)) + 1)
        if i >= next_punctuation:  # stream time i reached the schedule, as the driver fires it
            for kb in sorted(store):
                word, count = s_de("counts", kb), l_de("counts", store[kb])
                stored.append((s_ser("counts", word), l_ser("counts", count), i))
            next_punctuation = (i // 1000 + 1) * 1000
    return len([(s_de("counts", kb), l_de("counts", vb)) for kb, vb, _ in stored])


# -- the table -------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=200_000, help="records for pass-through")
    parser.add_argument("--lines", type=int, default=50_000, help="lines for word count")
    parser.add_argument("--runs", type=int, default=4, help="rounds per measurement (median)")
    args = parser.parse_args(argv)

    orders = make_orders(args.records)
    lines = make_lines(args.lines)
    rows = []
    for workload, unit, data, engine, baseline in (
        ("pass-through (JSON)", "rec/s", orders, passthrough_driver, passthrough_loop),
        ("PAPI word count, emit every update", "lines/s", lines, wordcount_driver,
         wordcount_loop),
        ("PAPI word count, seed 001 (punctuate 1 s)", "lines/s", lines, punctuated_driver,
         punctuated_loop),
    ):
        (t_base, n_base), (t_eng, n_eng) = interleaved(
            args.runs, lambda b=baseline, d=data: b(d), lambda e=engine, d=data: e(d)
        )
        if n_base != n_eng:
            print(f"{workload}: outputs differ ({n_eng} vs {n_base})", file=sys.stderr)
            return 1
        rate_base, rate_eng = len(data) / t_base, len(data) / t_eng
        rows.append((workload, unit, rate_eng, rate_base, rate_eng / rate_base))

    print(f"Python {platform.python_version()}, {platform.machine()}, median of {args.runs} runs, "
          f"{args.records:,} records / {args.lines:,} lines\n")
    print("| workload | unit | TopologyTestDriver | hand-written loop | ratio |")
    print("|---|---|---:|---:|---:|")
    for workload, unit, eng, base, ratio in rows:
        print(f"| {workload} | {unit} | {eng:,.0f} | {base:,.0f} | {ratio:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
