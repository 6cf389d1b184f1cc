"""Kafka's ``KStreamSplitTest``, translated to kslab's ``split`` / ``BranchedKStream``.

As in Java, every test builds the topology twice (once bare, once for the driver).
``testTypeVariance`` checks Java generics only; it becomes "the program builds". Nothing skipped.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes

TOPIC = "topic"
PROPS = {"application.id": "kstream-split-test", "default.key.serde": "string",
         "default.value.serde": "string"}
INT, STR = serdes.Integer(), serdes.String()


def is_even(key, value):
    return key % 2 == 0


def is_multiple_of_three(key, value):
    return key % 3 == 0


def is_multiple_of_five(key, value):
    return key % 5 == 0


def is_multiple_of_seven(key, value):
    return key % 7 == 0


def is_negative(key, value):
    return key < 0


@pytest.fixture
def builder():
    return ks.StreamsBuilder()


@pytest.fixture
def source(builder):
    return builder.stream(TOPIC, ks.Consumed.with_(INT, STR))


def with_driver(builder, test):
    topology = builder.build()
    with ks.TopologyTestDriver(topology, PROPS) as driver:
        inp = driver.create_input_topic(TOPIC, INT, STR)
        for key in [-1, 0, 1, 2, 3, 4, 5, 6, 7]:
            inp.pipe_input(key, f"V{key}")
        test(driver)


def test_k_stream_split(builder, source):
    # testKStreamSplit
    branches = (source.split()
                .branch(is_even, ks.Branched.with_consumer(lambda s: s.to("x2")))
                .branch(is_multiple_of_three, ks.Branched.with_consumer(lambda s: s.to("x3")))
                .branch(is_multiple_of_five, ks.Branched.with_consumer(lambda s: s.to("x5")))
                .no_default_branch())
    assert len(branches) == 0
    builder.build()

    def check(driver):
        x2 = driver.create_output_topic("x2", INT, STR)
        x3 = driver.create_output_topic("x3", INT, STR)
        x5 = driver.create_output_topic("x5", INT, STR)
        assert x2.read_values_to_list() == ["V0", "V2", "V4", "V6"]
        assert x3.read_values_to_list() == ["V3"]
        assert x5.read_values_to_list() == ["V5"]

    with_driver(builder, check)


def test_type_variance():
    # testTypeVariance
    builder = ks.StreamsBuilder()
    (builder.stream("empty").split()
     .branch(lambda key, value: key > 0)
     .branch(lambda key, value: key < 0))
    builder.build()


def test_resulting_map(builder, source):
    # testResultingMap
    branches = (source.split(ks.Named.as_("foo-"))
                .branch(is_even, ks.Branched.as_("bar"))
                .branch(is_multiple_of_three, ks.Branched.with_consumer(lambda s: None))
                .branch(is_multiple_of_five, ks.Branched.with_function(lambda s: None))
                .branch(is_negative, ks.Branched.with_function(lambda s: s))
                .branch(is_multiple_of_seven)
                .default_branch())
    assert len(branches) == 4
    for name, branch in branches.items():
        branch.to(name)
    builder.build()

    def check(driver):
        even = driver.create_output_topic("foo-bar", INT, STR)
        negative = driver.create_output_topic("foo-4", INT, STR)
        x7 = driver.create_output_topic("foo-5", INT, STR)
        default_branch = driver.create_output_topic("foo-0", INT, STR)
        assert even.read_values_to_list() == ["V0", "V2", "V4", "V6"]
        assert negative.read_values_to_list() == ["V-1"]
        assert x7.read_values_to_list() == ["V7"]
        assert default_branch.read_values_to_list() == ["V1"]

    with_driver(builder, check)


def test_branching_with_no_terminal_operation(builder, source):
    # testBranchingWithNoTerminalOperation
    output_topic_name = "output"
    (source.split()
     .branch(is_even, ks.Branched.with_consumer(lambda s: s.to(output_topic_name)))
     .branch(is_multiple_of_five, ks.Branched.with_consumer(lambda s: s.to(output_topic_name))))
    builder.build()

    def check(driver):
        output_topic = driver.create_output_topic(output_topic_name, INT, STR)
        assert output_topic.read_values_to_list() == ["V0", "V2", "V4", "V5", "V6"]

    with_driver(builder, check)
