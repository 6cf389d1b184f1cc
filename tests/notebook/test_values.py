"""The one formatter of the notebook (issue 23 item 4): every kind of value, exactly."""

from __future__ import annotations

import enum
from datetime import datetime

import numpy as np
import pandas as pd
import pytest

from kslab.notebook.values import (
    format_time,
    format_value,
    hover_text,
    html_cell,
    html_table,
    plain,
)
from kslab.records import ValueAndTimestamp, Window, Windowed


@pytest.mark.parametrize(("ms", "text"), [
    (0, "0:00"),
    (1_000, "0:01"),
    (57_000, "0:57"),
    (60_111, "1:00.111"),
    (3_661_000, "1:01:01"),  # past an hour: h:mm:ss
    (86_399_999, "23:59:59.999"),  # the last ms read as time from 0
    (86_400_000, "1970-01-02T00:00:00Z"),  # from one day on: a date, in UTC
    (1_700_000_000_123, "2023-11-14T22:13:20.123Z"),
    (-1, "-1"),  # Kafka's "no timestamp" stays a number
    (np.int64(5_000), "0:05"),
    (5_000.0, "0:05"),
    (2**63 - 1, str(2**63 - 1)),  # Long.MAX_VALUE: no date
    (datetime(2024, 5, 1, 12), "2024-05-01T12:00:00Z"),
    (pd.Timestamp("2024-05-01T12:00:00.250"), "2024-05-01T12:00:00.250Z"),
    (None, "None"),
])
def test_timestamps_read_as_times(ms, text):
    assert format_time(ms) == text
    assert format_value(ms, kind="time") == text


def test_the_raw_ms_of_a_time_is_on_hover():
    assert html_cell(57_000, kind="time") == '<td title="57000 ms">0:57</td>'
    assert html_cell(-1, kind="time") == "<td>-1</td>"


def test_numpy_scalars_show_as_python_values_also_inside_containers():
    assert format_value(np.str_("ada")) == "ada"
    assert format_value(np.int64(3)) == "3"
    assert format_value(np.float64(0.5)) == "0.5"
    assert format_value({"user": np.str_("ada"), "n": np.int64(3)}) == "{'user': 'ada', 'n': 3}"
    assert format_value([np.int32(1), (np.str_("a"),)]) == "[1, ('a',)]"
    assert plain({"n": np.bool_(True)}) == {"n": True}
    assert html_cell(np.str_("ada")) == "<td>ada</td>"  # a string shows as itself, no hover


def test_windows_and_windowed_keys():
    window = Window(0, 60_000)
    assert format_value(window) == "[0:00, 1:00)"
    assert format_value(Windowed("/docs", window)) == "/docs [0:00, 1:00)"
    assert html_cell(Windowed("/docs", window)) == \
        '<td title="[/docs@0/60000]">/docs [0:00, 1:00)</td>'
    assert html_cell(window) == '<td title="[0, 60000) ms">[0:00, 1:00)</td>'


def test_a_value_and_timestamp_is_its_value_with_the_time_on_hover():
    stored = ValueAndTimestamp(1, 1_889)
    assert format_value(stored) == "1"
    assert hover_text(stored) == "1 at 0:01.889 (1889 ms)"
    assert html_cell(stored) == '<td title="1 at 0:01.889 (1889 ms)">1</td>'


def test_enums_changes_empty_and_long_texts():
    class State(enum.Enum):
        RUNNING = 2

    assert format_value(State.RUNNING) == "RUNNING"
    assert html_cell(State.RUNNING) == '<td title="&lt;State.RUNNING: 2&gt;">RUNNING</td>'

    class Change:
        new_value, old_value = 3, 2

    assert format_value(Change()) == "3 (was 2)"
    assert format_value("") == '""'
    long = "x" * 250
    assert format_value(long) == "x" * 199 + "…"
    assert html_cell(long) == f'<td title="{long}">{"x" * 199}…</td>'
    assert format_value(b"\x00\x01") == "b'\\x00\\x01'"
    assert format_value(None) == "None"


def test_a_value_column_of_dicts_spreads_into_columns_where_they_fit():
    html = html_table(["key", "value", "timestamp"],
                      [("o1", {"qty": 2, "total": 80.0}, 1_000), ("o2", {"qty": 1}, 2_000),
                       ("o3", None, 3_000)])
    assert html == (
        '<table class="kslab-table"><tr><th>key</th><th>qty</th><th>total</th>'
        "<th>timestamp</th></tr>"
        '<tr><td>o1</td><td>2</td><td>80.0</td><td title="1000 ms">0:01</td></tr>'
        '<tr><td>o2</td><td>1</td><td title="no such field">—</td>'
        '<td title="2000 ms">0:02</td></tr>'
        '<tr><td>o3</td><td>None</td><td>None</td><td title="3000 ms">0:03</td></tr></table>')
    clash = html_table(["key", "value"], [("k", {"key": 1, "n": 2})])
    assert "<th>key</th><th>value.key</th><th>n</th>" in clash
    too_many = {f"f{i}": i for i in range(9)}
    wide = html_table(["key", "value"], [("k", too_many)])
    assert "<th>key</th><th>value</th></tr>" in wide  # nine fields do not fit: one cell
    beside_old = html_table(["key", "value", "old value"], [("k", {"n": 2}, {"n": 1})])
    assert "<th>key</th><th>value</th><th>old value</th>" in beside_old


def test_a_table_leaves_out_a_headers_column_no_record_fills():
    """Issue 23: frames keep API.md's ``headers`` column; the notebook's tables show it only
    when a record has headers."""
    from kslab.notebook.values import html_table

    empty = html_table(["key", "value", "headers"], [("a", 1, []), ("b", 2, [])])
    assert "<th>headers</th>" not in empty and empty.count("<td") == 4
    filled = html_table(["key", "value", "headers"], [("a", 1, [("trace", b"x")]), ("b", 2, [])])
    assert "<th>headers</th>" in filled and filled.count("<td") == 6
