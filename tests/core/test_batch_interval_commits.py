"""Batch runs of an engine that commits on an interval (the live runtime), against the record
path, on random programs: property-based.

The live runtime hands the core's ``BulkExecutor`` each polled run of a partition with its
records' offsets and commits on ``commit.interval.ms``, not after every record, so a record
cache's puts stay dirty through the run (``kslab.state.held_cache``'s ``_held_dirty``), and a
chunk whose puts would evict a dirty entry is split there (``kslab.core.bulk.split``). This
test drives that mode in-process, on a driver's task (so every observable of
``driver_observables.state`` can be compared): two chunks of random rows run through the
executor with ``commits_each_record`` false and given offsets, and through the task's own
record loop (``process_rows``, no commit), each followed by a comparison; then a commit on
both (the cache's flush forwards what the runs left dirty) and a last comparison. Programs
come from the grammar of the driver's differential test (linear ones, which a chunk can run
in batch: stateless chains, aggregations and windowed aggregations over cached or uncached,
in-memory or RocksDB stores, table sources and table operators, stream-table joins reading
through a record cache the runs left dirty, table-table joins, ``suppress``).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

import kslab as ks
from kslab import serdes
from kslab.core.bulk import BulkExecutor
from kslab.core.bulk.split import run_split
from tests.testing.driver_observables import state
from tests.testing.dsl_grammar import programs
from tests.testing.dsl_programs import Program, maker
from tests.testing.test_batch_differential import difference

BUDGET = 120
EXAMPLES = int(os.environ.get("KSLAB_DIFF_EXAMPLES") or 0)


class IntervalPort:
    """An ``EnginePort`` over a driver that commits on an interval: offsets come with each
    chunk, sink records go to the driver's logs (one partition)."""

    commits_each_record = False

    def __init__(self, driver: ks.TopologyTestDriver) -> None:
        self._driver = driver
        self.offsets: dict[tuple[str, int], int] = {}

    def log(self, topic: str) -> Any:
        """The driver's log of ``topic``."""
        return self._driver.output_log(topic)

    def appends_only(self, topic: str) -> bool:
        """True unless the driver loops ``topic`` back into a task."""
        # internal on purpose: this port stands in for the driver's own (its loopback set)
        return topic not in self._driver._collector.loopback

    def partitions(self, topic: str, keys: list[bytes | None]) -> list[int]:
        """Partition 0 for every record (one partition per topic)."""
        return [0] * len(keys)


Rows = list[tuple[Any, Any, Any, int, int]]  # key bytes, value bytes, headers, timestamp, 0
Draft = list[tuple[Any, Any, Any, int]]  # key, value objects, headers, timestamp


@st.composite
def cases(draw: Callable[..., Any]) -> tuple[Program, list[Draft], int | None]:
    """A linear program, two chunks of rows (keys, values of its codec), a cache size."""
    program = draw(programs(linear=True))
    make = maker(program.codec)
    keys = st.sampled_from(["k0", "k1", "k2", "k3", "k0", None])
    values = st.one_of(st.builds(make, st.integers(0, 9), st.sampled_from(["a", "b a", ""])),
                       st.none())
    chunks: list[Draft] = []
    clock = 0
    for _ in range(2):
        drawn = draw(st.lists(st.tuples(keys, values, st.sampled_from([0, 0, 3, -25, -400]),
                                        st.sampled_from([None, None, [("h", b"1")]])),
                              min_size=2, max_size=30))
        rows: Draft = []
        for key, value, jitter, headers in drawn:
            clock += 10
            rows.append((key, value, headers, max(0, clock + jitter)))
        chunks.append(rows)
    return program, chunks, draw(st.sampled_from([None, 0, 150, 300, 5000]))


def _driver(program: Program | ks.StreamsBuilder, cache_bytes: int | None
            ) -> ks.TopologyTestDriver:
    """Two partitions per topic: a task per sub-topology and partition, as the runtime has."""
    config: dict[str, Any] = {"kslab.driver.bulk": False}
    if cache_bytes is not None:
        config["statestore.cache.max.bytes"] = cache_bytes
    if isinstance(program, Program):
        return ks.TopologyTestDriver(program.build({}), config,
                                     partitions={topic: 2 for topic in program.topics()})
    return ks.TopologyTestDriver(program, config, partitions={"in": 2})


def _serialized(task: Any, topic: str, chunk: Draft) -> Rows | None:
    """``chunk`` as ``topic``'s source in ``task`` reads it (``None``: its serdes refuse)."""
    source = task.source_for(topic)
    try:
        return [(None if key is None else source.key_serde.serialize(topic, key),
                 None if value is None else source.value_serde.serialize(topic, value),
                 headers, timestamp, 0) for key, value, headers, timestamp in chunk]
    except Exception:
        return None


class _Skip(Exception):
    """The record path raised: the two drivers part ways here."""


def _compare(batched: ks.TopologyTestDriver, by_record: ks.TopologyTestDriver,
             when: str) -> None:
    found = difference(state(batched), state(by_record))
    assert found is None, f"{when}: {found}"


@settings(max_examples=EXAMPLES or BUDGET, deadline=None, derandomize=not EXAMPLES,
          database=None, print_blob=True, phases=[Phase.explicit, Phase.generate, Phase.shrink],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(cases())
def test_interval_commits_batch_runs_match_the_record_path(case: Any) -> None:
    """Every task of partition 0 and every topic it reads, in turn: two chunks, a commit."""
    program, chunks, cache_bytes = case
    _check(lambda: _driver(program, cache_bytes), chunks)


def _check(make: Callable[[], ks.TopologyTestDriver], chunks: list[Draft]) -> None:
    """Two drivers from ``make``: the chunks on each task of partition 0 (see the test)."""
    batched, by_record = make(), make()
    raised = False  # a commit's flush raised (a user function downstream of a cache): the
    # close flushes again and raises again
    try:
        executor = BulkExecutor(IntervalPort(batched), partitioned=True)
        for task_id, task in batched.tasks.items():
            twin = by_record.tasks[task_id]
            if task_id.partition != 0:
                continue
            for topic in sorted({topic for topic, _ in task.input_partitions}):
                try:
                    _run_chunks(executor, task, twin, topic, chunks)
                except _Skip:
                    return  # (a run the record path fails is declined: the driver's test)
                _compare(batched, by_record, f"after the chunks of {topic} in task {task_id}")
                raised = _commit_both(task, twin)
                if raised:
                    return
                _compare(batched, by_record, f"after the commit of task {task_id}")
    finally:
        for driver in (batched, by_record):
            if raised:
                with contextlib.suppress(Exception):
                    driver.close()
            else:
                driver.close()


def _commit_both(task: Any, twin: Any) -> bool:
    """Commit both tasks; True when the record path's commit raised (its cache's flush
    reached a user function that raised), after the batched task's raised the same."""
    try:
        twin.commit()
    except Exception as error:
        event("the record path's commit raised")
        with pytest.raises(type(error)) as same:
            task.commit()
        assert str(same.value) == str(error)
        return True
    task.commit()
    return False


def _run_chunks(executor: BulkExecutor, task: Any, twin: Any, topic: str,
                chunks: list[Draft]) -> None:
    """Each chunk through the executor (or, declined, the task's record loop) and through
    the twin's record loop, from the queue's next offset."""
    queue, twin_queue = task.queue_for(topic, 0), twin.queue_for(topic, 0)
    offset = task.metrics.processed * 1_000  # (any rising offsets will do)
    for number, chunk in enumerate(chunks):
        rows = _serialized(task, topic, chunk)
        if rows is None:
            event("the topic's serdes refuse the rows")
            return
        try:
            twin.process_rows(twin_queue, offset, rows)
        except Exception:
            event("the record path raised")
            raise _Skip from None
        columns = tuple(map(list, zip(*rows, strict=True)))
        batched = run_split(executor, task, topic, columns,
                            lambda start, end, first=offset, rows=rows: task.process_rows(
                                queue, first + start, rows[start:end]),
                            list(range(offset, offset + len(rows))), 0)
        if batched == len(rows):
            event(f"chunk {number} ran in batch")
        elif batched:
            event(f"chunk {number} ran in batch, split at a flush")
        offset += len(rows)


@st.composite
def windowed_cases(draw: Callable[..., Any]) -> tuple[ks.StreamsBuilder, list[Draft], int]:
    """A windowed count or aggregate over ``TimeWindows`` (tumbling or hopping, with grace or
    not), ``SlidingWindows`` or ``SessionWindows`` (cached by default, in memory or RocksDB)
    whose updates go out under the plain key, as users write them (a windowed key would take
    the windowed partitioner, which the engine's batch path leaves to the record path); rows
    with late and null ones; a cache size."""
    size = draw(st.sampled_from([40, 100, 1000]))
    advance = draw(st.sampled_from([size, size // 2]))
    grace = draw(st.sampled_from([0, 30, 500]))
    kind = draw(st.sampled_from(["time", "time", "sliding", "session"]))
    windows = (ks.SlidingWindows.of_time_difference_and_grace(size, grace) if kind == "sliding"
               else ks.SessionWindows.of_inactivity_gap_and_grace(size, grace)
               if kind == "session"
               else ks.TimeWindows.of_size_and_grace(size, grace).advance_by(advance))
    materialized = ks.Materialized.as_("windows").with_key_serde(serdes.String())
    if draw(st.booleans()):
        materialized = materialized.with_store_type("in_memory")
    grouped = ks.StreamsBuilder()
    stream = grouped.stream("in", ks.Consumed.with_(serdes.String(), serdes.Json()))
    windowed = stream.group_by_key().windowed_by(windows)
    if draw(st.booleans()):
        table = windowed.count(materialized.with_value_serde(serdes.Long()))
    else:
        merger = [lambda _key, one, two: {"n": one["n"] + two["n"]}] if kind == "session" \
            else []
        table = windowed.aggregate(lambda: {"n": 0},
                                   lambda _key, value, agg: {"n": agg["n"] + len(str(value))},
                                   *merger, materialized.with_value_serde(serdes.Json()))
    (table.to_stream()
     .map(lambda key, value: (key.key, {"start": key.window.start, "end": key.window.end,
                                        "value": value}))
     .to("out", ks.Produced.with_(serdes.String(), serdes.Json())))
    keys = st.sampled_from(["k0", "k1", "k2", "k3", None])
    values = st.one_of(st.integers(0, 9), st.none())
    chunks: list[Draft] = []
    clock = 0
    for _ in range(2):
        drawn = draw(st.lists(st.tuples(keys, values, st.sampled_from([0, 0, 3, -25, -400])),
                              min_size=2, max_size=40))
        chunk: Draft = []
        for key, value, jitter in drawn:
            clock += 7
            chunk.append((key, value, None, max(0, clock + jitter)))
        chunks.append(chunk)
    return grouped, chunks, draw(st.sampled_from([None, 400, 100_000]))


@settings(max_examples=EXAMPLES or BUDGET // 2, deadline=None, derandomize=not EXAMPLES,
          database=None, print_blob=True, phases=[Phase.explicit, Phase.generate, Phase.shrink],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(windowed_cases())
def test_interval_commits_windowed_runs_match_the_record_path(case: Any) -> None:
    """The windowed aggregations' batch forms behind the window store's record cache."""
    builder, chunks, cache_bytes = case
    _check(lambda: _driver(builder, cache_bytes), chunks)
