"""Foreign-key join wire formats, byte for byte as Kafka 4.0 writes them.

Hash vectors come from Kafka's ``Murmur3Test`` (seed 123) and from Kafka's own
``Murmur3.hash128`` compiled on JDK 17 (default seed 104729); the layouts follow
``SubscriptionWrapperSerdeTest``, ``SubscriptionResponseWrapperSerdeTest`` and
``CombinedKeySchemaTest``.
"""

from __future__ import annotations

import struct

import pytest

import kslab as ks
from kslab import serdes
from kslab.dsl._fk_wire import (
    CombinedKey,
    CombinedKeySchema,
    Instruction,
    SubscriptionResponseWrapper,
    SubscriptionResponseWrapperSerde,
    SubscriptionWrapper,
    SubscriptionWrapperSerde,
    murmur3_hash128,
)
from kslab.errors import InvalidArgumentError, SerdeError

S = serdes.String()

# Murmur3Test.testMurmur3_128 (seed 123)
MURMUR3_TEST_128 = {
    b"21": (5857341059704281894, -5288187638297930763),
    b"foobar": (-351361463397418609, 8959716011862540668),
    b"a-little-bit-long-string": (8836256500583638442, -198172363548498523),
    b"a-little-bit-longer-string": (1838346159335108511, 8794688210320490705),
    b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": (-4024021876037397259,
                                                          -1482317706335141238),
    b"abc": (1489494923063836066, -5440978547625122829),
}
# Kafka's Murmur3.hash128(data) with DEFAULT_SEED, run on JDK 17
JAVA_DEFAULT_SEED = {
    bytes([0xFF, 0xAA, 0x00, 0x19]): (-3955359579171119721, -1701350710745563829),
    b"A": (-398045539132318856, 3532033179104405328),
    b"f1|x": (-2548847506059128554, 3875000846811452289),
    b"": (-7122613646888064702, -8341524471658347240),
    bytes(0x80 + i * 3 for i in range(31)): (462790049883941146, -4768064860224830255),
}
HASH = JAVA_DEFAULT_SEED[bytes([0xFF, 0xAA, 0x00, 0x19])]
HASH_BYTES = struct.pack(">qq", *HASH)


@pytest.mark.parametrize(("data", "expected"), MURMUR3_TEST_128.items())
def test_murmur3_hash128_matches_kafkas_murmur3_test(data, expected):
    assert murmur3_hash128(data, 123) == expected


@pytest.mark.parametrize(("data", "expected"), JAVA_DEFAULT_SEED.items())
def test_murmur3_hash128_default_seed_matches_java(data, expected):
    assert murmur3_hash128(data) == expected


def test_subscription_v1_layout_and_round_trip():
    serde = SubscriptionWrapperSerde("pkTopic", S)
    wrapper = SubscriptionWrapper(HASH, Instruction.DELETE_KEY_AND_PROPAGATE, "originalKey", 10)
    raw = serde.serialize(None, wrapper)
    assert raw == b"\x01\x01" + HASH_BYTES + b"originalKey" + b"\x00\x00\x00\x0a"
    back = serde.deserialize(None, raw)
    assert back == wrapper
    assert (back.version, back.primary_partition, back.hash) == (1, 10, HASH)


def test_subscription_v0_layout_has_no_partition():
    serde = SubscriptionWrapperSerde("pkTopic", S)
    wrapper = SubscriptionWrapper(HASH, Instruction.DELETE_KEY_AND_PROPAGATE, "originalKey",
                                  version=0)
    raw = serde.serialize(None, wrapper)
    assert raw == b"\x00\x01" + HASH_BYTES + b"originalKey"
    back = serde.deserialize(None, raw)
    assert (back.version, back.primary_partition, back.primary_key) == (0, None, "originalKey")


def test_subscription_null_hash_sets_the_high_bit():
    serde = SubscriptionWrapperSerde("pkTopic", S)
    v1 = SubscriptionWrapper(None, Instruction.PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE, "k", 10)
    assert serde.serialize(None, v1) == b"\x81\x03k\x00\x00\x00\x0a"
    assert serde.deserialize(None, b"\x81\x03k\x00\x00\x00\x0a") == v1
    v0 = SubscriptionWrapper(None, Instruction.PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE, "k",
                             version=0)
    assert serde.serialize(None, v0) == b"\x80\x03k"
    assert serde.deserialize(None, b"\x80\x03k") == v0


def test_subscription_upgrade_from_before_3_4_writes_v0():
    # shouldSerdeWithV0IfUpgradeTest: a v1 wrapper is written without its partition
    serde = SubscriptionWrapperSerde("pkTopic", S, upgrade_from="3.2")
    wrapper = SubscriptionWrapper(HASH, Instruction.DELETE_KEY_AND_PROPAGATE, "originalKey", 10)
    raw = serde.serialize(None, wrapper)
    assert raw == b"\x00\x01" + HASH_BYTES + b"originalKey"
    back = serde.deserialize(None, raw)
    assert (back.version, back.primary_partition) == (0, None)


def test_subscription_errors_as_java():
    serde = SubscriptionWrapperSerde("pkTopic", S)
    with pytest.raises(InvalidArgumentError, match="primary_key cannot be null"):
        SubscriptionWrapper(HASH, Instruction.DELETE_KEY_AND_PROPAGATE, None, 10)
    with pytest.raises(InvalidArgumentError, match="instruction cannot be null"):
        SubscriptionWrapper(HASH, None, "k", 10)
    with pytest.raises(InvalidArgumentError, match="does not support version 2"):
        SubscriptionWrapper(HASH, Instruction.DELETE_KEY_AND_PROPAGATE, "k", 10, version=2)
    no_partition = SubscriptionWrapper(HASH, Instruction.DELETE_KEY_AND_PROPAGATE, "k")
    with pytest.raises(SerdeError, match="needs its primary partition"):
        serde.serialize("t", no_partition)
    with pytest.raises(SerdeError, match="does not support version 2"):
        serde.deserialize("t", b"\x82\x01k\x00\x00\x00\x01")


def test_response_layouts_and_round_trips():
    serde = SubscriptionResponseWrapperSerde(S)
    full = SubscriptionResponseWrapper(HASH, "foreignValue", 1)
    raw = serde.serialize("t", full)
    assert raw == b"\x00" + HASH_BYTES + b"foreignValue"
    back = serde.deserialize("t", raw)
    assert (back.original_value_hash, back.foreign_value, back.primary_partition) == (
        HASH, "foreignValue", None)  # the partition never travels
    assert serde.serialize("t", SubscriptionResponseWrapper(HASH, None, 1)) == b"\x00" + HASH_BYTES
    assert serde.deserialize("t", b"\x00" + HASH_BYTES).foreign_value is None
    assert serde.serialize("t", SubscriptionResponseWrapper(None, "v", 1)) == b"\x80v"
    assert serde.serialize("t", SubscriptionResponseWrapper(None, None, 1)) == b"\x80"
    nulls = serde.deserialize("t", b"\x80")
    assert (nulls.original_value_hash, nulls.foreign_value) == (None, None)


def test_response_rejects_bad_versions():
    with pytest.raises(InvalidArgumentError, match="does not support version -1"):
        SubscriptionResponseWrapper(HASH, "foreignValue", 1, version=-1)
    with pytest.raises(SerdeError, match="does not support version 1"):
        SubscriptionResponseWrapperSerde(S).deserialize("t", b"\x81")


def test_combined_key_schema_as_java():
    cks = CombinedKeySchema("fkTopic", S, "pkTopic", serdes.Integer())
    raw = cks.to_bytes("foreignKey", -999)
    assert raw == b"\x00\x00\x00\x0aforeignKey" + struct.pack(">i", -999)
    assert cks.from_bytes(raw) == CombinedKey("foreignKey", -999)
    assert cks.prefix_bytes("someForeignKey") == b"\x00\x00\x00\x0esomeForeignKey"
    for fk, pk in ((None, 10), ("foreignKey", None)):
        with pytest.raises(InvalidArgumentError, match="non-null"):
            cks.to_bytes(fk, pk)
    with pytest.raises(InvalidArgumentError, match="non-null foreign key"):
        cks.prefix_bytes(None)


def _seed_fk_join() -> ks.Topology:
    b = ks.StreamsBuilder()
    a = b.table("a", ks.Consumed.with_(S, S))
    other = b.table("b", ks.Consumed.with_(S, S))
    a.join(other, lambda left: left, lambda left, right: left + right).to_stream().to(
        "out", ks.Produced.with_(S, S))
    return b.build()


def test_internal_topics_and_store_changelog_carry_javas_bytes():
    app = "topology-test-driver"
    sub_topic = f"{app}-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic"
    response_topic = f"{app}-KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000014-topic"
    changelog = f"{app}-KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-0000000010-changelog"
    raw = serdes.Bytes()
    hash_a = struct.pack(">qq", *JAVA_DEFAULT_SEED[b"A"])
    with ks.TopologyTestDriver(_seed_fk_join()) as driver:
        driver.create_input_topic("a", S, S).pipe_input("pk", "A", timestamp=5)
        driver.create_input_topic("b", S, S).pipe_input("A", "X", timestamp=7)
        assert driver.create_output_topic("out", S, S).read_key_values_to_list() == [
            ("pk", "AX")]
        assert driver.create_output_topic(sub_topic, raw, raw).read_key_values_to_list() == [
            (b"A", b"\x01\x03" + hash_a + b"pk" + b"\x00\x00\x00\x00")]
        responses = driver.create_output_topic(response_topic, raw, raw)
        assert responses.read_key_values_to_list() == [(b"pk", b"\x00" + hash_a + b"X")]
        # the store key is Java's CombinedKey; a timestamped store logs the plain value and
        # carries the timestamp on the changelog record
        store_log = driver.create_output_topic(changelog, raw, raw).read_records_to_list()
        assert [(r.key, r.value, r.timestamp) for r in store_log] == [
            (b"\x00\x00\x00\x01Apk", b"\x01\x03" + hash_a + b"pk\x00\x00\x00\x00", 5)]


def test_upgrade_from_before_3_4_sends_v0_subscriptions():
    app = "topology-test-driver"
    sub_topic = f"{app}-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic"
    raw = serdes.Bytes()
    hash_a = struct.pack(">qq", *JAVA_DEFAULT_SEED[b"A"])
    with ks.TopologyTestDriver(_seed_fk_join(), config={"upgrade.from": "3.3"}) as driver:
        driver.create_input_topic("a", S, S).pipe_input("pk", "A")
        driver.create_input_topic("b", S, S).pipe_input("A", "X")
        assert driver.create_output_topic("out", S, S).read_key_values_to_list() == [
            ("pk", "AX")]
        assert driver.create_output_topic(sub_topic, raw, raw).read_key_values_to_list() == [
            (b"A", b"\x00\x03" + hash_a + b"pk")]


def test_out_of_order_updates_of_a_versioned_left_table_are_dropped():
    """KIP-914: an update older than the versioned table's latest row neither subscribes nor
    answers (SubscriptionSendProcessorSupplier skips records that are not the latest)."""
    b = ks.StreamsBuilder()
    left = b.table("a", ks.Consumed.with_(S, S), ks.Materialized.as_versioned("a-store", 1000))
    right = b.table("b", ks.Consumed.with_(S, S))
    left.join(right, lambda v: v.split("|")[0], lambda lv, rv: f"{lv}{rv}") \
        .to_stream().to("out", ks.Produced.with_(S, S))
    with ks.TopologyTestDriver(b.build()) as driver:
        a, r = driver.create_input_topic("a", S, S), driver.create_input_topic("b", S, S)
        r.pipe_input("X", "R", timestamp=0)
        r.pipe_input("Y", "Q", timestamp=0)
        a.pipe_input("pk", "X|new", timestamp=10)
        a.pipe_input("pk", "Y|old", timestamp=5)  # out of order: history only
        out = driver.create_output_topic("out", S, S).read_key_values_to_list()
        topic = next(t for t in driver.produced_topic_names() if "REGISTRATION" in t)
        subscriptions = driver.create_output_topic(topic, S, serdes.Bytes()) \
            .read_key_values_to_list()
    assert out == [("pk", "X|newR")]
    assert [kv.key for kv in subscriptions] == ["X"]
