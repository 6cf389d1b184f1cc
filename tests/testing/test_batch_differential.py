"""The driver's batch (bulk) path against its record path, on random programs: property-based.

hypothesis draws a DSL program from the grammar of ``dsl_grammar`` (filter, filter_not, map,
map_values with and without key, flat_map, flat_map_values, select_key, peek, foreach, print,
split into branches merged back or not, merge, a stream read by several operators,
repartition, ``to`` a topic (maybe one another sink writes) or a topic extractor,
group_by / group_by_key then count, reduce or aggregate, optionally over tumbling or hopping
``TimeWindows`` with grace, to_stream / to_table, table filter / map_values, stream-table and
stream-globaltable joins, table-table joins, ``suppress`` of both kinds), its inputs (``None``
keys and values, out-of-order and late timestamps, empty and large values, headers, several
input topics) piped in a mix of ``pipe_record_list``, ``pipe_input`` and ``pipe_dataframe``
(some lists longer than a chunk),
and a driver config (record caches on, off, small and evicting, a few KiB under 48 keys so
that evictions of clean and dirty entries fall within a chunk; in-memory or RocksDB stores;
1 to 4 partitions). Each case runs twice, with ``kslab.driver.bulk`` on and off, and every
observable must be equal (``driver_observables.state``: every topic's log record by record,
store bytes and caches, clocks, offsets, metrics, history), with what each ``peek`` /
``foreach`` saw and every action's calls in the order they were made (across all of them),
what ``print`` printed, the warnings logged (dropped records) and the error raised, if any
(its type, message, node, topic, partition, offset, key, value, and the state after it).

Five properties: any program of the grammar, bulk-shaped ones (chains or trees of the bulk
path's operators ending in sinks or a (windowed) count, long clean pipes) so that the bulk
path's counts at once, record-cache replays, tumbling-window runs and fan-outs are reached
within the budget, those on several partitions, stateless trees on several partitions
(their tasks run as one stage), and session and sliding-window aggregations whose record
cache fills within a chunk. ``make test`` runs a fixed budget of derandomized examples
(``BUDGET``, ``BULK_SHAPED_BUDGET``, ``PARTITIONED_BUDGET``, ``STATELESS_BUDGET`` and
``MERGING_BUDGET``, the
same ones every run). A longer run draws that many new examples for each property every time::

    KSLAB_DIFF_EXAMPLES=2000 .venv/bin/python -m pytest tests/testing/test_batch_differential.py

(``--hypothesis-show-statistics`` tells how many examples ran chunks in bulk, raised, and
how many of each shape there were and ran chunks in bulk: ``has split`` and ``ran in bulk:
split``, ``... fan-out`` and so on; ``evicted in a batch run: session windows``: a batch
run's puts evicted from that kind of store's record cache.) A failure
prints the shrunk program as Python, its pipes and config, and the first observable that
differs; each difference found is fixed and kept as a test below.
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandas as pd
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

import kslab as ks
from kslab import serdes
from tests.testing.driver_observables import captured_warnings, error_summary, state
from tests.testing.dsl_grammar import programs
from tests.testing.dsl_programs import ALL, Calls, Fn, Mat, Op, Program, Win, codec_serde, maker

BUDGET = 150  # examples of any program in make test
BULK_SHAPED_BUDGET = 120  # of bulk-shaped ones (both: about 25 s on two cores)
PARTITIONED_BUDGET = 80  # of bulk-shaped ones on several partitions
STATELESS_BUDGET = 40  # of stateless trees on several partitions (one stage for all tasks)
MERGING_BUDGET = 40  # of session and sliding-window aggregations over full record caches
EXAMPLES = int(os.environ.get("KSLAB_DIFF_EXAMPLES") or 0)

Row = tuple[Any, Any, int, Any]  # key, value, timestamp, headers
LARGE = "x" * 3000  # fills a small record cache (printed as <x * 3000>)
TEXTS = ["a", "", "b a", "ab ba a", LARGE]
JITTER = [0, 0, 7, -13, -45, -120, -420, 95]  # out of order; late beyond any grace
FIRST = ["error", "close_error", "calls", "printed", "warnings"]  # compared first: a
# difference names it


@dataclass(frozen=True)
class Pipe:
    """One call piping ``rows`` into ``topic`` (``times`` over, each copy later by the rows'
    span): ``"list"`` (``pipe_record_list``), ``"single"`` (``pipe_input`` each) or
    ``"frame"`` (``pipe_dataframe``)."""

    topic: str
    how: str
    rows: tuple[Row, ...]
    times: int = 1

    def records(self) -> list[Row]:
        """The rows piped, copies included."""
        span = 10 * len(self.rows)
        return [(k, v, ts + span * i, h) for i in range(self.times) for k, v, ts, h in self.rows]

    def into(self, topic: Any) -> None:
        """Pipe the records into the driver's input ``topic``."""
        records = self.records()
        if self.how == "single":
            for k, v, ts, h in records:
                topic.pipe_input(k, v, ts, headers=h)
        elif self.how == "list":
            topic.pipe_record_list([ks.TestRecord(k, v, ts, h) for k, v, ts, h in records])
        else:
            columns = {"key": pd.Series([r[0] for r in records], dtype=object),
                       "value": pd.Series([r[1] for r in records], dtype=object),
                       "timestamp": pd.Series([r[2] for r in records], dtype="int64")}
            with_headers = any(r[3] for r in records)
            if with_headers:
                columns["headers"] = pd.Series([r[3] for r in records], dtype=object)
            topic.pipe_dataframe(pd.DataFrame(columns),
                                 headers="headers" if with_headers else None)


@dataclass(frozen=True)
class Case:
    """A program, what is piped into it, and the driver's config."""

    program: Program
    pipes: tuple[Pipe, ...]
    cache_bytes: int | None = None  # statestore.cache.max.bytes (None: the default)
    partitions: int = 1  # of every input topic but the global table's

    def __repr__(self) -> str:
        lines = [repr(self.program),
                 f"# config: statestore.cache.max.bytes={self.cache_bytes}, "
                 f"partitions={self.partitions}"]
        lines += [f"# {pipe.how} x{pipe.times} into {pipe.topic}: {list(pipe.rows)}"
                  for pipe in self.pipes]
        return "\n".join(lines).replace(LARGE, "<x * 3000>")

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """How hypothesis prints a failing case: as ``repr`` does, line by line."""
        for i, line in enumerate(repr(self).splitlines()):
            if i:
                printer.break_()
            printer.text(line)

    def config(self, bulk: bool) -> dict[str, Any]:
        """The driver's config, with the bulk path on or off."""
        config: dict[str, Any] = {"kslab.driver.bulk": bulk}
        if self.cache_bytes is not None:
            config["statestore.cache.max.bytes"] = self.cache_bytes
        return config

    def partition_counts(self) -> dict[str, int] | None:
        """The driver's ``partitions=``: co-partitioned input topics."""
        if self.partitions == 1:
            return None
        return {t: self.partitions for t in self.program.topics() if t != "gtbl"}


def _rows(codec: str, topic: str, clean: bool, min_size: int = 1, wide: bool = False
          ) -> st.SearchStrategy[list[tuple[Any, Any, int, Any]]]:
    """Rows of ``topic`` as ``(key, value, timestamp jitter, headers)``; ``clean``: no
    ``None`` key, in time order (what the bulk path's counts take at once), a ``None``
    value (a table's delete) one in eight; ``wide``: 4 keys, else 48 (more entries than a
    cache of a few KiB holds: its puts evict within a chunk, clean and dirty entries)."""
    mk = maker(codec)
    keys = ["g0", "g1", "g2"] if topic == "gtbl" else [f"k{i}" for i in range(
        48 if wide else 4)]
    values = st.builds(mk, st.integers(0, 9), st.sampled_from(TEXTS))
    if codec == "json":  # nested objects, and what Json maps on the way, one in three
        values = st.one_of(values, values, st.builds(_nested, st.integers(0, 9),
                                                     st.sampled_from(TEXTS)))
    if clean and topic != "gtbl":
        values = st.one_of(*[values] * 7, st.none())
    jitter = st.just(0)
    if not clean:
        keys.append(None)
        values = st.one_of(values, st.none(), st.just("" if codec == "str" else {}))
        jitter = st.sampled_from(JITTER)
    headers = st.sampled_from([None, None, None, [("h", b"1")]])
    return st.lists(st.tuples(st.sampled_from(keys), values, jitter, headers),
                    min_size=min_size, max_size=24)


def _nested(n: int, s: str) -> dict[str, Any]:
    """A JSON value with nested objects (``grow`` appends to its list ``o.l``) and what
    ``Json`` reads back otherwise than it was given: a tuple (a list), NaN (``None``)."""
    return {"n": n, "s": s, "o": {"l": [n, -0.0, None, True, (n, s)], "d": {}},
            "x": float("nan")}


@st.composite
def cases(draw: Callable[..., Any], bulk_shaped: bool = False,
          partitioned: bool = False, shape: str | None = None,
          evicting: bool = False) -> Case:
    """A program, its pipes (timestamps 10 ms apart, jittered) and a driver config;
    ``bulk_shaped``: a linear program on one partition, its pipes mostly long and clean (no
    null, in time order), what the bulk path's counts take at once, the first one into its
    table's topic if it has a table and the next into its stream's (then a join finds rows);
    ``partitioned``: the
    same on 2 to 4 partitions (repartitions read back by their tasks in the chunk);
    ``shape``: a bulk-shaped program of that shape (``dsl_grammar.SHAPES``); ``evicting``:
    48 keys and a record cache of a few KiB (its puts evict within a chunk)."""
    if partitioned:
        case = draw(cases(bulk_shaped=True, shape=shape))
        return Case(case.program, case.pipes, case.cache_bytes, draw(st.integers(2, 4)))
    program = draw(programs(linear=True if bulk_shaped else None, shape=shape))
    topics = program.topics()
    position = 0
    pipes = []
    # (bulk-shaped: a table's topic first, as a table is loaded before the stream joins it,
    # then the stream's)
    first = [topics[-1], topics[0]] if bulk_shaped and len(topics) > 1 else []
    wide = evicting or draw(st.sampled_from([False, False, True]))  # 48 keys: a small
    # cache evicts
    for number in range(draw(st.integers(max(1, len(first)), 5))):
        topic = first[number] if number < len(first) else draw(st.sampled_from(topics))
        how = draw(st.sampled_from(["list", "frame", "list", "single"] if bulk_shaped
                                   else ["list", "single", "frame"]))
        clean = draw(st.sampled_from([True, True, False] if bulk_shaped else [True, False]))
        drawn = draw(_rows(program.codec, topic, clean, 8 if bulk_shaped else 1, wide))
        rows = tuple((k, v, max(0, 10 * (position + i) + jitter), h)
                     for i, (k, v, jitter, h) in enumerate(drawn))
        times = 1 if how == "single" else draw(st.sampled_from(
            [14, 40, 1] if bulk_shaped else [1, 1, 14, 40]))
        position += len(rows) * times
        pipes.append(Pipe(topic, how, rows, times))
    cache_bytes = draw(st.sampled_from([600, 1024, 2000, 3072] if evicting
                                       else [None, 0, 150, 2000, 1024, 3072] if wide
                                       else [None, 0, 150, 2000]))
    linear = not any(op.kind in ("table", "global", "split", "join") for op in program.ops)
    partitions = 1 if bulk_shaped else draw(
        st.sampled_from([1, 1, 1, 2]) if linear else st.integers(1, 4))
    return Case(program, tuple(pipes), cache_bytes, partitions)


def observe(case: Case, bulk: bool) -> tuple[dict[str, Any], Any]:
    """Every observable of one run of ``case``, and the driver's bulk executor (``None``:
    the bulk path was off) with, as ``ran``, the kinds of operators that ran in batch
    (``batch_kinds``)."""
    calls: Calls = {}
    topology = case.program.build(calls)
    error = close_error = None
    printed = io.StringIO()
    with captured_warnings() as warnings, contextlib.redirect_stdout(printed):
        driver = ks.TopologyTestDriver(topology, case.config(bulk),
                                       partitions=case.partition_counts())
        ran = _count_chunks(driver)
        try:
            value_serde = codec_serde(case.program.codec)
            topics = {t: driver.create_input_topic(t, serdes.String(), value_serde)
                      for t in case.program.topics()}
            for pipe in case.pipes:
                pipe.into(topics[pipe.topic])
        except Exception as exc:  # compared: the same error, at the same record
            error = error_summary(exc)
        observed = state(driver)
        observed["decoded"] = _decoded_reads(driver, case.program.codec)
        observed["reads"] = {
            topic: driver.create_output_topic(topic, serdes.Bytes(), serdes.Bytes())
            .read_records_to_list() for topic in sorted(driver.output_logs())}
        # internal on purpose: the bulk executor itself (which one ran, its per-chunk counters)
        executor = driver._bulk or driver._partitioned
        if executor is not None:
            executor.ran = batch_kinds(driver, ran)
            executor.evicted = _evicted_kinds(case.program,
                                              driver.evicted_in_batch)  # type: ignore[attr-defined]
        try:
            driver.close()
        except Exception as exc:
            close_error = error_summary(exc)
    observed.update(error=error, close_error=close_error, calls=calls, warnings=warnings,
                    printed=printed.getvalue().splitlines())
    return observed, executor


def _decoded_reads(driver: ks.TopologyTestDriver, codec: str) -> dict[str, Any]:
    """Each output topic's records read as a user reads them (values through the ``Json``
    codec's serde, which takes the copies a ``Json`` sink made as it wrote instead of
    decoding where the log holds them), or the error a read raises at a value it cannot
    decode (another sink's serde); ``{}`` for the other codecs. Read before the raw reads,
    which then get what is left."""
    if codec != "json":
        return {}
    reads: dict[str, Any] = {}
    for topic in sorted(driver.output_logs()):
        if driver.is_internal_topic(topic):
            continue
        out = driver.create_output_topic(topic, serdes.Bytes(), serdes.Json())
        try:
            reads[topic] = out.read_records_to_list()
        except ks.errors.SerdeError as exc:
            reads[topic] = error_summary(exc)
    return reads


def _count_chunks(driver: ks.TopologyTestDriver) -> dict[str, int]:
    """The chunks of each topic the driver's executors run in batch, counted as they run
    (their entry points wrapped); and ``_watch_evictions``."""
    ran: dict[str, int] = {}
    _watch_evictions(driver)
    # internal on purpose: the bulk executor itself (which one ran, its per-chunk counters)
    for executor in (driver._bulk, driver._partitioned):
        if executor is None:
            continue
        for name, at in (("run", 1), ("run_columns", 1), ("run_partitioned", 0)):
            setattr(executor, name, _counted(getattr(executor, name), at, ran))
    return ran


def _watch_evictions(driver: ks.TopologyTestDriver) -> None:
    """Note, as ``driver.evicted_in_batch``, the kinds of the cached stores (``session``,
    ``timestamped_window``, ...) whose record cache a batch run's puts evicted from
    (``ThreadCache.drop_evicted``, which only a batch run calls, wrapped)."""
    kinds: set[str] = set()
    driver.evicted_in_batch = kinds  # type: ignore[attr-defined]
    # internal on purpose: each cached store's namespace in its thread cache
    cached = [store for task in driver.tasks.values() for store in task.cached_stores
              if hasattr(store, "_namespace")]  # (a suppression buffer has no cache)
    stores = {store._namespace: store.store_kind for store in cached}
    caches = {id(store.thread_cache): store.thread_cache for store in cached
              if store.thread_cache is not None}
    for cache in caches.values():
        def drop_evicted(namespace: str, keys: Any, evictions: int,
                         drop: Callable[..., None] = cache.drop_evicted) -> None:
            if evictions:
                kinds.add(stores.get(namespace, namespace))
            drop(namespace, keys, evictions)
        cache.drop_evicted = drop_evicted  # type: ignore[method-assign]


def _counted(method: Callable[..., Any], at: int, ran: dict[str, int]) -> Callable[..., Any]:
    """``method`` counting in ``ran`` the chunks it ran (not ``None`` or ``False``) by their
    topic, its argument ``at``."""

    def counted(*args: Any) -> Any:
        result = method(*args)
        if result is not None and result is not False:
            ran[args[at]] = ran.get(args[at], 0) + 1
        return result

    return counted


def _evicted_kinds(program: Program, kinds: set[str]) -> set[str]:
    """The stores whose record cache a batch run evicted from, named by their kind, a window
    store's by the windows of ``program`` (``sliding`` where they are its only ones)."""
    windows = [op.args[2] for op in program.ops if op.kind == "group" and op.args[2]]
    named = {"session": "session windows", "key_value": "key-value",
             "timestamped_key_value": "key-value",
             "timestamped_window": "sliding windows" if windows and all(
                 win.sliding for win in windows) else "time windows"}
    return {named.get(kind, kind) for kind in kinds}


def batch_kinds(driver: ks.TopologyTestDriver, ran: dict[str, int]) -> set[str]:
    """The kinds of the table operators and joins (table source with or without a store and
    its record cache, ``to_table``, table filter / map_values, stream-table and
    stream-globaltable inner and left joins) in the plans of the topics that ran chunks in
    batch."""
    kinds: set[str] = set()
    # internal on purpose: the bulk executor itself (which one ran, its per-chunk counters)
    executor = driver._bulk or driver._partitioned
    for topic in ran:
        for task in driver.tasks.values():
            if (topic, task.id.partition) not in task.input_partitions:
                continue
            plan = executor.plan(task, topic)
            while plan is not None:
                kinds.update(filter(None, (_kind(step.processor, topic) for step in plan.steps
                                           if step.processor is not None)))
                plan = plan.downstream
    return kinds


def drawn_kinds(program: Program) -> set[str]:
    """The table operators and joins of ``program``, named as ``batch_kinds`` names them
    (without the stores): what the statistics compare the kinds that ran in batch with."""
    kinds: set[str] = set()
    tables = {op.dst[0] for op in program.ops if op.kind in ("table", "to_table")}
    for op in program.ops:
        kind = op.kind
        if kind in ("table", "to_table"):
            kinds.add("table source" if kind == "table" else "to_table")
        elif kind in ("filter", "filter_not", "map_values") and op.src[0] in tables:
            tables.add(op.dst[0])
            mat = op.args[1 if kind != "map_values" else 2] if len(op.args) > 2 else None
            kinds.add(("table Filter" if kind.startswith("filter") else "table MapValues")
                      + (", stored" if mat is not None and mat.name else ""))
        elif kind == "join":
            kinds.add("table left join" if op.args[1] else "table join")
        elif kind == "gjoin":
            kinds.add("globaltable left join" if op.args[2] else "globaltable join")
        elif kind == "tgroup":
            kinds.update(("table group_by", "table aggregate"))
        elif kind == "sjoin":
            kinds.add("stream-stream " + ("join" if op.args[2] == "join" else "left/outer join"))
        elif kind == "suppress":
            kinds.add("suppress " + ("until window closes" if op.args[0] else "time limit"))
        elif kind == "tjoin":
            kinds.add(f"table-table {op.args[1]}" + (", stored" if op.args[2] else ""))
    return kinds


def _kind(processor: Any, topic: str) -> str | None:
    """What a table operator or join processor is (``None``: another one)."""
    kind = type(processor).__name__
    if kind == "_TableSourceProcessor":
        where = "table source" if topic == "tbl" else "to_table"
        forwarder = processor.forwarder
        if forwarder is None:
            return f"{where} without a store"
        return f"{where}, {'cached' if forwarder.cached else 'uncached'} store"
    if kind == "_TableOpProcessor":
        return (f"table {type(processor.supplier).__name__.removesuffix('Supplier')}"
                + (", stored" if processor.store is not None else ""))
    if kind == "_RepartitionMapProcessor":
        return "table group_by"
    if kind == "_TableAggregateProcessor":
        return "table aggregate"
    if kind == "JoinSide":
        return "stream-stream " + ("join" if processor.outer_store_name is None
                                   else "left/outer join")
    if kind == "_TableJoinProcessor":
        return f"table-table {processor.s.kind} side"
    if kind == "_MergerProcessor":
        return "table-table merger" + (", stored" if processor.store is not None else "")
    if kind == "_SuppressProcessor":
        return "suppress " + ("until window closes" if processor.final else "time limit")
    if kind == "_StreamTableJoinProcessor":
        s = processor.s
        return (f"{'globaltable' if s.key_mapper is not None else 'table'} "
                f"{'left join' if s.left else 'join'}")
    return None
def shapes(program: Program) -> list[str]:
    """The shapes of ``program`` the batch path takes since fan-outs: split, merge, peek,
    foreach, print, topic extractors, a stream several operators read (fan-out), a topic
    several sinks write, an aggregation beside another branch."""
    kinds = {op.kind for op in program.ops}
    found = [kind for kind in ("split", "merge", "peek", "foreach", "print", "to_extractor")
             if kind in kinds]
    readers: dict[str, int] = {}
    topics: dict[str, int] = {}
    for op in program.ops:
        for name in op.src[:1]:
            readers[name] = readers.get(name, 0) + 1
        if op.kind == "to":
            topics[op.args[0]] = topics.get(op.args[0], 0) + 1
    if any(count > 1 for count in readers.values()):
        found.append("fan-out")
        if "group" in kinds:
            found.append("aggregation beside a branch")
    if any(count > 1 for count in topics.values()):
        found.append("a topic two sinks write")
    return found


def difference(left: Any, right: Any, path: str = "") -> str | None:
    """Where ``left`` and ``right`` first differ (``None``: equal), with both sides."""
    if isinstance(left, dict) and isinstance(right, dict):
        first = [k for k in FIRST if k in left]  # the error before what it left behind
        for key in [*first, *(k for k in left if k not in first),
                    *(k for k in right if k not in left)]:
            if key not in left or key not in right:
                return f"{path}[{key!r}]: only in {'bulk' if key in left else 'record'} run"
            found = difference(left[key], right[key], f"{path}[{key!r}]")
            if found:
                return found
        return None
    if isinstance(left, list | tuple) and isinstance(right, list | tuple) \
            and type(left) is type(right):
        for i, (a, b) in enumerate(zip(left, right, strict=False)):
            found = difference(a, b, f"{path}[{i}]")
            if found:
                return found
        if len(left) != len(right):
            return f"{path}: {len(left)} items in the bulk run, {len(right)} in the record run"
        return None
    if left is right or left == right or (left != left and right != right):  # NaN: no samples
        return None
    return f"{path}:\n  bulk:   {left!r:.600}\n  record: {right!r:.600}"


SETTINGS = settings(max_examples=EXAMPLES or BUDGET, deadline=None, derandomize=not EXAMPLES,
                    database=None, print_blob=True,
                    phases=[Phase.explicit, Phase.generate, Phase.shrink],
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SETTINGS
@given(cases())
def test_the_batch_path_matches_the_record_path(case: Case) -> None:
    """Any program of the grammar."""
    check(case)


@settings(SETTINGS, max_examples=EXAMPLES or BULK_SHAPED_BUDGET)
@given(cases(bulk_shaped=True))
def test_the_batch_path_matches_the_record_path_on_bulk_shaped_programs(case: Case) -> None:
    """Linear programs and long, clean pipes: the aggregations' batch forms, their record
    cache replays and tumbling windows counted in runs."""
    check(case)


@settings(SETTINGS, max_examples=EXAMPLES or PARTITIONED_BUDGET)
@given(cases(partitioned=True))
def test_the_batch_path_matches_the_record_path_on_several_partitions(case: Case) -> None:
    """Linear programs on 2 to 4 partitions: chunks run task by task, and a repartition's
    records run through the tasks reading it in the same chunk, in the driver's order."""
    check(case)


@settings(SETTINGS, max_examples=EXAMPLES or STATELESS_BUDGET)
@given(cases(partitioned=True, shape="stateless"))
def test_the_batch_path_matches_the_record_path_on_stateless_trees_of_partitions(
        case: Case) -> None:
    """Stateless trees (split, merge, peek, foreach, print, topic extractors reading their
    record's partition and offset, lambdas that raise) on 2 to 4 partitions: the tasks'
    rows run as one stage over the chunk, each task's bookkeeping settled from its rows."""
    check(case)


@settings(SETTINGS, max_examples=EXAMPLES or MERGING_BUDGET)
@given(cases(bulk_shaped=True, shape="merging windows", evicting=True))
def test_the_batch_path_matches_the_record_path_on_full_session_and_sliding_caches(
        case: Case) -> None:
    """Session and sliding-window aggregations under 48 keys with a record cache of a few
    KiB: the runs' puts evict clean sessions and windows (a remove's entry leaving at its
    record's commit), a read the cache alone answers sends its chunk record by record where
    an eviction before it would hide it."""
    check(case)


def check(case: Case) -> None:
    """Run ``case`` with the bulk path on and off; every observable the same."""
    bulk, executor = observe(case, True)
    record, _ = observe(case, False)
    for counter in ("chunks", "declined", "shared"):  # (no executor: no bulk path)
        if getattr(executor, counter, 0):
            event(f"bulk path: {counter}")
    for kind in sorted(getattr(executor, "ran", ())):
        event(f"ran in batch: {kind}")
    for kind in sorted(drawn_kinds(case.program)):
        event(f"drawn: {kind}")
    for shape in shapes(case.program):  # (the share that ran chunks in bulk: the ratio)
        event(f"has {shape}")
        if getattr(executor, "chunks", 0):
            event(f"ran in bulk: {shape}")
    if record["error"] is not None:
        event(f"raised {record['error'][0]}")
    for kind in sorted(getattr(executor, "evicted", ())):
        event(f"evicted in a batch run: {kind}")
    if getattr(executor, "chunks", 0) and any(
            store.get("thread_cache", (0, 0, 0))[2] for task in bulk["tasks"].values()
            for store in task["stores"].values()):
        event("evicted, chunks ran in bulk")  # (in a chunk or between them)
    found = difference(bulk, record)
    assert found is None, f"the bulk and record runs differ at {found}"


def test_a_count_no_record_of_a_chunk_reaches() -> None:
    """A count behind a filter that drops a whole chunk counts nothing and raises nothing
    (found by the properties above: the bulk path's uncached count read keys[-1] of no keys
    and raised IndexError after the chunk's offset, clocks and metrics were applied)."""
    S, L = serdes.String(), serdes.Long()
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, S))
     .filter(lambda k, v: False)
     .group_by_key()
     .count(ks.Materialized.as_("counts").with_caching_disabled())
     .to_stream()
     .to("out", ks.Produced.with_(S, L)))
    with ks.TopologyTestDriver(b.build(), {"kslab.driver.bulk": True}) as driver:
        driver.create_input_topic("in").pipe_input("k", "v", 0)
        assert driver.create_output_topic("out").is_empty()


def test_the_grammar_reaches_the_bulk_path() -> None:
    """A linear program of the grammar (a tumbling count behind a select_key) runs chunks in
    bulk, counting windows in runs: the properties compare the two paths, not the record path
    with itself."""
    select = Fn("lambda k, v: None if v is None else 'k' + str(n(v) % 3)", 1)
    program = Program("str", [
        Op("stream", ("s0",), (), ("in",)),
        Op("select_key", ("s1",), ("s0",), (select,)),
        Op("group", ("t2",), ("s1",), (None, "V", Win(1000, 20), "count", (),
                                       Mat("counts", store="in_memory"), "L")),
        Op("to_stream", ("s3",), ("t2",)),
        Op("to", (), ("s3",), ("out", "W1000", "L")),
    ])
    rows = tuple((f"k{i % 4}", f"{i % 10}:a", 10 * i, None) for i in range(40))
    case = Case(program, (Pipe("in", "list", rows, 14), Pipe("in", "frame", rows)))
    bulk, executor = observe(case, True)
    record, _ = observe(case, False)
    assert executor.chunks == 3 and executor.declined == 0  # 256 rows, the other 304, the
    # frame's 40
    assert difference(bulk, record) is None
    assert len(bulk["outputs"]["out"]) == 40 * 14  # the frame's rows are late: dropped
    assert len(bulk["warnings"]) == 40


def test_a_count_no_record_of_a_chunk_reaches_writes_no_changelog() -> None:
    """(Found by the properties: the bulk count appended an empty batch to its changelog,
    which made the changelog's log exist where the record path made none.)"""
    S, L = serdes.String(), serdes.Long()

    def run(bulk: bool) -> dict[str, Any]:
        b = ks.StreamsBuilder()
        (b.stream("in", ks.Consumed.with_(S, S))
         .flat_map_values(lambda v: [])
         .group_by_key()
         .count(ks.Materialized.as_("store").with_store_type("in_memory")
                .with_caching_disabled())
         .to_stream()
         .to("out", ks.Produced.with_(S, L)))
        with ks.TopologyTestDriver(b.build(), {"kslab.driver.bulk": bulk}) as driver:
            driver.create_input_topic("in", S, S).pipe_key_value_list([("k0", "0:a")])
            return state(driver)

    assert run(True)["outputs"] == run(False)["outputs"] == {"out": []}


def test_a_count_over_two_partitions_keeps_its_changelog_in_the_rows_order() -> None:
    """(Found by the properties: several tasks' changelog records were appended task by task,
    so reading the changelog topic gave another order than the record path's.)"""
    S, L = serdes.String(), serdes.Long()

    def run(bulk: bool) -> list[Any]:
        b = ks.StreamsBuilder()
        (b.stream("in", ks.Consumed.with_(S, S))
         .group_by_key(ks.Grouped.with_(S, S))
         .count(ks.Materialized.as_("store").with_store_type("in_memory"))
         .to_stream()
         .to("out", ks.Produced.with_(S, L)))
        with ks.TopologyTestDriver(b.build(), {"kslab.driver.bulk": bulk},
                                   partitions={"in": 2}) as driver:
            topic = driver.create_input_topic("in", S, S)
            topic.pipe_record_list([ks.TestRecord(k, "0:a", ts) for k, ts in
                                    [("k0", 0), ("k3", 10), ("k0", 20), ("k3", 30)]])
            changelog = driver.create_output_topic("topology-test-driver-store-changelog",
                                                   S, L)
            return [(r.key, r.value, r.timestamp) for r in changelog.read_records_to_list()]

    assert run(True) == run(False) == [("k0", 1, 0), ("k3", 1, 10), ("k0", 2, 20),
                                       ("k3", 2, 30)]


def test_the_grammar_reaches_the_bulk_path_with_fan_outs() -> None:
    """A bulk-shaped tree of the grammar (a peek, split into two branches merged back, a
    foreach and a sink beside them to the topic the merge writes, a count on the merged
    branch) runs its chunks in bulk, with the record path's every observable: the
    properties compare fan-outs in batch, not the record path with itself."""
    even = Fn("lambda k, v: v is not None and n(v) % 2 == 0", 1)
    program = Program("json", [
        Op("stream", ("s0",), (), ("in",)),
        Op("peek", ("s1",), ("s0",), ("peek-s0",)),
        Op("split", ("s2", "s3"), ("s1",), ((even,), True)),
        Op("merge", ("s4",), ("s2", "s3")),
        Op("to", (), ("s4",), ("out", "S", "V")),
        Op("foreach", (), ("s1",), ("foreach-s1",)),
        Op("to", (), ("s1",), ("out", "S", "V")),
        Op("group", ("t5",), ("s4",), (None, "V", None, "count", (), Mat("counts"), "L")),
        Op("to_stream", ("s6",), ("t5",)),
        Op("to", (), ("s6",), ("counts", "S", "L")),
    ])
    rows = tuple((f"k{i % 4}", {"n": i % 10, "s": "a"}, 10 * i, None) for i in range(40))
    case = Case(program, (Pipe("in", "list", rows, 14),))
    bulk, executor = observe(case, True)
    record, _ = observe(case, False)
    assert executor.chunks == 2 and executor.declined == 0  # 256 rows, the other 304
    assert difference(bulk, record) is None
    assert len(bulk["outputs"]["out"]) == 2 * 40 * 14  # each record by both sinks
    assert len(bulk["outputs"]["counts"]) == 40 * 14  # (the driver commits every record)
    assert bulk["calls"][ALL][:4] == [("peek-s0", "k0", {"n": 0, "s": "a"}),
                                      ("foreach-s1", "k0", {"n": 0, "s": "a"}),
                                      ("peek-s0", "k1", {"n": 1, "s": "a"}),
                                      ("foreach-s1", "k1", {"n": 1, "s": "a"})]
