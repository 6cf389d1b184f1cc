"""Factories for the notebook tests: small builders with and without samples."""

from __future__ import annotations

from typing import Any

import pandas as pd

import kslab as ks


def lines_frame(lines: list[str] | None = None) -> pd.DataFrame:
    """A sample frame of text lines with null keys and increasing timestamps."""
    lines = lines or ["the quick fox", "the lazy dog", "a quick dog"]
    return pd.DataFrame(
        {"key": [None] * len(lines), "value": lines, "timestamp": range(1, len(lines) + 1)}
    )


def word_count(sample: Any = None) -> tuple[ks.StreamsBuilder, dict[str, Any]]:
    """The word-count builder and its handles by name."""
    builder = ks.StreamsBuilder()
    lines = builder.stream("lines", sample=sample)
    words = lines.flat_map_values(str.split)
    grouped = words.group_by(lambda k, v: v)
    counts = grouped.count(materialized="counts")
    counts.to_stream().to("counts-out")
    return builder, {"lines": lines, "words": words, "grouped": grouped, "counts": counts}
