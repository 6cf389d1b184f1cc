"""Live previews: the first records a node forwards over the builder's samples."""

from __future__ import annotations

import pandas as pd
import pytest

import kslab as ks
from kslab.notebook import options
from kslab.notebook.preview import PreviewRun, preview_for
from tests.notebook.fixtures import lines_frame, word_count


@pytest.fixture(autouse=True)
def builtin_renderer(monkeypatch):
    monkeypatch.setattr(options, "renderer", "builtin")


def test_a_stream_previews_what_its_node_forwards():
    builder, h = word_count(lines_frame())
    preview = preview_for(builder, h["words"].name)
    assert [r[1] for r in preview.rows][:4] == ["the", "quick", "fox", "the"]
    assert preview.rows[0] == (None, "the", 1)
    assert (preview.driven, preview.total) == (3, 3)


def test_a_table_previews_its_updates():
    builder, h = word_count(lines_frame())
    html = h["counts"]._repr_mimebundle_()["text/html"]
    assert "<td>quick</td><td>1</td>" in html
    preview = preview_for(builder, h["counts"].name, rows=100)
    key, change, _ = preview.rows[-1]
    assert (key, change.new_value) == ("dog", 2)
    assert preview.complete


def test_rows_and_time_are_bounded():
    big = lines_frame([f"w{i}" for i in range(5000)])
    builder, h = word_count(big)
    preview = preview_for(builder, h["lines"].name, rows=3)
    assert len(preview.rows) == 3
    assert preview.driven < 100
    filtered = builder.stream("other", sample=big).filter(lambda k, v: False)
    preview = preview_for(builder, filtered.name, rows=3, seconds=0.0)
    assert preview.rows == [] and not preview.complete


def test_the_preview_is_cached_until_the_builder_changes():
    builder, h = word_count(lines_frame())
    preview_for(builder, h["words"].name)
    from kslab.notebook import preview as module

    # internal on purpose: the preview's cache, which these tests check is kept and dropped
    run = module._cache[builder][1]["run"]
    preview_for(builder, h["lines"].name)
    assert module._cache[builder][1]["run"] is run
    h["words"].filter(lambda k, v: True)
    preview_for(builder, h["lines"].name)
    assert module._cache[builder][1]["run"] is not run


def test_an_error_shows_with_the_node_and_the_record():
    builder = ks.StreamsBuilder()
    frame = pd.DataFrame({"key": ["a", "b", "c"], "value": [2, 0, 1], "timestamp": [1, 2, 3]})
    inverted = builder.stream("nums", sample=frame).map_values(lambda v: 1 / v)
    html = inverted._repr_mimebundle_()["text/html"]
    assert "ZeroDivisionError: division by zero</b> in node KSTREAM-MAPVALUES-0000000001" in html
    html = html.replace("&#x27;", "'")
    assert "key=b, value=0, timestamp=0:00.002 (sample row 1 of topic 'nums')" in html
    assert "<td>a</td><td>0.5</td>" in html  # rows before the error are kept
    assert "Traceback" not in html


def test_a_sample_without_key_or_value_columns_gives_one_line():
    builder = ks.StreamsBuilder()
    frame = pd.DataFrame({"text": ["x"], "timestamp": [1]})
    stream = builder.stream("t", sample=frame)
    preview = preview_for(builder, stream.name)
    assert preview.problem == (
        "kslab: the sample for topic 't' has no key or value column (columns: ['text', "
        "'timestamp']); give it key, value and timestamp columns"
    )
    assert preview.problem in stream._repr_mimebundle_()["text/html"].replace("&#x27;", "'")


def test_polars_samples_and_samples_merged_in_time_order():
    import polars as pl

    builder = ks.StreamsBuilder()
    a = builder.stream("a", sample=pl.DataFrame({"key": ["x"], "value": [1], "timestamp": [5]}))
    b = builder.stream("b", sample=pl.DataFrame({"key": ["y"], "value": [2], "timestamp": [3]}))
    merged = a.merge(b)
    assert preview_for(builder, merged.name).rows == [("y", 2, 3), ("x", 1, 5)]


def test_no_samples_no_preview():
    builder, h = word_count()
    assert preview_for(builder, h["words"].name) is None
    assert "kslab-preview" not in h["words"]._repr_mimebundle_()["text/html"]


def test_a_run_closes_its_driver():
    builder, _ = word_count(lines_frame())
    run = PreviewRun(builder.build(), builder.samples)
    run.close()
    assert run.driver.closed


def test_a_late_record_stays_late_and_frames_merge_by_head_timestamp():
    from kslab.notebook.preview import merge_frames

    a = pd.DataFrame({"key": ["a1", "a2", "a3"], "value": [1, 2, 3], "timestamp": [5, 1, 7]})
    b = pd.DataFrame({"key": ["b1", "b2"], "value": [1, 2], "timestamp": [3, 6]})
    merged, problem = merge_frames({"a": a, "b": b})
    assert problem is None
    assert [row[0] for _, _, row in merged] == ["b1", "a1", "a2", "b2", "a3"]


def test_a_late_click_is_dropped_in_the_preview_of_a_windowed_count():
    clicks = pd.DataFrame({"key": ["p", "p", "p"], "value": [1, 1, 1],
                           "timestamp": [10, 70, 20]})  # 20 arrives after its window closed
    builder = ks.StreamsBuilder()
    counts = (builder.stream("clicks", key_serde="string", sample=clicks).group_by_key()
              .windowed_by(ks.TimeWindows.of_size_and_grace(60, 5)).count())
    rows = preview_for(builder, counts.name).rows
    assert [(k.key, k.window.start, change.new_value) for k, change, _ in rows] == [
        ("p", 0, 1), ("p", 60, 1)]


def test_a_kslab_error_keeps_its_own_message_in_the_preview():
    clicks = pd.DataFrame({"key": ["p"], "value": [1], "timestamp": [10]})
    builder = ks.StreamsBuilder()
    final = (builder.stream("clicks", sample=clicks).group_by_key()  # no key serde given
             .windowed_by(ks.TimeWindows.of_size_and_grace(60, 5)).count()
             .suppress(ks.Suppressed.until_window_closes(ks.BufferConfig.unbounded())))
    error = preview_for(builder, final.name).error
    assert error.error.startswith("SerdeError: Json() cannot serialize Windowed ")
    assert error.node == final.name
    assert (error.topic, error.row, error.timestamp) == ("clicks", 0, 10)


def test_rows_before_an_error_are_kept_once_and_counted_once():
    def checked(value):
        if value == "boom":
            raise ValueError(f"cannot take {value!r}")
        return value.upper()

    builder = ks.StreamsBuilder()
    frame = pd.DataFrame({"key": ["a", "b", "c"], "value": ["x", "y", "boom"],
                          "timestamp": [1, 2, 3]})
    source = builder.stream("t", sample=frame)
    upper = source.map_values(checked)
    for _ in range(2):  # a second display drives no further and keeps nothing again
        preview = preview_for(builder, upper.name)
        assert preview.rows == [("a", "X", 1), ("b", "Y", 2)]
        assert (preview.driven, preview.total) == (2, 3)
    assert preview_for(builder, source.name).rows == [("a", "x", 1), ("b", "y", 2)]
    html = upper._repr_mimebundle_()["text/html"].replace("&#x27;", "'")
    assert "2 first record(s) forwarded by this node; 2 of 3 sample rows driven" in html
    assert html.count("<td>a</td>") == 1 and html.count("<td>b</td>") == 1
    assert ("<b>ValueError: cannot take 'boom'</b> in node KSTREAM-MAPVALUES-0000000001 on "
            "record key=c, value=boom, timestamp=0:00.003 (sample row 2 of topic 't'); driving "
            "stopped there") in html
