"""Topologies the Spark tests run on Spark and in the test driver, and input builders."""

from __future__ import annotations

import datetime as dt

import kslab as ks
from kslab import serdes
from kslab.state import StateStore, StoreBuilder

S, L = serdes.String(), serdes.Long()

WORDS = ["kafka", "streams", "spark", "python", "lab", "state", "time", "join"]


def lines(n: int, partitions: int = 2) -> list[tuple[int, str | None, str, int]]:
    """``n`` (partition, key, line, timestamp) rows; timestamps unique and increasing."""
    out = []
    for i in range(n):
        words = " ".join(WORDS[(i * 7 + j * 3) % len(WORDS)] for j in range(1 + i % 4))
        out.append((i % partitions, f"k{i % 5}", words, 1000 + i * 10))
    return out


def word_count() -> ks.Topology:
    """The DSL word count: split, group by word (a repartition), count, to 'counts'."""
    return word_count_on("lines", "counts")


def word_count_on(source: str, sink: str) -> ks.Topology:
    """The DSL word count from ``source`` to ``sink``."""
    b = ks.StreamsBuilder()
    (b.stream(source, ks.Consumed.with_(S, S))
     .flat_map_values(str.split)
     .group_by(lambda key, word: word, ks.Grouped.with_(S, S))
     .count(materialized=ks.Materialized.as_("counts").with_store_type("in_memory"))
     .to_stream()
     .to(sink, ks.Produced.with_(S, L)))
    return b.build()


def stream_table_join() -> ks.Topology:
    """Clicks joined with the latest user region from a table; one sub-topology."""
    b = ks.StreamsBuilder()
    regions = b.table("regions", ks.Consumed.with_(S, S))
    clicks = b.stream("clicks", ks.Consumed.with_(S, S))
    (clicks.left_join(regions, lambda click, region: f"{click}@{region}")
     .to("enriched", ks.Produced.with_(S, S)))
    return b.build()


class KeyByWord(ks.Processor):
    """Re-keys each record by its value."""

    def init(self, context):
        self.context = context

    def process(self, record):
        self.context.forward(record.with_key(record.value))


class CountByKey(ks.Processor):
    """Counts records per key in 'counts'; punctuates the store size on stream time."""

    def init(self, context):
        self.context = context
        self.store = context.get_state_store("counts")
        context.schedule(50, ks.PunctuationType.STREAM_TIME, self.report)

    def process(self, record):
        n = (self.store.get(record.key) or 0) + 1
        self.store.put(record.key, n)
        self.context.forward(record.with_value(n))

    def report(self, timestamp):
        with self.store.all() as entries:
            total = sum(v for _, v in entries)
        self.context.forward(ks.Record(f"__total__{self.context.task_id.partition}", total,
                                       timestamp))


def two_stage() -> ks.Topology:
    """PAPI: re-key, write to a user topic partitioned by word, count from it (two stages)."""
    topo = ks.Topology()
    topo.add_source("src", "clicks", key_serde="string", value_serde="string")
    topo.add_processor("by-word", KeyByWord, "src")
    topo.add_sink("to-rekeyed", "clicks-by-word", "by-word", key_serde="string",
                  value_serde="string")
    topo.add_source("rekeyed", "clicks-by-word", key_serde="string", value_serde="string")
    topo.add_processor("count", CountByKey, "rekeyed")
    topo.add_state_store(ks.Stores.key_value_store_builder(
        ks.Stores.persistent_key_value_store("counts"), S, L), "count")
    topo.add_sink("out", "counts", "count", key_serde="string", value_serde="long")
    return topo


def windowed_counts_final() -> ks.Topology:
    """Counts per key in 60 s tumbling windows (10 s grace), emitted once when closed."""
    from kslab.dsl import TimeWindows
    from kslab.dsl.suppress import BufferConfig, Suppressed

    b = ks.StreamsBuilder()
    (b.stream("clicks", key_serde=S, value_serde=S).group_by_key()
     .windowed_by(TimeWindows.of_size_and_grace(60_000, 10_000))
     .count(ks.Materialized.as_("click-counts"))
     .suppress(Suppressed.until_window_closes(BufferConfig.unbounded()))
     .to_stream().to("click-counts-final"))
    return b.build({"application.id": "app"})


def store_kinds(clicks: str, prices: str, out: str, views: str) -> ks.Topology:
    """One sub-topology with every store kind streaming keeps in Spark state.

    Windowed counts with suppress (window store + suppression buffer) to ``{out}-final``,
    session counts (session store) to ``{out}-sessions``, an as-of join with a versioned table
    (versioned store) to ``{out}-priced``, plain counts (timestamped key-value) to
    ``{out}-totals`` and an outer stream-stream join with ``views`` (window stores keeping
    duplicates, the outer-join store) to ``{out}-joined``.
    """
    from kslab.dsl import JoinWindows, SessionWindows, TimeWindows
    from kslab.dsl.suppress import BufferConfig, Suppressed

    b = ks.StreamsBuilder()
    stream = b.stream(clicks, key_serde=S, value_serde=S)
    grouped = stream.group_by_key()
    (grouped.windowed_by(TimeWindows.of_size_and_grace(60_000, 10_000))
     .count(ks.Materialized.as_("click-counts"))
     .suppress(Suppressed.until_window_closes(BufferConfig.unbounded()))
     .to_stream().to(f"{out}-final"))
    (grouped.windowed_by(SessionWindows.of_inactivity_gap_and_grace(30_000, 5_000))
     .count(ks.Materialized.as_("sessions")).to_stream().to(f"{out}-sessions"))
    table = b.table(prices, materialized=ks.Materialized.as_versioned("prices", 600_000),
                    key_serde=S, value_serde=L)
    stream.join(table, lambda click, price: f"{click}@{price}").to(
        f"{out}-priced", ks.Produced.with_(S, S))
    grouped.count(ks.Materialized.as_("totals")).to_stream().to(
        f"{out}-totals", ks.Produced.with_(S, L))
    seen = b.stream(views, key_serde=S, value_serde=S)
    stream.outer_join(seen, lambda click, view: f"{click}+{view}",
                      JoinWindows.of_time_difference_and_grace(3_000, 1_000),
                      ks.StreamJoined.with_(S, S, S)).to(f"{out}-joined", ks.Produced.with_(S, S))
    return b.build()


class ListStore(StateStore):
    """A user's own store kind (a plain list): Spark state cannot hold it."""

    store_kind = "list"

    def __init__(self, name):
        self._name, self._open, self.items = name, False, []

    name = property(lambda self: self._name)
    persistent = property(lambda self: False)
    is_open = property(lambda self: self._open)

    def init(self, context, root=None):
        self._open = True

    def flush(self):
        """Nothing to flush."""

    def close(self):
        self._open = False

    def snapshot(self):
        return list(self.items)

    def restore_snapshot(self, snapshot):
        self.items = list(snapshot)

    def restore_batch(self, records):
        self.items.extend(records)


class ListStoreBuilder(StoreBuilder):
    """Builds ``ListStore``s."""

    persistent = property(lambda self: False)

    def build(self):
        return ListStore(self.name)


class Remember(ks.Processor):
    """Appends each value to the 'seen' list store."""

    def init(self, context):
        self.store = context.get_state_store("seen")

    def process(self, record):
        self.store.items.append(record.value)


def custom_store() -> ks.Topology:
    """A processor with a store of the user's own kind."""
    topo = ks.Topology().add_source("src", "in", key_serde="string", value_serde="string")
    topo.add_processor("remember", Remember, "src")
    topo.add_state_store(ListStoreBuilder("seen"), "remember")
    return topo


def _clicks_per_value(b: ks.StreamsBuilder) -> ks.KTable:
    """Clicks re-keyed by value (a repartition), counted in 1 s tumbling windows without
    grace: a record that arrives after stream time passed its window is dropped."""
    return (b.stream("clicks", ks.Consumed.with_(S, S))
            .select_key(lambda _key, value: value)
            .group_by_key(ks.Grouped.with_(S, S))
            .windowed_by(ks.TimeWindows.of_size_with_no_grace(1000))
            .count(ks.Materialized.with_store_type("in_memory")))


def _to_counts(table: ks.KTable) -> None:
    """A windowed count to 'counts', keyed ``key@window start``."""
    (table.to_stream()
     .map(lambda window, count: (f"{window.key}@{window.window.start}", count))
     .to("counts", ks.Produced.with_(S, L)))


def late_after_repartition() -> ks.Topology:
    """``_clicks_per_value``, every update to 'counts'."""
    b = ks.StreamsBuilder()
    _to_counts(_clicks_per_value(b))
    return b.build()


def regions_per_user() -> ks.Topology:
    """A table of user -> region, counted per region (``group_by``: a repartition topic that
    carries each update as its old value's subtraction and its new value's addition)."""
    b = ks.StreamsBuilder()
    (b.table("users", ks.Consumed.with_(S, S),
             ks.Materialized.with_store_type("in_memory"))
     .group_by(lambda user, region: (region, user), ks.Grouped.with_(S, S))
     .count(ks.Materialized.with_store_type("in_memory").with_caching_disabled())
     .to_stream()
     .to("regions", ks.Produced.with_(S, L)))
    return b.build()


def suppressed_after_repartition() -> ks.Topology:
    """``_clicks_per_value``, each window's final count once it closes, to 'counts'."""
    from kslab.dsl.suppress import BufferConfig, Suppressed

    b = ks.StreamsBuilder()
    _to_counts(_clicks_per_value(b).suppress(
        Suppressed.until_window_closes(BufferConfig.unbounded())))
    return b.build()


def orders_with_customers(prefix: str = "") -> ks.Topology:
    """Orders joined with a GlobalKTable of customers (left join: unknown customers kept),
    then re-keyed by customer and counted (a repartition after the join); every topic name
    starts with ``prefix``."""
    b = ks.StreamsBuilder()
    customers = b.global_table(f"{prefix}customers", ks.Consumed.with_(S, S), "customers-by-id")
    enriched = b.stream(f"{prefix}orders", ks.Consumed.with_(S, S)).left_join(
        customers, lambda _order_id, order: order.split(":")[0],
        lambda order, customer: f"{order}|{customer or 'unknown'}")
    enriched.to(f"{prefix}enriched", ks.Produced.with_(S, S))
    (enriched.group_by(lambda _order_id, line: line.split("|")[1], ks.Grouped.with_(S, S))
     .count(ks.Materialized.with_store_type("in_memory"))
     .to_stream().to(f"{prefix}per-customer", ks.Produced.with_(S, L)))
    return b.build()


class KeepLatest:
    """A global store's own update processor (``add_global_store``): keeps each key's value
    upper-cased."""

    def init(self, context):
        self.store = context.get_state_store("names")

    def process(self, record):
        self.store.put(record.key, None if record.value is None else record.value.upper())

    def close(self):
        pass


class LookUp:
    """Forwards each record's value with the global store's entry for its value."""

    def init(self, context):
        self.context = context
        self.store = context.get_state_store("names")

    def process(self, record):
        self.context.forward(record.with_value(f"{record.value}={self.store.get(record.value)}"))

    def close(self):
        pass


def papi_global_store(prefix: str = "") -> ks.Topology:
    """The Processor API: a global store with its own update processor, read by a stream;
    every topic name starts with ``prefix``."""
    topo = ks.Topology()
    topo.add_global_store(
        ks.Stores.key_value_store_builder(ks.Stores.in_memory_key_value_store("names"), S, S)
        .with_logging_disabled(),
        "names-source", f"{prefix}names", "names-update", KeepLatest, key_serde=S,
        value_serde=S)
    topo.add_source("src", f"{prefix}ids", key_serde="string", value_serde="string")
    topo.add_processor("look-up", LookUp, "src")
    topo.add_sink("out", f"{prefix}named", "look-up", key_serde="string", value_serde="string")
    return topo


def writes_its_global_topic() -> ks.Topology:
    """A stream written into the topic its own GlobalKTable reads (refused on Spark)."""
    b = ks.StreamsBuilder()
    table = b.global_table("customers", ks.Consumed.with_(S, S))
    stream = b.stream("orders", ks.Consumed.with_(S, S))
    stream.to("customers", ks.Produced.with_(S, S))
    stream.join(table, lambda k, v: v, lambda v, c: c).to("out", ks.Produced.with_(S, S))
    return b.build()


def counted_and_copied() -> ks.Topology:
    """Each click copied to 'copies' and re-keyed by value to be counted (two sink topics)."""
    b = ks.StreamsBuilder()
    clicks = b.stream("clicks", ks.Consumed.with_(S, S))
    clicks.to("copies", ks.Produced.with_(S, S))
    (clicks.group_by(lambda _key, value: value, ks.Grouped.with_(S, S))
     .count(ks.Materialized.with_store_type("in_memory"))
     .to_stream().to("counts", ks.Produced.with_(S, L)))
    return b.build()


# -- the cross-engine test's topologies (test_engines.py): two input topics, "left" and "right",
# String keys and values "<a|b>:<x|y|z>", one output topic "out"


def engines_stream_stream_join() -> ks.Topology:
    """An outer stream-stream join (100 ms each way, 50 ms grace): records that found no
    partner are parked and emitted null-padded once their window closed."""
    b = ks.StreamsBuilder()
    left = b.stream("left", ks.Consumed.with_(S, S))
    right = b.stream("right", ks.Consumed.with_(S, S))
    left.outer_join(right, lambda a, c: f"{a}+{c}",
                    ks.JoinWindows.of_time_difference_and_grace(100, 50)) \
        .to("out", ks.Produced.with_(S, S))
    return b.build()


def engines_table_table_join() -> ks.Topology:
    """A table-table left join."""
    b = ks.StreamsBuilder()
    left = b.table("left", ks.Consumed.with_(S, S))
    right = b.table("right", ks.Consumed.with_(S, S))
    left.left_join(right, lambda a, c: f"{a}+{c}").to_stream() \
        .to("out", ks.Produced.with_(S, S))
    return b.build()


def engines_session_count() -> ks.Topology:
    """Counts in session windows (100 ms gap, 20 ms grace); a merged session's tombstone
    as -1."""
    b = ks.StreamsBuilder()
    (b.stream("left", ks.Consumed.with_(S, S)).group_by_key()
     .windowed_by(ks.SessionWindows.of_inactivity_gap_and_grace(100, 20)).count()
     .to_stream()
     .map(lambda w, c: (f"{w.key}@{w.window.start}-{w.window.end}", -1 if c is None else c))
     .to("out", ks.Produced.with_(S, L)))
    return b.build()


def engines_sliding_count() -> ks.Topology:
    """Counts in sliding windows (100 ms, 20 ms grace)."""
    b = ks.StreamsBuilder()
    (b.stream("left", ks.Consumed.with_(S, S)).group_by_key()
     .windowed_by(ks.SlidingWindows.of_time_difference_and_grace(100, 20)).count()
     .to_stream().map(lambda w, c: (f"{w.key}@{w.window.start}", c))
     .to("out", ks.Produced.with_(S, L)))
    return b.build()


def engines_suppress_final() -> ks.Topology:
    """Re-keyed by value (a repartition), 100 ms windows (10 ms grace), each window's final
    count once it closed."""
    b = ks.StreamsBuilder()
    (b.stream("left", ks.Consumed.with_(S, S))
     .group_by(lambda _key, value: value, ks.Grouped.with_(S, S))
     .windowed_by(ks.TimeWindows.of_size_and_grace(100, 10)).count()
     .suppress(ks.Suppressed.until_window_closes(ks.BufferConfig.unbounded()))
     .to_stream().map(lambda w, c: (f"{w.key}@{w.window.start}", c))
     .to("out", ks.Produced.with_(S, L)))
    return b.build()


def engines_cogroup() -> ks.Topology:
    """Two grouped streams cogrouped into one aggregate."""
    b = ks.StreamsBuilder()
    left = b.stream("left", ks.Consumed.with_(S, S)).group_by_key()
    right = b.stream("right", ks.Consumed.with_(S, S)).group_by_key()
    (left.cogroup(lambda _key, value, total: total + len(value))
     .cogroup(right, lambda _key, _value, total: total + 100)
     .aggregate(lambda: 0, materialized=ks.Materialized.with_value_serde(L))
     .to_stream().to("out", ks.Produced.with_(S, L)))
    return b.build()


def engines_fk_join(left_topic: str = "left", right_topic: str = "right", out: str = "out",
                    out_left: str = "out-left") -> ks.Topology:
    """Foreign-key table-table joins, inner to "out" and left to "out-left", of one left table
    (values "<foreign key>:<n>") and one right table: their sub-topologies feed each other."""
    b = ks.StreamsBuilder()
    left = b.table(left_topic, ks.Consumed.with_(S, S))
    right = b.table(right_topic, ks.Consumed.with_(S, S))
    left.join(right, fk_of, lambda a, c: f"{a}+{c}").to_stream() \
        .to(out, ks.Produced.with_(S, S))
    left.left_join(right, fk_of, lambda a, c: f"{a}+{c}").to_stream() \
        .to(out_left, ks.Produced.with_(S, S))
    return b.build()


def engines_fk_pipeline(left_topic: str = "left", right_topic: str = "right",
                        out: str = "out") -> ks.Topology:
    """A foreign-key join between a repartition and an aggregation: the left stream re-keyed
    (upper case) to a table, deletes included (a repartition before the cycle), joined by
    foreign key with the right table, and the results counted by the right value they got (a
    repartition and a count after it)."""
    b = ks.StreamsBuilder()
    left = b.stream(left_topic, ks.Consumed.with_(S, S)) \
        .select_key(lambda key, _value: key.upper()) \
        .to_table(materialized=ks.Materialized.with_(S, S))
    right = b.table(right_topic, ks.Consumed.with_(S, S))
    (left.join(right, fk_of, lambda a, c: c)
     .group_by(lambda _key, value: (value, value), ks.Grouped.with_(S, S))
     .count()
     .to_stream()
     .to(out, ks.Produced.with_(S, L)))
    return b.build()


def fk_of(value: str) -> str:
    """The foreign key of a left value "<foreign key>:<n>"."""
    return value.split(":")[0]


def engines_versioned_join() -> ks.Topology:
    """A stream joined with a versioned table: the version valid at each record's time."""
    b = ks.StreamsBuilder()
    store = ks.Stores.persistent_versioned_key_value_store("v", dt.timedelta(seconds=10))
    right = b.table("right", ks.Consumed.with_(S, S), ks.Materialized.as_(store))
    b.stream("left", ks.Consumed.with_(S, S)).join(right, lambda a, c: f"{a}+{c}") \
        .to("out", ks.Produced.with_(S, S))
    return b.build()


def engines_table_aggregate() -> ks.Topology:
    """A table re-grouped by its value's prefix (a repartition), aggregated with an adder and
    a subtractor."""
    b = ks.StreamsBuilder()
    (b.table("left", ks.Consumed.with_(S, S))
     .group_by(lambda _key, value: (value.split(":")[0], value), ks.Grouped.with_(S, S))
     .aggregate(lambda: "", lambda _key, value, text: text + value[-1:],
                lambda _key, value, text: text.replace(value[-1:], "", 1))
     .to_stream().to("out", ks.Produced.with_(S, S)))
    return b.build()


def engines_emit_on_close() -> ks.Topology:
    """Counts in 100 ms windows (10 ms grace) emitted once each, when the window closes
    (``emit_strategy(on_window_close())``)."""
    b = ks.StreamsBuilder()
    (b.stream("left", ks.Consumed.with_(S, S)).group_by_key()
     .windowed_by(ks.TimeWindows.of_size_and_grace(100, 10))
     .emit_strategy(ks.EmitStrategy.on_window_close()).count()
     .to_stream().map(lambda w, c: (f"{w.key}@{w.window.start}", c))
     .to("out", ks.Produced.with_(S, L)))
    return b.build()


def engines_countdown() -> ks.Topology:
    """A sub-topology that reads a topic it writes: each record of "in" or "loop" goes to
    "out", and while its value is positive it goes back to "loop" counted down by one."""
    b = ks.StreamsBuilder()
    records = b.stream("in", ks.Consumed.with_(S, S)) \
        .merge(b.stream("loop", ks.Consumed.with_(S, S)))
    records.to("out", ks.Produced.with_(S, S))
    records.filter(lambda _key, value: int(value) > 0) \
        .map_values(lambda value: str(int(value) - 1)).to("loop", ks.Produced.with_(S, S))
    return b.build()


TICK_MS = 500


class CountAndTick(ks.Processor):
    """Counts records per key (forwarding each new count) and, every ``TICK_MS`` of wall
    clock, forwards ``("tick", records seen so far)`` stamped with the punctuation's time."""

    def init(self, context):
        self.context = context
        self.store = context.get_state_store("seen")
        context.schedule(TICK_MS, ks.PunctuationType.WALL_CLOCK_TIME, self.tick)

    def process(self, record):
        count = (self.store.get(record.key) or 0) + 1
        self.store.put(record.key, count)
        self.context.forward(record.with_value(count))

    def tick(self, timestamp):
        with self.store.all() as entries:
            total = sum(count for _, count in entries)
        self.context.forward(ks.Record("tick", total, timestamp))


def ticking_count(source: str, sink: str) -> ks.Topology:
    """PAPI: ``CountAndTick`` from ``source`` to ``sink`` (String keys, Long values)."""
    topology = ks.Topology()
    topology.add_source("in", source, key_serde="string", value_serde="string")
    topology.add_processor("count", CountAndTick, "in")
    topology.add_state_store(ks.Stores.key_value_store_builder(
        ks.Stores.in_memory_key_value_store("seen"), S, L), "count")
    topology.add_sink("out", sink, "count", key_serde="string", value_serde="long")
    return topology
