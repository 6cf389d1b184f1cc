"""Targets the CLI tests point ``kslab describe`` and ``kslab run`` at: a real module.

``topology`` is a built word count with string/long serdes; ``builder`` an unbuilt one;
``make_topology`` a function returning one; the rest are wrong targets on purpose.
"""

from __future__ import annotations

import kslab as ks

SOURCE, SINK = "cli-lines", "cli-counts"


def word_count_builder(source: str = SOURCE, sink: str = SINK) -> ks.StreamsBuilder:
    """Word count over string lines into (word, long count) records."""
    builder = ks.StreamsBuilder()
    (builder.stream(source, key_serde="string", value_serde="string")
        .flat_map_values(lambda line: line.lower().split())
        .group_by(lambda key, word: word, ks.Grouped.with_("string", "string"))
        .count(ks.Materialized.as_("counts-store"))
        .to_stream()
        .to(sink, ks.Produced.with_("string", "long")))
    return builder


def make_topology() -> ks.Topology:
    """A zero-argument function returning the built word count."""
    return word_count_builder().build()


def needs_arguments(source: str) -> ks.Topology:
    """Not callable with no arguments."""
    return word_count_builder(source).build()


def returns_a_number() -> int:
    """Callable, but returns the wrong thing."""
    return 42


builder = word_count_builder()
topology = make_topology()
not_a_topology = {"a": 1}


def enrichment() -> ks.Topology:
    """Orders joined with a global table of products: a global store in the description."""
    builder = ks.StreamsBuilder()
    products = builder.global_table("cli-products", materialized=ks.Materialized.as_("products"))
    (builder.stream("cli-orders")
        .join(products, lambda key, order: order["product"],
              lambda order, product: {**order, "name": product})
        .to("cli-enriched"))
    return builder.build()


def _explode(line: str) -> str:
    if line == "boom":
        msg = "this line cannot be processed"
        raise ValueError(msg)
    return line


def failing() -> ks.Topology:
    """Upper-cases lines, and raises on the line 'boom': the app fails while running."""
    builder = ks.StreamsBuilder()
    (builder.stream("cli-fail-in", key_serde="string", value_serde="string")
        .map_values(_explode)
        .to("cli-fail-out", ks.Produced.with_("string", "string")))
    return builder.build()
