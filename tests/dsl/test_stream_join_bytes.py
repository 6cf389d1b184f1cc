"""The outer-join shared store's bytes, as Java writes them (TimestampedKeyAndJoinSide keys,
LeftOrRightValue items, the changelog value a ListSerde(ByteArray) list), and a restart from it."""

from __future__ import annotations

import struct

import pytest

import kslab as ks
from kslab import serdes
from kslab.errors import StoreError

S = serdes.String()
SHARED = "KSTREAM-OUTERSHARED-0000000004-store"
CHANGELOG = f"topology-test-driver-{SHARED}-changelog"


def _topology() -> ks.Topology:
    b = ks.StreamsBuilder()
    left = b.stream("left", ks.Consumed.with_(S, S))
    right = b.stream("right", ks.Consumed.with_(S, S))
    left.outer_join(right, lambda a, c: f"{a}+{c}",
                    ks.JoinWindows.of_time_difference_and_grace(10, 0),
                    ks.StreamJoined.with_(S, S, S)).to("out", ks.Produced.with_(S, S))
    return b.build()


def _key(timestamp: int, left: bool, key: bytes) -> bytes:
    """TimestampedKeyAndJoinSideSerializer: 8-byte timestamp, side (1 = left), key."""
    return struct.pack(">q?", timestamp, left) + key


def _list(*items: bytes) -> bytes:
    """ListSerializer over ByteArray: VARIABLE_SIZE (1), count, then length-prefixed items."""
    return b"\x01" + struct.pack(">i", len(items)) + b"".join(
        struct.pack(">i", len(item)) + item for item in items)


def test_shared_store_changelog_bytes() -> None:
    with ks.TopologyTestDriver(_topology()) as driver:
        left = driver.create_input_topic("left")
        right = driver.create_input_topic("right")
        left.pipe_input("k", "a", 0)
        left.pipe_input("k", "a2", 0)  # same key, side and time: a list of two
        right.pipe_input("k", "b", 1)  # joins: the parked list is deleted
        left.pipe_input("k", "c", 100)
        right.pipe_input("j", "x", 95)  # parked on the right side
        changelog = driver.create_output_topic(CHANGELOG, serdes.Bytes(), serdes.Bytes())
        logged = [(r.key, r.value, r.timestamp) for r in changelog.read_records_to_list()]
        out = driver.create_output_topic("out").read_records_to_list()
    assert logged == [
        (_key(0, True, b"k"), _list(b"\x01a"), 0),
        (_key(0, True, b"k"), _list(b"\x01a", b"\x01a2"), 0),
        (_key(0, True, b"k"), None, 1),
        (_key(100, True, b"k"), _list(b"\x01c"), 100),
        (_key(95, False, b"j"), _list(b"\x00x"), 95),
    ]
    assert [(r.key, r.value) for r in out] == [("k", "a+b"), ("k", "a2+b")]


def test_restart_emits_null_padded_results_from_the_changelog() -> None:
    saved = [(_key(100, True, b"k"), _list(b"\x01c"), 100),
             (_key(95, False, b"j"), _list(b"\x00x"), 95)]
    with ks.TopologyTestDriver(_topology()) as driver:
        assert driver.restore_from_changelog(SHARED, saved) == 2
        driver.create_input_topic("left").pipe_input("z", "late", 200)
        out = driver.create_output_topic("out").read_records_to_list()
    assert [(r.key, r.value, r.timestamp) for r in out] == [
        ("j", "None+x", 95), ("k", "c+None", 100)]


def test_restore_refuses_a_value_that_is_not_a_list() -> None:
    with ks.TopologyTestDriver(_topology()) as driver, \
            pytest.raises(StoreError, match="not Kafka's ListSerde variable-size flag 0x01"):
        driver.restore_from_changelog(SHARED, [(_key(1, True, b"k"), b"\x01c"[1:], 1)])
