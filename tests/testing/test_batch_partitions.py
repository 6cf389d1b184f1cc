"""Several partitions in the driver: a chunk runs task by task through the batch forms when
nothing is read back, and every observable equals the record path's (outputs merged across
tasks in the rows' order, per-task stores, caches, clocks, offsets, metrics, history)."""

from __future__ import annotations

import logging
import random
from typing import Any

import pytest

import kslab as ks
from kslab import serdes
from tests.testing.driver_observables import state

S, L, J = serdes.String(), serdes.Long(), serdes.Json()


def _rows(n: int, seed: int) -> list[tuple[Any, Any, int]]:
    """Keyed JSON values, out of order and late, some null values (the aggregations skip
    them with a warning)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        value = None if rng.random() < 0.03 else {"n": rng.randint(0, 99), "w": f"w{i % 7}"}
        out.append((f"k{rng.randint(0, 30)}", value, max(0, 10 * i + rng.randint(-400, 40))))
    return out


def _stateless() -> ks.Topology:
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, J))
     .filter(lambda k, v: v is None or v["n"] > 20)
     .map_values(lambda v: None if v is None else {**v, "twice": v["n"] * 2})
     .flat_map(lambda k, v: [(k, v), (f"{k}!", v)] if v is not None and v["n"] % 5 == 0
               else [(k, v)])
     .to("out", ks.Produced.with_(S, J)))
    return b.build()


def _windowed(cache: bool, store: str) -> ks.Topology:
    mat = ks.Materialized.as_("windows").with_store_type(store)
    if not cache:
        mat = mat.with_caching_disabled()
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, J))
     .group_by_key()
     .windowed_by(ks.TimeWindows.of_size_and_grace(200, 100))
     .count(mat)
     .to_stream()
     .map(lambda wk, n: (wk.key, {"start": wk.window.start, "value": n}))
     .to("out", ks.Produced.with_(S, J)))
    return b.build()


def _aggregated(cache: bool) -> ks.Topology:
    mat = ks.Materialized.as_("sums")
    if not cache:
        mat = mat.with_caching_disabled()
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, J))
     .group_by_key()
     .aggregate(lambda: 0, lambda k, v, total: total + v["n"], mat.with_value_serde(L))
     .to_stream()
     .to("out", ks.Produced.with_(S, L)))
    return b.build()


def _drive(topology: Any, bulk: bool, partitions: dict[str, int],
           caplog: pytest.LogCaptureFixture) -> tuple[dict[str, Any], Any, list[str]]:
    caplog.clear()
    rows = _rows(900, 5)
    with ks.TopologyTestDriver(topology(), {"kslab.driver.bulk": bulk},
                               partitions=partitions) as driver:
        topic = driver.create_input_topic("in", S, J)
        topic.pipe_record_list([ks.TestRecord(k, v, ts) for k, v, ts in rows[:400]])
        for key, value, ts in rows[400:403]:
            topic.pipe_input(key, value, ts)
        topic.pipe_record_list([ks.TestRecord(k, v, ts) for k, v, ts in rows[403:]])
        observed = state(driver)
        # internal on purpose: the bulk executor itself (which one ran, its per-chunk counters)
        return observed, driver._partitioned, [r.getMessage() for r in caplog.records
                                               if r.name.startswith("kslab")]


@pytest.mark.parametrize("partitions", [{"in": 4}, {"in": 3, "out": 2}], ids=["4", "3-2"])
@pytest.mark.parametrize("topology", [
    _stateless,
    lambda: _windowed(True, "in_memory"),
    lambda: _windowed(False, "persistent"),
    lambda: _aggregated(True),
    lambda: _aggregated(False),
], ids=["stateless", "windowed-cached", "windowed-rocksdb", "aggregate-cached",
        "aggregate-uncached"])
def test_partitioned_chunks_match_the_record_path(topology: Any, partitions: dict[str, int],
                                                  caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    bulk, executor, bulk_log = _drive(topology, True, partitions, caplog)
    record, _, record_log = _drive(topology, False, partitions, caplog)
    assert bulk == record
    assert bulk_log == record_log
    assert executor.chunks > 0


def _word_count(cache: bool, store: str) -> ks.Topology:
    """Words of each value to a repartition topic (a row's words go to several partitions,
    so their tasks take them over several of the driver's passes), counted per word."""
    mat = ks.Materialized.as_("counts").with_store_type(store)
    if not cache:
        mat = mat.with_caching_disabled()
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, J))
     .flat_map_values(lambda v: [] if v is None else [v["w"], f"x{v['n'] % 5}", v["w"]])
     .group_by(lambda k, word: word, ks.Grouped.with_(S, S))
     .count(mat)
     .to_stream()
     .to("out", ks.Produced.with_(S, L)))
    return b.build()


@pytest.mark.parametrize("partitions", [2, 4])
@pytest.mark.parametrize(("cache", "store"), [(True, "in_memory"), (False, "persistent"),
                                              (True, "persistent")])
def test_a_repartition_read_back_runs_its_readers_in_the_same_chunk(
        cache: bool, store: str, partitions: int, caplog: pytest.LogCaptureFixture) -> None:
    """The tasks reading the repartition topic take its records in the chunk, in the
    driver's order (input row, then pass, then task): every observable as on the record
    path, the warnings included."""
    caplog.set_level(logging.WARNING)
    topology = lambda: _word_count(cache, store)  # noqa: E731
    bulk, executor, bulk_log = _drive(topology, True, {"in": partitions}, caplog)
    record, _, record_log = _drive(topology, False, {"in": partitions}, caplog)
    assert bulk == record
    assert bulk_log == record_log
    assert executor.chunks > 0
    counted = {record[0] for record in bulk["outputs"]["out"]}
    assert counted == {f"w{i}".encode() for i in range(7)} | {f"x{i}".encode()
                                                               for i in range(5)}


def test_tasks_sharing_a_small_record_cache_evict_as_on_the_record_path(
        caplog: pytest.LogCaptureFixture) -> None:
    """Found by the differential test: three tasks' counts share the driver's thread cache
    (150 bytes); each task's held writes fit alone but not together, so the record path's
    puts evict. The chunk's held writes reserve their bytes together, and it declines."""
    def counts() -> ks.Topology:
        b = ks.StreamsBuilder()
        (b.stream("in", ks.Consumed.with_(S, S))
         .group_by_key(ks.Grouped.with_(S, S))
         .count(ks.Materialized.as_("store-1").with_store_type("in_memory"))
         .to_stream()
         .to("out", ks.Produced.with_(S, L)))
        return b.build()

    keys = ["k0"] * 6 + ["k1", "k2"]
    rows = [ks.TestRecord(key, "0:a", 10 * i) for i, key in enumerate(keys * 14)]
    observed = []
    for bulk in (True, False):
        config = {"kslab.driver.bulk": bulk, "statestore.cache.max.bytes": 150}
        with ks.TopologyTestDriver(counts(), config, partitions={"in": 3}) as driver:
            driver.create_input_topic("in", S, S).pipe_record_list(rows)
            observed.append(state(driver))
    assert observed[0] == observed[1]
    assert observed[1]["tasks"]["0_0"]["stores"]["store-1"]["cache"] == []


def _stateless_run(bulk: bool, fail_at: int | None = None
                   ) -> tuple[dict[str, Any], list[Any], Any, Any, dict[str, list[str]]]:
    """600 JSON rows over 10 keys on 4 partitions through a peek, a filter and a map_values
    (raising at ``n == fail_at``) into a topic extractor naming each record's partition and
    offset parity: every observable, the peek's calls, the executor, the error raised and
    the keys of each extracted topic."""
    seen: list[Any] = []

    def twice(value: dict[str, int]) -> dict[str, int]:
        if value["n"] == fail_at:
            msg = f"cannot double {fail_at}"
            raise ValueError(msg)
        return {**value, "twice": value["n"] * 2}

    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, J))
     .peek(lambda k, v: seen.append((k, v["n"])))
     .filter(lambda k, v: v["n"] % 3 != 0)
     .map_values(twice)
     .to(lambda k, v, ctx: f"out-{ctx.partition}-{ctx.offset % 2}", ks.Produced.with_(S, J)))
    rows = [ks.TestRecord(f"k{i % 10}", {"n": i}, 10 * i) for i in range(600)]
    error = None
    with ks.TopologyTestDriver(b.build(), {"kslab.driver.bulk": bulk},
                               partitions={"in": 4}) as driver:
        try:
            driver.create_input_topic("in", S, J).pipe_record_list(rows)
        except Exception as exc:  # compared: the same error, with the same partial state
            error = (type(exc).__name__, str(exc))
        observed = state(driver)
        topics = {topic: [key for key, _ in driver.create_output_topic(topic, S, J)
                          .read_key_values_to_list()]
                  for topic in sorted(driver.output_logs()) if topic.startswith("out-")}
        # internal on purpose: the bulk executor itself (which one ran, its per-chunk counters)
        return observed, seen, driver._partitioned, error, topics


def _expected_topics(rows: int) -> dict[str, list[str]]:
    """Each extracted topic's keys: the record's partition (the default partitioner's) and
    its offset's parity in that partition, for the first ``rows`` rows that pass the
    filter."""
    from kslab.processor.partitioner import default_partition

    offsets = [0] * 4
    topics: dict[str, list[str]] = {}
    for i in range(rows):
        key = f"k{i % 10}"
        partition = default_partition(key.encode(), 4)
        offset = offsets[partition]
        offsets[partition] += 1
        if i % 3:
            topics.setdefault(f"out-{partition}-{offset % 2}", []).append(key)
    return dict(sorted(topics.items()))


def test_a_stateless_sub_topology_runs_its_tasks_as_one_stage() -> None:
    """The four tasks' rows of each chunk run as one stage in row order: the extractor
    sees each record's own partition and offset, the peek is called once per record in row
    order, and every observable (offsets, clocks, metrics, history) is the record path's."""
    bulk, seen, executor, error, topics = _stateless_run(True)
    record, record_seen, _, record_error, record_topics = _stateless_run(False)
    assert executor.chunks == executor.shared == 2  # (256 rows, then the other 344)
    assert bulk == record
    assert seen == record_seen == [(f"k{i % 10}", i) for i in range(600)]
    assert error is record_error is None
    assert topics == record_topics == _expected_topics(600)


def test_a_user_function_raising_mid_chunk_leaves_the_record_paths_state() -> None:
    """A map_values raising at ``n == 301`` (in the second chunk) declines that one-stage
    chunk; the record path raises the error there with the rows before it processed, as
    without the batch path, and the peek saw each row once up to the one that raised."""
    bulk, seen, executor, error, topics = _stateless_run(True, fail_at=301)
    record, record_seen, _, record_error, record_topics = _stateless_run(False, fail_at=301)
    assert executor.chunks == executor.shared == 1 and executor.declined == 1
    assert error == record_error and error is not None and "cannot double 301" in error[1]
    assert bulk == record
    assert seen == record_seen == [(f"k{i % 10}", i) for i in range(302)]
    assert topics == record_topics == _expected_topics(301)


def test_a_global_table_join_runs_task_by_task() -> None:
    """A stream-globaltable join has no store of its task's, but its batch form holds the
    global store's reads (and defers a skipped record's warning, its task's metric): one
    stage would settle them on one task, so the topic runs task by task, in batch, from its
    first chunk, every observable as on the record path."""
    def run(bulk: bool) -> tuple[dict[str, Any], Any]:
        b = ks.StreamsBuilder()
        table = b.global_table("gtbl", ks.Consumed.with_(S, S))
        (b.stream("in", ks.Consumed.with_(S, S))
         .join(table, lambda k, v: None if v == "skip" else k, lambda v, tv: f"{v}+{tv}")
         .to("out", ks.Produced.with_(S, S)))
        with ks.TopologyTestDriver(b.build(), {"kslab.driver.bulk": bulk},
                                   partitions={"in": 4}) as driver:
            driver.create_input_topic("gtbl", S, S).pipe_key_value_list(
                [(f"k{i}", f"g{i}") for i in range(8)])
            driver.create_input_topic("in", S, S).pipe_key_value_list(
                [(f"k{i % 10}", "skip" if i % 7 == 0 else f"v{i}") for i in range(600)])
            # internal on purpose: the bulk executor itself (which one ran, its counters)
            return state(driver), driver._partitioned

    bulk, executor = run(True)
    record, _ = run(False)
    assert executor.chunks == 2 and executor.shared == 0 and executor.declined == 0
    assert bulk == record
    assert len(bulk["outputs"]["out"]) == sum(1 for i in range(600)
                                              if i % 7 and i % 10 < 8)
