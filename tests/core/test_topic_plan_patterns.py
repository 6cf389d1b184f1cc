"""TopicPlan.match_new: topics a pattern source matches after the start join the plan, once."""

from __future__ import annotations

import re

import pytest

import kslab as ks
from kslab.core.topic_plan import TopicPlan
from kslab.records import TaskId


def _plan(existing: dict[str, int]) -> TopicPlan:
    b = ks.StreamsBuilder()
    b.stream(re.compile(r"in-\d")).to("out")
    b.stream(re.compile(r"f.*")).to("out")
    b.stream(re.compile(r"fo.*")).to("out")
    return TopicPlan.build(b.build(), "app", existing)


def test_a_new_match_joins_the_plan_with_its_partition_count_and_sub_topology():
    plan = _plan({"in-1": 2, "out": 1})
    assert plan.source_topics() == ["in-1"]
    assert plan.match_new({"in-1": 2, "in-2": 3, "in-x": 1, "out": 1}) == ["in-2"]
    assert plan.source_topics() == ["in-1", "in-2"]
    assert plan.partitions["in-2"] == 3
    assert plan.task_of("in-2", 2) == TaskId(plan.group_of_topic["in-1"], 2)
    assert plan.match_new({"in-1": 2, "in-2": 3}) == []  # known topics are not added again


def test_a_new_topic_two_patterns_match_raises_and_leaves_the_plan_as_it_was():
    plan = _plan({"in-1": 1, "fa": 1})
    with pytest.raises(ks.TopologyError, match=re.escape(
            "Topic foo is already matched for another regex pattern f.* and hence cannot be "
            "matched to this regex pattern fo.*")):
        plan.match_new({"foo": 1})
    assert plan.source_topics() == ["fa", "in-1"]
