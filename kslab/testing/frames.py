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

__all__ = ["FrameValues", "RowDicts", "frame_columns", "frame_kind", "frame_rows", "records_frame",
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
    """A frame column as Python objects, missing values as ``None`` (datetimes as int ms)."""
    values = _typed_column(df, kind, name)[0]
    return values if values.__class__ is list else values[:]


class _Chunked:
    """A column of numbers (a numpy array or a polars series) made into Python objects a
    slice at a time (``column[start:stop]`` is a list), as ``tolist`` makes them, a missing
    value (NaN in a pandas float column) as ``None``: piping a frame converts each chunk's
    rows just before they are piped (fresh in the cache, dead after the chunk when nothing
    keeps them), not every row's first."""

    __slots__ = ("_column", "_nan", "_numpy")

    def __init__(self, column: Any, nan: bool = False) -> None:
        self._column = column
        self._numpy = not hasattr(column, "to_list")  # (else a polars series)
        self._nan = nan  # (a pandas float column holding NaN: those become None)

    def __len__(self) -> int:
        return len(self._column)

    def __getitem__(self, rows: slice) -> list[Any]:
        part = self._column[rows]
        if self._nan:
            import numpy  # (pandas' own dependency)

            if numpy.isnan(part).any():
                return [None if _is_missing(v) else v for v in part.tolist()]
        return part.tolist() if self._numpy else part.to_list()  # type: ignore[no-any-return]


_NONE = type(None)


def _typed_column(df: Any, kind: str, name: str
                  ) -> tuple[list[Any] | _Chunked, frozenset[type] | None]:
    """``_column`` (a ``_Chunked`` for numbers and polars strings, whose objects are made a
    slice at a time; a list of the items otherwise) and the classes of its items where they
    are known once for the column (its dtype, else one scan in C), every float among them
    finite; ``None`` where not known
    (a float that may be infinite, in a column of objects). Missing values are found at once:
    by the dtype (an integer or bool column has none), numpy for floats, and by the items'
    classes for a column of objects (only a float NaN, ``pd.NA`` or ``pd.NaT`` is missing
    besides ``None``), else ``isna``."""
    if kind == "polars":
        return _polars_column(df.get_column(name))
    series = df[name]
    dtype = str(series.dtype)
    if dtype.startswith("datetime64"):
        stamps = [None if _is_missing(v) else to_millis(v) for v in series.tolist()]
        return stamps, frozenset(map(type, stamps))
    if dtype.startswith(("int", "uint")):  # (numbers: made a chunk at a time, _Chunked)
        return _Chunked(series.to_numpy()), _INTS  # (an integer column has nothing missing)
    if dtype == "bool":
        return _Chunked(series.to_numpy()), _BOOLS
    if dtype.startswith("float"):
        import numpy  # (pandas' own dependency)

        array = series.to_numpy()
        nan = bool(numpy.isnan(array).any())
        if numpy.isinf(array).any():
            return _Chunked(array, nan), None
        return _Chunked(array, nan), _FLOATS | {_NONE} if nan else _FLOATS
    values = series.tolist()
    if dtype == "object":
        classes = set(map(type, values))
        if any(c.__name__ in ("NAType", "NaTType") or issubclass(c, float) for c in classes):
            values = [None if _is_missing(v) else v for v in values]
            classes = set(map(type, values))
    else:  # (strings, categories, nullable integers: their own isna)
        values = _without_missing(values, series)
        classes = set(map(type, values))
    return values, None if float in classes else frozenset(classes)


_INTS, _BOOLS, _FLOATS = frozenset({int}), frozenset({bool}), frozenset({float})


def _without_missing(values: list[Any], series: Any) -> list[Any]:
    """A pandas column's items with its missing ones (``isna``) as ``None``."""
    if not series.isna().any():
        return values
    return [None if _is_missing(v) else v for v in values]


def _polars_column(series: Any) -> tuple[list[Any] | _Chunked, frozenset[type] | None]:
    """``_typed_column`` of a polars series: nulls are ``None``; NaN stays a float (a NaN
    or infinity makes the classes unknown)."""
    import polars as pl

    dtype = series.dtype
    nulls = {_NONE} if series.null_count() else set()
    if dtype == pl.Datetime or isinstance(dtype, pl.Datetime):  # (these made a chunk at a
        return _Chunked(series.dt.epoch("ms")), _INTS | nulls  # time: _Chunked)
    if dtype.is_integer():
        return _Chunked(series), _INTS | nulls
    if dtype == pl.Boolean:
        return _Chunked(series), _BOOLS | nulls
    if dtype == pl.String:
        return _Chunked(series), frozenset({str}) | nulls
    if dtype.is_float():
        if series.is_nan().any() or series.is_infinite().any():
            return _Chunked(series), None
        return _Chunked(series), _FLOATS | nulls
    values = series.to_list()
    classes = set(map(type, values))
    return values, None if float in classes else frozenset(classes)


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return type(value).__name__ in ("NAType", "NaTType")


class RowDicts(list):  # type: ignore[type-arg]
    """A frame's rows as the dicts ``FrameValues`` made, which no other code holds: an
    engine may hand a source that reads them back as they are (``Json.read_back_column``
    with ``fresh``) these dicts instead of copies. ``value_types``: the classes of every
    value of every dict, each float finite, known from the frame's columns (their dtypes, or
    one scan of a column of objects: ``read_back_column`` need not check each value);
    ``None`` where not known."""

    __slots__ = ("value_types",)

    def __init__(self, dicts: Iterable[dict[str, Any]] = (),
                 value_types: frozenset[type] | None = None) -> None:
        super().__init__(dicts)
        self.value_types = value_types


class FrameValues:
    """A frame's value columns, made into a dict per row a slice at a time
    (``values[start:stop]`` is a ``RowDicts``): piping a frame makes each chunk's dicts
    just before it serializes them, not every row's first."""

    __slots__ = ("_columns", "_rows", "_types")

    def __init__(self, names: list[str], columns: list[list[Any] | _Chunked],
                 types: list[frozenset[type] | None]) -> None:
        self._columns = columns
        self._rows = _row_dicts(names)
        # (None: some column's classes are unknown; frozenset(): no column at all)
        self._types = None if None in types else frozenset().union(*types)

    def __len__(self) -> int:
        return len(self._columns[0])

    def __getitem__(self, rows: slice) -> RowDicts:
        return RowDicts(self._rows(*(column[rows] for column in self._columns)), self._types)


def _row_dicts(names: list[str]) -> Callable[..., list[dict[str, Any]]]:
    """A function making the dicts of rows given as their ``names`` columns' items, one list
    per column in that order: a list comprehension whose dict display has the names as
    constants (``{'id': _0, ...}``: one ``BUILD_CONST_KEY_MAP`` per row, no call per row;
    ``namedtuple`` generates its methods alike), about twice as fast as calling a function
    per row, which is three times as fast as ``dict(zip(names, row))``."""
    columns = ", ".join(f"_c{i}" for i in range(len(names)))
    items = ", ".join(f"{name!r}: _{i}" for i, name in enumerate(names))
    targets = "".join(f"_{i}, " for i in range(len(names)))
    namespace: dict[str, Any] = {}
    exec(f"def row_dicts({columns}):\n"
         f"    return [{{{items}}} for {targets}in zip({columns})]", namespace)
    return namespace["row_dicts"]  # type: ignore[no-any-return]


def frame_rows(df: Any, **names: Any) -> list[tuple[Any, Any, int | None, Any, int | None]]:
    """The frame as ``(key, value, timestamp, headers, partition)`` rows, checked; ``names``
    are ``frame_columns``'s column names."""
    columns = [c[:] if c.__class__ in (FrameValues, _Chunked) else c
               for c in frame_columns(df, **names)]
    return list(zip(*columns, strict=True))


def frame_columns(
    df: Any,
    *,
    key: str | None,
    value: str | Sequence[str] | None,
    timestamp: str | None,
    headers: str | None,
    partition: str | None,
) -> list[Any]:
    """``frame_rows`` as its five columns (keys, values, timestamps, headers, partitions);
    values made of several columns are a ``FrameValues`` (its slices: the rows' dicts), and
    keys, values and timestamps of numbers (or polars strings) may be a ``_Chunked`` (its
    slices: lists), made into Python objects a chunk at a time."""
    kind = frame_kind(df)
    columns = [str(c) for c in df.columns]
    n = len(df)

    def need(name: str, role: str, hint: str) -> list[Any] | _Chunked:
        if name not in columns:
            msg = (
                f"the frame has no {role} column '{name}' (columns: {columns}); {hint}"
            )
            raise KslabError(msg)
        return _typed_column(df, kind, name)[0]

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
        if value_columns:
            typed = [_typed_column(df, kind, c) for c in value_columns]
            values = FrameValues(value_columns, [t[0] for t in typed], [t[1] for t in typed])
        else:
            values = RowDicts(({} for _ in range(n)), frozenset())
    else:
        values = need(
            value, "value",
            "name it with value=..., or pass value=None to make each row's other columns a dict",
        )
    if timestamp is not None and timestamp in columns:
        stamps, classes = _typed_column(df, kind, timestamp)
        if classes is None or not classes <= _INTS | {_NONE}:  # else int ms already (the
            stamps = [to_millis(t) for t in stamps[:]]  # usual case; None: the clock's)
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
