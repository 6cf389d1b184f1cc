"""The JDK collection orders describe() reproduces: String.hashCode, HashSet, TreeSet."""

from __future__ import annotations

import functools
import random

from kslab.topology._javaorder import (
    TreeSetOrder,
    copy_capacity,
    hash_set_order,
    java_string_hash,
    utf16_key,
)


def test_string_hash_matches_java():
    assert java_string_hash("") == 0
    assert java_string_hash("hello") == 99162322
    assert java_string_hash("Aa") == java_string_hash("BB") == 2112
    # "polygenelubricants".hashCode() is Integer.MIN_VALUE
    assert java_string_hash("polygenelubricants") == 0x80000000
    # UTF-16 code units: a character outside the BMP hashes as its surrogate pair
    assert java_string_hash("\U0001f600") == (0xD83D * 31 + 0xDE00)


def test_hash_set_order_is_bucket_then_insertion_order():
    assert hash_set_order(["b", "a", "c"]) == ["a", "b", "c"]  # buckets 98, 97, 99 mod 16
    assert hash_set_order(["BB", "Aa"]) == ["BB", "Aa"]  # same hash: insertion order
    assert hash_set_order(["x", "x"]) == ["x"]


def test_hash_set_grows_past_its_load_factor():
    names = [f"topic-{i}" for i in range(13)]
    assert sorted(hash_set_order(names)) == sorted(names)
    assert copy_capacity(11) == 16
    assert copy_capacity(12) == 17  # JDK 17: a 32-slot table for twelve names


def test_utf16_key_orders_like_java_compare_to():
    # U+FF21 sorts after U+1F600's high surrogate (0xD83D) in Java, before it in code points.
    assert utf16_key("\U0001f600") < utf16_key("\uff21")
    assert "\uff21" < "\U0001f600"


def test_tree_set_with_a_fixed_comparator_is_sorted():
    values = list(range(200))
    random.Random(3).shuffle(values)
    tree: TreeSetOrder[int] = TreeSetOrder(lambda a, b: (a > b) - (a < b))
    for value in values:
        assert tree.add(value)
    assert not tree.add(7)
    assert list(tree) == sorted(values)


def test_tree_set_keeps_positions_when_keys_change_afterwards():
    weight = {"a": 1, "b": 1}

    def compare(x: str, y: str) -> int:
        return weight[y] - weight[x] or (x > y) - (x < y)

    tree: TreeSetOrder[str] = TreeSetOrder(compare)
    tree.add("a")
    weight["a"] = 5  # grows after insertion, as Kafka's node sizes do
    tree.add("b")
    assert list(tree) == ["a", "b"]
    weight["a"] = 0  # the comparator now puts "b" first; the tree keeps what it decided
    assert sorted("ab", key=functools.cmp_to_key(compare)) == ["b", "a"]
    assert list(tree) == ["a", "b"]
