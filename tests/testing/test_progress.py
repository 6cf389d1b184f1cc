"""Long work shows progress and can be interrupted (issue 23 item 8): the reporter gets the right
totals, and a KeyboardInterrupt mid-frame leaves the driver usable with exact outputs."""

from __future__ import annotations

import io

import pandas as pd
import pytest

import kslab as ks
from kslab.testing import progress


class Recorder:
    """A reporter factory that writes down every call; ``stop_at``: the update that raises
    KeyboardInterrupt, as the kernel's stop button would between two chunks."""

    def __init__(self, stop_at: int | None = None) -> None:
        self.calls: list[tuple] = []
        self.stop_at = stop_at

    def __call__(self, total: int, description: str) -> Recorder:
        self.calls.append(("open", total, description))
        return self

    def update(self, n: int) -> None:
        self.calls.append(("update", n))
        if self.stop_at is not None and sum(c[0] == "update" for c in self.calls) == \
                self.stop_at:
            raise KeyboardInterrupt

    def close(self) -> None:
        self.calls.append(("close",))


@pytest.fixture
def recorder(monkeypatch):
    recorder = Recorder()
    monkeypatch.setattr(progress.options, "factory", recorder)
    monkeypatch.setattr(progress.options, "enabled", True)
    monkeypatch.setattr(progress.options, "threshold", 500)
    return recorder


def doubling(fn=None) -> ks.Topology:
    builder = ks.StreamsBuilder()
    stream = builder.stream("in", key_serde="string", value_serde="long")
    stream.map_values(fn or (lambda v: v * 2)).to("out", ks.Produced.with_("string", "long"))
    stream.group_by_key().count(materialized="counts")
    return builder.build()


def frame(start: int, n: int) -> pd.DataFrame:
    return pd.DataFrame({"key": [f"k{i % 3}" for i in range(start, start + n)],
                         "value": list(range(start, start + n)),
                         "timestamp": list(range(start, start + n))})


def counts(driver) -> dict:
    with driver.get_key_value_store("counts").all() as entries:
        return dict(entries)


def test_pipe_dataframe_reports_each_chunk_of_a_large_frame(recorder):
    with ks.TopologyTestDriver(doubling()) as driver:
        assert driver.create_input_topic("in").pipe_dataframe(frame(0, 1_000)) == 1_000
        assert recorder.calls == [("open", 1_000, "piping in"), ("update", 256),
                                  ("update", 744), ("close",)]
        recorder.calls.clear()
        driver.create_input_topic("in").pipe_dataframe(frame(1_000, 499))  # below threshold
        assert recorder.calls == []


def test_run_and_replay_report_their_totals(recorder):
    with ks.TopologyTestDriver(doubling()) as driver:
        out = driver.run({"in": frame(0, 600)})
        assert out["out"]["value"].tolist() == [2 * v for v in range(600)]
        with driver.replay() as again:
            assert again.create_output_topic("out").get_queue_size() == 600
    assert recorder.calls == [
        ("open", 600, "running in"), ("update", 600), ("close",),  # run: its merged rows
        ("open", 600, "replaying"), ("update", 600), ("close",),  # replay: the history
    ]


def test_a_changelog_restore_reports_its_records(recorder):
    with ks.TopologyTestDriver(doubling()) as driver:
        restored = driver.restore_from_changelog(
            "counts", [(f"k{i}".encode(), (7).to_bytes(8, "big"), i) for i in range(40_000)])
        assert restored == 40_000
        assert driver.get_key_value_store("counts").get("k39999") == 7
    assert recorder.calls == [("open", 40_000, "restoring counts"), ("update", 32_768),
                              ("update", 7_232), ("close",)]


def test_quiet_unless_someone_watches(monkeypatch, recorder):
    monkeypatch.setattr(progress.options, "enabled", False)
    with ks.TopologyTestDriver(doubling()) as driver:
        driver.create_input_topic("in").pipe_dataframe(frame(0, 1_000))
    assert recorder.calls == []


def test_the_plain_bar_shows_rows_rate_and_time_left():
    stream, now = io.StringIO(), [100.0]
    bar = progress.PlainBar(1_000_000, "piping in", stream, clock=lambda: now[0])
    now[0] = 102.0
    bar.update(250_000)
    assert bar.line() == "piping in: 250,000/1,000,000 rows (25%), 125,000 rows/s, 0:06 left"
    bar.close()
    assert stream.getvalue() == "\r" + bar.line() + "\n"


@pytest.mark.parametrize("bulk", [True, False])
def test_an_interrupt_from_user_code_leaves_the_driver_usable(recorder, bulk):
    calls = {"n": 0}

    def double(v):
        calls["n"] += 1
        if calls["n"] == 300:  # the stop button, while record 300 is processed
            raise KeyboardInterrupt
        return v * 2

    with ks.TopologyTestDriver(doubling(double), {"kslab.driver.bulk": bulk}) as driver:
        topic = driver.create_input_topic("in")
        with pytest.raises(KeyboardInterrupt):
            topic.pipe_dataframe(frame(0, 1_000))
        assert recorder.calls[-1] == ("close",)  # the bar is closed
        # the bulk path runs a chunk (rows 256..1000) whole or not at all: the first chunk
        # stays; the record path keeps every record before the interrupted one, which is
        # read (in the history) but went no further than map_values (the count comes after)
        done = 256 if bulk else 300
        assert driver.history_length == done
        processed = min(done, 299)
        out = driver.create_output_topic("out")
        assert out.read_values_to_list() == [2 * v for v in range(processed)]
        assert counts(driver) == {f"k{i}": len(range(i, processed, 3)) for i in range(3)}
        topic.pipe_dataframe(frame(1_000, 3))  # and the driver goes on
        assert out.read_key_values_to_list() == [ks.KeyValue("k1", 2_000),
                                                 ks.KeyValue("k2", 2_002),
                                                 ks.KeyValue("k0", 2_004)]
        assert counts(driver) == {f"k{i}": len(range(i, processed, 3)) + 1 for i in range(3)}


def test_an_interrupt_between_chunks_keeps_the_chunks_before_it(monkeypatch, recorder):
    recorder.stop_at = 2  # after the second chunk's progress
    with ks.TopologyTestDriver(doubling()) as driver:
        topic = driver.create_input_topic("in")
        with pytest.raises(KeyboardInterrupt):
            topic.pipe_dataframe(frame(0, 100_000))
        assert recorder.calls[0] == ("open", 100_000, "piping in")
        assert recorder.calls[-1] == ("close",)
        piped = sum(c[1] for c in recorder.calls if c[0] == "update")
        assert piped == 256 + 32_768
        assert driver.history_length == piped
        out = driver.create_output_topic("out")
        assert out.read_values_to_list() == [2 * v for v in range(piped)]
        topic.pipe_input("k9", 5, 200_000)
        assert out.read_values_to_list() == [10]


def test_an_interrupted_replay_leaves_the_driver_as_it_was(recorder):
    with ks.TopologyTestDriver(doubling()) as driver:
        driver.create_input_topic("in").pipe_dataframe(frame(0, 5_000))
        recorder.calls.clear()
        recorder.stop_at = 1  # the stop button, after the replay's first 4096 records
        with pytest.raises(KeyboardInterrupt):
            driver.replay()
        assert recorder.calls == [("open", 5_000, "replaying"), ("update", 4_096), ("close",)]
        assert driver.history_length == 5_000
        with driver.replay(until=2) as two:
            assert two.create_output_topic("out").read_values_to_list() == [0, 2]


def test_an_interrupted_run_keeps_the_rows_before_it_and_runs_again(recorder):
    calls = {"n": 0}

    def double(v):
        calls["n"] += 1
        if calls["n"] == 300:
            raise KeyboardInterrupt
        return v * 2

    with ks.TopologyTestDriver(doubling(double)) as driver:
        with pytest.raises(KeyboardInterrupt):
            driver.run({"in": frame(0, 1_000)})
        assert recorder.calls == [("open", 1_000, "running in"), ("close",)]
        # run pipes row by row, each on the record path: the 299 rows before the interrupted
        # one, and that one, read (in the history) but no further than map_values
        assert driver.history_length == 300
        again = driver.run({"in": frame(1_000, 3)})  # also drains what the first run wrote
        assert again["out"]["value"].tolist() == [2 * v for v in range(299)] + [
            2_000, 2_002, 2_004]
        assert counts(driver) == {f"k{i}": len(range(i, 299, 3)) + 1 for i in range(3)}


def test_watched_in_a_kernel_or_a_terminal(monkeypatch):
    import sys
    import types

    monkeypatch.setattr(progress.options, "enabled", None)
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # not a terminal
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: None))
    assert progress.reporter(10**6, "x") is progress.reporter(10**6, "y")  # the quiet one
    kernel = types.SimpleNamespace(config={"IPKernelApp": {}})
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: kernel))
    made = []
    monkeypatch.setattr(progress.options, "factory", lambda total, what: made.append(total))
    progress.reporter(10**6, "x")
    progress.reporter(10, "small")  # below the threshold: quiet even in a kernel
    assert made == [10**6]
