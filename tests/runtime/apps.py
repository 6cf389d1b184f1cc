"""The applications the runtime tests run: word count with the Processor API and the DSL."""

from __future__ import annotations

import re
from typing import Any

import kslab as ks
from kslab import serdes

_WORD = re.compile(r"\W+")


class Splitter(ks.Processor):
    """Splits a line into (word, word) records."""

    def init(self, context: ks.ProcessorContext) -> None:
        self.context = context

    def process(self, record: ks.Record) -> None:
        for word in _WORD.split(record.value.lower()):
            if word:
                self.context.forward(record.with_key(word).with_value(word))


class Counter(ks.Processor):
    """Counts words in the 'counts' store and forwards the new count."""

    def init(self, context: ks.ProcessorContext) -> None:
        self.context = context
        self.store = context.get_state_store("counts")

    def process(self, record: ks.Record) -> None:
        count = (self.store.get(record.key) or 0) + 1
        self.store.put(record.key, count)
        self.context.forward(record.with_value(count))


def word_count_papi(source: str, sink: str, *, persistent: bool = True,
                    repartition: str | None = None, supplier: Any = None) -> ks.Topology:
    """Word count: split lines, count words in a store (``supplier``'s, else a persistent or
    in-memory one), write (word, count) to ``sink``."""
    supplier = supplier or (ks.Stores.persistent_key_value_store("counts") if persistent
                            else ks.Stores.in_memory_key_value_store("counts"))
    topo = ks.Topology()
    topo.add_source("lines", source, key_serde=serdes.String(), value_serde=serdes.String())
    topo.add_processor("split", Splitter, "lines")
    parent = "split"
    if repartition is not None:
        topo.add_sink("to-words", repartition, "split", key_serde=serdes.String(),
                      value_serde=serdes.String())
        topo.add_source("words", repartition, key_serde=serdes.String(),
                        value_serde=serdes.String())
        parent = "words"
    topo.add_processor("count", Counter, parent)
    topo.add_state_store(
        ks.Stores.key_value_store_builder(supplier, serdes.String(), serdes.Long()), "count")
    topo.add_sink("out", sink, "count", key_serde=serdes.String(), value_serde=serdes.Long())
    return topo


def word_count_dsl(source: str, sink: str) -> Any:
    """The same word count in the DSL (``group_by`` repartitions by word)."""
    builder = ks.StreamsBuilder()
    lines = builder.stream(source, key_serde=serdes.String(), value_serde=serdes.String())
    counts = (lines.flat_map_values(lambda line: [w for w in _WORD.split(line.lower()) if w])
              .group_by(lambda _key, word: word, ks.Grouped.with_(serdes.String(),
                                                                   serdes.String()))
              .count(ks.Materialized.as_("counts")))
    counts.to_stream().to(sink, ks.Produced.with_(serdes.String(), serdes.Long()))
    return builder


def lines(n: int, seed: int = 7) -> list[str]:
    """``n`` deterministic lines of text over a small vocabulary."""
    import random

    rnd = random.Random(seed)
    vocab = [f"w{i}" for i in range(50)]
    return [" ".join(rnd.choice(vocab) for _ in range(rnd.randint(1, 6))) for _ in range(n)]


def reference_counts(text: list[str]) -> dict[str, int]:
    """Final count per word."""
    out: dict[str, int] = {}
    for line in text:
        for word in _WORD.split(line.lower()):
            if word:
                out[word] = out.get(word, 0) + 1
    return out


def final_counts(records: list[tuple[Any, Any, int]]) -> dict[str, int]:
    """Last count per word in output records (key bytes, 8-byte long value bytes)."""
    out: dict[str, int] = {}
    for key, value, _ in records:
        out[key.decode()] = int.from_bytes(value, "big", signed=True)
    return out
