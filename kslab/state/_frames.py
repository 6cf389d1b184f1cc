"""Store contents as DataFrames, for notebooks and tests; pandas and polars are imported lazily.

Invariant: a frame has one row per entry in key order and exactly the columns it is given, in
that order, even when the store is empty.
"""

from __future__ import annotations

from typing import Any

__all__ = ["to_pandas", "to_polars", "windowed_columns"]


def to_pandas(columns: dict[str, list[Any]]) -> Any:
    """A pandas DataFrame of ``columns``."""
    import pandas as pd

    return pd.DataFrame(columns, columns=list(columns))


def to_polars(columns: dict[str, list[Any]]) -> Any:
    """A polars DataFrame of ``columns``; columns polars cannot type are kept as objects."""
    import polars as pl

    series = []
    for name, values in columns.items():
        try:
            series.append(pl.Series(name, values))
        except (TypeError, ValueError, pl.exceptions.PolarsError):
            series.append(pl.Series(name, values, dtype=pl.Object))
    return pl.DataFrame(series)


def windowed_columns(store: Any) -> dict[str, list[Any]]:
    """``key``, ``start``, ``end``, ``value`` of every entry of a window or session store."""
    columns: dict[str, list[Any]] = {"key": [], "start": [], "end": [], "value": []}
    with store.all() as entries:
        for windowed, value in entries:
            columns["key"].append(windowed.key)
            columns["start"].append(windowed.window.start)
            columns["end"].append(windowed.window.end)
            columns["value"].append(value)
    return columns
