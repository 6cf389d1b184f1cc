"""Per-store restore listeners beside the global one, against the LocalBroker.

A store hears its own changelog restores either through its builder
(``with_restore_listener``) or, as Java's custom stores do, by registering a notifying restore
callback in its ``init`` (``context.register(store, callback)``). Both stores here are in-memory,
so a restart restores each changelog partition from offset 0, and the calls can be checked
against the records the changelog holds.
"""

from __future__ import annotations

from collections import Counter as Tally

import pytest
from apps import Counter
from runtime_fixtures import wait_for

import kslab as ks
from kslab import serdes
from kslab.errors import StoreError
from kslab.state.builders import KeyValueStoreBuilder
from kslab.state.keyvalue import KeyValueStore


class Calls:
    """Records every restore call, tagged with the listener's name."""

    def __init__(self, name: str, log: list[tuple]) -> None:
        self.name = name
        self.log = log

    def on_restore_start(self, tp, store, start, end):
        self.log.append((self.name, "start", tp, store, start, end))

    def on_batch_restored(self, tp, store, last, count):
        self.log.append((self.name, "batch", tp, store, last, count))

    def on_restore_end(self, tp, store, total):
        self.log.append((self.name, "end", tp, store, total))


class SeenStore(KeyValueStore):
    """A custom store that registers its own restore callback in ``init``, as Java's do."""

    listener: Calls | None = None

    def init(self, context, root=None):
        super().init(context, root)
        context.register(self, type(self).listener)


class SeenBuilder(KeyValueStoreBuilder):
    def build(self):
        return SeenStore(self.name, self.supplier.get(), self.key_serde, self.value_serde,
                         logging_enabled=self.logging_enabled)


class Seen(ks.Processor):
    """Keeps the last value per key in 'seen'."""

    def init(self, context):
        self.store = context.get_state_store("seen")

    def process(self, record):
        self.store.put(record.key, record.value)


def _app(source: str, counts_listener: Calls) -> ks.Topology:
    topo = ks.Topology()
    topo.add_source("in", source, key_serde=serdes.String(), value_serde=serdes.String())
    topo.add_processor("count", Counter, "in")
    topo.add_processor("seen", Seen, "in")
    topo.add_state_store(ks.Stores.key_value_store_builder(
        ks.Stores.in_memory_key_value_store("counts"), serdes.String(), serdes.Long())
        .with_restore_listener(counts_listener), "count")
    topo.add_state_store(SeenBuilder(ks.Stores.in_memory_key_value_store("seen"),
                                     serdes.String(), serdes.String()), "seen")
    return topo


def test_a_listener_without_restore_methods_is_refused_naming_the_store():
    builder = ks.Stores.key_value_store_builder(ks.Stores.in_memory_key_value_store("counts"))
    with pytest.raises(StoreError, match="store 'counts' has none of on_restore_start"):
        builder.with_restore_listener(object())
    SeenStore.listener = object()  # type: ignore[assignment]
    try:
        with pytest.raises(StoreError, match="store 'seen' has none of on_restore_start"):
            ks.TopologyTestDriver(_app("in", Calls("counts", [])), {"application.id": "x"})
    finally:
        SeenStore.listener = None


def test_each_store_hears_its_own_restores_beside_the_global_listener(kafka):
    source = kafka.create(kafka.name("in"), 2)
    config = kafka.config("own-restore", statestore__cache__max__bytes=0)
    app_id = config["application.id"]
    keys = {0: [f"a{i % 7}" for i in range(120)], 1: [f"b{i % 5}" for i in range(80)]}
    for partition, records in keys.items():
        kafka.produce(source, [(k.encode(), k.encode()) for k in records], partition=partition)
    expected = Tally(keys[0] + keys[1])

    def run(log: list[tuple]) -> ks.KafkaStreams:
        SeenStore.listener = Calls("seen", log)
        streams = kafka.track(ks.KafkaStreams(_app(source, Calls("counts", log)), config))
        streams.set_global_state_restore_listener(Calls("global", log))
        streams.start()
        assert wait_for(lambda: streams.state is ks.KafkaStreams.State.RUNNING
                        and all(streams.store("counts").get(k) == n
                                for k, n in expected.items()), timeout=60)
        return streams

    first: list[tuple] = []
    assert run(first).close(timeout=20_000)
    assert [c for c in first if c[1] == "batch"] == []  # empty changelogs: nothing restored
    changelogs = {store: f"{app_id}-{store}-changelog" for store in ("counts", "seen")}
    on_disk = {store: kafka.read(topic, 0, partitions=2, settle=2.0)
               for store, topic in changelogs.items()}
    written = {(store, p): sum(1 for r in records if r[2] == p)
               for store, records in on_disk.items() for p in (0, 1)}
    assert all(n > 0 for n in written.values()), written

    again: list[tuple] = []
    try:
        run(again)
    finally:
        SeenStore.listener = None
    for (store, p), count in written.items():
        tp = (changelogs[store], p)
        for name in ("global", store):  # the global listener first, then the store's own
            calls = [c[1:] for c in again if c[0] == name and c[2] == tp]
            assert calls[0][:4] == ("start", tp, store, 0)
            assert calls[-1] == ("end", tp, store, count)
            batches = calls[1:-1]
            assert {c[0] for c in batches} == {"batch"}
            assert sum(c[4] for c in batches) == count  # every record once
            assert batches[-1][3] == count - 1  # the last record's offset (no txn markers)
        other = "seen" if store == "counts" else "counts"
        assert not [c for c in again if c[0] == other and c[3] == store]
    order = [c[0] for c in again if c[1] == "start" and c[2] == (changelogs["counts"], 0)]
    assert order == ["global", "counts"]


def test_a_global_table_s_bootstrap_is_its_restore(kafka):
    """The global stores' bootstrap tells the client's listener and the store's own one (here
    given through ``Materialized``), per partition of the global topic."""
    topic = kafka.create(kafka.name("global"), 2)
    source, sink = kafka.create(kafka.name("in")), kafka.create(kafka.name("out"))
    sizes = {0: 30, 1: 12}
    for partition, n in sizes.items():
        kafka.produce(topic, [(f"g{partition}-{i}".encode(), b"v") for i in range(n)],
                      partition=partition)
    log: list[tuple] = []
    builder = ks.StreamsBuilder()
    builder.global_table(topic, materialized=ks.Materialized.as_("glob")
                         .with_restore_listener(Calls("glob", log)),
                         key_serde=serdes.String(), value_serde=serdes.String())
    builder.stream(source, key_serde=serdes.String(), value_serde=serdes.String()).to(sink)
    streams = kafka.track(ks.KafkaStreams(builder, kafka.config("global-restore")))
    streams.set_global_state_restore_listener(Calls("global", log))
    streams.start()  # returns once the global stores are filled
    for partition, n in sizes.items():
        tp = (topic, partition)
        for name in ("global", "glob"):
            calls = [c[1:] for c in log if c[0] == name and c[2] == tp]
            assert calls[0][:4] == ("start", tp, "glob", 0)
            assert calls[-1] == ("end", tp, "glob", n)
            assert sum(c[4] for c in calls[1:-1]) == n
            assert calls[-2][3] == n - 1  # the last record's offset
    assert [c[0] for c in log[:2]] == ["global", "glob"]
    with pytest.raises(StoreError, match="store 'glob' has none of on_restore_start"):
        ks.Materialized.as_("glob").with_restore_listener(object())
