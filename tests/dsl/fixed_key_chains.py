"""Programs that change the key after ``process_values()``, shared by the driver, runtime and
Spark tests: each chain's input, and what its output topic must hold."""

from __future__ import annotations

from collections.abc import Callable

import kslab as ks
from kslab import serdes

S, L = serdes.String(), serdes.Long()
INPUT = [("k1", "a b"), ("k2", "c"), ("k1", "d")]


class Upper(ks.FixedKeyProcessor):
    """Upper-cases the value; the key stays."""

    def init(self, context):
        self.context = context

    def process(self, record):
        self.context.forward(record.with_value(record.value.upper()))


class Rekey(ks.Processor):
    """Re-keys each record to ``key>value``."""

    def init(self, context):
        self.context = context

    def process(self, record):
        self.context.forward(record.with_key(f"{record.key}>{record.value}"))


def _count_words(upper: ks.KStream) -> ks.KStream:
    return (upper.flat_map_values(str.split)
            .group_by(lambda k, v: v, ks.Grouped.with_(S, S)).count().to_stream())


# name -> (what follows process_values(Upper), output value serde, the output: (key, value)
# pairs in the order one partition receives them)
CHAINS: dict[str, tuple[Callable[[ks.KStream], ks.KStream], serdes.Serde, list[tuple]]] = {
    "select_key": (
        lambda s: s.select_key(lambda k, v: v), S,
        [("A B", "A B"), ("C", "C"), ("D", "D")]),
    "map": (
        lambda s: s.map(lambda k, v: (v, k)), S,
        [("A B", "k1"), ("C", "k2"), ("D", "k1")]),
    "flat_map": (
        lambda s: s.flat_map(lambda k, v: [(w, k) for w in v.split()]), S,
        [("A", "k1"), ("B", "k1"), ("C", "k2"), ("D", "k1")]),
    "filter_then_select_key": (
        lambda s: s.filter(lambda k, v: k == "k1").select_key(lambda k, v: v.lower()), S,
        [("a b", "A B"), ("d", "D")]),
    "map_values_then_flat_map": (
        lambda s: s.map_values(lambda v: v + "!").flat_map(lambda k, v: [(v, k)]), S,
        [("A B!", "k1"), ("C!", "k2"), ("D!", "k1")]),
    "to_table_to_stream_select_key": (
        lambda s: s.to_table().to_stream().select_key(lambda k, v: k + v), S,
        [("k1A B", "A B"), ("k2C", "C"), ("k1D", "D")]),
    "process_rekey": (
        lambda s: s.process(Rekey), S,
        [("k1>A B", "A B"), ("k2>C", "C"), ("k1>D", "D")]),
    "group_by_count": (
        _count_words, L,
        [("A", 1), ("B", 1), ("C", 1), ("D", 1)]),
}


def one_chain(name: str, source: str = "in", sink: str = "out") -> ks.StreamsBuilder:
    """A builder running chain ``name`` from ``source`` to ``sink``."""
    follow, value_serde, _ = CHAINS[name]
    builder = ks.StreamsBuilder()
    upper = builder.stream(source, ks.Consumed.with_(S, S)).process_values(Upper)
    follow(upper).to(sink, ks.Produced.with_(S, value_serde))
    return builder


def every_chain(source: str, sinks: dict[str, str]) -> ks.StreamsBuilder:
    """One builder running every chain from one ``process_values`` on ``source``, chain
    ``name`` writing to ``sinks[name]``."""
    builder = ks.StreamsBuilder()
    upper = builder.stream(source, ks.Consumed.with_(S, S)).process_values(Upper)
    for name, (follow, value_serde, _) in CHAINS.items():
        follow(upper).to(sinks[name], ks.Produced.with_(S, value_serde))
    return builder
