"""Fan-outs in batch: programs whose streams branch run their chunks over columns, with the
record path's exact outputs, action calls and errors.

Each test runs a program with ``kslab.driver.bulk`` on and off, asserts the executor ran the
chunk in batch (its ``chunks`` counter) or declined it, and asserts the exact records both
paths wrote: a stream two operators read, ``split`` with a default branch merged back, two
sinks to one topic behind a flat map (the depth-first order), an aggregation on one branch
whose record cache flushes after the other branch wrote, ``peek`` / ``foreach`` / ``print``
called in the record path's interleaved order, a raising action (each action called once,
the record path's error and partial state), and topic extractors.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from contextlib import redirect_stdout
from typing import Any

import pytest

import kslab as ks
from kslab import serdes
from kslab.core.bulk.port import CollectorPort
from kslab.errors import StreamsError
from kslab.runtime._batch import RuntimePort
from tests.testing.driver_observables import state

S, L = serdes.String(), serdes.Long()


def _run(build: Callable[[ks.StreamsBuilder, list[Any]], None], rows: list[tuple[str, str]],
         bulk: bool) -> tuple[dict[str, list[tuple[Any, Any]]], list[Any], Any, Any]:
    """``rows`` piped as one list into ``in`` of the program ``build`` makes; each output
    topic's ``(key, value)`` records, the actions' calls, the error raised (``None``) and
    the driver's bulk executor (``None``: off)."""
    calls: list[Any] = []
    b = ks.StreamsBuilder()
    build(b, calls)
    error = None
    with ks.TopologyTestDriver(b.build(), {"kslab.driver.bulk": bulk}) as driver:
        try:
            driver.create_input_topic("in", S, S).pipe_record_list(
                [ks.TestRecord(k, v, 10 * i) for i, (k, v) in enumerate(rows)])
        except StreamsError as exc:
            error = (type(exc).__name__, str(exc), exc.offset)
        outputs = {topic: [(r.key, r.value) for r in driver.create_output_topic(
            topic, S, S).read_records_to_list()] for topic in sorted(driver.output_logs())
            if not topic.endswith(("-changelog", "-repartition"))}
        observed = state(driver)
        # internal on purpose: the bulk executor itself (which one ran, its per-chunk counters)
        return outputs, calls, (error, observed), driver._bulk


def _both(build: Callable[[ks.StreamsBuilder, list[Any]], None],
          rows: list[tuple[str, str]]) -> tuple[dict[str, Any], list[Any], Any, Any]:
    """``_run`` on the batch path, asserted equal to the record path in every observable."""
    bulk = _run(build, rows, True)
    record = _run(build, rows, False)
    assert bulk[:3] == record[:3]
    return bulk


def _tee(b: ks.StreamsBuilder, calls: list[Any]) -> None:
    """One stream, three readers: two sinks to one topic and a filter to another."""
    words = b.stream("in", ks.Consumed.with_(S, S)).flat_map_values(str.split)
    words.map_values(str.upper).to("out", ks.Produced.with_(S, S))
    words.to("out", ks.Produced.with_(S, S))
    words.filter(lambda k, v: v.startswith("b")).to("bs", ks.Produced.with_(S, S))


def test_a_stream_read_by_several_operators_runs_in_batch_depth_first() -> None:
    """Each word goes through the first reader's sink, then the second's, before the next
    word (a flat map's records go through the subtree one at a time)."""
    outputs, _, _, executor = _both(_tee, [("k1", "a b"), ("k2", "c")])
    assert executor.chunks == 1 and executor.declined == 0
    assert outputs == {"out": [("k1", "A"), ("k1", "a"), ("k1", "B"), ("k1", "b"),
                               ("k2", "C"), ("k2", "c")],
                       "bs": [("k1", "b")]}


def _split_merged(b: ks.StreamsBuilder, calls: list[Any]) -> None:
    """split with a default branch: the digits to a topic, the others merged back."""
    branches = (b.stream("in", ks.Consumed.with_(S, S)).flat_map_values(str.split)
                .split(ks.Named.as_("s-"))
                .branch(lambda k, v: v.isdigit(), ks.Branched.as_("digits"))
                .branch(lambda k, v: v.isupper(), ks.Branched.as_("upper"))
                .default_branch(ks.Branched.as_("rest")))
    digits, upper, rest = (branches[f"s-{name}"] for name in ("digits", "upper", "rest"))
    digits.to("digits", ks.Produced.with_(S, S))
    rest.map_values(lambda v: v + "!").merge(upper).to("out", ks.Produced.with_(S, S))


def test_split_branches_and_a_merge_run_in_batch_in_record_order() -> None:
    """Each record goes to the first branch whose predicate holds (else the default);
    the merge takes its branches' records in the order they reached it."""
    outputs, _, _, executor = _both(_split_merged, [("k1", "1 A b 2"), ("k2", "c D")])
    assert executor.chunks == 1 and executor.declined == 0
    assert outputs == {"digits": [("k1", "1"), ("k1", "2")],
                       "out": [("k1", "A"), ("k1", "b!"), ("k2", "c!"), ("k2", "D")]}


def _count_beside(b: ks.StreamsBuilder, calls: list[Any]) -> None:
    """A cached count on one branch (it forwards at each commit) and a sink on the other,
    both to one topic."""
    words = b.stream("in", ks.Consumed.with_(S, S)).flat_map_values(str.split)
    (words.group_by_key().count(ks.Materialized.as_("counts").with_key_serde(S)
                                .with_value_serde(L))
     .to_stream().map_values(str).to("out", ks.Produced.with_(S, S)))
    words.to("out", ks.Produced.with_(S, S))


def test_an_aggregation_on_a_branch_forwards_after_its_record() -> None:
    """The record cache flushes the count's updates at the commit after each consumed
    record: after the other branch wrote that record's words."""
    outputs, _, _, executor = _both(_count_beside, [("k1", "a b"), ("k2", "c"), ("k1", "d")])
    assert executor.chunks == 1 and executor.declined == 0
    assert outputs == {"out": [("k1", "a"), ("k1", "b"), ("k1", "2"), ("k2", "c"),
                               ("k2", "1"), ("k1", "d"), ("k1", "3")]}


def _peeks(b: ks.StreamsBuilder, calls: list[Any]) -> None:
    """Two peeks around a flat map, and a foreach on a branch."""
    stream = b.stream("in", ks.Consumed.with_(S, S)).peek(lambda k, v: calls.append(("p1", v)))
    words = stream.flat_map_values(str.split).peek(lambda k, v: calls.append(("p2", v)))
    words.foreach(lambda k, v: calls.append(("each", v)))
    words.to("out", ks.Produced.with_(S, S))


def test_actions_are_called_in_the_record_paths_interleaved_order() -> None:
    """peek1(r1), peek2(r1's first word), foreach(it), peek2(the second), ...: the record
    path's depth-first order across every action, not one action over the chunk after
    another."""
    outputs, calls, _, executor = _both(_peeks, [("k1", "a b"), ("k2", "c")])
    assert executor.chunks == 1 and executor.declined == 0
    assert calls == [("p1", "a b"), ("p2", "a"), ("each", "a"), ("p2", "b"), ("each", "b"),
                     ("p1", "c"), ("p2", "c"), ("each", "c")]
    assert outputs == {"out": [("k1", "a"), ("k1", "b"), ("k2", "c")]}


def _raising_peek(b: ks.StreamsBuilder, calls: list[Any]) -> None:
    """A peek raising at the word "x", behind another peek, both before a sink."""
    def second(key: Any, value: Any) -> None:
        if value == "x":
            raise ValueError("no x")
        calls.append(("p2", value))

    words = b.stream("in", ks.Consumed.with_(S, S)).flat_map_values(str.split)
    words.peek(lambda k, v: calls.append(("p1", v))).peek(second).to(
        "out", ks.Produced.with_(S, S))


def test_a_raising_action_leaves_the_record_paths_calls_error_and_state() -> None:
    """The chunk is declined before anything is applied; the record path runs it again,
    skipping the calls made already and raising the action's error in place of its call:
    every action called once, the error of the record at offset 1, the records before it
    written."""
    outputs, calls, (error, _), executor = _both(_raising_peek,
                                                 [("k1", "a b"), ("k2", "c x d"), ("k3", "e")])
    assert executor.chunks == 0 and executor.declined == 1
    assert calls == [("p1", "a"), ("p2", "a"), ("p1", "b"), ("p2", "b"), ("p1", "c"),
                     ("p2", "c"), ("p1", "x")]
    assert error[0] == "StreamsError" and "no x" in error[1] and error[2] == 1
    assert outputs == {"out": [("k1", "a"), ("k1", "b"), ("k2", "c")]}


def _printing(b: ks.StreamsBuilder, calls: list[Any]) -> None:
    stream = b.stream("in", ks.Consumed.with_(S, S))
    stream.print_(ks.Printed.to_sys_out().with_label("in"))
    stream.map_values(str.upper).print_(ks.Printed.to_sys_out().with_label("up"))


def test_print_runs_in_batch_and_prints_in_record_order() -> None:
    printed = []
    executors = []
    for bulk in (True, False):
        out = io.StringIO()
        with redirect_stdout(out):
            executors.append(_run(_printing, [("k1", "a"), ("k2", "b")], bulk)[3])
        printed.append(out.getvalue())
    assert executors[0].chunks == 1 and executors[1] is None
    assert printed[0] == printed[1] == "[in]: k1, a\n[up]: k1, A\n[in]: k2, b\n[up]: k2, B\n"


def _extracted(b: ks.StreamsBuilder, calls: list[Any]) -> None:
    """A topic extractor naming a topic per record from its value and record context."""
    stream = b.stream("in", ks.Consumed.with_(S, S)).flat_map_values(str.split)
    stream.to(lambda k, v, ctx: f"t-{v[0]}-{ctx.offset}", ks.Produced.with_(S, S))
    stream.to("t-a-0", ks.Produced.with_(S, S))


def test_a_topic_extractor_runs_in_batch_per_record() -> None:
    """The extractor is called once per record, with its consumed record's offset; a topic
    another sink writes takes both sinks' records in the record path's order."""
    outputs, _, _, executor = _both(_extracted, [("k1", "ab b"), ("k2", "a")])
    assert executor.chunks == 1 and executor.declined == 0
    assert outputs == {"t-a-0": [("k1", "ab"), ("k1", "ab"), ("k1", "b"), ("k2", "a")],
                       "t-a-1": [("k2", "a")], "t-b-0": [("k1", "b")]}


class _Collector:
    """A runtime collector stub: topics named ``known-*`` exist."""

    changelogs: set[str] = set()

    def send_columns(self, *args: Any) -> None:
        """(Never called here.)"""

    def partitions_for(self, topic: str) -> int:
        """One partition for a known topic; the runtime's error for another."""
        if not topic.startswith("known-"):
            msg = f"topic '{topic}' is unknown to the broker; create it before writing to it"
            raise StreamsError(msg, topic=topic)
        return 1


@pytest.mark.parametrize(("topic", "writable"), [("known-a", True), ("other", False)])
def test_the_runtime_port_writes_only_topics_the_broker_knows(topic: str,
                                                              writable: bool) -> None:
    """A topic extractor's topic unknown to the broker declines the chunk, so the record
    path raises the runtime's error for it; the driver and Spark write any topic."""
    assert RuntimePort(_Collector()).writable(topic) is writable  # type: ignore[arg-type]
    assert CollectorPort(lambda *args: None).writable(topic)


def test_a_raising_foreach_on_two_partitions_is_called_once_per_record() -> None:
    """Tasks of several partitions: their actions are called in the driver's order across
    the tasks; the one raising declines the chunk before anything is applied and the record
    path raises it in its place, every action called once."""
    def run(bulk: bool, last: str = "x") -> tuple[Any, ...]:
        calls: list[Any] = []

        def each(key: Any, value: Any) -> None:
            if value == "x":
                raise ValueError("no x")
            calls.append((key, value))

        b = ks.StreamsBuilder()
        stream = b.stream("in", ks.Consumed.with_(S, S))
        stream.foreach(each)
        stream.to("out", ks.Produced.with_(S, S))
        with ks.TopologyTestDriver(b.build(), {"kslab.driver.bulk": bulk},
                                   partitions={"in": 2, "out": 2}) as driver:
            error = None
            try:
                driver.create_input_topic("in", S, S).pipe_record_list(
                    [ks.TestRecord(k, v, 10 * i) for i, (k, v) in enumerate(
                        [("k0", "a"), ("k3", "b"), ("k0", "c"), ("k3", last), ("k0", "d")])])
            except StreamsError as exc:
                error = (str(exc), exc.partition, exc.offset)
            out = [(r.key, r.value) for r in driver.create_output_topic(
                "out", S, S).read_records_to_list()]
            # internal on purpose: the bulk executor itself (which one ran, its per-chunk counters)
            executor = driver._partitioned
            return calls, error, out, (executor.chunks, executor.declined) if executor else None

    clean = run(True, "e")
    assert clean[:3] == run(False, "e")[:3] and clean[3] == (1, 0)  # (in batch)
    assert clean[0] == [("k0", "a"), ("k3", "b"), ("k0", "c"), ("k3", "e"), ("k0", "d")]
    bulk, record = run(True), run(False)
    assert bulk[:3] == record[:3]
    assert bulk[3] == (0, 1)  # (declined: the record path ran the chunk)
    calls, error, out = bulk[:3]
    assert calls == [("k0", "a"), ("k3", "b"), ("k0", "c")]
    assert "no x" in error[0] and error[2] == 1
    assert sorted(out) == [("k0", "a"), ("k0", "c"), ("k3", "b")]
