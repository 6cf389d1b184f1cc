"""Batched pipes serialize and process rows a chunk at a time: a small first chunk, then as many
rows as fit the byte budget (kslab/testing/topics.py), so that the bulk path reads and writes a
key once per large chunk while large records keep memory flat."""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.testing import topics

S = serdes.String()


def _words() -> ks.Topology:
    b = ks.StreamsBuilder()
    b.stream("in", ks.Consumed.with_(S, S)).map_values(len).to(
        "out", ks.Produced.with_(S, serdes.Long()))
    return b.build()


def _chunks(values: list[str], *, stamped: bool) -> tuple[int, list[int]]:
    with ks.TopologyTestDriver(_words()) as driver:
        topic = driver.create_input_topic("in", S, S)
        if stamped:
            topic.pipe_value_list(values, 0, 1)  # plain rows: one comprehension per chunk
        else:
            topic.pipe_value_list(values)  # the topic's clock stamps them: row by row
        out = driver.create_output_topic("out", S, serdes.Long()).read_values_to_list()
        return driver.bulk_stats()["chunks"], out


def test_next_chunk_fills_the_byte_budget() -> None:
    # internal on purpose: the chunk-size rule itself, and the per-row serializing it skips
    assert topics._next_chunk(256, 0) == topics._MAX_CHUNK
    assert topics._next_chunk(256, 256 * 10) == topics._MAX_CHUNK  # small rows: the cap
    assert topics._next_chunk(256, 256 * 100_000) == 4 * 1024 * 1024 // 100_000  # 41 rows
    assert topics._next_chunk(1, 64 << 20) == 1  # never fewer than one row


def test_small_rows_go_in_a_small_then_a_full_chunk() -> None:
    values = ["abc"] * 40_000
    for stamped in (True, False):
        chunks, out = _chunks(values, stamped=stamped)
        assert chunks == 3  # 256, 32768, 6976
        assert out == [3] * 40_000


def test_large_rows_go_in_chunks_of_the_byte_budget() -> None:
    values = ["x" * 100_000] * 300
    for stamped in (True, False):
        chunks, out = _chunks(values, stamped=stamped)
        assert chunks == 3  # 256 rows, then 41 (4 MiB of 100 kB rows), then the last 3
        assert out == [100_000] * 300


def test_record_lists_mix_plain_chunks_and_row_by_row_ones() -> None:
    """Plain chunks (no headers, int timestamps) serialize in one comprehension; headers, a
    datetime or the topic's clock go row by row; the outputs are the same either way."""
    import datetime as dt

    records = [ks.TestRecord("k", "ab", 5)] * 300 + [
        ks.TestRecord("k", "abc", 7, [("h", b"1")]),
        ks.TestRecord("k", "abcd", dt.datetime(1970, 1, 1, 0, 0, 1, tzinfo=dt.UTC)),
        ks.TestRecord("k", "abcde"),
    ]
    with ks.TopologyTestDriver(_words()) as driver:
        driver.create_input_topic("in", S, S, 100).pipe_record_list(records)
        out = driver.create_output_topic("out", S, serdes.Long()).read_records_to_list()
    assert [(r.value, r.timestamp, list(r.headers)) for r in out[298:]] == [
        (2, 5, []), (2, 5, []), (3, 7, [("h", b"1")]), (4, 1000, []), (5, 100, [])]
    assert len(out) == 303


def test_a_refused_row_in_a_plain_chunk_pipes_the_rows_before_it_then_raises() -> None:
    with ks.TopologyTestDriver(_words()) as driver:
        topic = driver.create_input_topic("in", S, S)
        with pytest.raises(ks.SerdeError):
            topic.pipe_record_list([ks.TestRecord("k", "a", 1), ks.TestRecord("k", "bb", 2),
                                    ks.TestRecord("k", 3, 3), ks.TestRecord("k", "d", 4)])
        assert driver.create_output_topic("out", S, serdes.Long()).read_values_to_list() \
            == [1, 2]


def test_a_plain_chunk_goes_to_the_bulk_path_as_columns_and_a_declined_one_runs_once_more(
) -> None:
    """A plain chunk reaches the bulk path as columns; when a user function raises there,
    the record path runs the chunk (each function then sees the records before the failure
    twice, as documented) and raises, with the records before it processed."""
    calls: list[str] = []

    def length(value: str) -> int:
        calls.append(value)
        if value == "boom":
            raise ValueError("bad value")
        return len(value)

    b = ks.StreamsBuilder()
    b.stream("in", ks.Consumed.with_(S, S)).map_values(length).to(
        "out", ks.Produced.with_(S, serdes.Long()))
    with ks.TopologyTestDriver(b.build()) as driver:
        topic = driver.create_input_topic("in", S, S)
        topic.pipe_record_list([ks.TestRecord("k", "abc", 1)])
        assert driver.bulk_stats() == {"chunks": 1, "declined": 0}
        calls.clear()
        with pytest.raises(ks.StreamsError, match="bad value"):
            topic.pipe_record_list([ks.TestRecord("k", v, i)
                                    for i, v in enumerate(["a", "bb", "boom", "dddd"])])
        assert calls == ["a", "bb", "boom", "a", "bb", "boom"]
        assert driver.bulk_stats() == {"chunks": 1, "declined": 1}
        out = driver.create_output_topic("out", S, serdes.Long()).read_values_to_list()
        assert out == [3, 1, 2]


def test_a_dataframe_pipes_as_columns_and_matches_its_records() -> None:
    """A frame's columns go to the driver a chunk at a time without rows (2 bulk chunks for
    1,000 rows), reading what the records would: missing keys and values (``None``, NaN,
    ``pd.NA``) are nulls, a float timestamp column (ints turned float by a NaN elsewhere)
    reads as int ms, a missing timestamp takes the topic's clock."""
    import pandas as pd

    b = ks.StreamsBuilder()
    b.stream("in", ks.Consumed.with_(S, S)).to("out", ks.Produced.with_(S, S))
    keys = [f"k{i % 7}" for i in range(1000)]
    frame = pd.DataFrame({"key": keys, "value": [f"v{i}" for i in range(1000)],
                          "timestamp": list(range(1000))})
    with ks.TopologyTestDriver(b.build()) as driver:
        assert driver.create_input_topic("in", S, S).pipe_dataframe(frame) == 1000
        assert driver.bulk_stats() == {"chunks": 2, "declined": 0}
        out = driver.create_output_topic("out", S, S).read_records_to_list()
    assert out == [ks.TestRecord(k, f"v{i}", i) for i, k in enumerate(keys)]
    gaps = pd.DataFrame({"key": ["a", None, "c", float("nan")],
                         "value": pd.array(["x", "y", pd.NA, "z"], dtype="string"),
                         "timestamp": [5.0, float("nan"), 7.0, 8.0]})
    with ks.TopologyTestDriver(b.build()) as driver:
        driver.create_input_topic("in", S, S, 100).pipe_dataframe(gaps)
        out = driver.create_output_topic("out", S, S).read_records_to_list()
    assert [(r.key, r.value, r.timestamp) for r in out] == [
        ("a", "x", 5), (None, "y", 100), ("c", None, 7), (None, "z", 8)]


def _json_lengths() -> ks.Topology:
    b = ks.StreamsBuilder()
    b.stream("in", ks.Consumed.with_(S, serdes.Json())).map_values(len).to(
        "out", ks.Produced.with_(S, serdes.Long()))
    return b.build()


def test_json_values_stamped_by_the_topic_clock_go_as_columns() -> None:
    """A built-in serde without a C-level codec (Json) serializes a column at a time, and
    rows piped without timestamps take the topic clock's as a column: the chunks reach the
    bulk path, stamped as one by one, and the clock goes on from the last."""
    with ks.TopologyTestDriver(_json_lengths()) as driver:
        topic = driver.create_input_topic("in", S, serdes.Json(), 1000, 10)
        by_rows: list[int] = []
        row_by_row = topic._serialize_rows
        topic._serialize_rows = lambda batch, *codecs: (by_rows.append(len(batch)),
                                                        row_by_row(batch, *codecs))[1]
        topic.pipe_key_value_list([("k", {"a": i}) for i in range(300)])
        assert (by_rows, driver.bulk_stats()["chunks"]) == ([], 2)  # 256 rows, then 44, as columns
        topic.pipe_input("k", [1, 2])
        out = driver.create_output_topic("out", S, serdes.Long()).read_records_to_list()
    assert [r.timestamp for r in out] == [1000 + 10 * i for i in range(301)]
    assert [r.value for r in out] == [1] * 300 + [2]


def test_a_json_value_refused_in_a_clocked_chunk_leaves_the_clock_as_one_by_one() -> None:
    """The rows before the refused one are piped, its error raised, and the clock has moved
    past it, as piping the rows one by one leaves them."""
    with ks.TopologyTestDriver(_json_lengths()) as driver:
        topic = driver.create_input_topic("in", S, serdes.Json(), 0, 5)
        with pytest.raises(ks.SerdeError):
            topic.pipe_key_value_list([("k", [1]), ("k", [1, 2]), ("k", {1, 2, 3}),
                                       ("k", [4])])
        topic.pipe_input("k", [1, 2, 3, 4])
        out = driver.create_output_topic("out", S, serdes.Long()).read_records_to_list()
    assert [(r.value, r.timestamp) for r in out] == [(1, 0), (2, 5), (4, 15)]


def _seen(frame: object, bulk: bool, partitions: int = 1) -> tuple[list[object], int]:
    """What a mutating ``map_values`` makes of each row of ``frame`` piped as dicts (JSON
    values), on the bulk path or the record path, and the chunks the bulk path ran."""
    b = ks.StreamsBuilder()

    def mutate(key: str, value: dict[str, object]) -> list[object]:
        seen = [type(key).__name__, *(repr(item) for item in value.values())]
        value["seen"] = True  # changes the dict it was given: the source's own, on both paths
        return seen

    (b.stream("in", ks.Consumed.with_(S, serdes.Json()))
     .map(lambda key, value: (key, mutate(key, value)))
     .to("out", ks.Produced.with_(S, serdes.Json())))
    config = {} if bulk else {"kslab.driver.bulk": False}
    parts = {"in": partitions} if partitions > 1 else None
    with ks.TopologyTestDriver(b.build(), config, partitions=parts) as driver:
        driver.create_input_topic("in", S, serdes.Json()).pipe_dataframe(
            frame, value=["n", "x", "s", "b"])
        out = driver.create_output_topic("out", S, serdes.Json()).read_values_to_list()
        return out, driver.bulk_stats()["chunks"]


@pytest.mark.parametrize("partitions", [1, 2])
def test_a_frames_json_dicts_reach_the_source_as_decoding_would_give_them(
        partitions: int) -> None:
    # The bulk path hands a Json source the dicts a frame's rows were made into, instead of
    # decoding their bytes, only where every column reads back from JSON as it was: a NaN
    # (written as null) keeps the decode, so the mapper sees None on both paths.
    import pandas as pd

    exact = pd.DataFrame({"key": ["a", "b"], "n": [1, 2], "x": [0.5, -2.0], "s": ["p", None],
                          "b": [True, False]})
    expected = [["str", "1", "0.5", "'p'", "True"], ["str", "2", "-2.0", "None", "False"]]
    assert _seen(exact, True, partitions) == (expected, 1)
    assert _seen(exact, False, partitions) == (expected, 0)
    nan = exact.assign(x=[0.5, float("nan")])
    expected[1][2] = "None"  # NaN is written as null
    assert _seen(nan, True, partitions) == (expected, 1)
    assert _seen(nan, False, partitions) == (expected, 0)


@pytest.mark.parametrize("partitions", [1, 2])
def test_piped_json_objects_reach_the_source_as_fresh_copies(partitions: int) -> None:
    # A Json source takes copies of the piped objects instead of decoding their bytes: each
    # record gets its own (the same dict piped twice is two), nested lists are copied too, a
    # mapper that changes its value in place leaves the user's objects alone, and a tuple or
    # NaN (which JSON reads back as a list or None) keeps the decode.
    def grow(v: dict) -> dict:
        v["n"] += 1
        v["o"]["l"].append(v["n"])
        return v

    def run(values: list[dict], bulk: bool) -> tuple[list, int]:
        b = ks.StreamsBuilder()
        b.stream("in", ks.Consumed.with_(S, serdes.Json())).map_values(grow).to(
            "out", ks.Produced.with_(S, serdes.Json()))
        parts = {"in": partitions} if partitions > 1 else None
        with ks.TopologyTestDriver(b.build(), {"kslab.driver.bulk": bulk},
                                   partitions=parts) as driver:
            driver.create_input_topic("in", S, serdes.Json()).pipe_key_value_list(
                [("a", value) for value in values])
            out = driver.create_output_topic("out", S, serdes.Json()).read_values_to_list()
            return out, driver.bulk_stats()["chunks"]

    shared = {"n": 1, "o": {"l": [0.5]}, "t": None}
    values = [shared, shared, {"n": 5, "o": {"l": []}, "t": "x"}]
    expected = [{"n": 2, "o": {"l": [0.5, 2]}, "t": None}] * 2 \
        + [{"n": 6, "o": {"l": [6]}, "t": "x"}]
    assert run(values, True) == (expected, 1)
    assert run(values, False) == (expected, 0)
    assert shared == {"n": 1, "o": {"l": [0.5]}, "t": None}  # the user's object, untouched
    odd = [{"n": 1, "o": {"l": (7,)}, "t": float("nan")}]
    assert run(odd, True) == ([{"n": 2, "o": {"l": [7, 2]}, "t": None}], 1)
    assert odd[0]["o"]["l"] == (7,)
