"""Bad input and bad code surface as located, actionable errors; nothing is dropped silently."""

from __future__ import annotations

import logging

import pytest

import kslab as ks
from kslab import serdes


class Boom(ks.Processor):
    def init(self, context):
        self.context = context

    def process(self, record):
        if record.value == "bad":
            raise ValueError("cannot handle bad")
        self.context.forward(record)


class AsksForStore(ks.Processor):
    def init(self, context):
        self.store = context.get_state_store("cuonts")

    def process(self, record):
        pass


def long_topology(**config_unused):
    topo = ks.Topology()
    topo.add_source("src", "in", key_serde="string", value_serde="long")
    topo.add_sink("out", "out", "src", key_serde="string", value_serde="long")
    return topo


def test_unreadable_bytes_raise_serde_error_naming_topic_partition_offset():
    with ks.TopologyTestDriver(long_topology()) as driver:
        good = driver.create_input_topic("in")
        bad = driver.create_input_topic("in", value_serde=serdes.String())
        good.pipe_input("k", 1, 0)
        with pytest.raises(ks.SerdeError) as info:
            bad.pipe_input("k", "abc", 1)
    err = info.value
    assert (err.topic, err.partition, err.offset) == ("in", 0, 1)
    assert err.raw == b"abc"
    assert "source 'src'" in str(err)
    assert "topic 'in', partition 0, offset 1" in str(err)
    assert "log_and_continue" in str(err)


def test_log_and_continue_skips_counts_and_logs(caplog):
    config = {"default.deserialization.exception.handler": "log_and_continue"}
    with ks.TopologyTestDriver(long_topology(), config) as driver:
        good = driver.create_input_topic("in")
        bad = driver.create_input_topic("in", value_serde=serdes.String())
        with caplog.at_level(logging.WARNING, logger="kslab.core"):
            good.pipe_input("a", 1, 0)
            bad.pipe_input("b", "abc", 1)
            good.pipe_input("c", 3, 2)
        out = driver.create_output_topic("out")
        assert out.read_key_values_to_list() == [("a", 1), ("c", 3)]
        assert driver.metrics()["0_0"]["dropped-records-total"] == 1
        assert driver.metrics()["0_0"]["process-total"] == 2
    assert any("offset 1" in r.getMessage() for r in caplog.records)


def test_log_and_continue_skips_bad_records_inside_one_piped_chunk(caplog):
    """One ``pipe_key_value_list`` chunk (the core's ``process_rows``): the rows the source
    cannot read are skipped, counted and logged at their own offsets, the rest go on in order."""
    config = {"default.deserialization.exception.handler": "log_and_continue"}
    eight = serdes.Long().serialize
    rows = [("a", eight("in", 1)), ("b", b"abc"), ("c", eight("in", 3)), ("d", b""),
            ("e", eight("in", 5))]
    with ks.TopologyTestDriver(long_topology(), config) as driver:
        raw = driver.create_input_topic("in", value_serde=serdes.Bytes())
        with caplog.at_level(logging.WARNING, logger="kslab.core"):
            raw.pipe_key_value_list(rows, 0, 1)
        out = driver.create_output_topic("out")
        assert out.read_key_values_to_list() == [("a", 1), ("c", 3), ("e", 5)]
        assert driver.metrics()["0_0"]["dropped-records-total"] == 2
        assert driver.metrics()["0_0"]["process-total"] == 3
    skipped = [r.getMessage() for r in caplog.records if "Skipping record" in r.getMessage()]
    assert [("offset 1" in m, "offset 3" in m) for m in skipped] == [(True, False),
                                                                    (False, True)]


def test_exception_in_processor_is_streams_error_with_record_and_node():
    topo = ks.Topology()
    topo.add_source("src", "in", key_serde="string", value_serde="string")
    topo.add_processor("boom", Boom, "src")
    topo.add_sink("out", "out", "boom", key_serde="string", value_serde="string")
    with ks.TopologyTestDriver(topo) as driver:
        inp = driver.create_input_topic("in")
        inp.pipe_input("k1", "fine", 0)
        with pytest.raises(ks.StreamsError) as info:
            inp.pipe_input("k2", "bad", 5)
    err = info.value
    assert (err.node, err.topic, err.partition, err.offset, err.key, err.value) == (
        "boom", "in", 0, 1, "k2", "bad"
    )
    assert isinstance(err.__cause__, ValueError)
    assert "processor=boom" in str(err)


def test_unknown_store_names_processor_and_visible_stores():
    topo = ks.Topology()
    topo.add_source("src", "in")
    topo.add_processor("p", AsksForStore, "src")
    topo.add_state_store(
        ks.Stores.key_value_store_builder(ks.Stores.in_memory_key_value_store("counts"),
                                          "string", "long"),
        "p",
    )
    with pytest.raises(ks.StoreError) as info:
        ks.TopologyTestDriver(topo)
    assert "'p'" in str(info.value)
    assert "cuonts" in str(info.value)
    assert "['counts']" in str(info.value)


def test_store_not_connected_to_processor_is_named():
    class UsesOther(ks.Processor):
        def init(self, context):
            context.get_state_store("other")

        def process(self, record):
            pass

    topo = ks.Topology()
    topo.add_source("src", "in")
    topo.add_processor("p", UsesOther, "src")
    topo.add_processor("q", Boom, "src")
    topo.add_state_store(
        ks.Stores.key_value_store_builder(ks.Stores.in_memory_key_value_store("other"),
                                          "string", "long"),
        "q",
    )
    with pytest.raises(ks.StoreError, match="not connected to the processor"):
        ks.TopologyTestDriver(topo)


def test_sink_serde_mismatch_names_sink_and_topic():
    topo = ks.Topology()
    topo.add_source("src", "in", key_serde="string", value_serde="string")
    topo.add_sink("out", "numbers", "src", key_serde="string", value_serde="long")
    with ks.TopologyTestDriver(topo) as driver, pytest.raises(ks.SerdeError) as info:
        driver.create_input_topic("in").pipe_input("k", "not a number", 0)
    assert "sink 'out'" in str(info.value)
    assert "'numbers'" in str(info.value)


def test_unknown_input_topic_lists_what_the_topology_reads():
    # as in Kafka, the topic object is made; piping into it fails
    with ks.TopologyTestDriver(long_topology()) as driver:
        topic = driver.create_input_topic("nope")
        with pytest.raises(ks.KslabError, match=r"^Unknown topic: nope; .*\['in'\]"):
            topic.pipe_input(1, 1)


def test_a_topic_name_that_is_not_a_str_is_refused_naming_the_maker_and_the_value():
    with ks.TopologyTestDriver(long_topology()) as driver:
        with pytest.raises(ks.MissingArgumentError,
                           match=r"^create_output_topic needs a topic name; got None$"):
            driver.create_output_topic(None)
        with pytest.raises(ks.MissingArgumentError,
                           match=r"^TestInputTopic needs a topic name \(str\); got int 5$"):
            ks.TestInputTopic(driver, 5, serdes.Long(), serdes.Long())
        with pytest.raises(ks.MissingArgumentError,
                           match=r"^TestOutputTopic needs a topic name \(str\); got bytes b'out'$"):
            ks.TestOutputTopic(driver, b"out", serdes.Long(), serdes.Long())


def test_reading_empty_output_topic_raises_no_such_element():
    with ks.TopologyTestDriver(long_topology()) as driver:
        out = driver.create_output_topic("out")
        with pytest.raises(ks.NoSuchElementError):
            out.read_value()
        assert out.read_values_to_list() == []


def test_negative_timestamp_is_refused_with_a_fix():
    """Refused by the input topic, as Java's ``TestRecord`` refuses it, not by the topology."""
    with ks.TopologyTestDriver(long_topology()) as driver:
        topic = driver.create_input_topic("in")
        for pipe in (lambda: topic.pipe_input("k", 1, -5),
                     lambda: topic.pipe_input("k", 1, timestamp=-5)):
            with pytest.raises(ks.InvalidArgumentError, match=r"^Invalid timestamp: -5\. .*>= 0"):
                pipe()
        assert driver.history == []


def test_unknown_config_key_suggests_the_right_one():
    with pytest.raises(ks.KslabError, match=r"did you mean 'application\.id'"):
        ks.TopologyTestDriver(long_topology(), {"aplication.id": "x"})


def test_forward_to_unknown_child_names_children():
    class ToChild(ks.Processor):
        def init(self, context):
            self.context = context

        def process(self, record):
            self.context.forward(record, child_name="nope")

    topo = ks.Topology()
    topo.add_source("src", "in")
    topo.add_processor("p", ToChild, "src")
    topo.add_sink("a", "a", "p")
    with ks.TopologyTestDriver(topo) as driver, pytest.raises(
        ks.StreamsError, match=r"Unknown downstream node: 'nope'.*'a'"
    ):
        driver.create_input_topic("in").pipe_input("k", "v", 0)


def test_a_value_the_input_serde_refuses_mid_list_pipes_the_rows_before_it_and_names_it():
    """``pipe_value_list`` serializes a chunk at once; a value the serde refuses in its third
    chunk pipes every row before it (processed, in the history) and raises the serde's error
    for that row; nothing after it is piped."""
    topo = ks.Topology()
    topo.add_source("src", "in", key_serde="string", value_serde="string")
    topo.add_sink("out", "out", "src", key_serde="string", value_serde="string")
    values: list[object] = [f"v{i}" for i in range(700)]
    values[600] = 600
    with ks.TopologyTestDriver(topo) as driver:
        with pytest.raises(ks.SerdeError, match=r"input topic 'in' cannot serialize value 600"):
            driver.create_input_topic("in").pipe_value_list(values, 0, 1)
        out = driver.create_output_topic("out").read_values_to_list()
        assert out == values[:600]
        assert len(driver.history) == 600
