"""State on a real broker: checkpoints, restart, restore from the changelog, global stores."""

from __future__ import annotations

import pytest
from apps import final_counts, lines, reference_counts, word_count_papi
from runtime_fixtures import wait_for

import kslab as ks
from kslab import serdes
from kslab.runtime._state import Checkpoint


def _run_until(kafka, topology, config, sink, expected):
    streams = kafka.track(ks.KafkaStreams(topology, config))
    streams.start()
    got = kafka.read_until(sink, lambda r: final_counts(r) == expected)
    assert final_counts(got) == expected
    return streams


def _restored(streams):
    return sum(t["restore-total"] for t in streams.metrics()["threads"].values())


@pytest.mark.parametrize("persistent", [True, False], ids=["rocksdb", "memory"])
def test_restart_continues_without_losing_a_count(kafka, persistent):
    source, sink = kafka.create(kafka.name("in")), kafka.create(kafka.name("out"))
    first, second = lines(150, seed=1), lines(150, seed=2)
    config = kafka.config("restart")
    topo = word_count_papi(source, sink, persistent=persistent)
    kafka.produce(source, [(None, t.encode()) for t in first])
    streams = _run_until(kafka, topo, config, sink, reference_counts(first))
    assert streams.close(timeout=10_000)
    checkpoint = Checkpoint(streams.state_root / "0_0" / ".checkpoint").read()
    changelog = f"{config['application.id']}-counts-changelog"
    if persistent:
        assert (changelog, 0) in checkpoint
    kafka.produce(source, [(None, t.encode()) for t in second])
    again = _run_until(kafka, word_count_papi(source, sink, persistent=persistent), config, sink,
                       reference_counts(first + second))
    # a persistent store replays at most the changelog tail after its checkpoint
    restored = _restored(again)
    distinct = len(reference_counts(first))
    assert restored < distinct if persistent else restored >= distinct


def test_wiped_state_dir_is_restored_from_the_changelog(kafka):
    source, sink = kafka.create(kafka.name("in")), kafka.create(kafka.name("out"))
    first, second = lines(150, seed=3), lines(150, seed=4)
    config = kafka.config("wipe")
    kafka.produce(source, [(None, t.encode()) for t in first])
    streams = _run_until(kafka, word_count_papi(source, sink), config, sink,
                         reference_counts(first))
    streams.close(timeout=10_000)
    streams.cleanup()
    assert not (streams.state_root / "0_0").exists()
    kafka.produce(source, [(None, t.encode()) for t in second])
    again = _run_until(kafka, word_count_papi(source, sink), config, sink,
                       reference_counts(first + second))
    assert _restored(again) >= len(reference_counts(first))
    assert again.store("counts").get("w1") == reference_counts(first + second).get("w1")


class Lookup(ks.Processor):
    """Appends the global table's value for the record's key."""

    def init(self, context):
        self.context = context
        self.table = context.get_state_store("names")

    def process(self, record):
        self.context.forward(record.with_value(f"{record.value}:{self.table.get(record.key)}"))


class GlobalUpdater(ks.Processor):
    """Writes the global topic into the global store."""

    def init(self, context):
        self.store = context.get_state_store("names")

    def process(self, record):
        self.store.put(record.key, record.value)


def test_global_store_is_filled_before_processing_and_kept_current(kafka):
    table = kafka.create(kafka.name("names"), 2)
    source, sink = kafka.create(kafka.name("in")), kafka.create(kafka.name("out"))
    kafka.produce(table, [(f"k{i}".encode(), f"name{i}".encode()) for i in range(50)])
    kafka.produce(source, [(f"k{i}".encode(), b"v") for i in range(50)])
    s = serdes.String()
    topo = (
        ks.Topology()
        .add_global_store(
            ks.Stores.key_value_store_builder(ks.Stores.in_memory_key_value_store("names"), s, s)
            .with_logging_disabled(),
            "names-source", table, "names-updater", GlobalUpdater, key_serde=s, value_serde=s)
        .add_source("src", source, key_serde=s, value_serde=s)
        .add_processor("lookup", Lookup, "src")
        .add_sink("out", sink, "lookup", key_serde=s, value_serde=s)
    )
    streams = kafka.track(ks.KafkaStreams(topo, kafka.config("global")))
    streams.start()
    got = kafka.read(sink, 50)
    assert sorted(v.decode() for _, v, _ in got) == sorted(f"v:name{i}" for i in range(50))
    kafka.produce(table, [(b"k1", b"renamed")])
    assert wait_for(lambda: streams.store("names").get("k1") == "renamed")
