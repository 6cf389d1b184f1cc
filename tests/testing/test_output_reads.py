"""Every read of an output topic decodes with the serdes given to ``create_output_topic``,
whichever write path filled the topic's log.

The write paths: the record path (a sink's encoding writer, or its direct ``append`` for serdes
with no C-level codec), the bulk path (column batches; a count's keys as key dictionaries), the
bulk path with single records piped between its chunks, and a two-partition output topic (the
collector's ``send``). Each case's expected records are computed here from its input. The
bulk path counts over ``TimeWindows`` but not over session windows or ``Json`` values, so those
cases take the record path whatever the driver's configuration.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import pytest

import kslab as ks
from kslab import serdes
from kslab.records import Window, Windowed

S, L = serdes.String(), serdes.Long()
SIZE = 60_000  # the tumbling windows' size (ms)
GAP = 5_000  # the sessions' inactivity gap (ms): each key's records, 3 s apart, make one
N = 300  # records: a first bulk chunk of 256, then the rest in one


class Case(NamedTuple):
    """A topology writing ``out``, the serdes a reader gives, the input's expected output as
    ``(key, value, timestamp)`` records, and whether the bulk path takes the topology."""

    topology: Callable[[], ks.Topology]
    key_serde: Any
    value_serde: Any
    inputs: list[tuple[Any, Any, int]]
    expected: list[tuple[Any, Any, int]]
    bulk: bool


def _inputs() -> list[tuple[str, str, int]]:
    """Keys k0, k1, k2 in turn, one record a second."""
    return [(f"k{i % 3}", f"v{i}", i * 1000) for i in range(N)]


def _time_windowed() -> Case:
    """The issue's windowed count: ``TimeWindowed(String)`` keys, ``Long`` counts."""
    def topology() -> ks.Topology:
        b = ks.StreamsBuilder()
        (b.stream("in", ks.Consumed.with_(S, S))
         .group_by_key()
         .windowed_by(ks.TimeWindows.of_size_with_no_grace(SIZE))
         .count(ks.Materialized.as_("counts").with_caching_disabled())
         .to_stream()
         .to("out", ks.Produced.with_(serdes.TimeWindowed(S, SIZE), L)))
        return b.build()

    counts: dict[tuple[str, int], int] = {}
    expected = []
    for key, _, ts in _inputs():
        start = ts // SIZE * SIZE
        counts[key, start] = counts.get((key, start), 0) + 1
        expected.append((Windowed(key, Window(start, start + SIZE)), counts[key, start], ts))
    return Case(topology, serdes.TimeWindowed(S, SIZE), L, _inputs(), expected, True)


def _session_windowed() -> Case:
    """A session count: ``SessionWindowed(String)`` keys, each merge a tombstone (``None``)
    for the key's old session, at its end, then the grown session's count."""
    def topology() -> ks.Topology:
        b = ks.StreamsBuilder()
        (b.stream("in", ks.Consumed.with_(S, S))
         .group_by_key()
         .windowed_by(ks.SessionWindows.of_inactivity_gap_with_no_grace(GAP))
         .count(ks.Materialized.as_("sessions").with_caching_disabled())
         .to_stream()
         .to("out", ks.Produced.with_(serdes.SessionWindowed(S), L)))
        return b.build()

    sessions: dict[str, tuple[int, int, int]] = {}  # key: (start, end, count)
    expected: list[tuple[Any, Any, int]] = []
    for key, _, ts in _inputs():
        start, end, count = sessions.get(key, (ts, ts, 0))
        if count:
            expected.append((Windowed(key, Window(start, end)), None, end))
        sessions[key] = (start, ts, count + 1)
        expected.append((Windowed(key, Window(start, ts)), count + 1, ts))
    return Case(topology, serdes.SessionWindowed(S), L, _inputs(), expected, True)


def _tagged(data: bytes) -> tuple[str, str]:
    return ("key", data.decode())


def _count_read_by_a_custom_key_serde() -> Case:
    """A plain count of ``String`` keys, read with a key serde of the reader's own."""
    def topology() -> ks.Topology:
        b = ks.StreamsBuilder()
        (b.stream("in", ks.Consumed.with_(S, S))
         .group_by_key()
         .count(ks.Materialized.as_("counts").with_caching_disabled())
         .to_stream()
         .to("out", ks.Produced.with_(S, L)))
        return b.build()

    counts: dict[str, int] = {}
    expected = []
    for key, _, ts in _inputs():
        counts[key] = counts.get(key, 0) + 1
        expected.append((("key", key), counts[key], ts))
    return Case(topology, serdes.from_functions(str.encode, _tagged), L, _inputs(), expected,
                True)


def _json_text_read_as_json() -> Case:
    """A stateless chain writing JSON text with ``String``, read with ``Json`` values."""
    def topology() -> ks.Topology:
        b = ks.StreamsBuilder()
        (b.stream("in", ks.Consumed.with_(S, S))
         .map_values(lambda v: f'{{"n": {v[1:]}}}')
         .to("out", ks.Produced.with_(S, S)))
        return b.build()

    expected = [(key, {"n": int(value[1:])}, ts) for key, value, ts in _inputs()]
    return Case(topology, S, serdes.Json(), _inputs(), expected, True)


def _json_values() -> Case:
    """A stateless chain writing ``Json`` values (in bulk: Json is a built-in serde)."""
    def topology() -> ks.Topology:
        b = ks.StreamsBuilder()
        (b.stream("in", ks.Consumed.with_(S, S))
         .map_values(lambda v: {"n": int(v[1:]), "odd": int(v[1:]) % 2 == 1})
         .to("out", ks.Produced.with_(S, serdes.Json())))
        return b.build()

    expected = [(key, {"n": int(value[1:]), "odd": int(value[1:]) % 2 == 1}, ts)
                for key, value, ts in _inputs()]
    return Case(topology, S, serdes.Json(), _inputs(), expected, True)


CASES = {
    "time-windowed": _time_windowed,
    "session-windowed": _session_windowed,
    "count-custom-key-serde": _count_read_by_a_custom_key_serde,
    "json-text-as-json": _json_text_read_as_json,
    "json-values": _json_values,
}


def _write(case: Case, path: str) -> ks.TopologyTestDriver:
    """A driver whose topic ``out`` holds ``case``'s output, written by ``path``."""
    config = {"kslab.driver.bulk": path != "record"}
    partitions = {"out": 2} if path == "partitioned" else None
    driver = ks.TopologyTestDriver(case.topology(), config, partitions=partitions)
    topic = driver.create_input_topic("in", S, S)
    records = [ks.TestRecord(key, value, ts) for key, value, ts in case.inputs]
    if path == "bulk-with-singles":
        half = len(records) // 2
        topic.pipe_record_list(records[:half])
        for record in records[half:half + 3]:
            topic.pipe_input(record)
        topic.pipe_record_list(records[half + 3:])
    else:
        topic.pipe_record_list(records)
    return driver


def _one_by_one(read: Callable[[], Any], out: Any) -> list[Any]:
    items = []
    while not out.is_empty():
        items.append(read())
    return items


def _polars_object(item: Any) -> Any:
    """``item`` as a polars frame holds it (a ``Windowed`` key: a struct, read as a dict)."""
    if isinstance(item, Windowed):
        return {"key": item.key, "window": {"start": item.window.start, "end": item.window.end}}
    if isinstance(item, tuple):
        return list(item)
    return item


def _pandas_rows(frame: Any) -> list[tuple[Any, ...]]:
    """A pandas frame's ``(key, value, timestamp)`` rows, its ``NaN`` (a tombstone in a
    column of numbers) read as ``None``."""
    rows = frame[["key", "value", "timestamp"]].itertuples(index=False, name=None)
    return [tuple(None if item != item else item for item in row) for row in rows]


# each read method: what it reads from the topic, and what it should read given the
# expected (key, value, timestamp) records
READS: dict[str, tuple[Callable[[Any], Any], Callable[[list[tuple[Any, Any, int]]], Any]]] = {
    "read_value": (lambda out: _one_by_one(out.read_value, out),
                   lambda records: [v for _, v, _ in records]),
    "read_key_value": (lambda out: _one_by_one(out.read_key_value, out),
                       lambda records: [ks.KeyValue(k, v) for k, v, _ in records]),
    "read_record": (lambda out: [(r.key, r.value, r.timestamp)
                                 for r in _one_by_one(out.read_record, out)],
                    lambda records: records),
    "read_values_to_list": (lambda out: out.read_values_to_list(),
                            lambda records: [v for _, v, _ in records]),
    "read_key_values_to_list": (lambda out: out.read_key_values_to_list(),
                                lambda records: [ks.KeyValue(k, v) for k, v, _ in records]),
    "read_key_values_to_map": (lambda out: out.read_key_values_to_map(),
                               lambda records: {k: v for k, v, _ in records}),
    "read_records_to_list": (lambda out: [(r.key, r.value, r.timestamp)
                                          for r in out.read_records_to_list()],
                             lambda records: records),
    "to_pandas": (lambda out: _pandas_rows(out.to_pandas()), lambda records: records),
    "to_polars": (lambda out: out.to_polars().select("key", "value", "timestamp").rows(),
                  lambda records: [(_polars_object(k), _polars_object(v), ts)
                                   for k, v, ts in records]),
}

WRITE_PATHS = ["record", "bulk", "bulk-with-singles", "partitioned"]


@pytest.mark.parametrize("read", list(READS))
@pytest.mark.parametrize("path", WRITE_PATHS)
@pytest.mark.parametrize("case", list(CASES))
def test_every_read_decodes_with_the_readers_serdes_after_every_write_path(
        case: str, path: str, read: str) -> None:
    spec = CASES[case]()
    read_topic, expect = READS[read]
    with _write(spec, path) as driver:
        if path.startswith("bulk"):  # the path named is the one that wrote the topic
            assert (driver.bulk_stats()["declined"] == 0) is spec.bulk
        out = driver.create_output_topic("out", key_serde=spec.key_serde,
                                         value_serde=spec.value_serde)
        assert read_topic(out) == expect(spec.expected)
        assert out.is_empty()


@pytest.mark.parametrize("read", [name for name in READS if not name.startswith("read_") or
                                  name.endswith("_list") or name.endswith("_map")])
@pytest.mark.parametrize("skip", [1, 2, 200])
def test_a_bulk_read_after_reads_one_at_a_time_decodes_the_rest(read: str, skip: int) -> None:
    """Reads one at a time stop inside the count's runs of keys; the bulk read of the rest
    decodes from there."""
    spec = _time_windowed()
    read_topic, expect = READS[read]
    with _write(spec, "bulk") as driver:
        out = driver.create_output_topic("out", key_serde=spec.key_serde,
                                         value_serde=spec.value_serde)
        first = [(r.key, r.value, r.timestamp) for r in (out.read_record() for _ in range(skip))]
        assert first == spec.expected[:skip]
        assert read_topic(out) == expect(spec.expected[skip:])


def test_the_issues_windowed_count_reads_windowed_keys() -> None:
    """The issue's program: 255 records at time 0, read back as ``Windowed`` keys."""
    spec = _time_windowed()
    with ks.TopologyTestDriver(spec.topology()) as driver:
        driver.create_input_topic("in").pipe_key_value_list(
            [(f"k{i % 3}", "v") for i in range(255)])
        out = driver.create_output_topic("out", key_serde=serdes.TimeWindowed(S, SIZE),
                                         value_serde=L)
        assert out.read_key_values_to_list() == [
            ks.KeyValue(Windowed(f"k{i % 3}", Window(0, SIZE)), i // 3 + 1) for i in range(255)]


# -- reading back the copies a Json sink made (RecordLog's read-back runs) ------------------------


def _orders(peeked: list[Any] | None = None) -> ks.Topology:
    """JSON orders: keep ``amount > 50``, add ``x2`` (NaN for a negative id, which ``Json``
    writes as ``null``: no exact copy), write them to ``out`` (with ``Json``);
    ``peeked``: a foreach after the sink keeps each value it gets and changes it (after the
    sink wrote it, as the record path runs them)."""
    b = ks.StreamsBuilder()
    kept = (b.stream("in", ks.Consumed.with_(S, serdes.Json()))
            .filter(lambda k, v: v["amount"] > 50)
            .map_values(lambda v: {**v, "x2": v["amount"] * 2 if v["id"] >= 0 else math.nan}))
    kept.to("out", ks.Produced.with_(S, serdes.Json()))
    if peeked is not None:
        def change(k: Any, v: Any) -> None:
            peeked.append(v)
            v["x2"] = -1
            if "tags" in v:
                v["tags"].append("changed")

        kept.foreach(change)
    return b.build()


def _order_rows(n: int, tags: bool = True) -> list[tuple[str, dict[str, Any]]]:
    """Orders with a list of tags each (``tags``), else flat."""
    return [(f"u{i % 7}", {"id": i, "amount": i % 100 + 0.5, **({"tags": ["a"]} if tags else {})})
            for i in range(n)]


def _expected(n: int, tags: bool = True) -> list[tuple[str, dict[str, Any]]]:
    return [(k, {**v, "x2": v["amount"] * 2}) for k, v in _order_rows(n, tags)
            if v["amount"] > 50]


@pytest.mark.parametrize("tags", [False, True], ids=["flat", "nested"])
def test_a_json_read_gets_the_sinks_copies_as_the_sink_wrote_them(tags: bool) -> None:
    """The bulk path's sink makes copies as it writes (``Json.read_back_column``: shallow of
    flat dicts, deep of nested ones); the read hands them out instead of decoding: equal to
    what decoding the bytes gives, though a foreach after the sink changed the values it
    was given, and each a fresh object."""
    peeked: list[Any] = []
    with ks.TopologyTestDriver(_orders(peeked)) as driver:
        driver.create_input_topic("in", S, serdes.Json()).pipe_key_value_list(
            _order_rows(N, tags))
        log = driver.output_log("out")
        assert driver.bulk_stats()["chunks"] == 2
        assert log._read_back  # internal on purpose: the log holds the sink's copies
        raw = [log.record(i)[1] for i in range(log.total)]
        got = driver.create_output_topic("out", S, serdes.Json()).read_key_values_to_list()
    assert [tuple(kv) for kv in got] == _expected(N, tags)
    assert [v for _, v in got] == [serdes.Json().deserialize("out", b) for b in raw]
    assert peeked[0]["x2"] == -1
    assert not any(value is seen or value.get("tags", 0) is seen.get("tags", 1)
                   for (_, value), seen in zip(got, peeked, strict=True))
    assert len({id(value) for _, value in got}) == len(got)


def test_the_sinks_copies_are_read_once() -> None:
    """A read takes the copies out of the log: records read again after ``restore`` (or by a
    second output topic on the topic) decode their bytes, so no reader gets another's
    objects, and a reader of another serde class decodes."""
    with ks.TopologyTestDriver(_orders()) as driver:
        driver.create_input_topic("in", S, serdes.Json()).pipe_key_value_list(_order_rows(N))
        snapshot = driver.snapshot()
        out = driver.create_output_topic("out", S, serdes.Json())
        first = out.read_key_values_to_list()
        first[0].value["id"] = "changed"
        driver.restore(snapshot)
        again = out.read_key_values_to_list()
        assert [tuple(kv) for kv in again] == _expected(N)
        assert not driver.output_log("out")._read_back  # internal on purpose: all taken
        driver.create_input_topic("in", S, serdes.Json()).pipe_key_value_list(_order_rows(N))
        raw = driver.create_output_topic("out", S, serdes.Bytes()).read_values_to_list()
    assert raw == [serdes.Json().serialize("out", v) for _, v in _expected(N)]


def test_a_read_after_single_reads_takes_the_rest_of_the_copies() -> None:
    """Records read one at a time first (decoded) leave the rest of the copies to a bulk read;
    a record with no copy in between (an ``x2`` NaN) makes the bulk read decode."""
    with ks.TopologyTestDriver(_orders()) as driver:
        pipe = driver.create_input_topic("in", S, serdes.Json())
        pipe.pipe_key_value_list(_order_rows(N))
        out = driver.create_output_topic("out", S, serdes.Json())
        head = [out.read_key_value() for _ in range(3)]
        rest = out.read_key_values_to_list()
        assert [tuple(kv) for kv in head + rest] == _expected(N)
        pipe.pipe_key_value_list(_order_rows(N))
        pipe.pipe_input("u1", {"id": -1, "amount": 99.5, "tags": []})
        pipe.pipe_key_value_list(_order_rows(N))
        log = driver.output_log("out")
        # internal on purpose: the record with no copy splits the log's read-back runs
        assert [first for first, _, _ in log._read_back] == [log.total - 150, log.total - 44]
        mixed = out.read_key_values_to_list()
    assert [tuple(kv) for kv in mixed] == [*_expected(N), ("u1", {
        "id": -1, "amount": 99.5, "tags": [], "x2": None}), *_expected(N)]


def test_the_copies_of_several_tasks_are_merged_in_the_logs_order() -> None:
    """On four partitions each task's sink makes its copies; merged into the record path's
    order with the bytes, they read back as decoding gives."""
    with ks.TopologyTestDriver(_orders(), partitions={"in": 4}) as driver:
        driver.create_input_topic("in", S, serdes.Json()).pipe_key_value_list(_order_rows(N))
        log = driver.output_log("out")
        # internal on purpose: the merged copies cover every record of the log
        assert sum(len(objects) for _, _, objects in log._read_back) == log.total
        raw = [serdes.Json().deserialize("out", log.record(i)[1]) for i in range(log.total)]
        got = driver.create_output_topic("out", S, serdes.Json()).read_values_to_list()
    assert got == raw
    assert sorted(got, key=lambda v: v["id"]) == [v for _, v in _expected(N)]
