"""DataFrames in and out of the test driver, for pandas and polars alike.

Rows go in as plain Python objects (numpy scalars and NaN become ints, floats and ``None``);
timestamps may be integer milliseconds or datetime columns (naive = UTC). Output frames have the
columns ``key``, ``value``, ``timestamp``, ``headers`` (API.md's contract; the notebook's tables
leave out a ``headers`` column no record fills) and ``partition`` for topics with several
partitions; ``expand=True`` spreads dict values into columns.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from kslab.errors import KslabError

__all__ = ["RowDicts", "frame_columns", "frame_kind", "frame_rows", "records_frame",
           "to_millis"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def frame_kind(df: Any) -> str:
    """``"pandas"`` or ``"polars"``; anything else is refused with a clear error."""
    module = type(df).__module__
    if module.startswith("pandas"):
        return "pandas"
    if module.startswith("polars"):
        return "polars"
    msg = f"expected a pandas or polars DataFrame; got {type(df).__name__}"
    raise KslabError(msg)


def to_millis(value: Any) -> int | None:
    """A timestamp as int ms: ints pass, datetimes (naive = UTC) and timedeltas convert."""
    if value is None:
        return None
    if isinstance(value, bool):
        msg = f"timestamp {value!r} is a bool; give int milliseconds or a datetime"
        raise KslabError(msg)
    if isinstance(value, int):
        return value
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        delta = value - _EPOCH
        return (delta.days * 86_400_000 + delta.seconds * 1000 + delta.microseconds // 1000)
    if hasattr(value, "total_seconds"):
        return int(value.total_seconds() * 1000)
    if hasattr(value, "to_pydatetime"):  # pandas Timestamp
        return to_millis(value.to_pydatetime())
    if isinstance(value, float):
        if math.isnan(value):
            return None
        if value.is_integer():
            return int(value)
    if hasattr(value, "item"):  # numpy scalar
        return to_millis(value.item())
    msg = f"timestamp {value!r} ({type(value).__name__}) is not int milliseconds or a datetime"
    raise KslabError(msg)


def _column(df: Any, kind: str, name: str) -> list[Any]:
    """A frame column as Python objects, missing values as ``None`` (datetimes as int ms);
    a pandas column's missing values are found at once (``isna``)."""
    if kind == "polars":
        import polars as pl

        series = df.get_column(name)
        if series.dtype == pl.Datetime or isinstance(series.dtype, pl.Datetime):
            return series.dt.epoch("ms").to_list()
        return series.to_list()
    series = df[name]
    dtype = str(series.dtype)
    if dtype.startswith("datetime64"):
        return [None if _is_missing(v) else to_millis(v) for v in series.tolist()]
    values = series.tolist()
    if dtype.startswith(("int", "uint")) or not series.isna().any():
        return values  # nothing missing (an integer column never has)
    return [None if _is_missing(v) else v for v in values]


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return type(value).__name__ in ("NAType", "NaTType")


class RowDicts(list):  # type: ignore[type-arg]
    """A frame's rows as the dicts ``frame_columns`` made, which no other code holds: an
    engine may hand a source that reads them back as they are (``Json.read_back_column``
    with ``fresh``) these dicts instead of copies."""

    __slots__ = ()


def _row_dict(names: list[str]) -> Callable[..., dict[str, Any]]:
    """A function making one row's dict of its ``names`` columns' items, given in that order:
    a dict display of the names (``{_k0: _0, ...}``, each ``_k`` one of ``names`` itself,
    written as ``namedtuple`` writes its methods), a third faster than
    ``dict(zip(names, row))`` (no pair made per item)."""
    params = ", ".join(f"_{i}" for i in range(len(names)))
    items = ", ".join(f"_k{i}: _{i}" for i in range(len(names)))
    namespace: dict[str, Any] = {f"_k{i}": name for i, name in enumerate(names)}
    exec(f"def row_dict({params}):\n    return {{{items}}}", namespace)
    return namespace["row_dict"]  # type: ignore[no-any-return]


def frame_rows(df: Any, **names: Any) -> list[tuple[Any, Any, int | None, Any, int | None]]:
    """The frame as ``(key, value, timestamp, headers, partition)`` rows, checked; ``names``
    are ``frame_columns``'s column names."""
    return list(zip(*frame_columns(df, **names), strict=True))


def frame_columns(
    df: Any,
    *,
    key: str | None,
    value: str | Sequence[str] | None,
    timestamp: str | None,
    headers: str | None,
    partition: str | None,
) -> list[list[Any]]:
    """``frame_rows`` as its five columns (keys, values, timestamps, headers, partitions)."""
    kind = frame_kind(df)
    columns = [str(c) for c in df.columns]
    n = len(df)

    def need(name: str, role: str, hint: str) -> list[Any]:
        if name not in columns:
            msg = (
                f"the frame has no {role} column '{name}' (columns: {columns}); {hint}"
            )
            raise KslabError(msg)
        return _column(df, kind, name)

    keys = [None] * n if key is None else need(
        key, "key", "name it with key=..., or pass key=None for records without keys"
    )
    used = {c for c in (key, timestamp, headers, partition) if c is not None}
    if value is None or not isinstance(value, str):
        value_columns = [c for c in columns if c not in used] if value is None else list(value)
        for c in value_columns:
            if c not in columns:
                msg = f"the frame has no value column '{c}' (columns: {columns}); fix value=[...]"
                raise KslabError(msg)
        data = [_column(df, kind, c) for c in value_columns]
        # (columns of one frame: as long as each other)
        values = RowDicts(map(_row_dict(value_columns), *data)) if data \
            else RowDicts({} for _ in range(n))
    else:
        values = need(
            value, "value",
            "name it with value=..., or pass value=None to make each row's other columns a dict",
        )
    if timestamp is not None and timestamp in columns:
        stamps = _column(df, kind, timestamp)
        if set(map(type, stamps)) != {int}:  # int ms already (the usual case), else convert
            stamps = [to_millis(t) for t in stamps]
    elif timestamp is not None and timestamp != "timestamp":
        msg = f"the frame has no timestamp column '{timestamp}' (columns: {columns})"
        raise KslabError(msg)
    else:
        stamps = [None] * n
    hdrs = _column(df, kind, headers) if headers is not None else [None] * n
    if partition is not None and partition in columns:
        parts = [None if p is None else int(p) for p in _column(df, kind, partition)]
    else:
        parts = [None] * n
    return [keys, values, stamps, hdrs, parts]


def records_frame(
    rows: Iterable[tuple[Any, Any, int, Any, int]],
    *,
    kind: str = "pandas",
    expand: bool = False,
    with_partition: bool = False,
) -> Any:
    """A frame from ``(key, value, timestamp, headers, partition)`` rows (``headers`` a list
    per row, ``[]`` for none)."""
    rows = list(rows)
    columns: dict[str, list[Any]] = {
        "key": [r[0] for r in rows],
        "value": [r[1] for r in rows],
        "timestamp": [r[2] for r in rows],
        "headers": [list(r[3]) if r[3] else [] for r in rows],
    }
    if with_partition:
        columns["partition"] = [r[4] for r in rows]
    if expand:
        values = columns.pop("value")
        fields: dict[str, None] = {}
        for v in values:
            if isinstance(v, dict):
                fields.update(dict.fromkeys(v))
        expanded = {f: [v.get(f) if isinstance(v, dict) else None for v in values]
                    for f in fields}
        clash = set(expanded) & set(columns)
        if clash:
            msg = f"cannot expand values: fields {sorted(clash)} clash with record columns"
            raise KslabError(msg)
        columns = {"key": columns.pop("key"), **expanded, **columns}
    if kind == "polars":
        import polars as pl

        return pl.DataFrame(columns, strict=False)
    import pandas as pd

    return pd.DataFrame(columns)
