"""Kafka's ``PositionTest`` and ``PositionBoundTest`` (streams/src/test/.../query): the IQv2
``Position`` (offsets by topic and partition; mutable, merged and raised monotonically, equal
by content, never a hash key) and ``PositionBound`` (a copy of a position; unbounded is the
empty one).

Mapping: ``getTopics()`` is ``get_topics()`` (a set), ``getPartitionPositions`` is
``get_partition_positions`` (a dict), ``withComponent``/``merge``/``copy`` keep their Java
meaning and return the position; Java's ``UnsupportedOperationException`` from ``hashCode`` is
Python's ``TypeError`` for an unhashable object.
"""

from __future__ import annotations

import pytest

from kslab.runtime import Position, PositionBound


def _sample() -> Position:
    return Position.from_map({"topic": {0: 5}, "topic1": {0: 5, 7: 0}})


# -- PositionTest -------------------------------------------------------------------------------

def test_should_create_from_map():
    source = {"topic": {0: 5}, "topic1": {0: 5, 7: 0}}
    position = Position.from_map(source)
    assert position.get_topics() == {"topic", "topic1"}
    assert position.get_partition_positions("topic") == {0: 5}
    source["topic1"][99] = 99  # the position holds a copy of the map
    assert position.get_partition_positions("topic1") == {0: 5, 7: 0}


def test_should_create_from_null_map():
    assert Position.from_map(None).get_topics() == set()


def test_should_merge():
    position = _sample()
    other = Position.from_map({"topic": {0: 7}, "topic1": {8: 1}, "topic2": {9: 5}})
    merged = position.merge(other)
    assert merged.get_topics() == {"topic", "topic1", "topic2"}
    assert merged.get_partition_positions("topic") == {0: 7}
    assert merged.get_partition_positions("topic1") == {0: 5, 7: 0, 8: 1}
    assert merged.get_partition_positions("topic2") == {9: 5}


def test_should_update_component_monotonically():
    position = Position.empty_position()
    position.with_component("topic", 3, 5)
    position.with_component("topic", 3, 4)
    assert position.get_partition_positions("topic")[3] == 5
    position.with_component("topic", 3, 6)
    assert position.get_partition_positions("topic")[3] == 6


def test_should_copy():
    position = _sample()
    copy = position.copy()
    position.with_component("topic", 0, 6)
    position.with_component("topic1", 8, 1)
    position.with_component("topic2", 2, 4)
    assert copy.get_topics() == {"topic", "topic1"}
    assert copy.get_partition_positions("topic") == {0: 5}
    assert copy.get_partition_positions("topic1") == {0: 5, 7: 0}
    assert position.get_topics() == {"topic", "topic1", "topic2"}
    assert position.get_partition_positions("topic") == {0: 6}
    assert position.get_partition_positions("topic1") == {0: 5, 7: 0, 8: 1}
    assert position.get_partition_positions("topic2") == {2: 4}


def test_should_merge_null():
    merged = _sample().merge(None)
    assert merged.get_topics() == {"topic", "topic1"}
    assert merged.get_partition_positions("topic") == {0: 5}
    assert merged.get_partition_positions("topic1") == {0: 5, 7: 0}


def _built(components: list[tuple[str, int, int]]) -> Position:
    position = Position.empty_position()
    for topic, partition, offset in components:
        position.with_component(topic, partition, offset)
    return position


def test_should_match_on_equal():
    components = [("topic1", 0, 1), ("topic1", 1, 2), ("topic1", 2, 1), ("topic2", 0, 0)]
    assert _built(components) == _built(components)


def test_should_not_match_on_un_equal():
    one = _built([("topic1", 0, 1), ("topic1", 1, 2), ("topic1", 2, 1), ("topic2", 0, 0)])
    two = _built([("topic1", 0, 1), ("topic1", 2, 1), ("topic2", 0, 0)])
    assert one != two


def test_should_not_match_null():
    assert Position.empty_position() != None  # noqa: E711 - Java's assertNotEquals(position, null)


def test_should_match_self():
    position = Position.empty_position()
    assert position == position  # Java's assertEquals(position, position)


def test_should_not_hash():
    position = Position.empty_position()
    with pytest.raises(TypeError):
        hash(position)
    with pytest.raises(TypeError):
        {position}  # noqa: B018 - the set is the point
    with pytest.raises(TypeError):
        {position: 5}  # noqa: B018


# -- PositionBoundTest --------------------------------------------------------------------------

def test_should_copy_position():
    position = Position.empty_position()
    bound = PositionBound.at(position)
    position.with_component("topic", 1, 2)
    assert position.get_topics() == {"topic"}
    assert bound.position.get_topics() == set()


def test_unbounded_should_be_unbounded():
    assert PositionBound.unbounded().is_unbounded()


def test_unbounded_should_return_empty_position():
    assert PositionBound.unbounded().position == Position.empty_position()


def test_should_equal_position():
    assert PositionBound.at(Position.empty_position()) == \
        PositionBound.at(Position.empty_position())


def test_should_equal_unbounded():
    assert PositionBound.unbounded() == PositionBound.unbounded()


def test_should_equal_self():
    bound = PositionBound.at(Position.empty_position())
    assert bound == bound


def test_should_not_equal_null():
    assert PositionBound.at(Position.empty_position()) != None  # noqa: E711


def test_bound_should_not_hash():
    bound = PositionBound.at(Position.empty_position())
    with pytest.raises(TypeError):
        hash(bound)
    with pytest.raises(TypeError):
        {bound}  # noqa: B018
    with pytest.raises(TypeError):
        {bound: 5}  # noqa: B018
