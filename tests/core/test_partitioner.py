"""murmur2 matches Kafka's Utils.murmur2, and default_partition matches Kafka's partitioner."""

import random

import pytest

from kslab.processor.partitioner import (
    default_partition,
    default_partitions,
    murmur2,
    murmur2_column,
    to_positive,
)

# Kafka's UtilsTest.testMurmur2, clients/src/test/java/org/apache/kafka/common/utils/UtilsTest.java
KAFKA_VECTORS = {
    b"21": -973932308,
    b"foobar": -790332482,
    b"a-little-bit-long-string": -985981536,
    b"a-little-bit-longer-string": -1486304829,
    b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971,
    b"abc": 479470107,
}


@pytest.mark.parametrize(("data", "expected"), KAFKA_VECTORS.items())
def test_murmur2_matches_kafka_test_vectors(data, expected):
    assert murmur2(data) == expected


def _java_murmur2(data: bytes) -> int:
    """Java's algorithm step by step, with every int operation wrapped to 32 signed bits."""

    def to_int(n: int) -> int:
        n &= 0xFFFFFFFF
        return n - (1 << 32) if n >= 1 << 31 else n

    def ushr(n: int, bits: int) -> int:  # Java's >>>
        return (n & 0xFFFFFFFF) >> bits

    m, r, length = 0x5BD1E995, 24, len(data)
    h = to_int(to_int(0x9747B28C) ^ length)
    for i in range(length // 4):
        k = to_int(int.from_bytes(data[i * 4 : i * 4 + 4], "little"))
        k = to_int(k * m)
        k ^= ushr(k, r)
        k = to_int(k * m)
        h = to_int(h * m)
        h = to_int(h ^ k)
    rest = length % 4
    base = length & ~3
    if rest >= 3:
        h ^= data[base + 2] << 16
    if rest >= 2:
        h ^= data[base + 1] << 8
    if rest >= 1:
        h ^= data[base]
        h = to_int(h * m)
    h = to_int(h ^ ushr(h, 13))
    h = to_int(h * m)
    return to_int(h ^ ushr(h, 15))


def test_java_reference_agrees_with_kafka_vectors():
    assert {data: _java_murmur2(data) for data in KAFKA_VECTORS} == KAFKA_VECTORS


def test_murmur2_matches_java_for_every_length_and_tail():
    rng = random.Random(7)
    for length in range(70):
        for _ in range(20):
            data = rng.randbytes(length)
            assert murmur2(data) == _java_murmur2(data), data.hex()


def test_murmur2_accepts_buffers():
    assert murmur2(bytearray(b"foobar")) == murmur2(memoryview(b"foobar")) == -790332482


def test_to_positive_clears_the_sign_bit_like_java():
    assert to_positive(-973932308) == 1173551340
    assert to_positive(-(2**31)) == 0  # not abs(): Integer.MIN_VALUE maps to 0
    assert to_positive(479470107) == 479470107


@pytest.mark.parametrize(
    ("key", "num_partitions", "expected"),
    [
        (b"21", 3, 0),
        (b"foobar", 12, 6),
        (b"a-little-bit-long-string", 3, 2),
        (b"a-little-bit-longer-string", 6, 5),
        (b"a-little-bit-longer-string", 12, 11),
        (b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", 6, 5),
        (b"abc", 6, 3),
        (b"abc", 1, 0),
    ],
)
def test_default_partition_from_kafka_vectors(key, num_partitions, expected):
    assert default_partition(key, num_partitions) == expected
    assert default_partition(key, num_partitions) == expected  # again, from the cache
    assert expected == to_positive(KAFKA_VECTORS[key]) % num_partitions


def test_default_partition_accepts_buffers():
    assert default_partition(bytearray(b"foobar"), 12) == 6


def test_default_partition_refuses_bad_arguments():
    with pytest.raises(ValueError, match="num_partitions=0 is invalid"):
        default_partition(b"k", 0)
    with pytest.raises(ValueError, match="no key bytes"):
        default_partition(None, 3)


def test_default_partitions_of_a_key_column():
    """Each key's partition as default_partition gives it; None for a None key on a topic of
    several partitions (the engine's choice); partition 0 for every key of one partition."""
    keys = [b"21", b"abc", None, b"21", b"foobar"]
    assert default_partitions(keys, 4) == [
        to_positive(-973932308) % 4, to_positive(479470107) % 4, None,
        to_positive(-973932308) % 4, to_positive(-790332482) % 4]
    assert default_partitions(keys, 1) == [0, 0, 0, 0, 0]
    assert default_partitions([], 3) == []


def test_murmur2_column_matches_java_for_every_length_and_tail():
    """The numpy form hashes a column of keys of mixed lengths (empty ones and buffers too)
    exactly as Java does each, in the column's order."""
    rng = random.Random(11)
    keys = [rng.randbytes(rng.randrange(70)) for _ in range(3000)]
    keys += [b"", bytearray(b"foobar"), *KAFKA_VECTORS]
    assert murmur2_column(keys).tolist() == [h & 0xFFFFFFFF for h in map(_java_murmur2, keys)]
    assert murmur2_column(list(KAFKA_VECTORS)).astype("int32").tolist() == list(
        KAFKA_VECTORS.values())
    assert murmur2_column([]).tolist() == []


def test_default_partitions_of_many_distinct_keys_hashes_them_in_numpy():
    """Past the distinct keys from which numpy hashes them, each key (None included) still
    gets default_partition's choice."""
    keys = [f"user-{i % 700}".encode() for i in range(2000)] + [None, b"21"]
    assert default_partitions(keys, 7) == [
        None if key is None else default_partition(key, 7) for key in keys]
    assert default_partitions(keys, 7)[-1] == to_positive(-973932308) % 7
