"""History, snapshot/restore, replay and trace in the test driver."""

from __future__ import annotations

import kslab as ks
from kslab import serdes


class RunningSum(ks.Processor):
    """Keeps a running sum per key in store `sums` and forwards it."""

    def init(self, context):
        self.context = context
        self.store = context.get_state_store("sums")

    def process(self, record):
        total = (self.store.get(record.key) or 0) + record.value
        self.store.put(record.key, total)
        self.context.forward(record.with_value(total))


class RunningSumTimesTen(RunningSum):
    def process(self, record):
        total = (self.store.get(record.key) or 0) + record.value * 10
        self.store.put(record.key, total)
        self.context.forward(record.with_value(total))


def topology(processor=RunningSum):
    topo = ks.Topology()
    topo.add_source("src", "numbers", key_serde="string", value_serde="long")
    topo.add_processor("sum", processor, "src")
    topo.add_state_store(
        ks.Stores.key_value_store_builder(
            ks.Stores.persistent_key_value_store("sums"), serdes.String(), serdes.Long()
        ),
        "sum",
    )
    topo.add_sink("out", "sums", "sum", key_serde="string", value_serde="long")
    return topo


RECORDS = [(f"k{i % 7}", i, i * 3) for i in range(1000)]


def drive(driver, records):
    inp = driver.create_input_topic("numbers")
    for key, value, ts in records:
        inp.pipe_input(key, value, ts)
    return driver.create_output_topic("sums").read_records_to_list()


def test_snapshot_at_500_restore_and_drive_the_rest_again_gives_identical_outputs():
    with ks.TopologyTestDriver(topology()) as driver:
        first_half = drive(driver, RECORDS[:500])
        snap = driver.snapshot()
        second_half = drive(driver, RECORDS[500:])
        assert driver.get_key_value_store("sums").get("k0") == sum(range(0, 1000, 7))
        driver.restore(snap)
        assert driver.get_key_value_store("sums").get("k0") == sum(range(0, 500, 7))
        assert len(driver.history) == 500
        again = drive(driver, RECORDS[500:])
    assert again == second_half
    assert len(first_half) == 500
    assert second_half[-1] == ks.TestRecord("k5", sum(range(5, 1000, 7)), 999 * 3)


def test_restore_rolls_back_unread_output_and_stream_time():
    with ks.TopologyTestDriver(topology()) as driver:
        inp = driver.create_input_topic("numbers")
        inp.pipe_input("a", 1, 10)
        snap = driver.snapshot()
        inp.pipe_input("a", 2, 20)
        assert driver.tasks[ks.TaskId(0, 0)].stream_time == 20
        driver.restore(snap)
        assert driver.tasks[ks.TaskId(0, 0)].stream_time == 10
        out = driver.create_output_topic("sums")
        assert out.read_key_values_to_list() == [("a", 1)]


def test_history_records_bytes_and_clock_advances_in_order():
    with ks.TopologyTestDriver(topology()) as driver:
        inp = driver.create_input_topic("numbers")
        inp.pipe_input("a", 1, 10)
        driver.advance_wall_clock_time(50)
        assert [(s.kind, s.topic, s.key, s.value, s.timestamp) for s in driver.history] == [
            ("record", "numbers", b"a", b"\x00" * 7 + b"\x01", 10),
            ("wall_clock", None, None, None, 50),
        ]


def test_replay_on_changed_topology_gives_new_outputs_for_same_history():
    with ks.TopologyTestDriver(topology()) as driver:
        original = drive(driver, RECORDS[:20])
        with driver.replay(topology(RunningSumTimesTen)) as changed:
            outputs = changed.create_output_topic("sums").read_records_to_list()
        with driver.replay() as same:
            replayed = same.create_output_topic("sums").read_records_to_list()
        with driver.replay(until=5) as prefix:
            five = prefix.create_output_topic("sums").read_records_to_list()
    assert replayed == original
    assert [r.value for r in outputs] == [r.value * 10 for r in original]
    assert five == original[:5]


def test_trace_lists_nodes_forwards_and_store_writes_per_record():
    with ks.TopologyTestDriver(topology(), trace=True) as driver:
        inp = driver.create_input_topic("numbers")
        inp.pipe_input("a", 5, 1)
        inp.pipe_input("a", 2, 2)
        trace = driver.trace
        assert [(e.step, e.node, e.event, e.key, e.value, e.detail) for e in trace] == [
            (0, "src", "receive", "a", 5, "numbers"),
            (0, "sum", "receive", "a", 5, "src"),
            (0, "sum", "put", "a", 5, "sums"),
            (0, "out", "receive", "a", 5, "sum"),
            (0, "out", "send", b"a", b"\x00" * 7 + b"\x05", "sums"),
            (1, "src", "receive", "a", 2, "numbers"),
            (1, "sum", "receive", "a", 2, "src"),
            (1, "sum", "put", "a", 7, "sums"),
            (1, "out", "receive", "a", 7, "sum"),
            (1, "out", "send", b"a", b"\x00" * 7 + b"\x07", "sums"),
        ]
        assert trace.path(1) == ["src", "sum", "out"]
        frame = trace.to_pandas()
        assert list(frame.columns) == [
            "step", "task", "node", "event", "key", "value", "timestamp", "detail"
        ]
        assert len(frame) == 10
        # the table shows what the sink sent as a person reads it: through the sink's serdes
        sends = frame[frame["event"] == "send"]
        assert sends[["key", "value", "detail"]].values.tolist() == [["a", 5, "sums"],
                                                                       ["a", 7, "sums"]]
        assert trace.for_step(1).to_polars().filter(event="send").rows() == [
            (1, "0_0", "out", "send", "a", 7, 2, "sums")]


def test_trace_steps_each_record_of_one_piped_list():
    """Records piped in one list go through one chunk: each still gets its own step."""
    with ks.TopologyTestDriver(topology(), trace=True) as driver:
        driver.create_input_topic("numbers").pipe_key_value_list([("a", 5), ("b", 2), ("a", 1)],
                                                                 0, 1)
        trace = driver.trace
        assert [(e.step, e.node, e.key, e.value) for e in trace if e.event == "put"] == [
            (0, "sum", "a", 5), (1, "sum", "b", 2), (2, "sum", "a", 6)]
        assert trace.path(2) == ["src", "sum", "out"]
