"""Stream-table joins with Joined.grace_period (KIP-923), ported from Kafka's
KStreamKTableJoinTest (grace cases), plus the buffer changelog's bytes and a restart from it."""

from __future__ import annotations

import struct

import pytest

import kslab as ks
from kslab import serdes
from kslab.errors import TopologyError

INT, S = serdes.Integer(), serdes.String()
CHANGELOG = "topology-test-driver-Grace-Buffer-changelog"


def _join(grace: int) -> tuple[ks.Topology, list]:
    b = ks.StreamsBuilder()
    consumed = ks.Consumed.with_(INT, S)
    stream = b.stream("streamTopic", consumed)
    table = b.table("tableTopic2", consumed, ks.Materialized.as_(
        ks.Stores.persistent_versioned_key_value_store("V-grace", 5 * 60_000)))
    out: list = []

    class Capture(ks.Processor):
        def process(self, record: ks.Record) -> None:
            out.append((record.key, record.value, record.timestamp))

    stream.join(table, lambda v1, v2: f"{v1}+{v2}",
                ks.Joined.with_(INT, S, S, "Grace", grace)).process(Capture)
    return b.build(), out


def _push(topic: ks.TestInputTopic, count: int, prefix: str, *, table: bool = False) -> None:
    for i in range(count):
        topic.pipe_input(i, f"{prefix}{i}", 0 if table else i)


def test_should_delay_join_by_grace_period() -> None:
    topology, out = _join(2)
    with ks.TopologyTestDriver(topology) as driver:
        stream = driver.create_input_topic("streamTopic")
        table = driver.create_input_topic("tableTopic2")
        _push(table, 4, "Y", table=True)
        assert out == []
        _push(stream, 4, "X")
        assert out == [(0, "X0+Y0", 0), (1, "X1+Y1", 1)]
        out.clear()
        _push(table, 4, "YY", table=True)
        assert out == []
        _push(stream, 4, "X")
        assert out == [(0, "X0+YY0", 0), (1, "X1+YY1", 1)]
        out.clear()
        stream.pipe_input(5, "test", 7)
        assert out == [(2, "X2+YY2", 2), (2, "X2+YY2", 2), (3, "X3+YY3", 3), (3, "X3+YY3", 3)]
        out.clear()
        _push(table, 4, "YYY", table=True)
        assert out == []


def test_should_handle_late_joins_with_grace_period() -> None:
    topology, out = _join(2)
    with ks.TopologyTestDriver(topology) as driver:
        stream = driver.create_input_topic("streamTopic")
        _push(driver.create_input_topic("tableTopic2"), 4, "Y", table=True)
        _push(stream, 4, "X")
        assert out == [(0, "X0+Y0", 0), (1, "X1+Y1", 1)]
        out.clear()
        _push(stream, 1, "X")  # joined at once, evicting nothing
        assert out == [(0, "X0+Y0", 0)]


def test_describe_connects_the_buffer() -> None:
    topology, _ = _join(2)
    assert "Processor: Grace (stores: [V-grace, Grace-Buffer])" in str(topology.describe())


def test_should_fail_if_table_is_not_versioned() -> None:
    b = ks.StreamsBuilder()
    stream = b.stream("topic", ks.Consumed.with_(S, S))
    table = b.table("topic2", ks.Consumed.with_(S, S))
    with pytest.raises(TopologyError, match=r"^KTable must be versioned to use a grace period "
                                            r"in a stream table join\.$"):
        stream.join(table, lambda a, c: a + c, ks.Joined.with_(S, S, S, "first-join", 6))


def _inherited(history: int, grace: int, versioned: bool = True) -> ks.StreamsBuilder:
    b = ks.StreamsBuilder()
    stream = b.stream("topic", ks.Consumed.with_(S, S))
    supplier = ks.Stores.persistent_versioned_key_value_store("tableB", history) if versioned \
        else ks.Stores.in_memory_key_value_store("tableB")
    source = b.table("topic2", ks.Consumed.with_(S, S), ks.Materialized.as_(supplier))
    filtered = source.filter(lambda k, v: True)  # the join inherits the source's store
    stream.join(filtered, lambda a, c: a + c, ks.Joined.with_(S, S, S, "first-join", grace)) \
        .to("out-one")
    return b


def test_inherited_materialization_is_checked_at_build() -> None:
    with pytest.raises(TopologyError, match=r"^KTable must be versioned"):
        _inherited(0, 6, versioned=False).build()
    _inherited(5 * 60_000, 6).build()  # versioned: fine
    with pytest.raises(TopologyError, match=r"^History retention must be at least grace "
                                            r"period.$"):
        _inherited(0, 6).build()


def test_grace_longer_than_history_fails() -> None:
    b = ks.StreamsBuilder()
    stream = b.stream("topic", ks.Consumed.with_(S, S))
    table = b.table("topic2", ks.Consumed.with_(S, S), ks.Materialized.as_(
        ks.Stores.persistent_versioned_key_value_store("tableB", 5 * 60_000)))
    stream.join(table, lambda a, c: a + c,
                ks.Joined.with_(S, S, S, "first-join", 6 * 60_000)).to("out-one")
    with pytest.raises(TopologyError, match=r"History retention must be at least grace period\."):
        b.build({"topology.optimization": "none"})


def _expected_value(timestamp: int, offset: int, value: bytes) -> bytes:
    """Java's BufferValue.serialize(8) + putLong(0) of a buffered stream record: the record
    context (timestamp, offset, topic, partition, no headers), prior -1, old -1, new value, 0."""
    topic = b"streamTopic"
    return (struct.pack(">qqi", timestamp, offset, len(topic)) + topic
            + struct.pack(">ii", 0, 0) + struct.pack(">ii", -1, -1)
            + struct.pack(">i", len(value)) + value + struct.pack(">q", 0))


def test_buffer_changelog_bytes_and_restart() -> None:
    topology, out = _join(2)
    with ks.TopologyTestDriver(topology) as first:
        _push(first.create_input_topic("tableTopic2"), 4, "Y", table=True)
        stream = first.create_input_topic("streamTopic")
        stream.pipe_input(3, "X3", 3)
        stream.pipe_input(2, "X2", 2)
        records = first.create_output_topic(CHANGELOG, serdes.Bytes(), serdes.Bytes())
        saved = [(r.key, r.value, r.timestamp) for r in records.read_records_to_list()]
    assert out == []
    # key: Java's store key: 0x00 prefix + 8-byte timestamp + Integer key + 4-byte sequence number
    # (TimeFirstWindowKeySchema.toStoreKeyBinary, logged whole by RocksDBTimeOrderedKeyValueBuffer)
    assert saved == [
        (b"\x00" + struct.pack(">qii", 3, 3, 1), _expected_value(3, 0, b"X3"), 3),
        (b"\x00" + struct.pack(">qii", 2, 2, 2), _expected_value(2, 1, b"X2"), 2),
    ]
    topology, out = _join(2)
    with ks.TopologyTestDriver(topology) as second:
        _push(second.create_input_topic("tableTopic2"), 4, "Z", table=True)
        assert second.restore_from_changelog("Grace-Buffer", saved) == 2
        second.create_input_topic("streamTopic").pipe_input(1, "X1", 5)
        assert out == [(2, "X2+Z2", 2), (3, "X3+Z3", 3)]
        records = second.create_output_topic(CHANGELOG, serdes.Bytes(), serdes.Bytes())
        logged = [(r.key, r.value) for r in records.read_records_to_list()]
    # the new record is logged (sequence 3, after the restored ones), then both evictions
    assert logged == [(b"\x00" + struct.pack(">qii", 5, 1, 3), _expected_value(5, 0, b"X1")),
                      (b"\x00" + struct.pack(">qii", 2, 2, 2), None),
                      (b"\x00" + struct.pack(">qii", 3, 3, 1), None)]


def test_buffer_restores_from_test_records_read_as_bytes() -> None:
    """TestRecords read from the buffer changelog with Bytes serdes restore as their bytes
    (the buffer's key serde, Integer, does not make its changelog keys)."""
    topology, out = _join(2)
    with ks.TopologyTestDriver(topology) as first:
        _push(first.create_input_topic("tableTopic2"), 4, "Y", table=True)
        stream = first.create_input_topic("streamTopic")
        stream.pipe_input(3, "X3", 3)
        stream.pipe_input(2, "X2", 2)
        saved = first.create_output_topic(CHANGELOG, serdes.Bytes(), serdes.Bytes()) \
            .read_records_to_list()
    assert [r.key for r in saved] == [b"\x00" + struct.pack(">qii", 3, 3, 1),
                                      b"\x00" + struct.pack(">qii", 2, 2, 2)]
    topology, out = _join(2)
    with ks.TopologyTestDriver(topology) as second:
        _push(second.create_input_topic("tableTopic2"), 4, "Z", table=True)
        assert second.restore_from_changelog("Grace-Buffer", saved) == 2
        second.create_input_topic("streamTopic").pipe_input(1, "X1", 5)
        assert out == [(2, "X2+Z2", 2), (3, "X3+Z3", 3)]
