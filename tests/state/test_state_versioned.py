"""Versioned key-value stores (KIP-889) and versioned tables joined as of the stream time."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from state_fixtures import FakeContext

import kslab as ks
from kslab import serdes
from kslab.records import VersionedRecord
from kslab.state import Stores
from kslab.state.versioned import PUT_RETURN_CODE_NOT_PUT


@pytest.fixture
def store(tmp_path: Path):
    builder = Stores.versioned_key_value_store_builder(
        Stores.persistent_versioned_key_value_store("v", 100), "string", "long")
    context = FakeContext(state_dir=tmp_path / "0_0")
    s = builder.build()
    s.init(context)
    yield s, context
    s.close()


def test_versions_and_as_of_reads(store) -> None:
    store, _ = store
    assert store.put("k", 1, 10) == -1
    assert store.put("k", 3, 30) == -1
    assert store.put("k", 2, 20) == 30  # out of order: valid until the next version
    assert store.get("k") == VersionedRecord(3, 30)
    assert store.get("k", 25) == VersionedRecord(2, 20, 30)
    assert store.get("k", 9) is None
    assert store.delete("k", 40) == VersionedRecord(3, 30, None)
    assert store.get("k") is None
    assert store.get("k", 35) == VersionedRecord(3, 30, 40)


def test_history_retention_is_the_grace(store) -> None:
    store, _ = store
    store.put("k", 1, 0)
    store.put("k", 2, 200)
    assert store.put("k", 9, 50) == PUT_RETURN_CODE_NOT_PUT
    assert store.get("k", 50) is None  # older than stream time - history retention
    assert store.get("k", 150) == VersionedRecord(1, 0, 200)


def test_changelog_replays(store, tmp_path: Path) -> None:
    store, context = store
    store.put("k", 1, 10)
    store.put("k", 2, 5)
    fresh = Stores.versioned_key_value_store_builder(
        Stores.persistent_versioned_key_value_store("v", 100), "string", "long").build()
    fresh.init(FakeContext(state_dir=tmp_path / "1_0"))
    fresh.restore_batch([(k, v, t) for _, k, v, t in context.changelog])
    assert fresh.get("k", 7) == VersionedRecord(2, 5, 10)
    fresh.close()


def test_versioned_table_join_looks_up_as_of_the_stream_record() -> None:
    b = ks.StreamsBuilder()
    prices = b.table("prices", materialized=ks.Materialized.as_versioned("prices-store", 100),
                     key_serde=serdes.String(), value_serde=serdes.Long())
    (b.stream("orders", key_serde=serdes.String(), value_serde=serdes.Long())
     .join(prices, lambda qty, price: qty * price).to("out"))
    prices.to_stream().to("updates")
    with ks.TopologyTestDriver(b.build()) as driver:
        p = driver.create_input_topic("prices")
        o = driver.create_input_topic("orders")
        p.pipe_input("x", 10, 0)
        p.pipe_input("x", 30, 50)
        p.pipe_input("x", 20, 20)  # out-of-order update: history, not the latest
        for ts in (10, 25, 60):
            o.pipe_input("x", 1, ts)
        out = driver.create_output_topic("out")
        assert [(r.value, r.timestamp) for r in out.read_records_to_list()] == \
            [(10, 10), (20, 25), (30, 60)]
        updates = driver.create_output_topic("updates", serdes.String(), serdes.Long())
        # Java forwards every accepted put, the out-of-order one included (marked not latest)
        assert updates.read_values_to_list() == [10, 30, 20]
        assert driver.get_versioned_key_value_store("prices-store").get("x", 22) == \
            VersionedRecord(20, 20, 50)


def test_changelog_bytes_as_java_writes_them(store, tmp_path: Path) -> None:
    """ChangeLoggingVersionedKeyValueBytesStore: every put and delete, refused ones too, is
    (key bytes, plain value bytes or None) at the version's timestamp."""
    store, context = store
    store.put("k", 1, 10)
    store.put("k", 2, 500)
    assert store.put("k", 3, 5) == PUT_RETURN_CODE_NOT_PUT  # older than 500 - 100
    store.delete("k", 600)
    assert [(k, v, t) for _, k, v, t in context.changelog] == [
        (b"k", struct.pack(">q", 1), 10), (b"k", struct.pack(">q", 2), 500),
        (b"k", struct.pack(">q", 3), 5), (b"k", None, 600)]
