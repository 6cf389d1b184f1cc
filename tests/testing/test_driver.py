"""The driver's Java-compatible surface: pipes, reads, clocks, routing, stores, frames."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pandas as pd
import polars as pl

import kslab as ks
from kslab import serdes


class Route(ks.Processor):
    """Sends even values to child 'even', others to 'odd'."""

    def init(self, context):
        self.context = context

    def process(self, record):
        child = "even" if record.value % 2 == 0 else "odd"
        self.context.forward(record, child_name=child)


class WallClockTicker(ks.Processor):
    def init(self, context):
        self.context = context
        context.schedule(timedelta(seconds=1), ks.PunctuationType.WALL_CLOCK_TIME, self.tick)
        self.cancellable = context.schedule(
            500, ks.PunctuationType.WALL_CLOCK_TIME, self.half
        )

    def tick(self, ts):
        self.context.forward(ks.Record("tick", ts, ts))

    def half(self, ts):
        self.context.forward(ks.Record("half", ts, ts))
        if ts >= 2000:
            self.cancellable.cancel()

    def process(self, record):
        pass


class Upper(ks.FixedKeyProcessor):
    def init(self, context):
        self.context = context

    def process(self, record):
        self.context.forward(record.with_value(record.value.upper()))


class ReKey(ks.FixedKeyProcessor):
    def init(self, context):
        self.context = context

    def process(self, record):
        self.context.forward(ks.Record("other", record.value, record.timestamp))


def passthrough(key_serde="string", value_serde="string"):
    topo = ks.Topology()
    topo.add_source("src", "in", key_serde=key_serde, value_serde=value_serde)
    topo.add_sink("out", "out", "src", key_serde=key_serde, value_serde=value_serde)
    return topo


def test_pipe_forms_and_topic_clock():
    with ks.TopologyTestDriver(passthrough()) as driver:
        inp = driver.create_input_topic("in", start_timestamp=100, auto_advance=10)
        out = driver.create_output_topic("out")
        inp.pipe_input("v1")
        inp.pipe_input("k", "v2")
        inp.pipe_input("k", "v3", 5)
        inp.advance_time(1000)
        inp.pipe_input("k", "v4", headers=[("h", b"1")])
        inp.pipe_value_list(["a", "b"])
        inp.pipe_key_value_list([("x", "1"), ks.KeyValue("y", "2")], 0, 7)
        inp.pipe_record_list([ks.TestRecord("r", "3", 42)])
        inp.pipe_input("dt", "v5", datetime(1970, 1, 1, 0, 0, 1, tzinfo=UTC))
        records = out.read_records_to_list()
    assert [(r.key, r.value, r.timestamp) for r in records] == [
        (None, "v1", 100), ("k", "v2", 110), ("k", "v3", 5), ("k", "v4", 1120),
        (None, "a", 1130), (None, "b", 1140), ("x", "1", 0), ("y", "2", 7), ("r", "3", 42),
        ("dt", "v5", 1000),
    ]
    assert records[3].headers == ks.Headers([("h", b"1")])
    assert records[3].headers.last_header("h").value == b"1"


def test_child_name_routing_and_produced_topics():
    topo = ks.Topology()
    topo.add_source("src", "in", key_serde="string", value_serde="long")
    topo.add_processor("route", Route, "src")
    topo.add_sink("even", "evens", "route", key_serde="string", value_serde="long")
    topo.add_sink("odd", "odds", "route", key_serde="string", value_serde="long")
    with ks.TopologyTestDriver(topo) as driver:
        inp = driver.create_input_topic("in")
        for i in range(5):
            inp.pipe_input("k", i, i)
        assert driver.create_output_topic("evens").read_values_to_list() == [0, 2, 4]
        assert driver.create_output_topic("odds").read_values_to_list() == [1, 3]
        assert driver.produced_topic_names() == {"evens", "odds"}


def test_wall_clock_punctuation_only_on_advance_and_cancel():
    topo = ks.Topology()
    topo.add_source("src", "in")
    topo.add_processor("p", WallClockTicker, "src")
    topo.add_sink("out", "out", "p", key_serde="string", value_serde="long")
    with ks.TopologyTestDriver(topo, initial_wall_clock_time=0) as driver:
        out = driver.create_output_topic("out")
        driver.create_input_topic("in").pipe_input("k", "v", 10_000)
        assert out.is_empty()  # records never fire wall-clock punctuation
        driver.advance_wall_clock_time(499)
        assert out.is_empty()
        driver.advance_wall_clock_time(1)
        assert out.read_key_values_to_list() == [("half", 500)]
        driver.advance_wall_clock_time(1500)  # at 2000: both due; 'half' missed 1000, 1500
        assert out.read_key_values_to_list() == [("tick", 2000), ("half", 2000)]
        driver.advance_wall_clock_time(1000)  # 'half' cancelled itself at 2000
        assert out.read_key_values_to_list() == [("tick", 3000)]


def test_fixed_key_processor_changes_value_and_cannot_change_key():
    topo = ks.Topology()
    topo.add_source("src", "in", key_serde="string", value_serde="string")
    topo.add_processor_node("up", Upper, ["src"], fixed_key=True)
    topo.add_sink("out", "out", "up", key_serde="string", value_serde="string")
    with ks.TopologyTestDriver(topo) as driver:
        driver.create_input_topic("in").pipe_input("k", "abc", 0)
        assert driver.create_output_topic("out").read_key_value() == ("k", "ABC")

    bad = ks.Topology()
    bad.add_source("src", "in")
    bad.add_processor_node("rekey", ReKey, ["src"], fixed_key=True)
    bad.add_sink("out", "out", "rekey")
    with ks.TopologyTestDriver(bad) as driver:
        try:
            driver.create_input_topic("in").pipe_input("k", "abc", 0)
        except ks.StreamsError as err:
            assert "FixedKeyProcessor 'rekey' forwarded a Record" in str(err)
        else:
            raise AssertionError("re-keying in a FixedKeyProcessor must fail")


def test_record_metadata_and_task_id_inside_process():
    seen = []

    class Meta(ks.Processor):
        def init(self, context):
            self.context = context
            seen.append(("init", context.task_id, context.application_id))

        def process(self, record):
            seen.append((self.context.record_metadata(), self.context.current_stream_time_ms()))

    topo = ks.Topology().add_source("src", "in").add_processor("m", Meta, "src")
    with ks.TopologyTestDriver(topo, {"application.id": "app"}) as driver:
        inp = driver.create_input_topic("in")
        inp.pipe_input("k", "v", 7)
        inp.pipe_input("k", "v", 3)
    assert seen == [
        ("init", ks.TaskId(0, 0), "app"),
        (ks.RecordMetadata("in", 0, 0), 7),
        (ks.RecordMetadata("in", 0, 1), 7),
    ]


def test_internal_topic_sink_loops_back_into_source():
    topo = ks.Topology()
    topo.add_source("src", "in", key_serde="string", value_serde="string")
    topo.add_sink("to-mid", "mid", "src", key_serde="string", value_serde="string")
    topo.add_source("mid-src", "mid", key_serde="string", value_serde="string")
    topo.add_sink("out", "out", "mid-src", key_serde="string", value_serde="string")
    with ks.TopologyTestDriver(topo) as driver:
        driver.create_input_topic("in").pipe_input("k", "v", 3)
        assert driver.create_output_topic("out").read_record() == ks.TestRecord("k", "v", 3)
        assert driver.create_output_topic("mid").read_key_value() == ("k", "v")


def test_global_store_is_filled_from_its_topic_and_readable_by_processors():
    class Fill(ks.Processor):
        def init(self, context):
            self.store = context.get_state_store("users")

        def process(self, record):
            self.store.put(record.key, record.value)

    class Enrich(ks.Processor):
        def init(self, context):
            self.context = context
            self.users = context.get_state_store("users")

        def process(self, record):
            name = self.users.get(record.key) or "unknown"
            self.context.forward(record.with_value(f"{record.value} by {name}"))

    users = ks.Stores.key_value_store_builder(
        ks.Stores.in_memory_key_value_store("users"), "string", "string"
    ).with_logging_disabled()
    topo = ks.Topology()
    topo.add_global_store(users, "users-src", "users", "users-fill", Fill,
                          key_serde="string", value_serde="string")
    topo.add_source("orders", "orders", key_serde="string", value_serde="string")
    topo.add_processor("enrich", Enrich, "orders")
    topo.add_sink("out", "enriched", "enrich", key_serde="string", value_serde="string")
    with ks.TopologyTestDriver(topo) as driver:
        driver.create_input_topic("users").pipe_input("u1", "Ada", 0)
        orders = driver.create_input_topic("orders")
        orders.pipe_input("u1", "book", 1)
        orders.pipe_input("u2", "pen", 2)
        assert driver.create_output_topic("enriched").read_values_to_list() == [
            "book by Ada", "pen by unknown"
        ]
        assert driver.get_key_value_store("users").get("u1") == "Ada"


def test_changelog_records_are_kept_for_logged_stores():
    class Put(ks.Processor):
        def init(self, context):
            self.store = context.get_state_store("s")

        def process(self, record):
            self.store.put(record.key, record.value)

    topo = ks.Topology().add_source("src", "in", key_serde="string", value_serde="long")
    topo.add_processor("put", Put, "src")
    topo.add_state_store(
        ks.Stores.key_value_store_builder(ks.Stores.in_memory_key_value_store("s"),
                                          "string", "long"),
        "put",
    )
    with ks.TopologyTestDriver(topo, {"application.id": "app"}) as driver:
        inp = driver.create_input_topic("in")
        inp.pipe_input("a", 1, 10)
        inp.pipe_input("a", None, 20)
        assert driver.produced_topic_names() == {"app-s-changelog"}
        changelog = driver.create_output_topic("app-s-changelog", serdes.String(),
                                               serdes.Long())
        assert changelog.read_records_to_list() == [
            ks.TestRecord("a", 1, 10), ks.TestRecord("a", None, 20)
        ]


def test_pipe_dataframe_pandas_and_polars_with_dict_values_and_datetimes():
    topo = passthrough("string", "json")
    frame = pd.DataFrame({
        "key": ["a", "b"],
        "amount": [5, 7],
        "country": ["NL", "FR"],
        "timestamp": pd.to_datetime(["1970-01-01T00:00:01", "1970-01-01T00:00:02"]),
    })
    with ks.TopologyTestDriver(topo) as driver:
        assert driver.create_input_topic("in").pipe_dataframe(frame, value=None) == 2
        out = driver.create_output_topic("out").to_pandas(expand=True)
    assert out.to_dict("list") == {
        "key": ["a", "b"], "amount": [5, 7], "country": ["NL", "FR"],
        "timestamp": [1000, 2000], "headers": [[], []],
    }
    polars_frame = pl.DataFrame({"key": ["x"], "value": [{"n": 1}], "timestamp": [9]})
    with ks.TopologyTestDriver(topo) as driver:
        driver.create_input_topic("in").pipe_dataframe(polars_frame)
        out = driver.create_output_topic("out").to_polars()
    assert out.to_dicts() == [{"key": "x", "value": {"n": 1}, "timestamp": 9, "headers": []}]


def test_run_merges_frames_in_timestamp_order():
    topo = ks.Topology()
    topo.add_source("a", "left", key_serde="string", value_serde="string")
    topo.add_source("b", "right", key_serde="string", value_serde="string")
    topo.add_sink("out", "out", "a", "b", key_serde="string", value_serde="string")
    left = pd.DataFrame({"key": ["l1", "l2"], "value": ["L1", "L2"], "timestamp": [1, 5]})
    right = pd.DataFrame({"key": ["r1"], "value": ["R1"], "timestamp": [3]})
    with ks.TopologyTestDriver(topo) as driver:
        result = driver.run({"left": left, "right": right})
    assert list(result) == ["out"]
    assert result["out"]["value"].tolist() == ["L1", "R1", "L2"]
    assert result["out"]["timestamp"].tolist() == [1, 3, 5]



def test_run_reads_each_frame_in_row_order_so_a_late_row_stays_late():
    # Kafka merges partitions by their head record's timestamp and never reorders a partition:
    # left's row at 2 comes after its row at 9, and after right's row at 4 (smaller than 9).
    topo = ks.Topology()
    topo.add_source("a", "left", key_serde="string", value_serde="string")
    topo.add_source("b", "right", key_serde="string", value_serde="string")
    topo.add_sink("out", "out", "a", "b", key_serde="string", value_serde="string")
    left = pd.DataFrame({"key": ["k"] * 3, "value": ["L1", "L9", "L2"], "timestamp": [1, 9, 2]})
    right = pd.DataFrame({"key": ["k"] * 2, "value": ["R4", "R10"], "timestamp": [4, 10]})
    with ks.TopologyTestDriver(topo) as driver:
        result = driver.run({"left": left, "right": right})
    assert result["out"]["value"].tolist() == ["L1", "R4", "L9", "L2", "R10"]
    assert result["out"]["timestamp"].tolist() == [1, 4, 9, 2, 10]

def test_store_frames():
    class Put(ks.Processor):
        def init(self, context):
            self.store = context.get_state_store("s")

        def process(self, record):
            self.store.put(record.key, record.value)

    topo = ks.Topology().add_source("src", "in", key_serde="string", value_serde="long")
    topo.add_processor("put", Put, "src")
    topo.add_state_store(
        ks.Stores.key_value_store_builder(ks.Stores.in_memory_key_value_store("s"),
                                          "string", "long"),
        "put",
    )
    with ks.TopologyTestDriver(topo) as driver:
        driver.create_input_topic("in").pipe_key_value_list([("b", 2), ("a", 1)])
        frame = driver.get_key_value_store("s").to_pandas()
    assert frame.to_dict("list") == {"key": ["a", "b"], "value": [1, 2]}


def test_store_restored_from_the_changelog_the_driver_kept():
    class Sum(ks.Processor):
        def init(self, context):
            self.context = context
            self.store = context.get_state_store("sums")

        def process(self, record):
            old = self.store.get(record.key)
            total = (old.value if old else 0) + record.value
            self.store.put(record.key, ks.ValueAndTimestamp(total, record.timestamp))
            self.context.forward(record.with_value(total))

    def topology():
        topo = ks.Topology().add_source("src", "in", key_serde="string", value_serde="long")
        topo.add_processor("sum", Sum, "src")
        topo.add_state_store(
            ks.Stores.timestamped_key_value_store_builder(
                ks.Stores.persistent_timestamped_key_value_store("sums"), "string", "long"
            ),
            "sum",
        )
        topo.add_sink("out", "out", "sum", key_serde="string", value_serde="long")
        return topo

    config = {"application.id": "app"}
    with ks.TopologyTestDriver(topology(), config) as first:
        inp = first.create_input_topic("in")
        for key, value, ts in [("a", 1, 10), ("b", 5, 20), ("a", 2, 30)]:
            inp.pipe_input(key, value, ts)
        changelog = first.create_output_topic("app-sums-changelog", "string", "long")
        records = changelog.read_records_to_list()
    # the changelog holds plain values stamped with the value's timestamp, as Kafka writes it
    assert records == [ks.TestRecord("a", 1, 10), ks.TestRecord("b", 5, 20),
                       ks.TestRecord("a", 3, 30)]
    with ks.TopologyTestDriver(topology(), config) as second:
        assert second.restore_from_changelog("sums", records) == 3
        store = second.get_timestamped_key_value_store("sums")
        assert store.get("a") == ks.ValueAndTimestamp(3, 30)
        second.create_input_topic("in").pipe_input("a", 4, 40)
        assert second.create_output_topic("out").read_key_value() == ("a", 7)


def test_supplier_that_declares_its_stores_gets_them_connected():
    store = ks.Stores.key_value_store_builder(
        ks.Stores.in_memory_key_value_store("seen"), "string", "long"
    )

    class Dedupe(ks.Processor):
        def init(self, context):
            self.context = context
            self.seen = context.get_state_store("seen")

        def process(self, record):
            if self.seen.put_if_absent(record.key, record.timestamp) is None:
                self.context.forward(record)

    class DedupeSupplier:
        """Java's ConnectedStoreProvider: the supplier owns its store."""

        def __call__(self):
            return Dedupe()

        def stores(self):
            return [store]

    topo = ks.Topology().add_source("src", "in", key_serde="string", value_serde="string")
    topo.add_processor("dedupe", DedupeSupplier(), "src")
    topo.add_sink("out", "out", "dedupe", key_serde="string", value_serde="string")
    assert topo.nodes["dedupe"].stores == ["seen"]
    with ks.TopologyTestDriver(topo) as driver:
        driver.create_input_topic("in").pipe_key_value_list(
            [("a", "1"), ("b", "2"), ("a", "3")]
        )
        assert driver.create_output_topic("out").read_values_to_list() == ["1", "2"]


class CommitRequester(ks.Processor):
    """Asks for a commit on every record whose value is "commit"; forwards everything."""

    def init(self, context):
        self.context = context

    def process(self, record):
        if record.value == "commit":
            self.context.commit()
        self.context.forward(record)


def test_a_requested_commit_is_done_after_the_record_that_asked_for_it():
    topo = ks.Topology()
    topo.add_source("src", "in", key_serde=serdes.String(), value_serde=serdes.String())
    topo.add_processor("req", CommitRequester, "src")
    topo.add_sink("out", "out", "req", key_serde=serdes.String(), value_serde=serdes.String())
    with ks.TopologyTestDriver(topo) as driver:
        (task,) = driver.tasks.values()
        inp = driver.create_input_topic("in")
        inp.pipe_value_list(["a", "commit", "b"])
        assert task.commit_requested is False
        inp.pipe_input("commit")
        assert task.commit_requested is False
        assert driver.create_output_topic("out").read_values_to_list() == [
            "a", "commit", "b", "commit"]


def test_the_drivers_own_state_directory_is_in_memory_when_there_is_room_and_goes_at_close():
    """Without ``state.dir`` the driver's RocksDB stores live in a directory of its own under
    /dev/shm (RocksDB syncs to disk as it creates a database: a RAM-backed tmpfs spares that)
    when /dev/shm has 2 GiB free, else under the system temp directory; close removes it."""
    import os
    import tempfile
    import uuid
    from pathlib import Path

    shm = Path("/dev/shm")
    roomy = False
    if shm.is_dir() and os.access(shm, os.W_OK):
        room = os.statvfs(shm)
        roomy = room.f_bavail * room.f_frsize >= 2 << 30
    parent = shm if roomy else Path(tempfile.gettempdir())
    app = f"own-state-{uuid.uuid4().hex}"  # (other tests' drivers come and go meanwhile)
    builder = ks.StreamsBuilder()
    builder.stream("words", ks.Consumed.with_(serdes.String(), serdes.String())) \
        .group_by_key().count(ks.Materialized.as_("counts")).to_stream() \
        .to("counts", ks.Produced.with_(serdes.String(), serdes.Long()))
    driver = ks.TopologyTestDriver(builder.build(), {"application.id": app})
    driver.create_input_topic("words", serdes.String(), serdes.String()).pipe_input("a", "x")
    made = list(parent.glob(f"kslab-driver-*/{app}"))
    assert len(made) == 1
    own = made[0].parent
    assert [path.name for path in own.rglob("counts")] == ["counts"]  # the RocksDB store
    assert driver.get_key_value_store("counts").get("a") == 1
    driver.close()
    assert not own.exists()
