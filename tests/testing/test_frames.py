"""A frame's value columns become one dict per row, typed once per column
(kslab/testing/frames.py): the classes a column's dtype (or one scan of a column of objects)
gives are what a Json source would decode, so it takes the dicts without checking each value.
Every dtype is piped on the bulk path and the record path, and what the user's function sees
(each value's class and repr) must be the same, exactly as listed."""

from __future__ import annotations

import datetime as dt
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest

import kslab as ks
from kslab import serdes
from kslab.testing.frames import FrameValues, frame_columns

S = serdes.String()


def _seen(frame: Any, bulk: bool) -> tuple[list[Any], int]:
    """Each row's value as its source gives it to a mapper (each field's class and repr),
    and the chunks the bulk path ran."""
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, serdes.Json()))
     .map_values(lambda v: [f"{k}={type(x).__name__}:{x!r}" for k, x in v.items()])
     .to("out", ks.Produced.with_(S, serdes.Json())))
    with ks.TopologyTestDriver(b.build(), {"kslab.driver.bulk": bulk}) as driver:
        driver.create_input_topic("in", S, serdes.Json()).pipe_dataframe(frame, value=None)
        out = driver.create_output_topic("out", S, serdes.Json()).read_values_to_list()
        return out, driver.bulk_stats()["chunks"]


def _types(frame: Any) -> frozenset[type] | None:
    """The value classes the frame's rows carry (``RowDicts.value_types``)."""
    values = frame_columns(frame, key="key", value=None, timestamp=None, headers=None,
                           partition=None)[1]
    assert isinstance(values, FrameValues)
    return values[:].value_types


NONE = type(None)

PANDAS = [  # (column, its values, what the source gives, the classes known for the column)
    ("i64", pd.Series([3, -4], dtype="int64"), ["int:3", "int:-4"], {int}),
    ("u8", pd.Series([250, 0], dtype="uint8"), ["int:250", "int:0"], {int}),
    ("f64", pd.Series([0.5, -2.0], dtype="float64"), ["float:0.5", "float:-2.0"], {float}),
    ("f32", pd.Series([0.5, 1.25], dtype="float32"), ["float:0.5", "float:1.25"], {float}),
    ("nan", pd.Series([0.5, np.nan]), ["float:0.5", "NoneType:None"], {float, NONE}),
    ("inf", pd.Series([np.inf, 1.0]), ["NoneType:None", "float:1.0"], None),  # null in JSON
    ("bool", pd.Series([True, False]), ["bool:True", "bool:False"], {bool}),
    ("str", pd.Series(["p", None], dtype=object), ["str:'p'", "NoneType:None"], {str, NONE}),
    ("onan", pd.Series(["p", np.nan], dtype=object), ["str:'p'", "NoneType:None"],
     {str, NONE}),
    ("ofloat", pd.Series([1.5, "q"], dtype=object), ["float:1.5", "str:'q'"], None),
    ("when", pd.Series(pd.to_datetime(["2024-01-01", None])),
     ["int:1704067200000", "NoneType:None"], {int, NONE}),
    ("Int64", pd.Series([7, None], dtype="Int64"), ["int:7", "NoneType:None"], {int, NONE}),
    ("string", pd.Series(["x", None], dtype="string"), ["str:'x'", "NoneType:None"],
     {str, NONE}),
    ("cat", pd.Series(["a", "b"], dtype="category"), ["str:'a'", "str:'b'"], {str}),
    ("nested", pd.Series([{"a": [1]}, [2, 3]], dtype=object),
     ["dict:{'a': [1]}", "list:[2, 3]"], {dict, list}),
    ("tuple", pd.Series([(1, 2), "t"], dtype=object), ["list:[1, 2]", "str:'t'"],
     {tuple, str}),
    ("np", pd.Series([np.float64(1.5), "q"], dtype=object), ["float:1.5", "str:'q'"],
     {np.float64, str}),
]


POLARS = [
    ("i64", pl.Series([3, None], dtype=pl.Int64), ["int:3", "NoneType:None"], {int, NONE}),
    ("u8", pl.Series([250, 0], dtype=pl.UInt8), ["int:250", "int:0"], {int}),
    ("f64", pl.Series([0.5, None]), ["float:0.5", "NoneType:None"], {float, NONE}),
    ("nan", pl.Series([0.5, float("nan")]), ["float:0.5", "NoneType:None"], None),
    ("inf", pl.Series([float("-inf"), 2.0]), ["NoneType:None", "float:2.0"], None),
    ("bool", pl.Series([True, None]), ["bool:True", "NoneType:None"], {bool, NONE}),
    ("str", pl.Series(["p", None]), ["str:'p'", "NoneType:None"], {str, NONE}),
    ("when", pl.Series([dt.datetime(2024, 1, 1), None]),
     ["int:1704067200000", "NoneType:None"], {int, NONE}),
    ("day", pl.Series([dt.date(2024, 1, 2), None]), ["str:'2024-01-02'", "NoneType:None"],
     {dt.date, NONE}),
    ("list", pl.Series([[1, 2], None]), ["list:[1, 2]", "NoneType:None"], {list, NONE}),
    ("struct", pl.Series([{"a": 1}, {"a": None}]), ["dict:{'a': 1}", "dict:{'a': None}"],
     {dict}),
]


CASES = [("pandas", *case) for case in PANDAS] + [("polars", *case) for case in POLARS]


@pytest.mark.parametrize(("kind", "name", "column", "expected", "types"), CASES,
                         ids=[f"{case[0]}-{case[1]}" for case in CASES])
def test_a_columns_values_reach_the_source_as_decoding_gives_them(
        kind: str, name: str, column: Any, expected: list[str],
        types: set[type] | None) -> None:
    frame = (pd if kind == "pandas" else pl).DataFrame({"key": ["a", "b"], name: column})
    rows = [[f"{name}={item}"] for item in expected]
    assert _types(frame) == (None if types is None else frozenset(types))
    assert _seen(frame, True) == (rows, 1)
    assert _seen(frame, False) == (rows, 0)


def test_row_dicts_are_fresh_per_chunk_and_keep_the_column_order() -> None:
    # Each slice makes new dicts (a mapper that changes one leaves the next slice alone),
    # keyed by the column names in the frame's order, quotes and all.
    frame = pd.DataFrame({"key": ["a", "b", "c"], "it's": [1, 2, 3], 'say "x"': ["p", "q", "r"]})
    values = frame_columns(frame, key="key", value=None, timestamp=None, headers=None,
                           partition=None)[1]
    first = values[0:2]
    first[0]["it's"] = 99
    assert values[0:3] == [{"it's": 1, 'say "x"': "p"}, {"it's": 2, 'say "x"': "q"},
                           {"it's": 3, 'say "x"': "r"}]
    assert list(values[2:3][0]) == ["it's", 'say "x"']


def _fractions(n: int, divisor: int, nan_at: int) -> Any:
    """``i / divisor`` for each row ``i`` of ``n``, NaN at row ``nan_at`` (a late chunk's)."""
    x = np.arange(n) / divisor
    x[nan_at] = np.nan
    return x


@pytest.mark.parametrize("kind", ["pandas", "polars"])
def test_a_long_frames_numbers_are_made_a_chunk_at_a_time_as_the_whole_column_gives_them(
        kind: str) -> None:
    # Number columns become Python objects a chunk at a time (frames._Chunked): over several
    # chunks, a missing value only in a late chunk (pandas: NaN in a float column; polars: a
    # null in an int and a datetime column) is None there and nowhere else, on both paths.
    n = 1000
    columns: dict[str, Any] = {"key": [f"k{i}" for i in range(n)],
                               "n": np.arange(n, dtype="int64"), "x": _fractions(n, 4, 700),
                               "ok": np.arange(n) % 3 == 0}
    if kind == "pandas":
        frame: Any = pd.DataFrame(columns)
        seen_n = [f"n=int:{i}" for i in range(n)]
        seen_x = [f"x=float:{i / 4!r}" for i in range(n)]
        seen_x[700] = "x=NoneType:None"
        seen_when: list[str] = []
    else:
        frame = pl.DataFrame({**columns, "x": np.arange(n) / 4}).with_columns(
            n=pl.when(pl.col("n") == 700).then(None).otherwise(pl.col("n")),
            when=pl.datetime(2024, 1, 1) + pl.duration(milliseconds=pl.int_range(n)))
        frame = frame.with_columns(when=pl.when(pl.col("n").is_null()).then(None)
                                   .otherwise(pl.col("when")))
        seen_n = [f"n=int:{i}" for i in range(n)]
        seen_n[700] = "n=NoneType:None"
        seen_x = [f"x=float:{i / 4!r}" for i in range(n)]
        seen_when = [f"when=int:{1704067200000 + i}" for i in range(n)]
        seen_when[700] = "when=NoneType:None"
    rows = [[seen_n[i], seen_x[i], f"ok=bool:{i % 3 == 0}", *seen_when[i:i + 1]]
            for i in range(n)]
    bulk, chunks = _seen(frame, True)
    assert chunks > 1  # (the first chunk is 256 rows)
    assert bulk == rows
    assert _seen(frame, False) == (rows, 0)


@pytest.mark.parametrize("kind", ["pandas", "polars"])
def test_a_long_frames_number_keys_values_and_timestamps_arrive_a_chunk_at_a_time(
        kind: str) -> None:
    # Keys, a single value column and timestamps of numbers are made a chunk at a time too:
    # each record keeps its key, value (NaN, pandas; null, polars: None) and timestamp.
    n = 1000
    columns = {"key": np.arange(n, dtype="int64") * 7, "value": _fractions(n, 2, 900),
               "timestamp": np.arange(n, dtype="int64") * 3 + 5}
    frame: Any = pd.DataFrame(columns) if kind == "pandas" else pl.DataFrame(columns).with_columns(
        value=pl.when(pl.col("value").is_nan()).then(None).otherwise(pl.col("value")))
    expected = [(i * 7, None if i == 900 else i / 2, i * 3 + 5) for i in range(n)]
    for bulk in (True, False):
        b = ks.StreamsBuilder()
        b.stream("in", ks.Consumed.with_(serdes.Long(), serdes.Json())).to("out")
        with ks.TopologyTestDriver(b.build(), {"kslab.driver.bulk": bulk}) as driver:
            driver.create_input_topic("in", serdes.Long(), serdes.Json()).pipe_dataframe(frame)
            out = driver.create_output_topic("out", serdes.Long(), serdes.Json())
            assert [(r.key, r.value, r.timestamp) for r in out.read_records_to_list()] == expected
            assert (driver.bulk_stats()["chunks"] > 1) is bulk
